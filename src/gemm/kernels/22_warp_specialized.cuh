#pragma once
// Rung 22's kernel, the skeleton that rungs 23-26 compose their parts into: a producer
// warpgroup that only issues TMA and consumer warpgroups that only issue wgmma, the two joined
// by the stage ring (hopper/pipeline.cuh). Its roles, as steps:
//   producer: for each work unit, for each k tile: acquire a stage -> load it (Rung::Loads)
//   consumer: for each work unit: for each k tile: wait for a stage -> k_tile (Math) -> release
//             the stage read one k tile earlier; then the epilogue (Rung::Epilogue), which a
//             policy that never lets wgmma write acc (FP8's) defers behind the next unit's first
//             k tile
// and what a Rung chooses:
//   Config    block tile, stages, C staging (hopper/configs.hpp)
//   Cluster   SingleBlock, or rung 23's BlockPair (a stage released in both blocks)
//   Loads     the producer's load of one stage (hopper/tma_loads.cuh; rung 23 multicasts A)
//   Schedule  which units a block takes (one; rung 24: persistent, grid = SMs; its tail-split
//             form: the last wave's tiles cut along k; its cluster-split form: few tiles, each
//             cut along k over a cluster); a unit is a tile of one product of a strided batch,
//             or a k range of one (hopper/scheduler.cuh, tail_split.cuh, cluster_split.cuh)
//   Epilogue  registers to C (rung 24: a TMA store for 16-bit C; rungs 29-30 scale, then store
//             16- and 32-bit C by TMA too: hopper/scaled_epilogue.cuh)
// and the math policy (16-bit wgmma; rungs 25-26: TF32, 3xTF32; rungs 29-30: FP8, INT8 with
// s32 accumulators, AccumulatorOf in hopper/params.hpp) is the kernel's Math.

#include <algorithm>

#include "gemm/kernels/hopper/cluster_split.cuh"
#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/kernels/hopper/launch.cuh"
#include "gemm/kernels/hopper/mma_16bit.cuh"
#include "gemm/kernels/hopper/pipeline.cuh"
#include "gemm/kernels/hopper/scheduler.cuh"
#include "gemm/kernels/hopper/tail_split.cuh"
#include "gemm/kernels/hopper/tma_loads.cuh"

