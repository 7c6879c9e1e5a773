// Rung 25: TF32 on warpgroup MMA (opt-in precision, like rung 16).
//
// Idea: rung 16's arithmetic (inputs rounded to TF32 to nearest, exact products, FP32 sums;
// u = 2^-11) on rung 24's machinery: wgmma m64n256k8 .tf32 fed by TMA, a producer warpgroup and
// two consumer warpgroups, one persistent block per SM. wgmma reads TF32 only K-major and only
// already rounded. TMA rounds a 16-byte-aligned operand itself as it lands (a TFLOAT32 tensor
// map); wgmma reads it from shared memory where it is K-major, and an MN-major op(A) goes from
// shared memory into registers (wgmma's register-A form). Anything else (an MN-major op(B), an
// unaligned operand) is first rounded and written K-major to a workspace by a pack step
// (tf32_wgmma.cuh says why and what it costs); the kernel is then rung 24's with a 32-float k
// tile. Like rung 16 it runs when named or under `auto` with Precision::Tf32. Changed from
// rung 24: float inputs, rounded by TMA or the pack step, the TF32 wgmma (register-A for an
// MN-major op(A)), C in float stored from registers. Where TMA cannot address the problem or
// no workspace is left: rung 16.
// Measured: docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tf32_wgmma.cuh"

namespace gemmlab::detail {

namespace hopper {
/// 128 x 256 tiles, 4 stages of 48 KB: rung 24's plan.
using Tf32Plan = Plan<128, 256, 4, Feed::Tma, /*Specialized=*/true, /*Cluster=*/1, /*Persistent=*/true>;
} // namespace hopper

template <class T>
void launch_wgmma_tf32(const GemmArgs<T>& g, cudaStream_t stream) {
    if (!hopper::launch_packed<hopper::Tf32Plan, hopper::Tf32>(g, stream)) launch_tf32(g, stream);
}

template void launch_wgmma_tf32<float>(const GemmArgs<float>&, cudaStream_t);

void launch_wgmma_tf32_split(const GemmArgs<float>& g, cudaStream_t stream, int splits) {
    if (!hopper::launch_packed<hopper::Tf32Plan, hopper::Tf32>(g, stream, splits)) launch_tf32(g, stream);
}

} // namespace gemmlab::detail
