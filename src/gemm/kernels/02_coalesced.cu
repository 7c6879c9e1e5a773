// Rung 2: coalesced, one thread per C element with the warp laid along C's columns.
//
// Idea: same arithmetic as rung 1, but threadIdx.x now walks the *rows* i of column-major C, so
// the 32 threads of a warp read 32 consecutive A(i, p) (one 128-byte line for float), share one
// broadcast B(p, j), and store 32 consecutive C(i, j). Global traffic per warp drops from 32
// transactions to one or two per access.
// Changed from rung 1: only the thread-to-element mapping (x <-> y swapped).
// Source (docs/sources.md): SGEMM v1.
// Measurements and the comparison with rung 1: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kCoalescedTile = 32;

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kCoalescedTile * kCoalescedTile) coalesced_kernel(GemmArgs<T> g, bool swapped) {
    int64_t tile_i, tile_j;
    block_tile(swapped, tile_i, tile_j);
    const int64_t i = tile_i * kCoalescedTile + threadIdx.x; // row of C: warp-contiguous
    const int64_t j = tile_j * kCoalescedTile + threadIdx.y; // column of C
    if (i >= g.m || j >= g.n) return;
    T acc = 0;
    for (int64_t p = 0; p < g.k; ++p)
        acc += op_at<TransA>(g.A, g.lda, i, p) * op_at<TransB>(g.B, g.ldb, p, j);
    store_c(g.C, g.ldc, i, j, acc, g.alpha, g.beta);
}

} // namespace

template <class T>
void launch_coalesced(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kCoalescedTile), ceil_div(g.n, kCoalescedTile));
    launch_rung(g, grid, dim3(kCoalescedTile, kCoalescedTile), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return coalesced_kernel<T, TA, TB>;
                });
}

template void launch_coalesced<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_coalesced<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
