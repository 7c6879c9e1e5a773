// Rung 29: FP8 (E4M3, E5M2) on warpgroup MMA, wgmma's short sums promoted into FP32.
//
// Idea: Hopper's FP8 wgmma (m64nNk32) runs at twice the BF16 rate, but sums its products in an
// accumulator that keeps about 14 significant bits, so over a long k the low bits of the result
// are lost. The math policy (MmaFp8, hopper/mma_8bit.cuh) lets wgmma sum only 128 values of k
// (one k tile, kFp8PromoteK) into an interval sum started from zero, then adds that into FP32
// registers with round-to-nearest adds. Two interval sums alternate, so the promotion of one
// interval runs while the next one's wgmma are on the tensor cores. The per-tensor or
// per-channel scales and alpha are applied once, in the epilogue (hopper/scaled_epilogue.cuh):
// C = alpha * s_a(i) s_b(j) * sum + beta * C, rounded once to C's type. Block-wise scales
// (DeepSeek-V3: op(A) per row and 128 k, op(B) per 128 x 128 block) cannot wait for the
// epilogue, as they change along k: the promotion multiplies each interval's sum by its k
// block's factors as it adds it, one FMA instead of one add (a kernel of its own: without block
// scales, none of that code is in the k loop). An FP8 C saturates, with an output
// scale and the amax of the result (cuBLASLt's D). Error bound: docs/precision.md ("FP8").
// Changed from rung 24: FP8 operands (byte tensor maps, 128 values per k tile), the promoting
// policy and 128 x 128 tiles (the interval sums need the registers n256 would take), six stages
// of 32 KB, the scaled epilogue (through shared memory by TMA where it can, as rung 24 stores a
// 16-bit C; from registers otherwise), run while the next tile's first k tile is on the tensor
// cores (the wgmma write only the interval sums, so acc is free to store). Single blocks, not
// rung 23's pairs sharing A by multicast: the pairs measured slower (the consumers' instruction
// stream bounds this kernel, not L2; docs/ladder.md). wgmma reads 8-bit operands K-major
// only: other layouts and unaligned rows are first copied K-major (hopper/pack_8bit.cuh).
// Measured: docs/ladder.md.

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/mma_8bit.cuh"
#include "gemm/kernels/hopper/pack_8bit.cuh"
#include "gemm/kernels/hopper/scaled_epilogue.cuh"

namespace gemmlab::detail {

/// Values of k that wgmma sums before the sum is promoted into FP32 (a multiple of the 128 of a
/// k tile): docs/precision.md ("FP8") derives the bound from it.
inline constexpr int kFp8PromoteK = 128;

namespace {
struct WgmmaFp8Rung {
    using Config = hopper::Fp8Config;
    using Cluster = hopper::SingleBlock;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::TmaLoads<Cfg, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = hopper::ScaledEpilogue;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<WgmmaFp8Rung, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class TA, class TB, class TOut>
void launch_wgmma_fp8(const QuantArgs& g, cudaStream_t stream) {
    if (g.blocks.a)
        hopper::launch_8bit<WgmmaFp8Rung, hopper::MmaFp8<TA, TB, kFp8PromoteK, true>, TOut>(g, stream);
    else
        hopper::launch_8bit<WgmmaFp8Rung, hopper::MmaFp8<TA, TB, kFp8PromoteK, false>, TOut>(g, stream);
}

// The input pairs cuBLASLt accepts (E5M2 x E5M2 is not one of them), each with C in BF16, FP16,
// float, E4M3 or E5M2.
#define GEMMLAB_INSTANTIATE_FP8(TA, TB)                                                            \
    template void launch_wgmma_fp8<TA, TB, __nv_bfloat16>(const QuantArgs&, cudaStream_t);         \
    template void launch_wgmma_fp8<TA, TB, __half>(const QuantArgs&, cudaStream_t);                \
    template void launch_wgmma_fp8<TA, TB, float>(const QuantArgs&, cudaStream_t);                 \
    template void launch_wgmma_fp8<TA, TB, __nv_fp8_e4m3>(const QuantArgs&, cudaStream_t);         \
    template void launch_wgmma_fp8<TA, TB, __nv_fp8_e5m2>(const QuantArgs&, cudaStream_t);
GEMMLAB_INSTANTIATE_FP8(__nv_fp8_e4m3, __nv_fp8_e4m3)
GEMMLAB_INSTANTIATE_FP8(__nv_fp8_e4m3, __nv_fp8_e5m2)
GEMMLAB_INSTANTIATE_FP8(__nv_fp8_e5m2, __nv_fp8_e4m3)
#undef GEMMLAB_INSTANTIATE_FP8

} // namespace gemmlab::detail
