// Rung 24: a persistent grid: one block per SM looping over output tiles.
//
// Idea: with one block per tile, every block pays its prologue (barrier setup, tensor-map
// fetch, filling the pipeline) and its epilogue with the tensor cores idle, and the last wave
// leaves SMs empty. Here the grid is the SM count; block b takes tiles b, b + grid, ... in the
// grouped order (8 tile rows at a time, so the blocks running together share B columns in L2).
// The producer warpgroup runs ahead across tile boundaries: while the consumers store one
// tile's accumulators, the first stages of the next tile are already loading, so the epilogue
// overlaps the next tile's copies. 16-bit C with beta == 0 goes out through shared memory by
// TMA, so the consumers hand the store to the copy engine and start the next tile at once. Both
// parts: 24_persistent.cuh.
// Built on rung 22, not 23: the 2-block clusters of rung 23 measured slower as a persistent
// kernel (docs/ladder.md), so the fastest persistent form keeps single blocks. The exception is
// auto's 128 x 64 tile on a prefill's two or more column tiles: there two blocks read each
// weight tile, and where the tiles nearly fill the SMs a pair sharing it (PersistentPairRungOf)
// reads it once (persistent_slim_pairs).
// Changed from rung 22: the schedule (PersistentSchedule) and the epilogue (TmaStoreEpilogue).
// auto also runs it with 128 x 128 and 128 x 64 tiles (PersistentNarrowConfig,
// PersistentSlimConfig), for products and batches of products whose n is too short to fill 256
// columns, with 192 x 192 and 192 x 128 tiles of three consumer warpgroups (PersistentTallConfig,
// PersistentTallNarrowConfig) where 128 x 256 tiles fall just past a whole wave or leave a lone
// wave's SMs idle, with 64 x 64 tiles and a deep ring of stages for batches of small products
// (PersistentSmallConfig), with the tail-split schedule (hopper/tail_split.cuh) where the last
// wave of tiles would leave most SMs idle, with 64 x 16 tiles for a decode step of 9-16 tokens
// (PersistentSkinnyConfig), on 64 x 96, 128 x 96 and 128 x 144 tiles of the transposed product for
// prefills whose weight's rows, cut in 64s, leave many SMs idle (PersistentTransposed*Config,
// launch_persistent_transposed), with the cluster-split schedule (hopper/cluster_split.cuh)
// where there are fewer tiles than SMs: each tile's k cut over a cluster, the pieces added in
// distributed shared memory, and on 64 x 64 tiles of two consumer warpgroups in ping-pong
// (hopper/pingpong.cuh) for strided batches of small products (PersistentPingPongConfig,
// launch_persistent_pingpong).
// Measured: docs/ladder.md.

#include "gemm/kernels/23_cluster_multicast.cuh"
#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/pingpong.cuh"

namespace gemmlab::detail {

namespace {
/// Rung 24 on block config Cfg; a config without C staging (kStoreBytes 0) stores from registers.
/// Sched: the persistent schedule, or auto's tail-split form of it (hopper/tail_split.cuh).
template <class Cfg, class Sched = hopper::PersistentSchedule>
struct PersistentRungOf {
    using Config = Cfg;
    using Cluster = hopper::SingleBlock;
    template <class C, class Math, class Layout>
    using Loads = hopper::TmaLoads<C, Math, Layout>;
    using Schedule = Sched;
    using Epilogue = std::conditional_t<(Cfg::kStoreBytes > 0), hopper::TmaStoreEpilogue,
                                        hopper::RegisterEpilogue>;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    static constexpr bool kNativeBatch = true;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<PersistentRungOf, Math, TOut, TA, TB>;
    }
};
using PersistentRung = PersistentRungOf<hopper::PersistentConfig>;

/// Rung 24 on block config Cfg in rung 23's 2-block clusters: each pair of blocks takes two
/// neighbouring tiles of one tile row at a time and shares A's tile by TMA multicast.
template <class Cfg>
struct PersistentPairRungOf : PersistentRungOf<Cfg> {
    static constexpr bool kNativeBatch = false; // persistent_slim_pairs takes one product only
    using Cluster = hopper::BlockPair;
    template <class C, class Math, class Layout>
    using Loads = hopper::MulticastLoads<C, Math, Layout>;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<PersistentPairRungOf, Math, TOut, TA, TB>;
    }
};

