// Rung 1: naive, one thread per C element.
//
// Idea: the plainest parallel GEMM. Each thread owns one element C(i, j) and walks the k loop,
// reading op(A)(i, p) and op(B)(p, j) straight from global memory.
// Mapping: threadIdx.x walks the *columns* j of C. That is how one writes it when thinking "x is
// the horizontal axis", and it is exactly wrong for column-major storage: the 32 threads of a warp
// touch 32 different columns, so each B(p, j) load and each C store of the warp is 32 separate
// memory transactions (stride ldb / ldc), while A(i, p) is one broadcast. Rung 2 fixes only that.
// Changed from rung 0 (cuBLAS, the yardstick): everything; this is the starting point.
// Source (docs/sources.md): SGEMM v1.
// Measurements and the comparison with the next rung: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kNaiveTile = 32; // 32 x 32 = 1024 threads per block

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
    // n tiles on x: threadIdx.x walks the columns of C (the header says why that is slow).
    const LaunchGrid grid = tile_grid(ceil_div(g.n, kNaiveTile), ceil_div(g.m, kNaiveTile));
    launch_rung(g, grid, dim3(kNaiveTile, kNaiveTile), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return naive_kernel<T, TA, TB>;
                });
}

template void launch_naive<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_naive<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
