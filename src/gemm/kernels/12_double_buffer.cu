// Rung 12: double buffering, the next k tile is fetched while the current one is multiplied.
//
// Idea: in rungs 9-11 every k tile is a stop-and-go: issue the global loads, wait hundreds of
// cycles for them, store to shared memory, barrier, compute, barrier. Here the global loads of
// tile t+1 are issued into registers *before* the arithmetic on tile t, so their latency hides
// behind 512 FMAs per thread; after the arithmetic the registers go into the *other* of two
// shared-memory buffers. Because tile t+1 is written to a buffer nobody is reading, one barrier
// per k tile suffices (it both publishes tile t+1 and retires tile t). This is rung 4's register
// prefetch ("read the next group before computing the current one") applied to the
// shared-memory stage.
// Changed from rung 11: two shared buffers instead of one, the global loads move ahead of the
// multiply-accumulate, and one __syncthreads per k tile instead of two. Thread layout, tiles
// and epilogue are rung 11's.
// Source (docs/sources.md): DCU GEMM 3.5.5, 3.5.7.
// Measurements and the comparison with rung 11: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

using BlockDb = tile::GemmShape<128, 128, 8>; // block tile (BM, BN, BK)
constexpr int kTMDb = 8, kTNDb = 8;           // thread tile
constexpr int kThreadsMDb = BlockDb::kM / kTMDb; // 16 threads along m
constexpr int kThreadsDb = kThreadsMDb * (BlockDb::kN / kTNDb);
static_assert(kThreadsDb == 256, "128x128 block tile of 8x8 thread tiles is 256 threads");

/// Rung 11's interleaved layout: runs of one 16-byte vector, run r of thread t at t*V + r*16V.
template <class T>
struct InterleavedLayout {
    static constexpr int kRun = tile::kVecWidth<T>;
    static constexpr int kStride = kThreadsMDb * kRun;
    static_assert(kTMDb % kRun == 0 && kStride * (kTMDb / kRun) == BlockDb::kM,
                  "the runs of 16 threads must tile the block's 128 rows exactly");
    static_assert(BlockDb::kM == BlockDb::kN && kTMDb == kTNDb, "rows and columns share the layout");
};

/// Multiply-accumulate stage over one (BK) deep shared tile pair.
template <class T, int BK, int LDA, int LDB>
__device__ __forceinline__ void mma_tile(T (&acc)[kTMDb][kTNDb], const T* a_row, const T* b_row) {
    using L = InterleavedLayout<T>;
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        T a[kTMDb], b[kTNDb];
        tile::load_fragment<T, kTMDb, L::kRun, L::kStride>(a, a_row + k * LDA);
        tile::load_fragment<T, kTNDb, L::kRun, L::kStride>(b, b_row + k * LDB);
        tile::outer_product(acc, a, b);
    }
}

template <class T, bool TransA, bool TransB, bool Vec>
// Two blocks per SM for float (128 registers per thread): the prefetch registers would
// otherwise push the kernel just past 128 and halve the resident warps.
__global__ void __launch_bounds__(kThreadsDb, sizeof(T) == 4 ? 2 : 1) double_buffer_kernel(GemmArgs<T> g, bool swapped) {
    constexpr int BM = BlockDb::kM, BN = BlockDb::kN, BK = BlockDb::kK;
    using L = InterleavedLayout<T>;
    using LoadA = tile::GmemTileLoader<T, BM, BK, kThreadsDb, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, BN, BK, kThreadsDb, /*KContig=*/!TransB, Vec>;
    constexpr int kSizeA = BK * LoadA::LD, kSizeB = BK * LoadB::LD;
    __shared__ __align__(16) T As[2][kSizeA]; // 2 x (BK, BM + pad): op(A) tiles, k-major
    __shared__ __align__(16) T Bs[2][kSizeB]; // 2 x (BK, BN + pad): op(B) tiles, k-major

    const int tid = threadIdx.x;
    const int tm = tid % kThreadsMDb;
    const int tn = tid / kThreadsMDb;
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    LoadA load_a(g.A, g.lda, g.m, row0, tid);
    LoadB load_b(g.B, g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // next tile, in flight from global memory
    T acc[kTMDb][kTNDb] = {};             // (TM, TN) accumulators

    // Prologue: tile 0 into buffer 0.
    int64_t k_left = g.k; // k elements from the current tile's origin to the end of k
    load_a.load(ra, tile::tile_depth<BK>(k_left));
    load_b.load(rb, tile::tile_depth<BK>(k_left));
    load_a.store(As[0], ra);
    load_b.store(Bs[0], rb);
    __syncthreads();

    for (int cur = 0;; cur ^= 1) {
        k_left -= BK; // now counted from the next tile's origin
        const bool has_next = k_left > 0;
        // gmem -> registers for the next tile: issued now, consumed after the arithmetic.
        if (has_next) {
            load_a.advance();
            load_b.advance();
            load_a.load(ra, tile::tile_depth<BK>(k_left));
            load_b.load(rb, tile::tile_depth<BK>(k_left));
        }
        // smem -> registers -> FMA on the current tile.
        mma_tile<T, BK, LoadA::LD, LoadB::LD>(acc, As[cur] + tm * L::kRun, Bs[cur] + tn * L::kRun);
        if (!has_next) break;
        // registers -> the other buffer. Its last readers (the previous tile) all passed the
        // barrier that ended the previous iteration, so no second barrier is needed here.
        load_a.store(As[cur ^ 1], ra);
        load_b.store(Bs[cur ^ 1], rb);
        __syncthreads();
    }

    // epilogue
    tile::store_tile<T, Vec, kTMDb, kTNDb, L::kRun, L::kStride, L::kRun, L::kStride>(
        g, acc, row0 + tm * L::kRun, col0 + tn * L::kRun);
}

} // namespace

template <class T>
void launch_double_buffer(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile::make_tile_grid(g.m, g.n, BlockDb::kM, BlockDb::kN);
    const bool vec = tile::vector_ok(g);
    launch_rung(g, grid, dim3(kThreadsDb), stream,
                [vec]<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    if (vec) return double_buffer_kernel<T, TA, TB, true>;
                    return double_buffer_kernel<T, TA, TB, false>;
                });
}

template void launch_double_buffer<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_double_buffer<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