/// Rung 24 on block config Cfg computing the transposed product: launched on C^T = op(B)^T
/// op(A)^T, it stores its m x n result into C as C^T, from registers (a thread's two
/// neighbouring columns are neighbours in C).
template <class Cfg>
struct PersistentTransposedRungOf : PersistentRungOf<Cfg> {
    using Epilogue = hopper::RegisterEpilogueOf<true>;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<PersistentTransposedRungOf, Math, TOut, TA, TB>;
    }
};
/// Rung 24's schedule and epilogue on Cfg's tiles, its two consumer warpgroups in ping-pong
/// (hopper/pingpong.cuh): each takes every other unit of its block whole.
template <class Cfg>
struct PersistentPingPongRungOf {
    using Config = Cfg;
    using Cluster = hopper::SingleBlock;
    template <class C, class Math, class Layout>
    using Loads = hopper::TmaLoads<C, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = hopper::TmaStoreEpilogue;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = hopper::kPingPongThreads;
    static constexpr bool kNativeBatch = true;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::pingpong_kernel<PersistentPingPongRungOf, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class TIn, class TOut>
void launch_persistent_pingpong(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<PersistentPingPongRungOf<hopper::PersistentPingPongConfig>>(g, stream);
}

template <class TIn, class TOut>
void launch_persistent(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<PersistentRung>(g, stream);
}

template <class TIn, class TOut>
void launch_persistent_split(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    hopper::launch_half<PersistentRung>(g, stream, splits);
}

bool persistent_slim_pairs(int64_t m, int64_t n, int64_t batches, int splits) {
    using Cfg = hopper::PersistentSlimConfig;
    const int64_t column_tiles = ceil_div(n, int64_t(Cfg::BN));
    const int64_t tiles = ceil_div(m, int64_t(Cfg::BM)) * column_tiles;
    return batches == 1 && splits == 1 && column_tiles >= 2 &&
           4 * tiles >= 3 * int64_t(current_device_caps().sm_count);
}

template <class Cfg, class TIn, class TOut>
void launch_persistent_tiles(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    if constexpr (Cfg::kKMajorBOnly)
        if (g.trans_b) // a 16-column B tile is K-major only: 64 x 64 tiles take the call
            return launch_persistent_tiles<hopper::PersistentSmallConfig>(g, stream, splits);
    if constexpr (std::is_same_v<Cfg, hopper::PersistentSlimConfig>)
        if (persistent_slim_pairs(g.m, g.n, g.batch.count, splits))
            return hopper::launch_half<PersistentPairRungOf<Cfg>>(g, stream);
    hopper::launch_half<PersistentRungOf<Cfg>>(g, stream, splits);
}

template <class Cfg, class TIn, class TOut>
void launch_persistent_transposed(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    const HalfArgs<TIn, TOut> t = transposed_product(g); // stored as C
    // The transposed tile reads op(A)^T K-major only, and TMA must read both operands as they
    // are (the fallbacks of launch_half store C untransposed): otherwise rung 24's 128 x 128
    // tile runs the call as it is.
    if (t.trans_b || !hopper::feedable(t))
        return launch_persistent_tiles<hopper::PersistentNarrowConfig>(g, stream, splits);
    hopper::launch_half<PersistentTransposedRungOf<Cfg>>(t, stream, splits);
}

template <class Cfg, class TIn, class TOut>
void launch_persistent_tail_split(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<PersistentRungOf<Cfg, hopper::TailSplitSchedule>>(g, stream);
}

template <class Cfg, class TIn, class TOut>
void launch_persistent_cluster_split(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<PersistentRungOf<Cfg, hopper::ClusterSplitSchedule>>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_persistent)
GEMMLAB_INSTANTIATE_HALF(launch_persistent_pingpong)
GEMMLAB_INSTANTIATE_HALF_SPLIT(launch_persistent_split)

#define GEMMLAB_INSTANTIATE_TILES(Cfg)                                                             \
    template void launch_persistent_tiles<Cfg, __nv_bfloat16, __nv_bfloat16>(                      \
        const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t, int);                         \
    template void launch_persistent_tiles<Cfg, __nv_bfloat16, float>(                              \
        const HalfArgs<__nv_bfloat16, float>&, cudaStream_t, int);                                 \
    template void launch_persistent_tiles<Cfg, __half, __half>(const HalfArgs<__half, __half>&,    \
                                                               cudaStream_t, int);                 \
    template void launch_persistent_tiles<Cfg, __half, float>(const HalfArgs<__half, float>&,      \
                                                              cudaStream_t, int);
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentNarrowConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentSlimConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentSmallConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentFlatConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentSkinnyConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentTallConfig)
GEMMLAB_INSTANTIATE_TILES(hopper::PersistentTallNarrowConfig)
#undef GEMMLAB_INSTANTIATE_TILES

#define GEMMLAB_INSTANTIATE_TRANSPOSED(Cfg)                                                        \
    template void launch_persistent_transposed<Cfg, __nv_bfloat16, __nv_bfloat16>(                 \
        const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t, int);                         \
    template void launch_persistent_transposed<Cfg, __nv_bfloat16, float>(                         \
        const HalfArgs<__nv_bfloat16, float>&, cudaStream_t, int);                                 \
    template void launch_persistent_transposed<Cfg, __half, __half>(                               \
        const HalfArgs<__half, __half>&, cudaStream_t, int);                                       \
    template void launch_persistent_transposed<Cfg, __half, float>(const HalfArgs<__half, float>&, \
                                                                   cudaStream_t, int);
GEMMLAB_INSTANTIATE_TRANSPOSED(hopper::PersistentTransposedSlimConfig)
GEMMLAB_INSTANTIATE_TRANSPOSED(hopper::PersistentTransposedNarrowConfig)
GEMMLAB_INSTANTIATE_TRANSPOSED(hopper::PersistentTransposedWideConfig)
#undef GEMMLAB_INSTANTIATE_TRANSPOSED

#define GEMMLAB_INSTANTIATE_SPLITS(Cfg, launcher)                                                   \
    template void launcher<Cfg, __nv_bfloat16, __nv_bfloat16>(                                      \
        const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);                              \
    template void launcher<Cfg, __nv_bfloat16, float>(const HalfArgs<__nv_bfloat16, float>&,        \
                                                      cudaStream_t);                               \
    template void launcher<Cfg, __half, __half>(const HalfArgs<__half, __half>&, cudaStream_t);     \
    template void launcher<Cfg, __half, float>(const HalfArgs<__half, float>&, cudaStream_t);
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentConfig, launch_persistent_tail_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentNarrowConfig, launch_persistent_tail_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentTallConfig, launch_persistent_tail_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentSlimConfig, launch_persistent_tail_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentNarrowConfig, launch_persistent_cluster_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentSlimConfig, launch_persistent_cluster_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentSmallConfig, launch_persistent_cluster_split)
GEMMLAB_INSTANTIATE_SPLITS(hopper::PersistentFlatConfig, launch_persistent_cluster_split)
#undef GEMMLAB_INSTANTIATE_SPLITS

} // namespace gemmlab::detail
