#pragma once
// The stage ring of rungs 21-26, with the steps named as the schedule reads:
//   producer: acquire(stage) -> expect(bytes) and issue TMA into it -> (TMA completes `full`)
//   consumer: wait(stage) -> wgmma -> release(stage) once the wgmma reading it has retired
// Each of the Stages slots has a "full" mbarrier (one producer arrival plus the transaction
// bytes of its loads) and an "empty" one (lane 0 of every consumer warp of every block that
// reads the slot). A PipelineState walks the ring and carries the phase parity, so no rung
// spells out the parity arithmetic.

#include <cstdint>

#include "gemm/kernels/hopper_ptx.cuh"

namespace gemmlab::detail::hopper {

/// A position in a ring of Stages slots: the slot and the parity of the pass over the ring.
template <int Stages>
struct PipelineState {
    int stage = 0;
    uint32_t phase = 0;

    __device__ __forceinline__ PipelineState& operator++() {
        if (++stage == Stages) {
            stage = 0;
            phase ^= 1u;
        }
        return *this;
    }
};

/// One block alone: a stage is released in this block only.
struct SingleBlock {
    static constexpr int kBlocks = 1;
#ifdef GEMMLAB_SM90A
    __device__ __forceinline__ static uint32_t rank() { return 0; }
    __device__ __forceinline__ static void release(uint32_t empty_bar) { mbar_arrive(empty_bar); }
    /// Barriers initialized before any thread uses them.
    __device__ __forceinline__ static void sync() { __syncthreads(); }
    __device__ __forceinline__ static void sync_before_exit() {}
#endif
};

/// Two blocks side by side along n whose producers both write each stage (rung 23's multicast):
/// a stage is free only when the consumers of both blocks released it, so each consumer warp
/// arrives on the empty barrier of both, and a block's shared memory must outlive its
/// partner's copies and arrivals (a cluster barrier before exit).
struct BlockPair {
    static constexpr int kBlocks = 2;
#ifdef GEMMLAB_SM90A
    __device__ __forceinline__ static uint32_t rank() { return cluster_rank(); }
    __device__ __forceinline__ static void release(uint32_t empty_bar) {
        for (uint32_t c = 0; c < kBlocks; ++c) mbar_arrive_cluster(empty_bar, c);
    }
    __device__ __forceinline__ static void sync() { cluster_sync(); }
    __device__ __forceinline__ static void sync_before_exit() { cluster_sync(); }
#endif
};

#ifdef GEMMLAB_SM90A

/// The ring's barriers at `bars` in shared memory: full[s] at bars + 8 s, empty[s] after them.
template <int Stages, class Cluster = SingleBlock>
struct StagePipeline {
    using State = PipelineState<Stages>;
    uint32_t bars;

    __device__ __forceinline__ uint32_t full(const State& s) const { return bars + 8 * s.stage; }
    __device__ __forceinline__ uint32_t empty(const State& s) const {
        return bars + 8 * (Stages + s.stage);
    }

    /// One thread, before any other use: `consumer_warps` warps per block release a stage.
    __device__ __forceinline__ void init(int consumer_warps) const {
        for (int s = 0; s < Stages; ++s) {
            mbar_init(bars + 8 * s, 1);
            mbar_init(bars + 8 * (Stages + s), consumer_warps * Cluster::kBlocks);
        }
        fence_barrier_init();
    }

    /// Producer: waits until the consumers released the slot's previous k tile. On the first
    /// pass this is the phase before the barrier's first one, which counts as complete.
    __device__ __forceinline__ void producer_acquire(const State& s) const {
        mbar_wait(empty(s), s.phase ^ 1u);
    }
    /// Producer (one thread): announces `bytes` of TMA loads into the slot, issued next on
    /// full(s).
    __device__ __forceinline__ void producer_expect(const State& s, uint32_t bytes) const {
        mbar_arrive_expect_tx(full(s), bytes);
    }
    /// Consumer: waits until the slot holds its k tile.
    __device__ __forceinline__ void consumer_wait(const State& s) const { mbar_wait(full(s), s.phase); }
    /// Consumer: this warp no longer reads the slot (its wgmma retired).
    __device__ __forceinline__ void consumer_release(const State& s) const {
        if (threadIdx.x % 32 == 0) Cluster::release(empty(s));
    }
};

#endif // GEMMLAB_SM90A

} // namespace gemmlab::detail::hopper
