#pragma once
// The tail split: the persistent grid's last, partial wave of tiles cut along k.
//
// With T tiles on G blocks the persistent schedule runs ceil(T / G) waves, and when T % G is
// small the last wave leaves most SMs idle (512 x 10240 x 8192 in 128 x 256 tiles: 160 tiles,
// so the second wave runs 28 tiles on 132 SMs; a prefill of 512 tokens against a 2048-wide
// weight has 32 tiles in all). Here the whole waves stay whole (block b takes tiles b, b + G,
// ... as before) and each of the R = T % G tiles left is cut into S pieces of equal k, S =
// floor(G / R): block r S + s takes piece s of tile r. All pieces start together when the whole
// waves end, so the blocks on neighbouring tiles read the same k range of A and B at once and
// share it in L2. (Stream-K proper lays the tiles end to end and cuts that run evenly, which
// balances to the last k tile; but then the blocks work at unrelated k offsets, every one
// streams its own panels from DRAM, and measured on an H200 it lost 15-20% on a 512-tile
// product whose last 116 tiles it shared: docs/ladder.md.)
// A tile's pieces are summed by whichever of its blocks finishes last: each warp writes its
// FP32 partial rows (in the accumulator registers' order) to its block's slot and counts itself
// in the tile's counter; the warp that brings the count to S adds the S slots in piece order,
// stores C and zeroes the counter again. Nobody waits on anybody, so the grid need not be
// co-resident, and the pieces are added in one order: the same bits on every run.
// Host side: plan_tail_split here; the scratch (counters kept zero between launches, partial
// slots) in launch.cuh and workspace.hpp (SerialScratch): a memset and an allocation per call
// cost more host time than a split tail saves on a small product.

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "gemm/kernels/hopper/configs.hpp"
#include "gemm/kernels/hopper/scheduler.cuh"

namespace gemmlab::detail::hopper {

/// How a launch cuts its tiles: the first whole_tiles in the grouped order whole, each of the
/// last split_tiles in `pieces` pieces along k, piece s covering k tiles
/// [s k_tiles / pieces, (s + 1) k_tiles / pieces).
struct TailSplitPlan {
    int whole_tiles = 0, split_tiles = 0, pieces = 1, k_tiles = 1;

