#pragma once
// Block tiles of C on a CUDA grid: the one place every GPU rung (and the GPU reference) maps its
// tiles to blockIdx. gridDim.x may reach 2^31 - 1 blocks but gridDim.y only 65535, so a tall or
// wide C (say m = 64 * 70000, n = 8) has more tiles along one side than y allows. A rung names
// the dimension it wants on x (the one its blocks should run along first, for L2 locality) and
// on y; plan_tile_grid() keeps that order when it fits and swaps the two otherwise, and each
// block reads its tile once at entry with block_tile(): two selects, no division, so the normal
// path costs nothing. Both sides past 65535 tiles would need a C of more than 2^32 tiles of at
// least 16 x 16, which no GPU memory holds; that case is refused (fits = false).
//
// Host-only code above the device helper, so CPU tests can check the planning.

#include <cstdint>

namespace gemmlab::detail {

inline constexpr int64_t kMaxGridX = 2147483647; ///< gridDim.x limit
inline constexpr int64_t kMaxGridY = 65535;      ///< gridDim.y (and gridDim.z) limit

/// A 2-D launch over tiles_x x tiles_y tiles (x the rung's preferred fast dimension).
struct TileGrid {
    uint32_t grid_x = 0, grid_y = 0; ///< gridDim.x and gridDim.y of the launch
    bool swapped = false;            ///< tiles of the rung's y dimension run along gridDim.x
    bool fits = false;               ///< false: no 2-D grid holds these tiles (or one side is 0)
};

/// Plans the grid for tiles_x x tiles_y tiles: as asked when y fits in 65535, else swapped.
constexpr TileGrid plan_tile_grid(int64_t tiles_x, int64_t tiles_y) {
    TileGrid g;
    if (tiles_x < 1 || tiles_y < 1) return g;
    if (tiles_x <= kMaxGridX && tiles_y <= kMaxGridY) {
        g.grid_x = uint32_t(tiles_x);
        g.grid_y = uint32_t(tiles_y);
        g.fits = true;
    } else if (tiles_y <= kMaxGridX && tiles_x <= kMaxGridY) {
        g.grid_x = uint32_t(tiles_y);
        g.grid_y = uint32_t(tiles_x);
        g.swapped = true;
        g.fits = true;
    }
    return g;
}

/// The tile a block of a planned grid owns (host mirror of block_tile, for tests).
constexpr void tile_of_block(bool swapped, uint32_t block_x, uint32_t block_y, int64_t& tile_x,
                             int64_t& tile_y) {
    tile_x = swapped ? block_y : block_x;
    tile_y = swapped ? block_x : block_y;
}

/// The tile (tile_x, tile_y) that block (block_x, block_y) of an nx x ny grid takes when blocks
/// go in groups of `group` x-rows: the block's linear index (x fastest) runs down `group` rows of
/// x, then to the next y, and the next group starts after group x ny blocks (the last group is
/// narrower). A bijection of the grid onto itself; a group of nx or more is the plain raster.
constexpr void grouped_tile_of_block(int64_t group, int64_t nx, int64_t ny, int64_t block_x,
                                     int64_t block_y, int64_t& tile_x, int64_t& tile_y) {
    const int64_t linear = block_x + block_y * nx;
    const int64_t first = linear / (group * ny) * group;
    const int64_t width = nx - first < group ? nx - first : group;
    const int64_t in_group = linear - first * ny;
    tile_x = first + in_group % width;
    tile_y = in_group / width;
}

#ifdef __CUDACC__
/// This block's tile along the rung's x and y dimensions; call once at kernel entry with the
/// launch's TileGrid::swapped.
__device__ __forceinline__ void block_tile(bool swapped, int64_t& tile_x, int64_t& tile_y) {
    tile_of_block(swapped, blockIdx.x, blockIdx.y, tile_x, tile_y);
}
#endif

} // namespace gemmlab::detail
