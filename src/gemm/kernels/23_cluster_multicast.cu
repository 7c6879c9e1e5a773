// Rung 23: thread-block clusters sharing operand tiles by TMA multicast.
//
// Idea: neighbouring blocks along n read the same A tile. In a cluster of 2 blocks (launched
// with cudaLaunchAttributeClusterDimension, side by side along n in the raster) each block
// loads half of A's tile and multicasts it into the shared memory of both (multicast::cluster,
// one copy from L2 to two SMs), so A's L2->SM traffic halves: MulticastLoads below. The cost is
// coupling: a block may overwrite a stage only when the consumers of both blocks freed it, so
// consumers arrive on the "empty" barriers of both blocks (mapa + mbarrier.arrive on the
// cluster address), and a block's shared memory must outlive its partner's copies (a cluster
// barrier at exit): the BlockPair of hopper/pipeline.cuh. This is on-chip sharing inside a
// cluster; it has nothing to do with NVLink multicast.
// Changed from rung 22: 2-block clusters, A multicast, cluster-wide stage release.
// Measured: docs/ladder.md.

#include "gemm/kernels/22_warp_specialized.cuh"

namespace gemmlab::detail {

namespace hopper {

/// The producer's load of one stage in a block pair: this block's half of A (rows when A is
/// K-major, every other panel when MN-major) lands in both blocks; B is this block's own.
template <class Cfg, class Math, class Layout>
struct MulticastLoads {
    template <class Pipeline, class Args>
    __device__ __forceinline__ static void issue(const Pipeline& pipe,
                                                 const typename Pipeline::State& state,
                                                 uint32_t base, const void* map_a, const void* map_b,
                                                 int m0, int n0, int kt, int batch_a,
                                                 int batch_b, const Args&) {
#ifdef GEMMLAB_SM90A
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(Cfg::kParts == 1, "the multicast rung loads one part per operand");
        constexpr uint16_t kBoth = 0x3;
        const int k0 = kt * Math::kTileK;
        const uint32_t bar = pipe.full(state);
        const uint32_t rank = BlockPair::rank();
        pipe.producer_expect(state, Cfg::kStageBytes); // both halves of A arrive here
        const uint32_t a = Layout::a_tile(base, state.stage);
        if constexpr (A::kKMajor) {
            const uint32_t half = rank * (Cfg::BM / 2);
            tma_load_3d_multicast(a + half * 128, map_a, bar, k0, int(m0 + half), batch_a, kBoth);
        } else {
            for (int pa = int(rank); pa < A::kPanels; pa += 2)
                tma_load_3d_multicast(a + pa * A::kPanelBytes, map_a, bar, m0 + A::kRowElems * pa,
                                      k0, batch_a, kBoth);
        }
        tma_load_tile<B>(Layout::b_tile(base, state.stage), map_b, bar, n0, k0, batch_b);
#endif
    }
};

} // namespace hopper

namespace {
struct ClusterMulticastRung {
    using Config = hopper::WarpSpecializedConfig;
    using Cluster = hopper::BlockPair;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::MulticastLoads<Cfg, Math, Layout>;
    using Schedule = hopper::OneTilePerBlock;
    using Epilogue = hopper::RegisterEpilogue;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    static constexpr bool kNativeBatch = true;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<ClusterMulticastRung, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class TIn, class TOut>
void launch_cluster_multicast(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<ClusterMulticastRung>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_cluster_multicast)

} // namespace gemmlab::detail
