#pragma once
// The block tiles of the Hopper rungs 20-26 and the shared memory each needs: the one place
// where these facts live. The kernels lay out their shared memory from these types
// (tile_layout.cuh), and auto (auto_select.cu) reads kSmemBytes from them. Host-includable.

namespace gemmlab::detail::hopper {

/// Warps in a warpgroup, the unit that issues wgmma.
inline constexpr int kWarpgroupWarps = 4;
/// The ping-pong kernel (pingpong.cuh): two consumer warpgroups, each on tiles of its own, and
/// the producer.
inline constexpr int kPingPongConsumers = 2;
inline constexpr int kPingPongThreads = (kPingPongConsumers + 1) * 128;

/// A block of BM x BN outputs (BM / 64 consumer warpgroups of 64 rows each), Stages k tiles of
/// 128 bytes in flight, Parts tiles per operand and stage (3xTF32: a big and a small part), and
/// StoreBuffers buffers of StoreBytes each of shared memory for staging C (rung 24's TMA store;
/// with two, a tile's C goes to the buffer its block's previous tile did not use).
template <int BM_, int BN_, int Stages_, int Parts_ = 1, int StoreBytes_ = 0, int StoreBuffers_ = 1>
struct BlockConfig {
    static constexpr int BM = BM_, BN = BN_, kStages = Stages_, kParts = Parts_;
    static constexpr int kStoreBytes = StoreBytes_; // one buffer
    static constexpr int kStoreBuffers = StoreBuffers_;
    static constexpr int kConsumers = BM / 64; // warpgroups issuing wgmma
    static constexpr int kConsumerWarps = kConsumers * kWarpgroupWarps;
    /// Per stage: Parts x (BM + BN) rows of 128 bytes (A's tiles first, then B's).
    static constexpr int kStageBytes = kParts * (BM + BN) * 128;
    static constexpr int kStoreOffset = kStages * kStageBytes; // a multiple of 1024
    static constexpr int kBarrierOffset = kStoreOffset + kStoreBuffers * kStoreBytes;
    /// Stages, C staging, a full and an empty mbarrier per stage, and 1024 bytes to align the
    /// start to the 128-byte swizzle's 1024-byte pattern.
    static constexpr int kSmemBytes = kBarrierOffset + 2 * kStages * 8 + 1024;

