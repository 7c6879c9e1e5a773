// Rung 10: 8x8 thread tile on a 128x128x8 block tile, read from shared memory as vectors.
//
// Idea: double the thread tile again. Each thread now owns 8x8 elements of C, so per k it
// reads 8 values of op(A) and 8 of op(B) for 64 FMAs (4 FMAs per shared-memory element instead
// of 2), and the 8 consecutive values of each side come out of shared memory as two 16-byte
// loads (LDS.128) instead of eight 4-byte ones. 256 threads (16 x 16) now cover a 128x128
// block tile; the k depth per stage drops to 8 to keep shared memory at 8 KB (float).
// Changed from rung 9: block tile 64x64x16 -> 128x128x8, thread tile 4x4 -> 8x8, fragment
// loads are explicitly 16-byte vectors. The thread layout is still "thread t owns rows
// 8*(t % 16) .. 8*(t % 16) + 7": a warp's 16-byte reads of A are spread 32 bytes apart, which
// costs shared-memory bank conflicts that rung 11 removes.
// Seeds: 001 v8 (128x128x8 tile, 8x8 micro-kernel, 256 threads).
// Measured effect (H200, 2026-11-22, `gemmlab bench --dtype f32,f64` from scripts/gpu-check.sh,
// row-major nn): f32 1024^3 14,251 GFLOP/s (47% of cuBLAS), 4096^3 36,064 GFLOP/s (72% of cuBLAS);
// f64 1024^3 5,552 GFLOP/s (14% of cuBLAS), 4096^3 10,443 GFLOP/s (19% of cuBLAS). Comparison with the rung before it: docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

using Block88 = tile::GemmShape<128, 128, 8>; // block tile (BM, BN, BK)
constexpr int kTM88 = 8, kTN88 = 8;           // thread tile
constexpr int kThreadsM88 = Block88::kM / kTM88; // 16 threads along m
constexpr int kThreads88 = kThreadsM88 * (Block88::kN / kTN88);
static_assert(kThreads88 == 256, "128x128 block tile of 8x8 thread tiles is 256 threads");

/// Multiply-accumulate stage over one (BK) deep shared tile pair: per k, 8 consecutive m and
/// 8 consecutive n values (each two or four 16-byte loads) and one 8x8 outer product.
template <class T, int BK, int LDA, int LDB>
__device__ __forceinline__ void mma_tile(T (&acc)[kTM88][kTN88], const T* a_row, const T* b_row) {
#pragma unroll
    for (int k = 0; k < BK; ++k) {
        T a[kTM88], b[kTN88];
        tile::load_fragment<T, kTM88, kTM88, kTM88>(a, a_row + k * LDA);
        tile::load_fragment<T, kTN88, kTN88, kTN88>(b, b_row + k * LDB);
        tile::outer_product(acc, a, b);
    }
}

template <class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(kThreads88) thread_tile_8x8_kernel(GemmArgs<T> g, bool swapped) {
    constexpr int BM = Block88::kM, BN = Block88::kN, BK = Block88::kK;
    using LoadA = tile::GmemTileLoader<T, BM, BK, kThreads88, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, BN, BK, kThreads88, /*KContig=*/!TransB, Vec>;
    __shared__ __align__(16) T As[BK * LoadA::LD]; // (BK, BM + pad): op(A) tile, k-major
    __shared__ __align__(16) T Bs[BK * LoadB::LD]; // (BK, BN + pad): op(B) tile, k-major

    const int tid = threadIdx.x;
    const int tm = tid % kThreadsM88; // rows tm*8 .. tm*8+7 of the block tile
    const int tn = tid / kThreadsM88; // columns tn*8 .. tn*8+7
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    LoadA load_a(g.A, g.lda, g.m, row0, tid);
    LoadB load_b(g.B, g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // staged global values
    T acc[kTM88][kTN88] = {};             // (TM, TN) accumulators

    for (int64_t k_left = g.k; k_left > 0; k_left -= BK) {
        // gmem -> smem
        const int depth = tile::tile_depth<BK>(k_left);
        load_a.load(ra, depth);
        load_b.load(rb, depth);
        load_a.store(As, ra);
        load_b.store(Bs, rb);
        __syncthreads();
        // smem -> registers -> FMA
        mma_tile<T, BK, LoadA::LD, LoadB::LD>(acc, As + tm * kTM88, Bs + tn * kTN88);
        __syncthreads(); // the tile may be overwritten only after everyone has read it
        load_a.advance();
        load_b.advance();
    }

    // epilogue
    tile::store_tile<T, Vec, kTM88, kTN88, kTM88, kTM88, kTN88, kTN88>(g, acc, row0 + tm * kTM88,
                                                                       col0 + tn * kTN88);
}

} // namespace

template <class T>
void launch_thread_tile_8x8(const GemmArgs<T>& g, cudaStream_t stream) {
    const auto tg = tile::make_tile_grid(g.m, g.n, Block88::kM, Block88::kN);
    const bool vec = tile::vector_ok(g);
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        if (vec) thread_tile_8x8_kernel<T, TA, TB, true><<<tg.dims, kThreads88, 0, stream>>>(g, tg.swapped);
        else thread_tile_8x8_kernel<T, TA, TB, false><<<tg.dims, kThreads88, 0, stream>>>(g, tg.swapped);
    });
    GEMMLAB_CHECK_LAUNCH();
}

template void launch_thread_tile_8x8<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_thread_tile_8x8<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
