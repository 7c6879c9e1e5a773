// Rung 23: thread-block clusters sharing operand tiles by TMA multicast.
//
// Idea: neighbouring blocks along n read the same A tile. In a cluster of 2 blocks (launched
// with cudaLaunchAttributeClusterDimension, side by side along n in the raster) each block
// loads half of A's tile and multicasts it into the shared memory of both (multicast::cluster,
// one copy from L2 to two SMs), so A's L2->SM traffic halves. The cost is coupling: a block may
// overwrite a stage only when the consumers of both blocks freed it, so consumers arrive on the
// "empty" barriers of both blocks (mapa + mbarrier.arrive.release.cluster), and a block's shared
// memory must outlive its partner's copies (cluster barrier at exit). This is on-chip sharing
// inside a cluster; it has nothing to do with NVLink multicast.
// Changed from rung 22: 2-block clusters, A multicast, cluster-wide stage release.
// Measured: docs/ladder.md.

#include "gemm/kernels/hopper_gemm.cuh"

namespace gemmlab::detail {

using ClusterMulticastPlan = hopper::Plan<128, 256, 4, hopper::Feed::Tma, /*Specialized=*/true,
                                          /*Cluster=*/2, /*Persistent=*/false>;

template <class TIn, class TOut>
void launch_cluster_multicast(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_or_fallback<ClusterMulticastPlan>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_cluster_multicast)

} // namespace gemmlab::detail
