#pragma once
// Which output tile and k range a block works on: the tile scheduler of the Hopper rungs.
// A work unit is a (product, tile, k slice) triple: product-major, then slice-major (split-K: one
// slice when k is not split; a strided batch: one product per batch, never split).
// Tiles go in a grouped order: groups of kGroupM tile rows, m fastest inside a group, so blocks
// running together share B columns and a compact set of A rows; the blocks of one cluster take
// neighbouring columns of the same row. Rungs 20-23 give each block one unit (OneTilePerBlock);
// rung 24 replaces that with a persistent grid (24_persistent.cuh), and auto's tail-split form of
// rung 24 cuts the last wave's tiles along k (tail_split.cuh).

#include <algorithm>
#include <cstdint>

namespace gemmlab::detail::hopper {

/// Tile rows per raster group (L2 reuse of B).
inline constexpr int kGroupM = 8;

/// One unit: tile (tm, tn) of product `batch` over k tiles [kt0, kt1) of slice `slice`;
/// shared_tile >= 0: a piece of a tile other blocks work on too (tail_split.cuh).
struct WorkUnit {
    int tm, tn, kt0, kt1, slice, batch;
    int shared_tile = -1;
};

/// The units of a launch, for clusters of ClusterBlocks blocks along n; Batched: of every
/// product of a strided batch (else one product, and none of the batch arithmetic).
template <int ClusterBlocks, bool Batched = false>
struct WorkUnits {
    int tiles_m, tiles_n, k_tiles, k_tiles_per_split;
    int per_product; // tiles x slices
    int count;       // units: products x tiles x slices (the host keeps it inside int)

    __device__ __forceinline__ WorkUnits(int tiles_m_, int tiles_n_, int k_tiles_, int splits,
                                         int k_tiles_per_split_, int batches = 1)
        : tiles_m(tiles_m_), tiles_n(tiles_n_), k_tiles(k_tiles_),
          k_tiles_per_split(k_tiles_per_split_), per_product(tiles_m_ * tiles_n_ * splits),
          count(Batched ? per_product * batches : per_product) {}

    __device__ __forceinline__ WorkUnit operator[](int unit) const {
        const int batch = Batched ? unit / per_product : 0;
        const int u = unit - batch * per_product;
        const int tiles = tiles_m * tiles_n;
        const int t = u % tiles;
        const int cl = t % ClusterBlocks;
        const int q = t / ClusterBlocks;
        const int super_n = tiles_n / ClusterBlocks;
        const int per_group = kGroupM * super_n;
        const int group = q / per_group;
        const int first_m = group * kGroupM;
        const int rows = min(kGroupM, tiles_m - first_m);
        const int in_group = q - group * per_group;
        WorkUnit w;
        w.tm = first_m + in_group % rows;
        w.tn = (in_group / rows) * ClusterBlocks + cl;
        w.slice = u / tiles;
        w.batch = batch;
        w.kt0 = w.slice * k_tiles_per_split;
        w.kt1 = min(k_tiles, w.kt0 + k_tiles_per_split);
        return w;
    }
};

/// The persistent schedules' grid: one block per SM in whole clusters, and no more blocks than
/// units.
inline int persistent_grid(int64_t units, int sms, int cluster_blocks) {
    return int(std::min<int64_t>(units, sms / cluster_blocks * cluster_blocks));
}

/// A schedule that shares tiles out along k (tail_split.cuh's TailSplitSchedule) hands a block its
/// units itself; the others give block b units b, b + step, b + 2 step, ...
template <class Schedule>
concept SplitsTailTiles = Schedule::kSplitsTail;

/// A schedule whose tiles are cut along k over the blocks of a cluster (cluster_split.cuh's
/// ClusterSplitSchedule) also hands a block its unit itself.
template <class Schedule>
concept SplitsInCluster = Schedule::kSplitsInCluster;

/// Calls f(unit) for every unit this block takes under Schedule, in order.
template <class Schedule, class Units, class P, class F>
__device__ __forceinline__ void for_each_unit(const Units& units, const P& p, F&& f) {
    if constexpr (SplitsTailTiles<Schedule>) {
        Schedule::for_each(units, p.tail_split, f);
    } else if constexpr (SplitsInCluster<Schedule>) {
        Schedule::for_each(units, p.cluster_pieces, f);
    } else {
        const int step = Schedule::step(units.count);
        for (int u = int(blockIdx.x); u < units.count; u += step) f(units[u]);
    }
}

/// One block per unit: block b takes unit b and stops.
struct OneTilePerBlock {
    static int grid(int64_t units, int /*sms*/, int /*cluster_blocks*/) { return int(units); }
    __device__ __forceinline__ static int step(int units) { return units; }
};

} // namespace gemmlab::detail::hopper
