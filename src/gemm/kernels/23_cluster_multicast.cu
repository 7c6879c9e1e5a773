// Rung 23: thread-block clusters sharing operand tiles by TMA multicast.
//
// Idea: neighbouring blocks along n read the same A tile. In a cluster of 2 blocks (launched
// with cudaLaunchAttributeClusterDimension, side by side along n in the raster) each block
// loads half of A's tile and multicasts it into the shared memory of both (multicast::cluster,
// one copy from L2 to two SMs), so A's L2->SM traffic halves: MulticastLoads (23_cluster_multicast.cuh). The cost is
// coupling: a block may overwrite a stage only when the consumers of both blocks freed it, so
// consumers arrive on the "empty" barriers of both blocks (mapa + mbarrier.arrive on the
// cluster address), and a block's shared memory must outlive its partner's copies (a cluster
// barrier at exit): the BlockPair of hopper/pipeline.cuh. This is on-chip sharing inside a
// cluster; it has nothing to do with NVLink multicast.
// Changed from rung 22: 2-block clusters, A multicast, cluster-wide stage release.
// Measured: docs/ladder.md.

#include "gemm/kernels/23_cluster_multicast.cuh"

namespace gemmlab::detail {

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
