// Rung 9: 4x4 thread tile, a register outer product per thread.
//
// Idea: each thread computes a 4x4 block of C. Per k it reads 4 values of op(A) and 4 of op(B)
// from shared memory into registers and does 16 FMAs with them (seed 000's MAC_4x4): 8 reads
// feed 16 multiply-adds, where rung 7's 8x1 column needed 9 reads for 8, so shared-memory
// traffic per FMA halves. A 64x64 block tile with k depth 16 and 256 threads (16 x 16 threads
// of 4x4) keeps every thread busy.
// Changed from rung 8: the micro-kernel grows from rung 7/8's column of 8 results per thread
// (one B value reused 8 times) to a 4x4 outer product (every A and B value reused 4 times), and
// the block tile's k depth from 8 to 16. Global loads stay 16-byte vectors where the pointers
// and leading dimensions allow, scalar otherwise.
// Seeds: 001 v7 (64x64x16 tile, 4x4 micro-kernel, 256 threads), 000 §3.5.4 (MAC_4x4, register
// reuse).
// Measured effect (H200, 2026-11-22, `gemmlab bench --dtype f32,f64` from scripts/gpu-check.sh,
// row-major nn): f32 1024^3 23,638 GFLOP/s (78% of cuBLAS), 4096^3 30,188 GFLOP/s (61% of cuBLAS);
// f64 1024^3 10,286 GFLOP/s (27% of cuBLAS), 4096^3 11,307 GFLOP/s (20% of cuBLAS). Comparison with the rung before it: docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

using Block44 = tile::GemmShape<64, 64, 16>; // block tile (BM, BN, BK)
constexpr int kTM44 = 4, kTN44 = 4;          // thread tile
constexpr int kThreads44 = (Block44::kM / kTM44) * (Block44::kN / kTN44);
static_assert(kThreads44 == 256, "64x64 block tile of 4x4 thread tiles is 256 threads");

/// Multiply-accumulate stage: the whole (BK) depth of one shared tile pair, one 4x4 outer
/// product per k. `a_row` / `b_row` point at this thread's 4 values in row k = 0.
template <class T, int BK, int LDA, int LDB>
__device__ __forceinline__ void mma_tile(T (&acc)[kTM44][kTN44], const T* a_row, const T* b_row) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        T a[kTM44], b[kTN44];
        tile::load_fragment<T, kTM44, kTM44, kTM44>(a, a_row + k * LDA); // 4 consecutive m
        tile::load_fragment<T, kTN44, kTN44, kTN44>(b, b_row + k * LDB); // 4 consecutive n
        tile::outer_product(acc, a, b);
    }
}

template <class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(kThreads44) thread_tile_4x4_kernel(GemmArgs<T> g, bool swapped) {
    constexpr int BM = Block44::kM, BN = Block44::kN, BK = Block44::kK;
    using LoadA = tile::GmemTileLoader<T, BM, BK, kThreads44, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, BN, BK, kThreads44, /*KContig=*/!TransB, Vec>;
    __shared__ __align__(16) T As[BK * LoadA::LD]; // (BK, BM + pad): op(A) tile, k-major
    __shared__ __align__(16) T Bs[BK * LoadB::LD]; // (BK, BN + pad): op(B) tile, k-major

    const int tid = threadIdx.x;
    const int tm = tid % (BM / kTM44); // thread's row block: rows tm*4 .. tm*4+3 of the tile
    const int tn = tid / (BM / kTM44); // thread's column block
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    LoadA load_a(g.A, g.lda, g.m, row0, tid);
    LoadB load_b(g.B, g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // staged global values
    T acc[kTM44][kTN44] = {};             // (TM, TN) accumulators

    for (int64_t k_left = g.k; k_left > 0; k_left -= BK) {
        // gmem -> smem
        const int depth = tile::tile_depth<BK>(k_left);
        load_a.load(ra, depth);
        load_b.load(rb, depth);
        load_a.store(As, ra);
        load_b.store(Bs, rb);
        __syncthreads();
        // smem -> registers -> FMA
        mma_tile<T, BK, LoadA::LD, LoadB::LD>(acc, As + tm * kTM44, Bs + tn * kTN44);
        __syncthreads(); // the tile may be overwritten only after everyone has read it
        load_a.advance();
        load_b.advance();
    }

    // epilogue
    tile::store_tile<T, Vec, kTM44, kTN44, kTM44, kTM44, kTN44, kTN44>(g, acc, row0 + tm * kTM44,
                                                                       col0 + tn * kTN44);
}

} // namespace

template <class T>
void launch_thread_tile_4x4(const GemmArgs<T>& g, cudaStream_t stream) {
    const auto tg = tile::make_tile_grid(g.m, g.n, Block44::kM, Block44::kN);
    const bool vec = tile::vector_ok(g);
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        if (vec) thread_tile_4x4_kernel<T, TA, TB, true><<<tg.dims, kThreads44, 0, stream>>>(g, tg.swapped);
        else thread_tile_4x4_kernel<T, TA, TB, false><<<tg.dims, kThreads44, 0, stream>>>(g, tg.swapped);
    });
    GEMMLAB_CHECK_LAUNCH();
}

template void launch_thread_tile_4x4<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_thread_tile_4x4<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
