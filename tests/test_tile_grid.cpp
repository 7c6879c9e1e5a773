// The grid planning every GPU rung launches through (src/gemm/kernels/tile_grid.hpp): tiles past
// gridDim.y's 65535 move to gridDim.x, every block finds its own tile, and shapes no grid holds
// are refused rather than launched wrong. CPU only.

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "gemm/kernels/tile_grid.hpp"

namespace {

using gemmlab::detail::kMaxGridX;
using gemmlab::detail::kMaxGridY;
using gemmlab::detail::plan_tile_grid;
using gemmlab::detail::TileGrid;
using gemmlab::detail::tile_of_block;

constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Every block of the planned grid owns a distinct tile inside tiles_x x tiles_y, and every tile
// has a block.
void expect_one_block_per_tile(int64_t tiles_x, int64_t tiles_y) {
    const TileGrid g = plan_tile_grid(tiles_x, tiles_y);
    ASSERT_TRUE(g.fits) << tiles_x << " x " << tiles_y;
    ASSERT_LE(int64_t(g.grid_y), kMaxGridY);
    ASSERT_EQ(int64_t(g.grid_x) * g.grid_y, tiles_x * tiles_y);
    std::vector<uint8_t> seen(size_t(tiles_x * tiles_y), 0);
    for (uint32_t by = 0; by < g.grid_y; ++by)
        for (uint32_t bx = 0; bx < g.grid_x; ++bx) {
            int64_t tx = -1, ty = -1;
            tile_of_block(g.swapped, bx, by, tx, ty);
            ASSERT_TRUE(tx >= 0 && tx < tiles_x && ty >= 0 && ty < tiles_y)
                << "block (" << bx << ", " << by << ") -> tile (" << tx << ", " << ty << ")";
            ASSERT_EQ(seen[size_t(ty * tiles_x + tx)]++, 0) << "tile (" << tx << ", " << ty << ") twice";
        }
}

TEST(TileGrid, KeepsTheRungsOrderWhenItFits) {
    const TileGrid g = plan_tile_grid(64, 32);
    EXPECT_TRUE(g.fits);
    EXPECT_FALSE(g.swapped);
    EXPECT_EQ(g.grid_x, 64u);
    EXPECT_EQ(g.grid_y, 32u);
    // The x side may be long: 2^31 - 1 blocks.
    const TileGrid tall = plan_tile_grid(kMaxGridX, 1);
    EXPECT_TRUE(tall.fits);
    EXPECT_FALSE(tall.swapped);
    EXPECT_EQ(tall.grid_x, uint32_t(kMaxGridX));
}

TEST(TileGrid, SwapsWhenYWouldPassItsLimit) {
    const TileGrid at = plan_tile_grid(8, kMaxGridY);
    EXPECT_TRUE(at.fits);
    EXPECT_FALSE(at.swapped) << "65535 blocks still fit on y";
    const TileGrid past = plan_tile_grid(8, kMaxGridY + 1);
    EXPECT_TRUE(past.fits);
    EXPECT_TRUE(past.swapped);
    EXPECT_EQ(past.grid_x, uint32_t(kMaxGridY + 1));
    EXPECT_EQ(past.grid_y, 8u);
}

TEST(TileGrid, TheIssuesShapesFitForEveryTileSize) {
    // m = 64 * 70000, n = 8 and its transpose, for the tile sides the rungs use (16 .. 256),
    // with m's tiles on x (rungs 2-17) or on y (rung 1).
    for (int64_t side : {16, 32, 64, 128, 256}) {
        const int64_t along = ceil_div(64 * 70000, side), across = ceil_div(8, side);
        for (const TileGrid g : {plan_tile_grid(along, across), plan_tile_grid(across, along)}) {
            EXPECT_TRUE(g.fits) << side;
            EXPECT_LE(int64_t(g.grid_y), kMaxGridY) << side;
        }
    }
}

TEST(TileGrid, EveryBlockFindsItsOwnTile) {
    expect_one_block_per_tile(3, 5);
    expect_one_block_per_tile(1, kMaxGridY + 1);     // wide: swapped
    expect_one_block_per_tile(3, 2 * kMaxGridY + 7); // swapped, both sides > 1
    expect_one_block_per_tile(kMaxGridY + 2, 2);     // tall: as asked
}

TEST(TileGrid, RefusesWhatNoGridHolds) {
    EXPECT_FALSE(plan_tile_grid(kMaxGridY + 1, kMaxGridY + 1).fits); // both sides too long for y
    EXPECT_FALSE(plan_tile_grid(kMaxGridX + 1, 1).fits);             // longer than x allows
    EXPECT_FALSE(plan_tile_grid(1, kMaxGridX + 1).fits);
    EXPECT_FALSE(plan_tile_grid(0, 5).fits);
    EXPECT_FALSE(plan_tile_grid(5, 0).fits);
}

} // namespace

// Grouped rasters (rungs 15-17's large tiles): every tile taken exactly once whatever the group
// and grid (a last group narrower than the others included), the first `group` blocks run down
// x, and a group as wide as the grid is the plain raster.
TEST(TileGrid, GroupedRasterIsABijection) {
    using gemmlab::detail::grouped_tile_of_block;
    for (int64_t group : {1, 2, 16, 64})
        for (auto [nx, ny] : {std::pair<int64_t, int64_t>{1, 1}, {5, 3}, {16, 7}, {33, 65}, {64, 2}}) {
            std::vector<int> seen(size_t(nx * ny), 0);
            for (int64_t by = 0; by < ny; ++by)
                for (int64_t bx = 0; bx < nx; ++bx) {
                    int64_t tx = -1, ty = -1;
                    grouped_tile_of_block(group, nx, ny, bx, by, tx, ty);
                    ASSERT_TRUE(tx >= 0 && tx < nx && ty >= 0 && ty < ny) << group << " " << nx << "x" << ny;
                    ++seen[size_t(tx + ty * nx)];
                    if (group >= nx) EXPECT_TRUE(tx == bx && ty == by);
                }
            for (int count : seen) EXPECT_EQ(count, 1) << group << " " << nx << "x" << ny;
            int64_t tx = 0, ty = 0;
            grouped_tile_of_block(group, nx, ny, std::min(group, nx) - 1, 0, tx, ty);
            EXPECT_EQ(ty, 0) << "the first group's first blocks run down x";
        }
}
