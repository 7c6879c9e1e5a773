#pragma once
// Rung 22's skeleton with its two consumer warpgroups in ping-pong: each takes whole tiles of
// its own (the block's units alternately), where rung 22's pair shares every tile, 64 rows
// each. The stage ring is filled in unit order, so a warpgroup's next tile arrives only after
// the other's: while one waits on its stages and runs its wgmma, the other stores its finished
// tile. Where a tile is a handful of k tiles (a batch of attention-sized products), its
// epilogue and its loads' latency are most of its time, and one warpgroup alone leaves the SM
// idle through them; two in turn overlap them.
// A warpgroup starts waiting on its tile's stages only once the other has waited on all of its
// own (the turn barriers): a stage's barrier tells its passes over the ring apart by parity
// alone, so a warpgroup that skipped ahead of the ring by a whole tile would read a pass as done
// two passes early.
// Same parts as warp_specialized_kernel (22_warp_specialized.cuh): Config (BM x BN is one
// warpgroup's tile, in BM / 64 slices of 64 rows), Loads, the persistent schedule (a block takes
// units b, b + grid, ...), Epilogue (called once per 64-row slice, `wg` the slice; its staging
// region and named barrier are the calling warpgroup's, so Config's C staging holds two
// warpgroups' worth). A single block (no cluster), no split of k.

#include "gemm/kernels/22_warp_specialized.cuh"

namespace gemmlab::detail::hopper {

#ifdef GEMMLAB_SM90A

/// `state` moved `tiles` k tiles on: past the other warpgroup's unit.
template <int Stages>
__device__ __forceinline__ void advance(PipelineState<Stages>& state, int tiles) {
    const int to = state.stage + tiles;
    state.stage = to % Stages;
    state.phase ^= uint32_t(to / Stages) & 1u;
}

#endif // GEMMLAB_SM90A

template <class Rung, class Math, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(kPingPongThreads, 1)
    pingpong_kernel(const __grid_constant__ CUtensorMap map_a,
                    const __grid_constant__ CUtensorMap map_b,
                    const __grid_constant__ CUtensorMap map_c, const Params<Math, TOut> p) {
#ifdef GEMMLAB_SM90A
    using Cfg = typename Rung::Config;
    static_assert(Rung::kClusterBlocks == 1, "a single block");
    constexpr int kSlices = Cfg::BM / 64; // 64-row slices of a warpgroup's tile
    using Layout = SharedLayout<Cfg, Math, /*KMajorA=*/TransA, /*KMajorB=*/!TransB>;
    using Loads = typename Rung::template Loads<Cfg, Math, Layout>;
    using Pipeline = StagePipeline<Cfg::kStages, SingleBlock>;
    using State = typename Pipeline::State;
    constexpr int kTK = Math::kTileK;

    extern __shared__ unsigned char smem_raw[];
    const uint32_t base = Layout::base(smem_raw);
    const Pipeline pipe{Layout::barriers(base)};
    // turn[w]: completes once per tile of the other warpgroup, when it has waited on the tile's
    // last stage; warpgroup w waits on it before every tile but warpgroup 0's first.
    __shared__ alignas(8) uint64_t turns[kPingPongConsumers];
    const auto turn_bar = [&](int w) { return smem_addr(&turns[w]); };
    if (threadIdx.x == 0) {
        tma_prefetch_map(&map_a);
        tma_prefetch_map(&map_b);
        for (int w = 0; w < kPingPongConsumers; ++w) mbar_init(turn_bar(w), 1);
        pipe.init(kWarpgroupWarps); // a stage is read by one warpgroup (fences the inits)
    }
    __syncthreads();

    const WorkUnits<1, batches_natively<Rung>()> units(p.tiles_m, p.tiles_n,
                                                       int((p.k + kTK - 1) / kTK), p.k_splits,
                                                       p.k_tiles_per_split, p.batches);
    const int wg = threadIdx.x / 128;
    if (wg == kPingPongConsumers) { // the producer
        setmaxnreg_dec<kProducerRegisters>();
        if (threadIdx.x % 128 == 0) {
            State write;
            for (int u = int(blockIdx.x); u < units.count; u += int(gridDim.x))
                load_unit<Cfg, Loads>(pipe, write, base, &map_a, &map_b, units[u], p);
        }
        return;
    }
    setmaxnreg_inc<kConsumerRegisters<kPingPongConsumers>>();
    typename AccumulatorOf<Math>::type acc[kSlices][Cfg::BN / 2];
    typename Math::template Consumer<Layout> mma;
    State read, previous;
    uint32_t stores = 0;      // this warpgroup's stores: consecutive ones alternate buffers
    int owner = 0;            // the block's units alternate between the warpgroups
    uint32_t turn_phase = 0;  // of turn_bar(wg)
    bool first = true;
    for (int u = int(blockIdx.x); u < units.count; u += int(gridDim.x), owner ^= 1) {
        const WorkUnit w = units[u];
        if (owner != wg) { // the other warpgroup's unit: skip its stages
            advance(read, w.kt1 - w.kt0);
            continue;
        }
        if (!(first && wg == 0)) {
            mbar_wait(turn_bar(wg), turn_phase);
            turn_phase ^= 1u;
        }
        first = false;
        for (int kt = w.kt0; kt < w.kt1; ++kt) {
            pipe.consumer_wait(read);
            const uint32_t a = Layout::a_tile(base, read.stage);
            const uint32_t b = Layout::b_tile(base, read.stage);
#pragma unroll
            for (int s = 0; s < kSlices; ++s)
                mma.template k_tile<Cfg::BN>(acc[s], a, b, s, kt > w.kt0);
            wgmma_commit();
            wgmma_wait<1>();
            if (kt > w.kt0) pipe.consumer_release(previous);
            previous = read;
            ++read;
        }
        if (threadIdx.x % 128 == 0) mbar_arrive(turn_bar(1 - wg)); // past its last stage's wait
        wgmma_wait<0>();
#pragma unroll
        for (int s = 0; s < kSlices; ++s) pin_accumulators(acc[s]);
        pipe.consumer_release(previous);
        const int64_t m0 = int64_t(w.tm) * Cfg::BM, n0 = int64_t(w.tn) * Cfg::BN;
        const uint32_t buffers =
            Layout::store_buffers(base) + (stores++ % Cfg::kStoreBuffers) * Cfg::kStoreBytes;
#pragma unroll
        for (int s = 0; s < kSlices; ++s)
            Rung::Epilogue::template store<Cfg>(p, acc[s], &map_c, buffers, m0, n0, s, w.batch);
    }
    Rung::Epilogue::template drain<TOut>();
#endif
}

} // namespace gemmlab::detail::hopper
