#pragma once
// The cluster split: split-K for a product of fewer tiles than SMs, its pieces added through
// distributed shared memory instead of a second kernel.
//
// A prefill of 16-512 tokens against a 2048-8192-wide weight is 16-72 tiles for 132 SMs, and
// one block per tile streams its whole k alone. Split-K fills the SMs, but its FP32 partials go
// through global memory to a sum kernel (3-5 us on an H200, where cuBLAS runs the whole product
// in 7-11 us); the tail split's form (tail_split.cuh), where the last block of a tile to finish
// reads every piece back, pulls S whole tiles through one SM and measured slower still. Here the
// S blocks of a tile form a cluster, block r of the cluster taking the r-th of S equal k ranges.
// When every block's mainloop is done (a cluster barrier), each block scatters its FP32
// accumulators over the cluster: 8-column group j goes to block j / (J / S) of J = BN / 8
// groups, into that block's stage ring, which is idle by then. After a second barrier each block
// adds the S copies of its J / S groups in piece order (the same bits on every run) and stores
// them: every block writes one S-th of the tile, and no byte of a partial leaves the cluster.

#include <algorithm>
#include <cstdint>

#include "gemm/device_caps.hpp"
#include "gemm/kernels/hopper/scheduler.cuh"
#include "gemm/kernels/hopper_ptx.cuh"

namespace gemmlab::detail::hopper {

/// The largest cluster the split uses: the portable cluster size (8 blocks).
inline constexpr int kClusterSplitMaxPieces = 8;
/// Each piece at least this many k tiles (256 of k in 64-wide tiles, split-K's kMinSplitK).
inline constexpr int kClusterSplitMinPiece = 4;

/// Pieces per tile for `tiles` tiles of `k_tiles` k tiles: the largest power of two, at most
/// kClusterSplitMaxPieces, that keeps kClusterSplitMinPiece k tiles a piece and whose clusters
/// all run at once (tiles <= the device's capacity for clusters of that many one-block-per-SM
/// blocks: on an H200 66 of 2, 30 of 4 and 15 of 8, as GPCs hold whole clusters; a second wave
/// of clusters doubled the time); 1 (nothing split) where that is under 2. A power of two
/// divides the J = BN / 8 column groups evenly over the cluster.
inline int plan_cluster_split(int64_t tiles, int k_tiles, const DeviceCaps& caps) {
    int pieces = 1;
    for (int s = 2; s <= kClusterSplitMaxPieces; s *= 2)
        if (k_tiles / s >= kClusterSplitMinPiece && tiles <= caps.clusters_at_once(s)) pieces = s;
    return pieces;
}

/// The schedule: block b takes piece b % pieces of tile b / pieces (its cluster rank is the
/// piece), one unit per block; pieces 1 is rung 22's one tile per block.
struct ClusterSplitSchedule {
    static constexpr bool kSplitsInCluster = true;
    /// Before the split: one block per tile (the launcher multiplies by the pieces).
    static int grid(int64_t units, int /*sms*/, int /*cluster_blocks*/) { return int(units); }
    template <class Units, class F>
    __device__ __forceinline__ static void for_each(const Units& units, int pieces, F&& f) {
        const int b = int(blockIdx.x);
        WorkUnit w = units[b / pieces];
        const int s = b % pieces;
        w.kt0 = s * units.k_tiles / pieces;
        w.kt1 = (s + 1) * units.k_tiles / pieces;
        f(w);
    }
};

#ifdef GEMMLAB_SM90A

/// One consumer thread's part of the exchange (all kThreads consumer threads of every block of
/// the cluster call it, and every other thread of the cluster calls cluster_sync twice meanwhile):
/// scatters acc's 8-column groups to their owners' shared memory at `ring` (the stage ring,
/// at least BN / 8 x kThreads x 16 bytes), then adds the pieces of this block's groups in piece
/// order into acc. Returns the groups [first, first + J / pieces) that acc now holds for the
/// whole tile; the rest of acc is this piece's alone.
template <int BN, int kThreads>
__device__ __forceinline__ int cluster_split_sum(int pieces, uint32_t ring, float (&acc)[BN / 2]) {
    constexpr int kGroups = BN / 8;
    const int per = kGroups / pieces; // groups each block adds and stores
    const int rank = int(cluster_rank());
    const int t = int(threadIdx.x);   // consumer threads are 0 .. kThreads - 1
    auto slot = [&](int piece, int group) {
        return ring + uint32_t(((piece * per + group) * kThreads + t) * 16);
    };
    cluster_sync(); // every block's wgmma are done with its ring
#pragma unroll
    for (int j = 0; j < kGroups; ++j)
        st_cluster_v4(slot(rank, j % per), uint32_t(j / per), acc[4 * j], acc[4 * j + 1],
                      acc[4 * j + 2], acc[4 * j + 3]);
    cluster_sync(); // every piece has landed where it is added
    const int first = rank * per;
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
        if (j < first || j >= first + per) continue;
        float4 sum = ld_shared_v4f(slot(0, j - first));
        for (int s = 1; s < pieces; ++s) {
            const float4 v = ld_shared_v4f(slot(s, j - first));
            sum.x += v.x, sum.y += v.y, sum.z += v.z, sum.w += v.w;
        }
        acc[4 * j] = sum.x, acc[4 * j + 1] = sum.y, acc[4 * j + 2] = sum.z, acc[4 * j + 3] = sum.w;
    }
    return first;
}

#endif // GEMMLAB_SM90A

} // namespace gemmlab::detail::hopper
