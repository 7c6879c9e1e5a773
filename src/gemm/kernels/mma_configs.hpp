#pragma once
// Tile configurations of the tensor-core rungs (15 dmma, 16 tf32, 17 tf32x3) as types, and their
// per-configuration launchers. The configurations that exist are exactly the explicit
// instantiations at the end of each rung's file (STYLE.md item 2); `auto` picks among them by
// shape, each registry row runs its rung's default.

#include <cstdint>

#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail::mma {

/// Block tile (BM, BN, BK) cut into (WM, WN) warp tiles, each a (WM / 16) x (WN / 8) grid of
/// m16n8 MMA tiles; Stages shared buffers in the cp.async ring; MinBlocks resident blocks per SM
/// asked of the register allocator (__launch_bounds__); GroupM > 1: blocks take their tiles in
/// groups of GroupM tile rows (tile::grouped_block_tile_origin), so that the blocks running at
/// once share operand panels in L2.
template <class Block, class Warp, int Stages, int MinBlocks = 1, int GroupM = 1>
struct MmaConfig {
    static constexpr int BM = Block::kM, BN = Block::kN, BK = Block::kK;
    static constexpr int WM = Warp::kM, WN = Warp::kN;
    static constexpr int kStages = Stages;
    static constexpr int kMinBlocks = MinBlocks;
    static constexpr int kGroupM = GroupM;
    static constexpr int kWarpsM = BM / WM, kWarpsN = BN / WN;
    static constexpr int kThreads = 32 * kWarpsM * kWarpsN;
    static constexpr int kTilesM = WM / 16; // m16 row tiles per warp
    static constexpr int kTilesN = WN / 8;  // n8 column tiles per warp

    static_assert(BM % WM == 0 && BN % WN == 0, "the block tile must be whole warp tiles");
    static_assert(WM % 16 == 0 && WN % 8 == 0, "a warp tile must be whole m16n8 MMA tiles");
    static_assert(kStages >= 2, "a pipeline needs at least two stages");
};

// ----------------------------------------------------------------------- the configurations
// Names: block tile, "w" warp tile, "s" stages, "g" tile rows per raster group.

/// 128x128, 8 warps of 64x32, 3 stages.
template <int BK>
using Cfg128x128w64x32s3 = MmaConfig<GemmShape<128, 128, BK>, GemmShape<64, 32, 1>, 3>;
/// 128x128, 8 warps of 64x32, 4 stages.
template <int BK>
using Cfg128x128w64x32s4 = MmaConfig<GemmShape<128, 128, BK>, GemmShape<64, 32, 1>, 4>;
/// 128x128, 8 warps of 64x32, 4 stages, 2 blocks per SM (at most 128 registers per thread).
template <int BK>
using Cfg128x128w64x32s4b2 = MmaConfig<GemmShape<128, 128, BK>, GemmShape<64, 32, 1>, 4, 2>;
/// 128x256, 8 warps of 64x64, 3 stages: the most MMAs per shared-memory byte.
template <int BK>
using Cfg128x256w64x64s3 = MmaConfig<GemmShape<128, 256, BK>, GemmShape<64, 64, 1>, 3>;
/// 128x64, 4 warps of 64x32, 4 stages, 2 blocks per SM.
template <int BK>
using Cfg128x64w64x32s4 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<64, 32, 1>, 4, 2>;

