#pragma once
// Tile configurations of the warp-tiled rungs (13 warp_tile, 14 async_pipeline) as types, and
// their per-configuration launchers. The configurations that exist are exactly the explicit
// instantiations listed at the end of 13_warp_tile.cu and 14_async_pipeline.cu (no tile size
// is ever edited in place); `auto` (src/gemm/auto_select.cu) picks among them by
// shape, and each rung's registry launcher uses its default configuration.

#include "gemm/problem.hpp"

namespace gemmlab::detail {

/// A (M, N, K) tile shape, as CUTLASS's GemmShape: block, warp and thread tiles are types.
template <int M, int N, int K>
struct GemmShape {
    static constexpr int kM = M;
    static constexpr int kN = N;
    static constexpr int kK = K;
};

/// Block tile (BM, BN, BK) cut into warp tiles (WM, WN), each cut into 32 thread tiles (TM, TN);
/// Stages is the depth of the shared-memory pipeline (2 = double buffer; rung 14 uses 3-4).
template <class Block_, class Warp_, class Thread_, int Stages_>
struct TileConfig {
    using Block = Block_;
    using Warp = Warp_;
    using Thread = Thread_;
    static constexpr int BM = Block::kM, BN = Block::kN, BK = Block::kK;
    static constexpr int WM = Warp::kM, WN = Warp::kN;
    static constexpr int TM = Thread::kM, TN = Thread::kN;
    static constexpr int kStages = Stages_;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kLanesM = WM / TM, kLanesN = WN / TN; // lanes of a warp along m and n

    static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must be whole warp tiles");
    static_assert(WM % TM == 0 && WN % TN == 0, "the warp tile must be whole thread tiles");
    static_assert(kLanesM * kLanesN == 32, "a warp tile must hold exactly 32 thread tiles");
    static_assert(kStages >= 2, "a pipeline needs at least two stages");
};

// ----------------------------------------------------------------------- the configurations
// Names: block tile, then "w" warp tile, "t" thread tile, "s" stages.

/// 128x128x8, 8 warps of 64x32, 8x8 per thread, 256 threads: the classic large tile.
using Cfg128x128x8 = TileConfig<GemmShape<128, 128, 8>, GemmShape<64, 32, 1>, GemmShape<8, 8, 1>, 2>;
/// As above with a 16-deep k tile (half the barriers per FMA, twice the shared memory).
using Cfg128x128x16 = TileConfig<GemmShape<128, 128, 16>, GemmShape<64, 32, 1>, GemmShape<8, 8, 1>, 2>;
/// 128x256x8, 8 warps of 64x64, 8x16 per thread: fewer shared-memory reads per FMA.
using Cfg128x256x8 = TileConfig<GemmShape<128, 256, 8>, GemmShape<64, 64, 1>, GemmShape<8, 16, 1>, 2>;
/// 128x256x16, 8 warps of 64x64, 8x16 per thread: one block per SM (registers), so the
/// 16-deep k tile halves the barriers that stall the whole SM.
using Cfg128x256x16 = TileConfig<GemmShape<128, 256, 16>, GemmShape<64, 64, 1>, GemmShape<8, 16, 1>, 2>;
/// 128x64x16, 4 warps of 64x32, 8x8 per thread, 128 threads (double: 2 blocks per SM).
using Cfg128x64x16 = TileConfig<GemmShape<128, 64, 16>, GemmShape<64, 32, 1>, GemmShape<8, 8, 1>, 2>;
/// 128x64x8, 4 warps of 64x32, 8x8 per thread, 128 threads: twice the blocks of 128x128.
using Cfg128x64x8 = TileConfig<GemmShape<128, 64, 8>, GemmShape<64, 32, 1>, GemmShape<8, 8, 1>, 2>;
/// 64x64x8, 4 warps of 32x32, 4x8 per thread, 128 threads: small problems, many blocks.
using Cfg64x64x8 = TileConfig<GemmShape<64, 64, 8>, GemmShape<32, 32, 1>, GemmShape<4, 8, 1>, 2>;
/// 64x64x16, 8 warps of 32x16, 4x4 per thread, 256 threads: the mid-size tile (1024^2 C is
/// 256 tiles: ~2 blocks = 16 warps per SM, where 64x64x8 has 8).
using Cfg64x64x16 = TileConfig<GemmShape<64, 64, 16>, GemmShape<32, 16, 1>, GemmShape<4, 4, 1>, 2>;

/// Rung 14's pipelined versions of the same shapes.
template <class Cfg, int Stages>
using WithStages = TileConfig<typename Cfg::Block, typename Cfg::Warp, typename Cfg::Thread, Stages>;

// ------------------------------------------------------------------ shared memory per block
// What one block takes, the largest over the op-flag and alignment variants (each tile row
// padded by 16 bytes), so that auto never lists a configuration whose block cannot launch on a
// device. Each kernel asserts that its own figure fits under these.

/// Rung 13: two (BK, BM + pad) op(A) tiles and two (BK, BN + pad) op(B) tiles.
template <class Cfg, class T>
inline constexpr int kWarpTileSmemBytes =
    2 * Cfg::BK * (Cfg::BM + Cfg::BN + 2 * (16 / int(sizeof(T)))) * int(sizeof(T));

/// Rung 14: per stage a (BK, BM + pad) op(A) tile and a (BN, BK + pad) op(B) tile.
template <class Cfg, class T>
inline constexpr int kAsyncPipelineSmemBytes =
    Cfg::kStages *
    (Cfg::BK * (Cfg::BM + 16 / int(sizeof(T))) + Cfg::BN * (Cfg::BK + 16 / int(sizeof(T)))) *
    int(sizeof(T));

/// Launches rung 13 (register-staged double buffer + warp tiling) with configuration Cfg.
template <class Cfg, class T>
void launch_warp_tile_cfg(const GemmArgs<T>& args, cudaStream_t stream);

/// Launches rung 14 (cp.async multi-stage pipeline + warp tiling) with configuration Cfg.
template <class Cfg, class T>
void launch_async_pipeline_cfg(const GemmArgs<T>& args, cudaStream_t stream);

} // namespace gemmlab::detail
