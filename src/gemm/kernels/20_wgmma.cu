// Rung 20: warpgroup MMA (wgmma), the first BF16/FP16 rung on Hopper's own tensor-core path.
//
// Idea: mma.sync (rung 19) has each warp load its operand fragments into registers and issue
// 16x8x16 products; on sm_90 that path reaches only part of the tensor cores' rate. wgmma has a
// warpgroup (4 warps, 128 threads) issue one 64 x N x 16 product (here N = 128) that reads A
// and B straight from shared memory through 64-bit matrix descriptors, runs asynchronously
// (wgmma.fence / commit_group / wait_group) and accumulates in registers. The shared tiles use
// the 128-byte swizzle the descriptors describe (hopper_gemm.cuh): 16-byte chunk c of row r at
// c ^ (r % 8).
// This rung keeps everything else simple so that the MMA is the one change: two consumer
// warpgroups (128 x 128 block tile, each 64 x 128), all 256 threads copy the next tiles with
// 16-byte cp.async into a 4-stage ring, computing the swizzled address of every chunk, and a
// block barrier per k tile hands stages from copies to wgmma.
// Changed from rung 19: the MMA instruction and its operand path (descriptors instead of
// ldmatrix fragments), the swizzled layout. Operands whose base or columns are not 16-byte
// aligned take rung 19's kernel.
// Measured: docs/ladder.md (the ncu evidence: HGMMA in SASS, tensor pipe utilisation).

#include "gemm/kernels/hopper_gemm.cuh"

namespace gemmlab::detail {

using WgmmaPlan = hopper::Plan<128, 128, 4, hopper::Feed::CpAsync, /*Specialized=*/false,
                               /*Cluster=*/1, /*Persistent=*/false>;

template <class TIn, class TOut>
void launch_wgmma(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_or_fallback<WgmmaPlan>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_wgmma)

} // namespace gemmlab::detail