/// Cfg128x64w64x32s4 taking its tiles in groups of 16 tile rows, and its 3-stage twin.
template <int BK>
using Cfg128x64w64x32s4g16 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<64, 32, 1>, 4, 2, 16>;
template <int BK>
using Cfg128x64w64x32s3g16 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<64, 32, 1>, 3, 2, 16>;
/// 128x128, 8 warps of 64x32, 4 stages, tiles in groups of 16 tile rows (rung 15's row).
template <int BK>
using Cfg128x128w64x32s4g16 = MmaConfig<GemmShape<128, 128, BK>, GemmShape<64, 32, 1>, 4, 1, 16>;
/// 128x64, 4 warps of 64x32, 3 stages, 2 blocks per SM (with a 32-deep k tile: half the barriers).
template <int BK>
using Cfg128x64w64x32s3 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<64, 32, 1>, 3, 2>;
/// 64x128, 4 warps of 32x64, 4 stages, 2 blocks per SM.
template <int BK>
using Cfg64x128w32x64s4 = MmaConfig<GemmShape<64, 128, BK>, GemmShape<32, 64, 1>, 4, 2>;
/// 64x64, 4 warps of 32x32, 4 stages, 3 blocks per SM.
template <int BK>
using Cfg64x64w32x32s4b3 = MmaConfig<GemmShape<64, 64, BK>, GemmShape<32, 32, 1>, 4, 3>;
/// 64x64, 8 warps of 32x16, 4 stages, 2 blocks per SM: 64x64's tiles with four warps per
/// scheduler, for medium products and batches of small ones.
template <int BK>
using Cfg64x64w32x16s4 = MmaConfig<GemmShape<64, 64, BK>, GemmShape<32, 16, 1>, 4, 2>;
/// 64x64, 4 warps of 32x32, 4 stages: small problems, many blocks.
template <int BK>
using Cfg64x64w32x32s4 = MmaConfig<GemmShape<64, 64, BK>, GemmShape<32, 32, 1>, 4, 2>;

/// 32x64 (4 warps of 16x32) and 64x32 (4 warps of 32x16), 4 stages, up to 4 blocks per SM:
/// twice 64x64's blocks on a small C (512^2: 128 tiles for 132 SMs, where 64x64 gives 64),
/// without split-K's second kernel.
template <int BK>
using Cfg32x64w16x32s4 = MmaConfig<GemmShape<32, 64, BK>, GemmShape<16, 32, 1>, 4, 4>;
template <int BK>
using Cfg64x32w32x16s4 = MmaConfig<GemmShape<64, 32, BK>, GemmShape<32, 16, 1>, 4, 4>;

/// 32x32 (4 warps of 16x16), 5 stages, up to 4 blocks per SM: a quarter of 64x64's tile, for
/// products whose C holds fewer 32x64 tiles than there are SMs (256^2: 64 tiles).
template <int BK>
using Cfg32x32w16x16s5 = MmaConfig<GemmShape<32, 32, BK>, GemmShape<16, 16, 1>, 5, 4>;
/// 128x64, 8 warps of 32x32, 4 stages, one block per SM: 128x64's tiles with two warps per
/// scheduler where a medium product gives each SM one tile.
template <int BK>
using Cfg128x64w32x32s4 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<32, 32, 1>, 4, 1>;
/// The same tiles in 3 stages of a 32-deep k tile: with m16n8k16 DMMA, two k steps a stage (rung
/// 15's eight-warp 128x64 candidate).
template <int BK>
using Cfg128x64w32x32s3 = MmaConfig<GemmShape<128, 64, BK>, GemmShape<32, 32, 1>, 3, 1>;
/// 32x64 in 3 stages of a 32-deep k tile: as 4 warps of 16x32, cuBLAS's DGEMM tile at 512^3
/// (ncu, docs/ladder.md), and as 8 warps of 16x16, 2 blocks per SM. Tile sweep rows.
template <int BK>
using Cfg32x64w16x32s3 = MmaConfig<GemmShape<32, 64, BK>, GemmShape<16, 32, 1>, 3, 4>;
template <int BK>
using Cfg32x64w16x16s3 = MmaConfig<GemmShape<32, 64, BK>, GemmShape<16, 16, 1>, 3, 2>;

/// The smallest k at which 3xTF32 meets the FP32 bound, 2 (k + 3) u, in the worst case on
/// hardware whose TF32 MMAs truncate the FP32 accumulation (measured on sm_90 by the tensor
/// probe): 12u per product from the split, up to 4u of the partial sum per MMA, 3 MMAs per k
/// step of 8, 2u for alpha and beta: 12 ceil(k / 8) + 14 <= 2 (k + 3) holds for every k >= 34,
/// and 40 leaves a margin (docs/precision.md). Rung 17 and auto send smaller k to the CUDA cores.
inline constexpr int64_t kTf32x3MinK = 40;

