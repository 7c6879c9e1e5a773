// Rung 21: operands loaded by the Tensor Memory Accelerator (TMA), stages handed over on
// mbarriers.
//
// Idea: in rung 20 every thread spends instructions and registers computing swizzled addresses
// and issuing 16-byte cp.async, and a block-wide barrier per k tile makes the MMA wait for the
// slowest copy. TMA moves a whole 2-D box (64 k x BM rows of A, or 64 m x 64 k for an MN-major
// panel) with one instruction issued by one thread, swizzles it on the way (the tensor map says
// SWIZZLE_128B) and zero-fills whatever lies outside the matrix, so edge tiles need no code.
// Tensor maps are built on the host per call (cuTensorMapEncodeTiled, reached through
// cudaGetDriverEntryPointByVersion: no link-time libcuda) and passed as __grid_constant__
// parameters. Completion is counted in bytes on a per-stage "full" mbarrier; consumers free a
// stage on an "empty" mbarrier after the wgmma reading it retired (wait_group 1), and thread 0
// refills it: no block barrier in the main loop, and one wgmma group stays in flight across
// iterations.
// Changed from rung 20: the copies (TMA instead of cp.async), the synchronization (mbarriers
// instead of __syncthreads), wgmma overlapped with the next stage's wait.
// Measured: docs/ladder.md.

#include "gemm/kernels/hopper_gemm.cuh"

namespace gemmlab::detail {

using TmaPlan = hopper::Plan<128, 128, 4, hopper::Feed::Tma, /*Specialized=*/false, /*Cluster=*/1,
                             /*Persistent=*/false>;

template <class TIn, class TOut>
void launch_tma(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_or_fallback<TmaPlan>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_tma)

} // namespace gemmlab::detail
