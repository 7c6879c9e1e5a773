// Rung 24: a persistent grid: one block per SM looping over output tiles.
//
// Idea: with one block per tile, every block pays its prologue (barrier setup, tensor-map
// fetch, filling the pipeline) and its epilogue with the tensor cores idle, and the last wave
// leaves SMs empty. Here the grid is the SM count; block b takes tiles b, b + grid, ... in the
// grouped order (8 tile rows at a time, so the blocks running together share B columns in L2).
// The producer warpgroup runs ahead across tile boundaries: while the consumers store one
// tile's accumulators (alpha/beta applied in registers), the first stages of the next tile are
// already loading, so the epilogue overlaps the next tile's copies.
// Built on rung 22, not 23: the 2-block clusters of rung 23 measured slower on the H100
// (docs/ladder.md), so the fastest persistent form keeps single blocks.
// Measured: docs/ladder.md.

#include "gemm/kernels/hopper_gemm.cuh"

namespace gemmlab::detail {

using PersistentPlan = hopper::Plan<128, 256, 4, hopper::Feed::Tma, /*Specialized=*/true,
                                    /*Cluster=*/1, /*Persistent=*/true>;

template <class TIn, class TOut>
void launch_persistent(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_or_fallback<PersistentPlan>(g, stream);
}

template <class TIn, class TOut>
void launch_persistent_split(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    hopper::launch_or_fallback<PersistentPlan>(g, stream, splits);
}

GEMMLAB_INSTANTIATE_HALF(launch_persistent)
GEMMLAB_INSTANTIATE_HALF_SPLIT(launch_persistent_split)

} // namespace gemmlab::detail