/// The k depth of the tensor-core sums that 3xTF32 (rung 17) promotes: its MMAs run from zero
/// for kTf32x3PromoteK terms, then their sum is added into the FP32 accumulators with a
/// round-to-nearest add. The TF32 MMAs truncate their FP32 sums, a loss that leans toward zero in
/// proportion to the sum it acts on; restarted every kTf32x3PromoteK it is a bounded relative
/// error of the sum of that many terms instead of one that grows with k, and the sum over k is
/// FP32 rounded to nearest, as SGEMM's is. One k step of 8: a longer interval would need a
/// second set of accumulators, which rung 17's 128x128 tiles have no registers for
/// (docs/precision.md, "Promotion").
inline constexpr int kTf32x3PromoteK = 8;

/// The magnitudes the 3xTF32 split carries, as the bits of |x| (which order non-negative
/// floats): 2^-115 <= |x| < 2^126, or x == 0. Below, the small part is subnormal or zero and
/// drops bits; from 2^126 on, the big part can round up to Inf; Inf and NaN (bits >= 2^126's)
/// would turn into NaN. Rungs 17 and 26 recompute tiles that meet anything else with FP32 FMAs.
inline constexpr uint32_t kTf32x3SmallestBits = 0x06000000u; // 2^-115: biased exponent 12
inline constexpr uint32_t kTf32x3LargestBits = 0x7E800000u;  // 2^126: biased exponent 253

/// Launchers per configuration (defined in 15_dmma.cu, 16_tf32.cu, 17_tf32x3.cu and
/// 19_mma_sync_f16.cu). Rung 15 takes the MMA k depth too: 8 or 16 (m16n8k8 or m16n8k16 DMMA).
template <class Cfg, int MmaK>
void launch_dmma_cfg(const GemmArgs<double>& args, cudaStream_t stream);
/// Rung 15 with the rotating-fragment mainloop (mma_tile.cuh), m16n8k8 DMMA unless MmaK says 16.
template <class Cfg, int MmaK = 8>
void launch_dmma_rotating_cfg(const GemmArgs<double>& args, cudaStream_t stream);
/// Rung 15's 128x64 tiles in groups of 16 rows, 4 stages where two such blocks fit in an SM's
/// shared memory for the call's op flags, else 3 (15_dmma.cu says why).
void launch_dmma_128x64(const GemmArgs<double>& args, cudaStream_t stream);
template <class Cfg>
void launch_tf32_cfg(const GemmArgs<float>& args, cudaStream_t stream);
template <class Cfg>
void launch_tf32x3_cfg(const GemmArgs<float>& args, cudaStream_t stream);
/// Rung 19 (19_mma_sync_f16.cu), TIn = __nv_bfloat16 or __half, TOut = TIn or float.
template <class Cfg, class TIn, class TOut>
void launch_mma_sync_f16_cfg(const HalfArgs<TIn, TOut>& args, cudaStream_t stream);

// ------------------------------------------------------------------ shared memory per block
// What one block takes, the largest over the op-flag and alignment variants, so that auto
// never lists a configuration whose block cannot launch on a device; each kernel asserts that
// its own figure fits under these.

/// Rungs 15-17 (mma_tile.cuh): per stage each operand either (BMN, BK + 4) or (BK, BMN + 32
/// bytes), whichever its op flag gives; the rotating mainloop (rung 15) adds a full and an
/// empty mbarrier per stage.
constexpr int mma_operand_elems(int bmn, int bk, int elem) {
    return bmn * (bk + 4) > bk * (bmn + 32 / elem) ? bmn * (bk + 4) : bk * (bmn + 32 / elem);
}
template <class Cfg, class T, bool Rotating = false>
inline constexpr int kMmaTileSmemBytes =
    Cfg::kStages *
        (mma_operand_elems(Cfg::BM, Cfg::BK, int(sizeof(T))) +
         mma_operand_elems(Cfg::BN, Cfg::BK, int(sizeof(T)))) *
        int(sizeof(T)) +
    (Rotating ? 16 * Cfg::kStages : 0);

/// Rung 19 (19_mma_sync_f16.cu): unpadded, swizzled 16-bit tiles per stage.
template <class Cfg>
inline constexpr int kMmaSyncF16SmemBytes = Cfg::kStages * (Cfg::BM + Cfg::BN) * Cfg::BK * 2;

} // namespace gemmlab::detail::mma
