// Rung 22: warp specialization: a producer warpgroup issues TMA, consumer warpgroups issue
// wgmma.
//
// Idea: in rung 21 thread 0 both computes and refills stages, so a stall in its warpgroup's
// wgmma delays the next copy and the other way round. Here a third warpgroup does nothing but
// wait on "empty" barriers and issue TMA for stages ahead, while the two consumer warpgroups
// only wait on "full" barriers and issue wgmma (the two roles: 22_warp_specialized.cuh). The
// producer needs few registers and the consumers many: setmaxnreg moves them (producer down to
// 40, consumers up to 232 per thread), which pays for the larger 128 x 256 block tile (each
// consumer m64n256, 128 FP32 accumulators per thread) that halves the shared-memory traffic of
// A per multiply-add.
// Changed from rung 21: a producer warpgroup, register reallocation, a 128 x 256 tile (4
// stages of 48 KB).
// Measured: docs/ladder.md.

#include "gemm/kernels/22_warp_specialized.cuh"

namespace gemmlab::detail {

namespace {
struct WarpSpecializedRung {
    using Config = hopper::WarpSpecializedConfig;
    using Cluster = hopper::SingleBlock;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::TmaLoads<Cfg, Math, Layout>;
    using Schedule = hopper::OneTilePerBlock;
    using Epilogue = hopper::RegisterEpilogue;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    static constexpr bool kNativeBatch = true;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<WarpSpecializedRung, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class TIn, class TOut>
void launch_warp_specialized(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<WarpSpecializedRung>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_warp_specialized)

} // namespace gemmlab::detail
