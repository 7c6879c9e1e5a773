// Rung 11: interleaved shared-memory reads (the 8x8 thread tile split into strided vectors).
//
// Idea: keep rung 10's 8x8 thread tile, but stop giving a thread 8 *consecutive* rows. In
// rung 10, the 16 threads of a warp that read A at one k ask for 16-byte vectors 32 bytes apart:
// 512 bytes of addresses for 256 bytes of data, so every read of A costs twice the
// shared-memory wavefronts it needs (a 2-way bank conflict). Here a thread's 8 rows are two
// runs of 4 (float): rows 4t .. 4t+3 and 4t+64 .. 4t+67 (for double, four runs of 2 at stride
// 32), and the same for columns. Now the 16 threads read 16 *adjacent* vectors: one contiguous
// 256-byte span, no conflict. The arithmetic is unchanged; only which C elements a thread owns.
// This is the "0, 1, +32, +33" read pattern of the DCU GEMM walk-through.
// Changed from rung 10: the thread-tile layout (rows/columns tm*8 + i  ->  tm*V + r*16V + i),
// in the fragment loads and in the epilogue; nothing else.
// Source (docs/sources.md): DCU GEMM 3.5.7-3.5.8.
// Measurements and the bank-conflict counters of rungs 10 and 11: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

using BlockIl = tile::GemmShape<128, 128, 8>; // block tile (BM, BN, BK)
constexpr int kTMIl = 8, kTNIl = 8;           // thread tile
constexpr int kThreadsMIl = BlockIl::kM / kTMIl; // 16 threads along m
constexpr int kThreadsIl = kThreadsMIl * (BlockIl::kN / kTNIl);
static_assert(kThreadsIl == 256, "128x128 block tile of 8x8 thread tiles is 256 threads");

/// The interleaved thread-tile layout: runs of one 16-byte vector (V elements), run r of
/// thread t at t*V + r*Stride, with Stride = 16 threads * V so that the 16 threads' runs tile
/// a contiguous span.
template <class T>
struct InterleavedLayout {
    static constexpr int kRun = tile::kVecWidth<T>;       // 4 floats or 2 doubles
    static constexpr int kStride = kThreadsMIl * kRun;    // 64 floats or 32 doubles
    static_assert(kTMIl % kRun == 0 && kStride * (kTMIl / kRun) == BlockIl::kM,
                  "the runs of 16 threads must tile the block's 128 rows exactly");
    static_assert(BlockIl::kM == BlockIl::kN && kTMIl == kTNIl, "rows and columns share the layout");
};

/// Multiply-accumulate stage over one (BK) deep shared tile pair, reading each side as
/// strided 16-byte runs.
template <class T, int BK, int LDA, int LDB>
__device__ __forceinline__ void mma_tile(T (&acc)[kTMIl][kTNIl], const T* a_row, const T* b_row) {
    using L = InterleavedLayout<T>;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        T a[kTMIl], b[kTNIl];
        tile::load_fragment<T, kTMIl, L::kRun, L::kStride>(a, a_row + k * LDA);
        tile::load_fragment<T, kTNIl, L::kRun, L::kStride>(b, b_row + k * LDB);
        tile::outer_product(acc, a, b);
    }
}

template <class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(kThreadsIl) smem_interleaved_reads_kernel(GemmArgs<T> g, bool swapped) {
    constexpr int BM = BlockIl::kM, BN = BlockIl::kN, BK = BlockIl::kK;
    using L = InterleavedLayout<T>;
    using LoadA = tile::GmemTileLoader<T, BM, BK, kThreadsIl, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, BN, BK, kThreadsIl, /*KContig=*/!TransB, Vec>;
    __shared__ __align__(16) T As[BK * LoadA::LD]; // (BK, BM + pad): op(A) tile, k-major
    __shared__ __align__(16) T Bs[BK * LoadB::LD]; // (BK, BN + pad): op(B) tile, k-major

    const int tid = threadIdx.x;
    const int tm = tid % kThreadsMIl; // rows tm*V + r*Stride + (0 .. V-1)
    const int tn = tid / kThreadsMIl; // columns likewise
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    LoadA load_a(g.A, g.lda, g.m, row0, tid);
    LoadB load_b(g.B, g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // staged global values
    T acc[kTMIl][kTNIl] = {};             // (TM, TN) accumulators

    for (int64_t k_left = g.k; k_left > 0; k_left -= BK) {
        // gmem -> smem
        const int depth = tile::tile_depth<BK>(k_left);
        load_a.load(ra, depth);
        load_b.load(rb, depth);
        load_a.store(As, ra);
        load_b.store(Bs, rb);
        __syncthreads();
        // smem -> registers -> FMA
        mma_tile<T, BK, LoadA::LD, LoadB::LD>(acc, As + tm * L::kRun, Bs + tn * L::kRun);
        __syncthreads(); // the tile may be overwritten only after everyone has read it
        load_a.advance();
        load_b.advance();
    }

    // epilogue
    tile::store_tile<T, Vec, kTMIl, kTNIl, L::kRun, L::kStride, L::kRun, L::kStride>(
        g, acc, row0 + tm * L::kRun, col0 + tn * L::kRun);
}

} // namespace

template <class T>
void launch_smem_interleaved_reads(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile::make_tile_grid(g.m, g.n, BlockIl::kM, BlockIl::kN);
    const bool vec = tile::vector_ok(g);
    launch_rung(g, grid, dim3(kThreadsIl), stream,
                [vec]<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    if (vec) return smem_interleaved_reads_kernel<T, TA, TB, true>;
                    return smem_interleaved_reads_kernel<T, TA, TB, false>;
                });
}

template void launch_smem_interleaved_reads<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_smem_interleaved_reads<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
