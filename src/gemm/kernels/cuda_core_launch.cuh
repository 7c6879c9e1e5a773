#pragma once
// The one launcher of the CUDA-core rungs 1-12: each rung file names its grid, its block and
// which instantiation of its kernel fits the call, and launch_rung does the rest (the op
// dispatch, the launch on the caller's stream, the launch check). Rungs 13-14 launch through
// tile::launch_block_tiled (tile_common.cuh), which adds dynamic shared memory and batches.

#include "gemm/kernels/common.cuh"

namespace gemmlab::detail {

/// The parameters of every rung 1-12 kernel: the problem by value and whether the grid's x and
/// y tiles are swapped (LaunchGrid::swapped, tile_grid.hpp).
template <class T>
using RungKernel = void (*)(GemmArgs<T>, bool);

/// The call's op flags as a type: what launch_rung hands to a rung's kernel choice.
template <bool TransA, bool TransB>
struct OpFlags {};

/// Enqueues one rung 1-12 kernel on `stream`: `pick(OpFlags<TransA, TransB>{})` returns the
/// RungKernel<T> for the call's op flags (and for whatever run-time choice the rung
/// makes, such as its 16-byte path), launched over `grid` with `block` threads and no dynamic
/// shared memory. Throws CudaFailure if the launch is rejected.
template <class T, class Pick>
void launch_rung(const GemmArgs<T>& g, const LaunchGrid& grid, dim3 block, cudaStream_t stream,
                 Pick&& pick) {
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        const RungKernel<T> kernel = pick(OpFlags<TA, TB>{});
        kernel<<<grid.dims, block, 0, stream>>>(g, grid.swapped);
    });
    GEMMLAB_CHECK_LAUNCH();
}

} // namespace gemmlab::detail
