// Rung 30: INT8 on warpgroup MMA, exact s32 accumulation.
//
// Idea: Hopper's integer wgmma (m64nNk32 .s8) runs at the FP8 rate and sums in s32 exactly:
// every product of two int8 values lies in [-2^14 + 128, 2^14], and their sum stays exact while
// it fits in int32, which k < 2^17 guarantees (docs/precision.md, "INT8"). So, unlike FP8 (rung
// 29), no promotion and no second accumulator set: the math policy (MmaInt8,
// hopper/mma_8bit.cuh) is rung 22's with s32 registers, which leaves room for rung 22's 128 x 256
// tile. C is the exact int32 sum, or a float C = alpha * s_a(i) s_b(j) * sum + beta * C with
// per-tensor or per-channel scales (hopper/scaled_epilogue.cuh).
// Changed from rung 24: INT8 operands (byte tensor maps, 128 values per k tile), s32
// accumulators, the scaled epilogue (a 32-bit C through shared memory by TMA where it can).
// As for rung 29, operands that are not K-major or not 16-byte aligned are first copied
// K-major (hopper/pack_8bit.cuh).
// Measured: docs/ladder.md.

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/mma_8bit.cuh"
#include "gemm/kernels/hopper/pack_8bit.cuh"
#include "gemm/kernels/hopper/scaled_epilogue.cuh"

namespace gemmlab::detail {

namespace {
struct WgmmaInt8Rung {
    using Config = hopper::Int8Config;
    using Cluster = hopper::SingleBlock;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::TmaLoads<Cfg, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = hopper::ScaledEpilogue;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<WgmmaInt8Rung, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class TOut>
void launch_wgmma_int8(const QuantArgs& g, cudaStream_t stream) {
    hopper::launch_8bit<WgmmaInt8Rung, hopper::MmaInt8, TOut>(g, stream);
}

template void launch_wgmma_int8<int32_t>(const QuantArgs&, cudaStream_t);
template void launch_wgmma_int8<float>(const QuantArgs&, cudaStream_t);

} // namespace gemmlab::detail