    static_assert(BM == 64 || BM == 128 || BM == 192, "one to three consumer warpgroups of m64");
    static_assert(BN == 16 || BN == 64 || BN == 96 || BN == 128 || BN == 144 || BN == 192 ||
                      BN == 256,
                  "wgmma n16, n64, n96, n128, n144, n192 or n256");
    /// A tile whose width is not whole 64-column panels holds B only K-major (one panel of BN
    /// rows of 128 bytes): an MN-major panel is 64 columns wide.
    static constexpr bool kKMajorBOnly = BN % 64 != 0;
    static_assert(kParts == 1 || kParts == 2, "one part, or 3xTF32's big and small parts");
    static_assert(kStoreBuffers == 1 || (kStoreBuffers == 2 && BN <= 128),
                  "two C buffers only where a tile is one store (kStoreCols)");
    static_assert(kSmemBytes <= 227 * 1024, "the pipeline must fit in 227 KB of shared memory");
};

/// k elements of one stage's 128-byte k tile: 64 for the 16-bit types (what auto's model counts
/// the tail split in).
template <int ElementBytes>
inline constexpr int kTileK = 128 / ElementBytes;
/// Rung 24's C staging: one buffer of 64 rows of 16-bit values per consumer warpgroup, as wide
/// as the tile up to 128 columns; a wider tile is stored 128 columns at a time, or 64 where 128
/// does not divide it (192).
template <int BN>
inline constexpr int kStoreCols = BN <= 128 ? BN : BN % 128 == 0 ? 128 : 64;
template <int BM, int BN>
inline constexpr int kTmaStoreBytes = (BM / 64) * 64 * kStoreCols<BN> * 2;
/// Columns of C that one staging buffer holds at ElementBytes per value: kStoreCols of 16-bit
/// values, half as many of 32-bit ones (the 8-bit rungs' float and int32 C).
template <int BN, int ElementBytes>
inline constexpr int kStagedCols = kStoreCols<BN> * 2 / ElementBytes;

using WgmmaConfig = BlockConfig<128, 128, 4>;                          // rung 20
using TmaConfig = BlockConfig<128, 128, 4>;                            // rung 21
using WarpSpecializedConfig = BlockConfig<128, 256, 4>;                // rungs 22, 23
using PersistentConfig = BlockConfig<128, 256, 4, 1, kTmaStoreBytes<128, 256>>; // rung 24
/// Rung 24 for auto's narrow products (attention's P V, n = 64-128; a prefill of 65-128
/// tokens): half the columns, so six stages of 32 KB fit beside the C staging.
using PersistentNarrowConfig = BlockConfig<128, 128, 6, 1, kTmaStoreBytes<128, 128>>;
/// And for n <= 64 (a prefill of up to 64 tokens against a weight): a quarter of the columns,
/// eight stages of 24 KB beside two 64-column C stagings (a tile's store need not wait for the
/// previous tile's to have left shared memory).
using PersistentSlimConfig = BlockConfig<128, 64, 8, 1, kTmaStoreBytes<128, 64>, 2>;
/// For strided batches of products of at most 64 x 64 (attention's small heads): one consumer
/// warpgroup, and the 16 KB stages so many (13) that a block's loads for the next dozen tiles
/// are in flight while it multiplies one: such products are a stream of memory, not of math.
/// Two C stagings, as the slim config.
using PersistentSmallConfig = BlockConfig<64, 64, 13, 1, kTmaStoreBytes<64, 64>, 2>;
/// The same 64 x 64 tile on two consumer warpgroups in ping-pong (hopper/pingpong.cuh), each
/// with tiles of its own, so that one's epilogue and loads' latency overlap the other's: twelve
/// stages of 16 KB beside two stagings of both warpgroups' 64 x 64 (16 KB each). Its kConsumers
/// (1, from BM) counts the warpgroups of one tile; the block runs kPingPongConsumers of them.
using PersistentPingPongConfig = BlockConfig<64, 64, 12, 1, kTmaStoreBytes<128, 64>, 2>;
/// 64 x 128, one consumer warpgroup issuing m64n128k16: as many tiles as 128 x 64 where those
/// are few (1024^2: 128), but each k step reads 6 KB of shared memory for its 131072 products
/// where 128 x 64's two m64n64k16 read 8 KB. Eight stages of 24 KB beside two 128-column C
/// stagings.
using PersistentFlatConfig = BlockConfig<64, 128, 8, 1, kTmaStoreBytes<64, 128>, 2>;
/// For a decode step of 9-16 tokens against a weight (n <= 16 in the column-major form, the
/// weight's rows along m): 64 weight rows by 16 tokens (wgmma n16), where a 64-column tile
/// issues four times the tensor work for the same bytes. A stage is 10 KB, so 16 of them keep
/// 160 KB of the weight in flight per SM.
using PersistentSkinnyConfig = BlockConfig<64, 16, 16, 1, kTmaStoreBytes<64, 16>>;
/// For a prefill of 65-512 tokens against a weight, computed transposed (the weight's rows along
/// the kernel's n, the tokens along its m; C stored transposed from registers): wgmma's n may be
/// any multiple of 8, so the weight is cut in 96 or 144 rows where the m64 steps of the other
/// tiles cut it in 64, 128 or 192, and the tiles come nearer one wave of the SMs (4608 rows and
/// 128 tokens: 96 tiles of 64 x 96, against 72 of 128 x 64; 4608 rows and 512 tokens: 128 of
/// 128 x 144, against 96 of 192 x 128; 3072 rows and 512 tokens: 128 of 128 x 96, against 96
/// of 128 x 128). The weight's tile is K-major only (one panel of 96 or 144 rows). No C
/// staging: 64 x 96 takes ten stages of 20 KB, 128 x 96 seven of 28 KB, 128 x 144 six of 34 KB.
using PersistentTransposedSlimConfig = BlockConfig<64, 96, 10>;
using PersistentTransposedNarrowConfig = BlockConfig<128, 96, 7>;
using PersistentTransposedWideConfig = BlockConfig<128, 144, 6>;
/// For products whose 128 x 256 tiles fall just past a whole wave (3000^3: 288 tiles on 132
/// SMs, three waves; in 192 x 192 tiles 256, two): three consumer warpgroups of 64 x 192, four
/// stages of 48 KB beside a staging of 64 columns.
using PersistentTallConfig = BlockConfig<192, 192, 4, 1, kTmaStoreBytes<192, 192>>;
/// And 192 x 128, for products whose 128 x 256 tiles are a lone wave that leaves many SMs idle
/// (1536^3: 72 tiles; in 192 x 128 tiles 96): four stages of 40 KB beside a 128-column staging.
using PersistentTallNarrowConfig = BlockConfig<192, 128, 4, 1, kTmaStoreBytes<192, 128>>;
using Tf32Config = BlockConfig<128, 256, 4>;                           // rung 25 (C in float)
/// Rung 25 for auto's medium products (1024^3: 32 tiles of 128 x 256 on 132 SMs): 128 x 128
/// and 128 x 64, their stages as many as rung 24's tiles of the same shape hold beside C's
/// staging (32 and 24 KB a stage; rung 25 stores C from registers).
using Tf32NarrowConfig = BlockConfig<128, 128, 6>;
using Tf32SlimConfig = BlockConfig<128, 64, 8>;
/// And 192 x 128 (three consumer warpgroups, five stages of 40 KB) where 128 x 128 tiles fall
/// just past a whole wave (6144 x 1536: 576 tiles, 4.4 waves; in 192 x 128 tiles 384, 2.9).
using Tf32TallNarrowConfig = BlockConfig<192, 128, 5>;
/// Rung 26: two parts per operand; 3 stages of 64 KB (128 x 256 would leave room for two).
using Tf32x3Config = BlockConfig<128, 128, 3, 2>;
/// Rung 29 (FP8): 128 x 128, as the promotion keeps a 64 x 128 FP32 interval sum per consumer
/// beside its accumulators (2 x 64 registers; n256 would need 2 x 128, past the 232 a consumer
/// thread has); k tiles of 128 FP8 values are 32 KB a stage, so six stages fit beside rung 24's
/// 32 KB C staging.
using Fp8Config = BlockConfig<128, 128, 6, 1, kTmaStoreBytes<128, 128>>;
/// Rung 30 (INT8): exact s32 accumulators need no second set, so rung 22's 128 x 256 tile; four
/// stages of 48 KB (128 INT8 values of k) beside the same 32 KB staging (64 columns of s32 C).
using Int8Config = BlockConfig<128, 256, 4, 1, kTmaStoreBytes<128, 256>>;

} // namespace gemmlab::detail::hopper
