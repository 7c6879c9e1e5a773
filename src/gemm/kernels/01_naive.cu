// Rung 1: naive, one thread per C element.
//
// Idea: the plainest parallel GEMM. Each thread owns one element C(i, j) and walks the k loop,
// reading op(A)(i, p) and op(B)(p, j) straight from global memory.
// Mapping: threadIdx.x walks the *columns* j of C. That is how one writes it when thinking "x is
// the horizontal axis", and it is exactly wrong for column-major storage: the 32 threads of a warp
// touch 32 different columns, so each B(p, j) load and each C store of the warp is 32 separate
// memory transactions (stride ldb / ldc), while A(i, p) is one broadcast. Rung 2 fixes only that.
// Seeds: 001 v1 (one thread per element, 32x32 blocks). Seed 000 §3.5.3 is the 4x4-per-thread
// variant of the same idea (rung 3).
// Measured effect (H200, 2026-11-22, `gemmlab bench --dtype f32,f64` from scripts/gpu-check.sh,
// row-major nn): f32 1024^3 483 GFLOP/s (2% of cuBLAS), 4096^3 498 GFLOP/s (1% of cuBLAS);
// f64 1024^3 471 GFLOP/s (1% of cuBLAS), 4096^3 486 GFLOP/s (1% of cuBLAS). Comparison with the rung before it: docs/ladder.md.

#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kNaiveTile = 32; // 32 x 32 = 1024 threads per block, as in seed 001 v1

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kNaiveTile * kNaiveTile) naive_kernel(GemmArgs<T> g, bool swapped) {
    int64_t tile_j, tile_i; // column tiles on x, row tiles on y (swapped for a very tall C)
    block_tile(swapped, tile_j, tile_i);
    const int64_t j = tile_j * kNaiveTile + threadIdx.x; // column of C
    const int64_t i = tile_i * kNaiveTile + threadIdx.y; // row of C
    if (i >= g.m || j >= g.n) return;
    T acc = 0;
    for (int64_t p = 0; p < g.k; ++p)
        acc += op_at<TransA>(g.A, g.lda, i, p) * op_at<TransB>(g.B, g.ldb, p, j);
    store_c(g.C, g.ldc, i, j, acc, g.alpha, g.beta);
}

} // namespace

template <class T>
void launch_naive(const GemmArgs<T>& g, cudaStream_t stream) {
    const dim3 block(kNaiveTile, kNaiveTile);
    const LaunchGrid grid = tile_grid(ceil_div(g.n, kNaiveTile), ceil_div(g.m, kNaiveTile));
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        naive_kernel<T, TA, TB><<<grid.dims, block, 0, stream>>>(g, grid.swapped);
    });
    GEMMLAB_CHECK_LAUNCH();
}

template void launch_naive<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_naive<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