namespace gemmlab::detail::hopper {

/// Registers per thread after setmaxnreg: the producer needs few (it only addresses TMA), the
/// consumers many (BN / 2 accumulators each): what the 64 K registers of an SM leave them, in
/// multiples of 8, at most 232. The launch gives every thread the same share (512 per 128
/// threads of each warpgroup), so three consumers get 152, one or two 232.
inline constexpr int kProducerRegisters = 40;
template <int Consumers>
inline constexpr int kConsumerRegisters = std::min(232, (65536 / 128 - kProducerRegisters) / Consumers / 8 * 8);

/// A math policy that keeps a k tile's wgmma in flight while it reads register sets the tile
/// before wrote (FP8's and 3xTF32's interval sums): its k_tile takes the tile's parity (0, 1
/// alternating from a unit's first tile) as a template argument, commits its own wgmma groups
/// and returns once every group but its last has retired. Its accumulators are ordinary FP32
/// registers, which the kernel zeroes when a unit starts (in k_tile, that zeroing would be a
/// select per register in every tile).
template <class Consumer>
concept OverlapsTiles = Consumer::kOverlapsTiles;
/// And, of those, a policy whose wgmma never write acc (only its interval sums), so that the
/// epilogue may read acc while the next unit's first wgmma run (an OverlapsTiles policy).
template <class Consumer>
concept HidesEpilogue = OverlapsTiles<Consumer> && Consumer::kHidesEpilogue;

#ifdef GEMMLAB_SM90A
/// The producer's part of one work unit: each of its k tiles, in order, into the next stage of
/// the ring once the consumers have freed that stage (`write` moves past them). The ping-pong
/// kernel (hopper/pingpong.cuh) shares it.
template <class Cfg, class Loads, class Pipeline, class Math, class TOut>
__device__ __forceinline__ void load_unit(const Pipeline& pipe, typename Pipeline::State& write,
                                          uint32_t base, const CUtensorMap* map_a,
                                          const CUtensorMap* map_b, const WorkUnit& w,
                                          const Params<Math, TOut>& p) {
    for (int kt = w.kt0; kt < w.kt1; ++kt, ++write) {
        pipe.producer_acquire(write);
        Loads::issue(pipe, write, base, map_a, map_b, w.tm * Cfg::BM, w.tn * Cfg::BN, kt,
                     p.a_per_batch ? w.batch : 0, p.b_per_batch ? w.batch : 0, p.math);
    }
}
#endif // GEMMLAB_SM90A

template <class Rung, class Math, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(Rung::Config::kConsumers * 128 + 128, 1)
    warp_specialized_kernel(const __grid_constant__ CUtensorMap map_a,
                            const __grid_constant__ CUtensorMap map_b,
                            const __grid_constant__ CUtensorMap map_c, const Params<Math, TOut> p) {
#ifdef GEMMLAB_SM90A
    using Cfg = typename Rung::Config;
    using Cluster = typename Rung::Cluster;
    using Layout = SharedLayout<Cfg, Math, /*KMajorA=*/TransA, /*KMajorB=*/!TransB>;
    using Loads = typename Rung::template Loads<Cfg, Math, Layout>;
    using Pipeline = StagePipeline<Cfg::kStages, Cluster>;
    using State = typename Pipeline::State;
    constexpr int kTK = Math::kTileK;

    extern __shared__ unsigned char smem_raw[];
    const uint32_t base = Layout::base(smem_raw);
    const Pipeline pipe{Layout::barriers(base)};
    if (threadIdx.x == 0) {
        tma_prefetch_map(&map_a);
        tma_prefetch_map(&map_b);
        pipe.init(Cfg::kConsumerWarps);
    }
    Cluster::sync(); // every block's barriers exist before any arrival reaches them

    constexpr bool kBatched = batches_natively<Rung>();
    const WorkUnits<Cluster::kBlocks, kBatched> units(p.tiles_m, p.tiles_n,
                                                      int((p.k + kTK - 1) / kTK), p.k_splits,
                                                      p.k_tiles_per_split, p.batches);

    if (threadIdx.x / 128 == Cfg::kConsumers) { // the producer warpgroup
        setmaxnreg_dec<kProducerRegisters>();
        if (threadIdx.x % 128 == 0) {
            State write;
            for_each_unit<typename Rung::Schedule>(units, p, [&](const WorkUnit& w) {
                load_unit<Cfg, Loads>(pipe, write, base, &map_a, &map_b, w, p);
            });
        }
        // The cluster split's two barriers (cluster_split_sum) count every thread.
        if constexpr (SplitsInCluster<typename Rung::Schedule>)
            if (p.cluster_pieces > 1) {
                cluster_sync();
                cluster_sync();
            }
    } else { // a consumer warpgroup
        setmaxnreg_inc<kConsumerRegisters<Cfg::kConsumers>>();
        const int wg = threadIdx.x / 128;
        typename AccumulatorOf<Math>::type acc[Cfg::BN / 2] = {};
        constexpr bool kTransposedC = TransposesC<typename Rung::Epilogue>;
        static_assert(!kTransposedC || (!SplitsInCluster<typename Rung::Schedule> &&
                                        !SplitsTailTiles<typename Rung::Schedule>),
                      "the cluster and tail splits store C untransposed");
        typename Math::template Consumer<Layout> mma;
        State read, previous;
        // A policy whose wgmma sum into interval sums apart from acc (FP8's: HidesEpilogue) lets
        // a unit's first k tile run on the tensor cores while the unit before it is stored from
        // acc: that store waits (`deferred`) until the next unit's first wgmma are issued, and
        // the epilogue hides behind them instead of idling the tensor cores.
        constexpr bool kDefersEpilogue = HidesEpilogue<decltype(mma)> &&
                                         !SplitsInCluster<typename Rung::Schedule> &&
                                         !SplitsTailTiles<typename Rung::Schedule>;
        struct {
            int64_t m0 = -1, n0 = 0; // m0 < 0: none waiting
            int batch = 0;
        } deferred;
        // C's staging buffer for the next store: with two (Cfg::kStoreBuffers), consecutive
        // stores alternate, so a store waits only for the one before the last to have left it.
        uint32_t stores = 0;
        auto store_buffers = [&] {
            return Layout::store_buffers(base) + (stores++ % Cfg::kStoreBuffers) * Cfg::kStoreBytes;
        };
        auto store_deferred = [&] {
            if (deferred.m0 >= 0)
                Rung::Epilogue::template store<Cfg>(p, acc, &map_c, store_buffers(), deferred.m0,
                                                    deferred.n0, wg, deferred.batch);
            deferred.m0 = -1;
        };
        for_each_unit<typename Rung::Schedule>(units, p, [&](const WorkUnit& w) {
            const int64_t m0 = int64_t(w.tm) * Cfg::BM, n0 = int64_t(w.tn) * Cfg::BN;
            // A policy with per-unit state (FP8's block scales) learns the unit's origin.
            if constexpr (requires { mma.start_unit(p, m0, n0); }) mma.start_unit(p, m0, n0);
            // One k tile: wait for its stage, issue its wgmma, and once the previous tile's
            // wgmma have retired, release that tile's stage. A policy that overlaps tiles
            // (OverlapsTiles) commits and waits itself and gets the parity as a constant, so
            // ptxas sees which registers each wgmma in flight writes. ptxas loses that where
            // paths join (a loop's back edge, the end of an if: it then serializes every wgmma,
            // C7514), so such a loop runs four tiles in straight-line code and drains the tensor
            // cores before each join.
            auto consume = [&]<int Parity>(int kt) {
                pipe.consumer_wait(read);
                const uint32_t a = Layout::a_tile(base, read.stage);
                const uint32_t b = Layout::b_tile(base, read.stage);
                if constexpr (OverlapsTiles<decltype(mma)>) {
                    mma.template k_tile<Cfg::BN, Parity>(acc, a, b, wg, kt > w.kt0);
                } else {
                    mma.template k_tile<Cfg::BN>(acc, a, b, wg, kt > w.kt0);
                    wgmma_commit();
                    wgmma_wait<1>();
                }
                if (kt > w.kt0) pipe.consumer_release(previous);
                previous = read;
                ++read;
            };
            int kt = w.kt0;
            if constexpr (OverlapsTiles<decltype(mma)>) {
                if constexpr (kDefersEpilogue) {
                    consume.template operator()<0>(kt++);
                    store_deferred();
                    wgmma_wait<0>(); // paths join below: nothing may be in flight (C7514)
                }
#pragma unroll
                for (int i = 0; i < Cfg::BN / 2; ++i) acc[i] = 0.0f;
                // the tiles after a deferred store's first one start at parity 1
                constexpr int P0 = kDefersEpilogue ? 1 : 0;
                // Parities 0, 1, 0, 1, ... from the unit's first tile, a drain after every four
                // (then two, then one) tiles.
                for (; kt + 4 <= w.kt1; kt += 4) {
                    consume.template operator()<P0>(kt);
                    consume.template operator()<1 - P0>(kt + 1);
                    consume.template operator()<P0>(kt + 2);
                    consume.template operator()<1 - P0>(kt + 3);
                    wgmma_wait<0>();
                }
                if (kt + 2 <= w.kt1) {
                    consume.template operator()<P0>(kt);
                    consume.template operator()<1 - P0>(kt + 1);
                    wgmma_wait<0>();
                    kt += 2;
                }
                if (kt < w.kt1) consume.template operator()<P0>(kt);
            } else {
                for (; kt < w.kt1; ++kt) consume.template operator()<0>(kt);
            }
            wgmma_wait<0>();
            pin_accumulators(acc);
            mma.finish(acc);
            pipe.consumer_release(previous); // the producer may already load the next unit

            float* partial = p.k_splits > 1 ? p.partial + int64_t(w.slice) * p.m * p.n : nullptr;
            if (mma.replaces_epilogue(p, m0, n0, wg, int64_t(w.kt0) * kTK,
                                      min(p.k, int64_t(w.kt1) * kTK), partial))
                return;
            if constexpr (kFloatAccumulator<Math>)
                if (partial) { // in C's orientation: a transposed C's partials are n x m
                    store_tile<Cfg::BM, Cfg::BN, kTransposedC>(acc, p.m, p.n, partial,
                                                               kTransposedC ? p.n : p.m, 1.0f,
                                                               0.0f, m0, n0, wg);
                    return;
                }
            if constexpr (kDefersEpilogue) {
                deferred.m0 = m0, deferred.n0 = n0, deferred.batch = w.batch;
                return;
            }
            if constexpr (SplitsInCluster<typename Rung::Schedule>) {
                // A piece of a tile cut over the cluster: add this block's share of the columns
                // and store it from registers.
                static_assert(Cfg::BN * 128 * Cfg::kConsumers * 2 <= Cfg::kStages * Cfg::kStageBytes,
                              "the stage ring holds the tile's FP32 pieces");
                if (p.cluster_pieces > 1) {
                    const int first = cluster_split_sum<Cfg::BN, 128 * Cfg::kConsumers>(
                        p.cluster_pieces, base, acc);
                    store_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C, p.ldc, p.alpha, p.beta, m0,
                                                 n0, wg, first, Cfg::BN / 8 / p.cluster_pieces);
                    return;
                }
            }
            if constexpr (SplitsTailTiles<typename Rung::Schedule>) {
                // A piece of a split tile: the last warp to finish its rows stores them, from
                // registers (the warpgroup's TMA store needs all four warps, which may not all
                // be last).
                if (w.shared_tile >= 0) {
                    if (tail_split_sum<Cfg::BN, Cfg::kConsumerWarps>(
                            p.tail_split, p.split_partials, p.split_counters, acc, w.shared_tile,
                            wg, (threadIdx.x / 32) % 4))
                        store_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C, p.ldc, p.alpha, p.beta,
                                                     m0, n0, wg);
                    return;
                }
            }
            Rung::Epilogue::template store<Cfg>(p, acc, &map_c, store_buffers(), m0, n0, wg,
                                                w.batch);
        });
        if constexpr (kDefersEpilogue) store_deferred();
        Rung::Epilogue::template drain<TOut>();
    }
    Cluster::sync_before_exit();
#endif
}

} // namespace gemmlab::detail::hopper