    __host__ __device__ int piece_begin(int s) const { return s * k_tiles / pieces; }
    /// Blocks the split tiles occupy (blocks 0 .. split_blocks() - 1, one piece each).
    __host__ __device__ int split_blocks() const { return split_tiles * pieces; }
};

/// Bytes of arrival counters a launch may use (the start of its scratch, kept zero between
/// launches): 2048 split tiles of 8 consumer warps, where a plan splits fewer tiles than the
/// GPU has SMs. A plan that needs more runs whole tiles.
inline constexpr size_t kTailSplitCounterBytes = 64 * 1024;

/// Each piece at least this many k tiles (512 of k in 64-wide tiles): a shorter one costs its
/// pipeline's fill and its partial's round trip more than it balances.
inline constexpr int kTailSplitMinPiece = 8;

/// Tiles in whole waves of `blocks`, each of the rest in floor(blocks / rest) pieces of at least
/// kTailSplitMinPiece k tiles; nothing split where that is fewer than 2 pieces, or where there
/// is no whole wave: a product of fewer tiles than blocks has split-K (launch.cuh), and every
/// piece's partial then costs more than the tiles' imbalance (docs/ladder.md).
inline TailSplitPlan plan_tail_split(int64_t tiles, int k_tiles, int blocks) {
    TailSplitPlan plan;
    plan.whole_tiles = int(tiles);
    plan.k_tiles = k_tiles;
    const int64_t rest = tiles % blocks;
    if (rest == 0 || tiles < blocks) return plan;
    const int64_t pieces = std::min<int64_t>(blocks / rest, k_tiles / kTailSplitMinPiece);
    if (pieces < 2) return plan;
    plan.whole_tiles = int(tiles - rest);
    plan.split_tiles = int(rest);
    plan.pieces = int(pieces);
    return plan;
}

/// The tail-split schedule: a persistent grid of one block per SM (whole clusters). for_each
/// hands a block its whole tiles, then its piece of a split tile (WorkUnit::kt0, kt1 cut to the
/// piece, shared_tile the split tile's index), from one call site so that the caller's body is
/// inlined once.
struct TailSplitSchedule {
    static constexpr bool kSplitsTail = true;
    static int grid(int64_t units, int sms, int cluster_blocks) {
        return persistent_grid(units, sms, cluster_blocks);
    }
    template <class Units, class F>
    __device__ __forceinline__ static void for_each(const Units& units, const TailSplitPlan& plan, F&& f) {
        const int b = int(blockIdx.x);
        bool piece = b < plan.split_blocks();
        for (int u = b; u < plan.whole_tiles || piece; u += int(gridDim.x)) {
            WorkUnit w;
            if (u < plan.whole_tiles) {
                w = units[u];
            } else {
                const int t = b / plan.pieces, s = b % plan.pieces;
                w = units[plan.whole_tiles + t];
                w.kt0 = plan.piece_begin(s);
                w.kt1 = plan.piece_begin(s + 1);
                w.shared_tile = t;
                piece = false;
            }
            f(w);
        }
    }
};

#ifdef GEMMLAB_SM90A

/// A split tile's sum for one consumer warp (warp `warp` of warpgroup `wg`, of kWarps in the
/// block): writes the warp's piece to its block's slot, counts it, and returns true for the
/// last warp to arrive, after adding the tile's pieces into `acc` in piece order (its own read
/// back like the others, so the order does not depend on who finishes last). A slot is kWarps x
/// BN / 2 floats per lane, stored as float4 so that a warp writes 512 contiguous bytes.
template <int BN, int kWarps>
__device__ __forceinline__ bool tail_split_sum(const TailSplitPlan& plan, float* partials,
                                               unsigned* counters, float (&acc)[BN / 2], int tile,
                                               int wg, int warp) {
    constexpr int kChunks = BN / 8; // float4s per lane
    const int lane = threadIdx.x % 32;
    const int warp_slot = wg * kWarpgroupWarps + warp;
    auto slot = [&](int block) {
        return reinterpret_cast<float4*>(partials) + (block * kWarps + warp_slot) * kChunks * 32 + lane;
    };
    float4* mine = slot(int(blockIdx.x));
#pragma unroll
    for (int j = 0; j < kChunks; ++j)
        __stcg(mine + 32 * j, make_float4(acc[4 * j], acc[4 * j + 1], acc[4 * j + 2], acc[4 * j + 3]));
    __threadfence(); // the piece is visible before the count says so
    __syncwarp();
    unsigned arrived = 0;
    unsigned* counter = counters + tile * kWarps + warp_slot;
    if (lane == 0) arrived = atomicAdd(counter, 1u);
    arrived = __shfl_sync(0xffffffffu, arrived, 0);
    if (arrived != unsigned(plan.pieces - 1)) return false;
    if (lane == 0) *counter = 0; // every piece has arrived: zero for the next launch
    __threadfence();             // every other piece was written before its count
    const int first = tile * plan.pieces;
    const float4* from = slot(first);
#pragma unroll
    for (int j = 0; j < kChunks; ++j) {
        const float4 v = __ldcg(from + 32 * j);
        acc[4 * j] = v.x, acc[4 * j + 1] = v.y, acc[4 * j + 2] = v.z, acc[4 * j + 3] = v.w;
    }
    for (int s = 1; s < plan.pieces; ++s) {
        from = slot(first + s);
#pragma unroll
        for (int j = 0; j < kChunks; ++j) {
            const float4 v = __ldcg(from + 32 * j);
            acc[4 * j] += v.x, acc[4 * j + 1] += v.y, acc[4 * j + 2] += v.z, acc[4 * j + 3] += v.w;
        }
    }
    return true;
}

#endif // GEMMLAB_SM90A

} // namespace gemmlab::detail::hopper
