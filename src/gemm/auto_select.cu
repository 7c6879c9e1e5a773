// `auto`: picks a rung, a tile configuration and a k split for each call, among the
// configurations the device can run (Hopper-only code only on sm_90a).
//
// Precision first, and never lowered: which candidates may run is the call's
// GemmOptions::precision. Double: FP64 DMMA (rung 15) and the FP64 CUDA-core rungs, all IEEE
// FP64 and held to the same bound. Float, Precision::Default: the FP32 CUDA-core rungs and
// 3xTF32 (rungs 17 and 26), which meets the FP32 bound (docs/precision.md) for k >= kTf32x3MinK
// and routes its own tiles with out-of-range inputs to FP32 FMAs; below that k only the CUDA
// cores. Float, Precision::Tf32 (the caller's explicit choice): TF32 (rungs 16, 25) joins them.
// Float and double, Precision::Int8Emulation (also the caller's): rung 31 on sm_90a. Under
// Default, rung 31 runs only large double products, where it is faster and measured at least
// as accurate (goes_to_emulation).
// Each candidate group carries its Accuracy, and admits() is the one place these rules live: a
// tuned choice passes through it too, so a tune cache can never lower a call's precision.
//
// Then speed: the tune cache's choice where `gemmlab tune` measured this GPU's shape class
// (tune_table.hpp), else a wave-quantisation model:
//
//   time(config, s) = blocks on the busiest SM * 2 * tile area * (k/s + fill_k)
//                         / (flop_per_sm_cycle * SM clock * utilisation)
//                     + (pack bytes * (m + n) * k + 2 * partial bytes * s * m * n [s > 1])
//                         / DRAM bandwidth
//                     + kLaunchNs * extra launches + kSplitKNs * [s > 1]
//
// whose per-configuration input is a measured throughput per SM and cycle and whose device
// inputs are queried (DeviceCaps). Wave quantisation is the point: a 1024x1024 C is 32 tiles of
// 128x256 (100 of 132 SMs idle) but 256 of 64x64, and a strided batch is more tiles of the same
// launch. docs/auto.md explains each term and where every measured constant below comes from.

#include "gemm/auto_select.hpp"

#include <algorithm>
#include <cstdint>
#include <span>
#include <utility>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/hopper/configs.hpp"
#include "gemm/kernels/hopper/cluster_split.cuh"
#include "gemm/kernels/hopper/tail_split.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/ozaki/crt.hpp"
#include "gemm/kernels/split_k.cuh"
#include "gemm/kernels/tile_configs.hpp"
#include "gemm/tune_cache.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail {
namespace {

/// The GPU the rates were measured on (an H100 SXM or H200 SXM: 132 SMs, SM clock 1980 MHz
/// during the runs; docs/auto.md).
constexpr int kMeasuredSms = 132;
constexpr double kMeasuredClockGhz = 1.98;

/// FLOP per SM per clock cycle of a configuration measured at `gflops` on that GPU.
constexpr double per_sm_cycle(double gflops) { return gflops / (kMeasuredSms * kMeasuredClockGhz); }

// Shared memory per block: each kernel family exports it beside its configurations
// (tile_configs.hpp, mma_configs.hpp, launchers.hpp for rung 18, hopper/configs.hpp), the largest
// over its op-flag and alignment variants, so that a device never gets a candidate whose block
// cannot launch there; each kernel asserts that its own figure fits under it.

/// Which calls may run a candidate (the precision rules of the header).
enum class Accuracy : uint8_t {
    Exact,  ///< the input type's own arithmetic: any call
    Tf32x3, ///< FP32-accurate from k >= kTf32x3MinK; any k where TF32 is allowed
    Tf32,   ///< TF32: only under Precision::Tf32
};

constexpr bool admits(Accuracy a, Precision precision, int64_t k) {
    switch (a) {
    case Accuracy::Exact: return true;
    case Accuracy::Tf32x3: return precision == Precision::Tf32 || k >= mma::kTf32x3MinK;
    case Accuracy::Tf32: return precision == Precision::Tf32;
    }
    return false;
}

/// Whether split_k.cuh can split Args' natively batched launchers: float and double (its
/// partial sums are in the element type), not the half types.
template <class Args>
constexpr bool kSplitsByBatch = false;
template <class T>
constexpr bool kSplitsByBatch<GemmArgs<T>> = true;

/// One configuration auto may run, for the typed arguments Args (GemmArgs<T> or
/// HalfArgs<TIn, TOut>).
template <class Args>
struct CandidateFor {
    const char* name;  // rung and configuration: what the tune cache stores
    int bm, bn;        // block tile
    int warps;         // warps per block
    int blocks_per_sm; // resident blocks per SM on sm_90 (ptxas registers / shared memory)
    double flop_per_sm_cycle; // measured throughput (see per_sm_cycle and the header)
    int smem_bytes;    // shared memory per block, the largest variant (see warp_tile_smem, ...)
    void (*launch)(const Args&, cudaStream_t);
    /// Hopper-only code (KernelInfo::needs_sm90a): skipped unless the device runs sm_90a.
    bool needs_sm90a = false;
    /// KernelInfo::min_compute_capability of its rung: skipped on older devices.
    int min_cc = 0;
    /// DRAM bytes moved per element of op(A) and op(B) before the kernel runs (the TF32 pack
    /// step of rungs 25-26: read 4, write 4 per part; the 16-bit wgmma rungs' copy of an
    /// operand TMA cannot read: read 2, write 2); 0 for the others. The rate (measured at
    /// 4096^3 on the whole call) already holds that cost there; the model adds it again
    /// everywhere, which only weighs it double where it matters least (large m and n).
    double pack_bytes = 0;
    /// Covers a strided batch in one launch (KernelInfo::native_batch); a call of more than
    /// one batch picks among these only. A configuration whose launcher ignores the batch (the
    /// Hopper rungs 20-26: their tensor maps describe one matrix) must say false here.
    bool native_batch = true;
    /// The same configuration with k cut into slices inside its kernel (split-K of the wgmma
    /// rungs), or nullptr. A natively batched float or double configuration splits without one
    /// (split_k.cuh: the slices a batch of its own kernel). See splits_k.
    void (*launch_split)(const Args&, cudaStream_t, int splits) = nullptr;
    /// Kernels and memsets a call enqueues before its GEMM kernel (the pack step of rungs
    /// 25-26), each a fixed cost of kLaunchNs whatever the shape.
    int extra_launches = 0;
    /// Resident warps per SM that reach the listed rate; 0: the type's kSaturatingWarps.
    int saturating_warps = 0;
    /// What a block costs whatever its k, in k steps of its tile (fill_k below); 0 where not
    /// measured.
    int fill_k = 0;
    /// The pack step covers only the operands TMA cannot load as they are (rung 25,
    /// hopper/tf32_pack.cuh: an op(B) that is not K-major, and an operand that is not 16-byte
    /// aligned; the 16-bit wgmma rungs, kernels/repitch.cuh: an operand that is not 16-byte
    /// aligned). pack_bytes and extra_launches (one kernel each) then count only those.
    /// False: both are packed on every call (rung 26).
    bool packs_unreadable_only = false;
    /// Its time over the model's where an operand is not 16-byte aligned (rung 19 then reads
    /// it element by element); 1: the candidate copies such an operand or reads it alike.
    double unaligned_time_factor = 1;
    /// Rung 25: its time over the model's where its first operand takes the register path (an
    /// MN-major op(A), or op(B)^T in the transposed product: wgmma_tf32_plan). Each k tile's
    /// fragment loads weigh more against a narrow tile's short wgmma; 1: no such path.
    double register_a_time_factor = 1;
    /// Rung 24's tail-split schedule (hopper/tail_split.cuh): the tiles past the last whole
    /// wave cut along k into as many pieces as the idle SMs allow, plus kTailSplitNs.
    bool tail_split = false;
    /// Rung 24's cluster-split schedule (hopper/cluster_split.cuh): fewer tiles than SMs, each
    /// cut along k over a cluster, plus kClusterSplitNs.
    bool cluster_split = false;
    /// Runs only calls whose op(A) is K-major (trans_a): rung 24's transposed tiles, which read
    /// op(A)^T as their K-major second operand. Not an option of other calls.
    bool needs_k_major_a = false;
    /// Runs only calls with at least this many columns of C (0: any), and where set, only
    /// calls whose C is whole tiles (m a multiple of bm, n of bn).
    int64_t min_n = 0;
    bool needs_whole_tiles = false;
    /// Runs strided batches only (of two products or more): measured there alone.
    bool batches_only = false;

    /// True when the configuration can cut k into slices: the model then also weighs 2, 4, 8
    /// and 16 slices of at least kMinSplitK (one batch only).
    bool splits_k() const { return launch_split || (native_batch && kSplitsByBatch<Args>); }

    /// Runs the configuration with k in `splits` slices (1: whole), as splits_k allows.
    void launch_sliced(const Args& g, cudaStream_t stream, int splits) const {
        if (splits <= 1) return launch(g, stream);
        if (launch_split) return launch_split(g, stream, splits);
        if constexpr (kSplitsByBatch<Args>) launch_split_k(launch, g, splits, stream);
    }
};

template <class T>
using Candidate = CandidateFor<GemmArgs<T>>;

template <class TIn, class TOut>
using HalfCandidate = CandidateFor<HalfArgs<TIn, TOut>>;

// ------------------------------------------------------------------ CUDA cores (rungs 13, 14)
// Blocks per SM from ptxas registers and shared memory on sm_90a; rates: row-major NN 4096^3
// (docs/auto.md, "CUDA-core configurations"). Every one of them (and rungs 15-17 below) splits k
// by split_k.cuh, the slices a batch of the configuration's own kernel (CandidateFor::splits_k).

const Candidate<float> kFloatCudaCores[] = {
    {.name = "warp_tile 128x256x16", .bm = 128, .bn = 256, .warps = 8, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(47100), .smem_bytes = kWarpTileSmemBytes<Cfg128x256x16, float>,
     .launch = &launch_warp_tile_cfg<Cfg128x256x16, float>, .fill_k = 23},
    {.name = "warp_tile 128x128x8", .bm = 128, .bn = 128, .warps = 8, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(41000), .smem_bytes = kWarpTileSmemBytes<Cfg128x128x8, float>,
     .launch = &launch_warp_tile_cfg<Cfg128x128x8, float>, .fill_k = 23},
    {.name = "warp_tile 128x64x8", .bm = 128, .bn = 64, .warps = 4, .blocks_per_sm = 4,
     .flop_per_sm_cycle = per_sm_cycle(40900), .smem_bytes = kWarpTileSmemBytes<Cfg128x64x8, float>,
     .launch = &launch_warp_tile_cfg<Cfg128x64x8, float>, .fill_k = 23},
    {.name = "async_pipeline 64x64x8 s4", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 5,
     .flop_per_sm_cycle = per_sm_cycle(37600), .smem_bytes = kAsyncPipelineSmemBytes<WithStages<Cfg64x64x8, 4>, float>,
     .launch = &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>, .fill_k = 18},
    {.name = "warp_tile 64x64x8", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 5,
     .flop_per_sm_cycle = per_sm_cycle(37500), .smem_bytes = kWarpTileSmemBytes<Cfg64x64x8, float>,
     .launch = &launch_warp_tile_cfg<Cfg64x64x8, float>, .fill_k = 31},
};

const Candidate<double> kDoubleCudaCores[] = {
    {.name = "warp_tile 128x64x8", .bm = 128, .bn = 64, .warps = 4, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(23800), .smem_bytes = kWarpTileSmemBytes<Cfg128x64x8, double>,
     .launch = &launch_warp_tile_cfg<Cfg128x64x8, double>},
    {.name = "async_pipeline 128x64x16 s3", .bm = 128, .bn = 64, .warps = 4, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(23800), .smem_bytes = kAsyncPipelineSmemBytes<WithStages<Cfg128x64x16, 3>, double>,
     .launch = &launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>, double>},
    {.name = "warp_tile 128x128x16", .bm = 128, .bn = 128, .warps = 8, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(23500), .smem_bytes = kWarpTileSmemBytes<Cfg128x128x16, double>,
     .launch = &launch_warp_tile_cfg<Cfg128x128x16, double>},
    {.name = "warp_tile 64x64x8", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 4,
     .flop_per_sm_cycle = per_sm_cycle(21100), .smem_bytes = kWarpTileSmemBytes<Cfg64x64x8, double>,
     .launch = &launch_warp_tile_cfg<Cfg64x64x8, double>},
};

// ------------------------------------------------------------ tensor cores (rungs 15, 16, 17)
// Rates: row-major NN from gemmlab_tile_sweep at 4096^3 and 8192^3, the lower (docs/auto.md,
// "Tensor-core configurations"). Blocks per SM from ptxas registers and shared memory. One
// 4-warp DMMA block per SM does not keep the FP64 tensor cores busy: 5 warps saturate.
constexpr int kDmmaSaturatingWarps = 5;
/// The same for warps of 16-row tiles (rung 15's 32x64 and 32x32), set so that the model
/// orders them as measured on single small products: one 4-warp 32x64 block per SM ran 512^3
/// at 0.67x-0.70x cuBLAS where two 32x32 blocks per SM ran 0.79x-0.84x (docs/auto.md).
constexpr int kDmmaShortWarpSaturatingWarps = 8;

/// DRAM bytes per element of rung 15's copy of an operand its rotating mainloop cannot read in
/// 16-byte copies (kernels/repitch.cuh): read 8, write 8.
constexpr double kDoubleRepitchBytes = 16;

// fill_k is left at 0 for the DMMA tiles although measured (docs/auto.md says why). The
// rotating tiles copy an operand they cannot read in 16-byte units first (mma_tile.cuh); the
// model counts that copy (pack_bytes, packs_unreadable_only).
const Candidate<double> kDoubleDmma[] = {
    // Rung 15's row: eight warps, one block per SM, the rotating mainloop with its stages handed
    // over by mbarriers (mma_tile.cuh).
    {.name = "dmma 128x128x16 w64x32 s4 g16 k8 rotating", .bm = 128, .bn = 128, .warps = 8,
     .blocks_per_sm = 1, .flop_per_sm_cycle = per_sm_cycle(55300),
     .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x128w64x32s4g16<16>, double, true>,
     .launch = &mma::launch_dmma_rotating_cfg<mma::Cfg128x128w64x32s4g16<16>>, .min_cc = 90,
     .pack_bytes = kDoubleRepitchBytes, .saturating_warps = kDmmaSaturatingWarps,
     .packs_unreadable_only = true},
    // Tiles in groups of 16 tile rows, 4 stages where two blocks fit in an SM for the call's op
    // flags, else 3 (launch_dmma_128x64): two blocks per SM in every layout.
    {.name = "dmma 128x64x16 w64x32 s4/s3 g16 k8 rotating", .bm = 128, .bn = 64, .warps = 4,
     .blocks_per_sm = 2, .flop_per_sm_cycle = per_sm_cycle(51150),
     .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x64w64x32s3g16<16>, double, true>, .launch = &mma::launch_dmma_128x64,
     .min_cc = 90, .pack_bytes = kDoubleRepitchBytes, .saturating_warps = kDmmaSaturatingWarps,
     .packs_unreadable_only = true},
    // 128x64 as eight warps of 32x32, one block per SM: a medium C of one tile per SM (1024^2:
    // 128 tiles) with two warps on each scheduler, which one 4-warp block of 64x32 warps leaves.
    // m16n8k16 DMMA on 32-deep k tiles: half the stage hand-overs of m16n8k8's 16-deep ones and
    // 2-4% less time on medium squares (docs/ladder.md, "Rung 15's 128x64 tiles on m16n8k16").
    {.name = "dmma 128x64x32 w32x32 s3 k16 rotating", .bm = 128, .bn = 64, .warps = 8,
     .blocks_per_sm = 1, .flop_per_sm_cycle = per_sm_cycle(45100),
     .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x64w32x32s3<32>, double, true>,
     .launch = &mma::launch_dmma_rotating_cfg<mma::Cfg128x64w32x32s3<32>, 16>, .min_cc = 90,
     .pack_bytes = kDoubleRepitchBytes, .saturating_warps = kDmmaSaturatingWarps,
     .packs_unreadable_only = true},
    // 64x64 as eight warps of 32x16 on the rotating mainloop, two blocks per SM: ahead of four
    // 32x32 warps on medium squares and batches of small products (docs/auto.md).
    {.name = "dmma 64x64x16 w32x16 s4 k8 rotating", .bm = 64, .bn = 64, .warps = 8, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(41500),
     .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg64x64w32x16s4<16>, double, true>,
     .launch = &mma::launch_dmma_rotating_cfg<mma::Cfg64x64w32x16s4<16>>, .min_cc = 90,
     .pack_bytes = kDoubleRepitchBytes, .saturating_warps = kDmmaSaturatingWarps,
     .packs_unreadable_only = true},
    // Twice 64x64's tiles on a small C, in one kernel where 64x64 would split k; three blocks
    // per SM by shared memory. Its warps, and 32x32's, are 16 rows tall: a quarter of the DMMA
    // chains of a 64x32 warp, so they need more warps to keep the pipe busy
    // (kDmmaShortWarpSaturatingWarps).
    {.name = "dmma 32x64x16 w16x32 s4 k16", .bm = 32, .bn = 64, .warps = 4, .blocks_per_sm = 3,
     .flop_per_sm_cycle = per_sm_cycle(40400), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg32x64w16x32s4<16>, double>,
     .launch = &mma::launch_dmma_cfg<mma::Cfg32x64w16x32s4<16>, 16>, .min_cc = 90,
     .saturating_warps = kDmmaShortWarpSaturatingWarps},
    // A quarter of 64x64's tile: small squares (256^2: 64 tiles, where 32x64 gives 32) and
    // two blocks per SM (by shared memory) from 512^2 on.
    {.name = "dmma 32x32x32 w16x16 s5 k16", .bm = 32, .bn = 32, .warps = 4, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(28150), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg32x32w16x16s5<32>, double>,
     .launch = &mma::launch_dmma_cfg<mma::Cfg32x32w16x16s5<32>, 16>, .min_cc = 90,
     .saturating_warps = kDmmaShortWarpSaturatingWarps},
};

/// What each of rung 25's tiles costs whatever its k (wgmma_tf32_candidate says how it was
/// measured).
constexpr int kRung25FillK = 250;

const Candidate<float> kFloatTf32x3[] = {
    {.name = "tf32x3 128x128x32 w64x32 s3", .bm = 128, .bn = 128, .warps = 8, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(46400), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x128w64x32s3<32>, float>,
     .launch = &mma::launch_tf32x3_cfg<mma::Cfg128x128w64x32s3<32>>, .fill_k = 85},
    {.name = "tf32x3 64x64x32 w32x32 s4", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(39500), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg64x64w32x32s4<32>, float>,
     .launch = &mma::launch_tf32x3_cfg<mma::Cfg64x64w32x32s4<32>>, .fill_k = 44},
    // Twice 64x64's tiles on a small C, in one kernel.
    {.name = "tf32x3 64x32x32 w32x16 s4", .bm = 64, .bn = 32, .warps = 4, .blocks_per_sm = 3,
     .flop_per_sm_cycle = per_sm_cycle(31400), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg64x32w32x16s4<32>, float>,
     .launch = &mma::launch_tf32x3_cfg<mma::Cfg64x32w32x16s4<32>>, .fill_k = 25},
    // Twice again: 128^3-256^3 on 16-64 blocks where 64x32 gives 8-32. fill_k measured as
    // 64x32's (strided batches, docs/auto.md).
    {.name = "tf32x3 32x32x32 w16x16 s5", .bm = 32, .bn = 32, .warps = 4, .blocks_per_sm = 4,
     .flop_per_sm_cycle = per_sm_cycle(22700), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg32x32w16x16s5<32>, float>,
     .launch = &mma::launch_tf32x3_cfg<mma::Cfg32x32w16x16s5<32>>, .fill_k = 18},
};

/// Resident warps that saturate rung 16's 64x32 and 32x32 tiles: set so that the model orders
/// them as measured in TF32 mode (64x32 ahead at 384^3-512^3 with one 4-warp block per SM,
/// 32x32 at 128^3-256^3; docs/auto.md) where the float default, 8, puts 32x32 ahead at
/// 384^3-512^3 too.
constexpr int kSmallTf32TileSaturatingWarps = 5;

const Candidate<float> kFloatTf32[] = {
    {.name = "tf32 128x256x32 w64x64 s3", .bm = 128, .bn = 256, .warps = 8, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(144500), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x256w64x64s3<32>, float>,
     .launch = &mma::launch_tf32_cfg<mma::Cfg128x256w64x64s3<32>>},
    {.name = "tf32 128x128x32 w64x32 s3", .bm = 128, .bn = 128, .warps = 8, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(116000), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg128x128w64x32s3<32>, float>,
     .launch = &mma::launch_tf32_cfg<mma::Cfg128x128w64x32s3<32>>},
    {.name = "tf32 64x64x32 w32x32 s4", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 2,
     .flop_per_sm_cycle = per_sm_cycle(82500), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg64x64w32x32s4<32>, float>,
     .launch = &mma::launch_tf32_cfg<mma::Cfg64x64w32x32s4<32>>},
    // Half and a quarter of 64x64's tile, for small squares: 384^3-512^3 and 128^3-256^3 in
    // one block per SM where 64x64 fills half of them. They pay rung 25's fill, which they are
    // weighed against in TF32 mode, and which falls between their own figures measured two
    // ways (docs/auto.md).
    {.name = "tf32 64x32x32 w32x16 s4", .bm = 64, .bn = 32, .warps = 4, .blocks_per_sm = 3,
     .flop_per_sm_cycle = per_sm_cycle(61200), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg64x32w32x16s4<32>, float>,
     .launch = &mma::launch_tf32_cfg<mma::Cfg64x32w32x16s4<32>>, .saturating_warps = kSmallTf32TileSaturatingWarps,
     .fill_k = kRung25FillK},
    {.name = "tf32 32x32x32 w16x16 s5", .bm = 32, .bn = 32, .warps = 4, .blocks_per_sm = 4,
     .flop_per_sm_cycle = per_sm_cycle(46400), .smem_bytes = mma::kMmaTileSmemBytes<mma::Cfg32x32w16x16s5<32>, float>,
     .launch = &mma::launch_tf32_cfg<mma::Cfg32x32w16x16s5<32>>, .saturating_warps = kSmallTf32TileSaturatingWarps,
     .fill_k = kRung25FillK},
};

/// A configuration's split-K launcher run in one slice: its `launch` where that is all it has.
template <auto Split, class Args>
void whole(const Args& g, cudaStream_t stream) {
    Split(g, stream, 1);
}

// ------------------------------------------------- float on warpgroup MMA (rungs 25, 26)
// Hopper only (needs_sm90a). Rates: the whole call (pack step included) at 4096^3, row-major nn
// (docs/auto.md). 3xTF32 packs two parts (big and small). Extra launches: the pack kernels, and
// for 3xTF32 the memset of its range flags. Tiles and shared memory: the rungs' own configs.
const Candidate<float> kFloatWgmmaTf32x3[] = {
    {.name = "wgmma_tf32x3 128x128x32 s3 persistent", .bm = hopper::Tf32x3Config::BM,
     .bn = hopper::Tf32x3Config::BN, .warps = 12, .blocks_per_sm = 1,
     .flop_per_sm_cycle = per_sm_cycle(118900), .smem_bytes = hopper::Tf32x3Config::kSmemBytes,
     .launch = &launch_wgmma_tf32x3<float>, .needs_sm90a = true, .pack_bytes = 12,
     .native_batch = false, .launch_split = &launch_wgmma_tf32x3_split, .extra_launches = 3},
};

/// Rung 25 on block config Cfg, whole or in k slices: tile, warps and shared memory from Cfg;
/// it packs only what wgmma_tf32_plan says (pack step: read 4, write 4 bytes an element, a
/// kernel per packed operand), and every tile pays the fill (about 250 k of a tile's time
/// whatever its k: 128^3-512^3 in TF32 mode measured 10.8, 13.7 and 18.2 us against 3.3, 6.6
/// and 13.1 modelled without it, H200, docs/auto.md).
template <class Cfg>
constexpr Candidate<float> wgmma_tf32_candidate(const char* name, double gflops,
                                                double register_a_time_factor) {
    return {.name = name, .bm = Cfg::BM, .bn = Cfg::BN,
            .warps = (Cfg::kConsumers + 1) * hopper::kWarpgroupWarps, .blocks_per_sm = 1,
            .flop_per_sm_cycle = per_sm_cycle(gflops), .smem_bytes = Cfg::kSmemBytes,
            .launch = &whole<&launch_wgmma_tf32_tiles<Cfg>, GemmArgs<float>>, .needs_sm90a = true,
            .pack_bytes = 8, .native_batch = false, .launch_split = &launch_wgmma_tf32_tiles<Cfg>,
            .extra_launches = 2, .fill_k = kRung25FillK, .packs_unreadable_only = true,
            .register_a_time_factor = register_a_time_factor};
}

// Medium products (512^3-2048^3, a few thousand by a few hundred) get narrower tiles, to fill
// the SMs. 128 x 128 ran 350 TFLOP/s in one wave (8192 x 256 x 4096) and about 351 per wave at
// 6144 x 1536 x 2048 (H200, docs/auto.md): set a little under 128 x 256's, whose fewer tiles pay
// less fill. 128 x 64 at rung 24's proportion to 128 x 256 (BF16: 0.66), which modelled 1024^3
// as measured; 192 x 128 as 128 x 128. Through the register path (register_a_time_factor) the
// narrow tiles measured slower than through shared memory: 128 x 64 1.11-1.31x at 256^3-1024^3,
// 128 x 128 1.07-1.16x at 8192 x 256 x 4096, 192 x 128 1.05x at 6144 x 1536 x 2048; 128 x 256
// level at 4096^3 (H200, docs/auto.md).
const Candidate<float> kFloatWgmmaTf32[] = {
    wgmma_tf32_candidate<hopper::Tf32Config>("wgmma_tf32 128x256x32 s4 persistent", 337900, 1),
    wgmma_tf32_candidate<hopper::Tf32NarrowConfig>("wgmma_tf32 128x128x32 s6 persistent", 330000, 1.1),
    wgmma_tf32_candidate<hopper::Tf32SlimConfig>("wgmma_tf32 128x64x32 s8 persistent", 225000, 1.2),
    wgmma_tf32_candidate<hopper::Tf32TallNarrowConfig>("wgmma_tf32 192x128x32 s5 persistent", 330000,
                                                       1.05),
};

// ------------------------------------------------- half precision (BF16/FP16 in, C in it or f32)
// Every half-precision configuration auto may run, for A/B in TIn and C in TOut. To add a rung:
// list its configurations here (with needs_sm90a for Hopper-only code) in every instantiation;
// the model then weighs it, skipping what the device cannot run. The last entry must run
// everywhere: it is what a GPU without tensor cores for 16-bit types gets.
// Rates: bf16 4096^3 row-major nn (docs/auto.md). The wgmma rungs fall back to rung 19's kernel
// by themselves where TMA cannot read an operand (unaligned).
/// DRAM bytes per element of the 16-bit wgmma rungs' copy of an operand TMA cannot read
/// (kernels/repitch.cuh): read 2, write 2.
constexpr double kRepitchBytes = 4;
/// Rung 19 on an operand that is not 16-byte aligned, over its model time: 3.8-4.7x measured
/// at 511^3-2047^3 with odd leading dimensions (H200, docs/auto.md).
constexpr double kRung19Unaligned = 4;

/// What every tensor-core tile of rungs 19, 21 and 24 costs whatever its k, in k elements: the
/// pipeline's first loads and the epilogue (about 1 us a tile at 128x64's rate). On strided
/// batches of 64^3-256^3 products the tiles of rungs 19 and 24 measured 2-8x the model without
/// it (H200, docs/auto.md), 200 under what every batch implied; rung 21 below.
constexpr int kTileFillK = 200;
/// A rate measured (or set) on 4096^3 as the whole call's, net of that fill: 4096^3 models as
/// before, and only short tiles pay more.
constexpr double net_of_fill(double gflops) { return gflops * (4096.0 + kTileFillK) / 4096.0; }

/// How a rung 24 candidate runs its tiles: whole, its k slices inside the kernel (`Whole`), or
/// one product only under the tail split or the cluster split; or on the transposed product,
/// whole or in k slices (`Transposed`).
enum class PersistentForm { Whole, TailSplit, ClusterSplit, Transposed };

/// Each rung 24 tile's rate in GFLOP/s, whichever form runs it (bf16 4096^3 as the whole call,
/// net of the fill where it was measured there; set where it was not).
template <class Cfg>
inline constexpr double kPersistentRate = 0;
template <>
inline constexpr double kPersistentRate<hopper::PersistentConfig> = net_of_fill(677000);
// Three consumer warpgroups of 64 x 192: per tile within 1% of 128 x 256 at 4096^3 and 8192^3
// (H200); set 3% under, so that 8192^3, where its tail split measured 3% slower than 128 x 256
// whole, stays there.
template <>
inline constexpr double kPersistentRate<hopper::PersistentTallConfig> = net_of_fill(656700);
// 192 x 128: set to 128 x 128's, whose wgmma are as wide, not measured.
template <>
inline constexpr double kPersistentRate<hopper::PersistentTallNarrowConfig> = net_of_fill(600000);
template <>
inline constexpr double kPersistentRate<hopper::PersistentNarrowConfig> = net_of_fill(600000);
template <>
inline constexpr double kPersistentRate<hopper::PersistentSlimConfig> = 450000;
// 64 x 128 (one consumer warpgroup of m64n128): set between 128 x 64's and 128 x 128's, so that
// it takes the calls whose 128 x 128 tiles leave SMs idle (1024^2: 64 of them) and leaves those
// both fill alike (2048^2) to the wider tile (docs/auto.md, "64 x 128 tiles").
template <>
inline constexpr double kPersistentRate<hopper::PersistentFlatConfig> = net_of_fill(500000);

/// The 64 x 128 tile only where measured ahead (H200, docs/auto.md): n of at least two of its
/// column tiles (a prefill of 65-128 tokens, n = the tokens, ran 0.63x-0.87x cuBLAS on it
/// against 0.89x-1.06x for the tiles auto had) and C in whole tiles (1000^3 ran 0.83x-0.84x
/// against 128 x 64's 0.90x-0.91x, where 1024^3 ran 0.95x against 0.87x). Strided batches as
/// well: 64-row products gain most there (docs/auto.md, "64 x 128 tiles").
template <class TIn, class TOut>
HalfCandidate<TIn, TOut> flat_limits(HalfCandidate<TIn, TOut> c) {
    c.min_n = 2 * hopper::PersistentFlatConfig::BN;
    c.needs_whole_tiles = true;
    return c;
}
// 64 x 64: set, not measured at 4096^3: 300000 with the fill puts it within 10% of what it
// measured on the rows it is for (docs/auto.md).
template <>
inline constexpr double kPersistentRate<hopper::PersistentSmallConfig> = 300000;
// The transposed tiles: set, not measured at 4096^3. 64 x 96 (one consumer warpgroup) between
// 64 x 64's and 128 x 64's; 128 x 96 and 128 x 144 under 128 x 128's, as they store C from
// registers, 128 x 144's low enough that a prefill of 64 tokens (its tile half empty there) takes
// 64 x 96 (H200, docs/auto.md).
template <>
inline constexpr double kPersistentRate<hopper::PersistentTransposedSlimConfig> = 380000;
template <>
inline constexpr double kPersistentRate<hopper::PersistentTransposedNarrowConfig> = net_of_fill(500000);
template <>
inline constexpr double kPersistentRate<hopper::PersistentTransposedWideConfig> = net_of_fill(520000);

/// A rung 24 candidate on block config Cfg: tile, warps (the consumer warpgroups and the
/// producer's), shared memory and rate come from Cfg; every form pays the fill and copies only
/// the operands TMA cannot read.
template <class Cfg, PersistentForm Form, class TIn, class TOut>
HalfCandidate<TIn, TOut> persistent_candidate(const char* name) {
    static_assert(kPersistentRate<Cfg> > 0, "each rung 24 tile auto runs has a rate");
    constexpr double gflops = kPersistentRate<Cfg>;
    // The transposed product's tile is BN rows of C by BM columns.
    constexpr bool kTransposed = Form == PersistentForm::Transposed;
    HalfCandidate<TIn, TOut> c{.name = name, .bm = kTransposed ? Cfg::BN : Cfg::BM,
                               .bn = kTransposed ? Cfg::BM : Cfg::BN,
                               .warps = (Cfg::kConsumers + 1) * hopper::kWarpgroupWarps,
                               .blocks_per_sm = 1, .flop_per_sm_cycle = per_sm_cycle(gflops),
                               .smem_bytes = Cfg::kSmemBytes, .launch = nullptr,
                               .needs_sm90a = true, .pack_bytes = kRepitchBytes,
                               .fill_k = kTileFillK, .packs_unreadable_only = true};
    if constexpr (Form == PersistentForm::Whole) {
        c.launch = &whole<&launch_persistent_tiles<Cfg, TIn, TOut>>;
        c.launch_split = &launch_persistent_tiles<Cfg, TIn, TOut>;
    } else if constexpr (kTransposed) {
        c.launch = &whole<&launch_persistent_transposed<Cfg, TIn, TOut>>;
        c.launch_split = &launch_persistent_transposed<Cfg, TIn, TOut>;
        c.needs_k_major_a = true;
        c.native_batch = false; // measured and tested on single products only
    } else {
        c.native_batch = false;
        if constexpr (Form == PersistentForm::TailSplit) {
            c.launch = &launch_persistent_tail_split<Cfg, TIn, TOut>;
            c.tail_split = true;
        } else {
            c.launch = &launch_persistent_cluster_split<Cfg, TIn, TOut>;
            c.cluster_split = true;
        }
    }
    return c;
}

/// The ping-pong tiles' fill: one warpgroup's epilogue and first loads run beside the other's
/// wgmma, so a tile costs less beyond its k than one warpgroup's 64 x 64 (kTileFillK). Fitted on
/// an H200 to strided batches of k = 64 and 128 (docs/auto.md, "Ping-pong consumers").
constexpr int kPingPongFillK = 175;

/// Rung 24's 64 x 64 tiles on two consumer warpgroups in ping-pong (launch_persistent_pingpong):
/// the one-warpgroup tile's candidate with the second warpgroup, kPingPongFillK and its own
/// launcher. Whole k, strided batches only (where it was measured).
template <class TIn, class TOut>
HalfCandidate<TIn, TOut> pingpong_candidate(const char* name) {
    HalfCandidate<TIn, TOut> c =
        persistent_candidate<hopper::PersistentSmallConfig, PersistentForm::Whole, TIn, TOut>(name);
    c.warps = (hopper::kPingPongConsumers + 1) * hopper::kWarpgroupWarps;
    c.smem_bytes = hopper::PersistentPingPongConfig::kSmemBytes;
    c.launch = &launch_persistent_pingpong<TIn, TOut>;
    c.launch_split = nullptr;
    c.fill_k = kPingPongFillK;
    c.batches_only = true;
    return c;
}

template <class TIn, class TOut>
std::span<const HalfCandidate<TIn, TOut>> half_candidates() {
    using hopper::PersistentConfig, hopper::PersistentTallConfig,
        hopper::PersistentTallNarrowConfig, hopper::PersistentNarrowConfig,
        hopper::PersistentSlimConfig, hopper::PersistentSmallConfig;
    constexpr auto whole_tiles = PersistentForm::Whole, tail_split = PersistentForm::TailSplit,
                   cluster_split = PersistentForm::ClusterSplit,
                   transposed = PersistentForm::Transposed;
    static const HalfCandidate<TIn, TOut> list[] = {
        persistent_candidate<PersistentConfig, whole_tiles, TIn, TOut>(
            "persistent 128x256x64 ws"),
        // Three consumer warpgroups of 64 x 192: where 128 x 256 tiles fall just past a whole
        // wave (3000^3, a prefill of 2048 tokens against a 4608-wide weight).
        persistent_candidate<PersistentTallConfig, whole_tiles, TIn, TOut>(
            "persistent 192x192x64 ws"),
        // And 192 x 128 where 128 x 256 tiles are a lone wave that leaves many SMs idle (1536^3,
        // a prefill of 512 tokens against a 4608-wide weight).
        persistent_candidate<PersistentTallNarrowConfig, whole_tiles, TIn, TOut>(
            "persistent 192x128x64 ws"),
        // Narrow outputs (n <= 128: attention's P V, a prefill of up to 128 tokens) and
        // batches of them.
        persistent_candidate<PersistentNarrowConfig, whole_tiles, TIn, TOut>(
            "persistent 128x128x64 ws"),
        // Medium products whose 128 x 128 tiles leave SMs idle (1024^2: 64 tiles), and batches
        // of products 64 rows tall, where a 128-row tile runs half empty: 64 x 128 in one
        // consumer warpgroup.
        flat_limits(persistent_candidate<hopper::PersistentFlatConfig, whole_tiles, TIn, TOut>(
            "persistent 64x128x64 ws")),
        persistent_candidate<PersistentSlimConfig, whole_tiles, TIn, TOut>(
            "persistent 128x64x64 ws"),
        // Batches of products of at most 64 x 64, prefills of 32-128 tokens, squares up to 512:
        // one consumer warpgroup, 13 stages.
        persistent_candidate<PersistentSmallConfig, whole_tiles, TIn, TOut>(
            "persistent 64x64x64 ws"),
        // And on two consumer warpgroups in ping-pong: batches of short-k tiles.
        pingpong_candidate<TIn, TOut>("persistent 64x64x64 ws pingpong"),
        // Those tiles with the tail split: where the last wave would leave most SMs idle
        // (a prefill of a few hundred tokens, medium squares). One product only.
        persistent_candidate<PersistentConfig, tail_split, TIn, TOut>(
            "persistent 128x256x64 ws tail-split"),
        persistent_candidate<PersistentNarrowConfig, tail_split, TIn, TOut>(
            "persistent 128x128x64 ws tail-split"),
        persistent_candidate<PersistentTallConfig, tail_split, TIn, TOut>(
            "persistent 192x192x64 ws tail-split"),
        // And 128 x 64 (a prefill of up to 64 tokens against a weight of 17k-19k rows: 133-148
        // tiles, so a second wave of a few tiles).
        persistent_candidate<PersistentSlimConfig, tail_split, TIn, TOut>(
            "persistent 128x64x64 ws tail-split"),
        // And with the cluster split: fewer tiles than SMs (a prefill of 16-512 tokens against
        // a weight), k cut over the blocks of a cluster without a sum kernel. One product only.
        persistent_candidate<PersistentNarrowConfig, cluster_split, TIn, TOut>(
            "persistent 128x128x64 ws cluster-split"),
        flat_limits(persistent_candidate<hopper::PersistentFlatConfig, cluster_split, TIn, TOut>(
            "persistent 64x128x64 ws cluster-split")),
        persistent_candidate<PersistentSlimConfig, cluster_split, TIn, TOut>(
            "persistent 128x64x64 ws cluster-split"),
        persistent_candidate<PersistentSmallConfig, cluster_split, TIn, TOut>(
            "persistent 64x64x64 ws cluster-split"),
        // The transposed product: 96 or 144 of op(A)'s rows a tile (a prefill of 64-1024 tokens
        // against a weight whose rows, cut in 64s, leave SMs idle). op(A) K-major only.
        persistent_candidate<hopper::PersistentTransposedSlimConfig, transposed, TIn, TOut>(
            "persistent 96x64x64 ws transposed"),
        persistent_candidate<hopper::PersistentTransposedNarrowConfig, transposed, TIn, TOut>(
            "persistent 96x128x64 ws transposed"),
        persistent_candidate<hopper::PersistentTransposedWideConfig, transposed, TIn, TOut>(
            "persistent 144x128x64 ws transposed"),
        // Rung 21 measured 1.4-2.1x its model without the fill at 512^3 and 1024^3 (H200).
        {.name = "tma 128x128x64", .bm = hopper::TmaConfig::BM, .bn = hopper::TmaConfig::BN,
         .warps = 8, .blocks_per_sm = 1, .flop_per_sm_cycle = per_sm_cycle(516000),
         .smem_bytes = hopper::TmaConfig::kSmemBytes, .launch = &launch_tma<TIn, TOut>,
         .needs_sm90a = true, .pack_bytes = kRepitchBytes, .native_batch = false,
         .fill_k = kTileFillK, .packs_unreadable_only = true},
        {.name = "mma_sync_f16 128x128x32 s4", .bm = 128, .bn = 128, .warps = 8, .blocks_per_sm = 2,
         .flop_per_sm_cycle = per_sm_cycle(339000), .smem_bytes = mma::kMmaSyncF16SmemBytes<mma::Cfg128x128w64x32s4b2<32>>,
         .launch = &launch_mma_sync_f16<TIn, TOut>, .fill_k = kTileFillK,
         .unaligned_time_factor = kRung19Unaligned},
        // For batches of small products; 5 blocks per SM by registers.
        {.name = "mma_sync_f16 64x64x32 s4", .bm = 64, .bn = 64, .warps = 4, .blocks_per_sm = 5,
         .flop_per_sm_cycle = per_sm_cycle(250200), .smem_bytes = mma::kMmaSyncF16SmemBytes<mma::Cfg64x64w32x32s4<32>>,
         .launch = &mma::launch_mma_sync_f16_cfg<mma::Cfg64x64w32x32s4<32>, TIn, TOut>,
         .fill_k = kTileFillK, .unaligned_time_factor = kRung19Unaligned},
        {.name = "half_simt 64x64x16", .bm = 64, .bn = 64, .warps = 8, .blocks_per_sm = 4,
         .flop_per_sm_cycle = per_sm_cycle(17100), .smem_bytes = kHalfSimtSmemBytes,
         .launch = &launch_half_simt<TIn, TOut>},
    };
    return list;
}

// ------------------------------------------------------------------ each type key's candidates

/// One list of candidates and which calls may run them.
template <class Args_>
struct CandidateGroup {
    using Args = Args_;
    std::span<const CandidateFor<Args>> list;
    Accuracy accuracy;
};

/// Every float candidate, in the order the model weighs them (ties go to the earlier one). A
/// candidate's index in this order, across the groups, is what the tune table stores.
using FloatGroup = CandidateGroup<GemmArgs<float>>;
const FloatGroup kFloatGroups[] = {
    {kFloatWgmmaTf32, Accuracy::Tf32},     {kFloatTf32, Accuracy::Tf32},
    {kFloatWgmmaTf32x3, Accuracy::Tf32x3}, {kFloatTf32x3, Accuracy::Tf32x3},
    {kFloatCudaCores, Accuracy::Exact},
};

/// DMMA computes in IEEE FP64 like the FMA pipe: both meet the FP64 bound.
using DoubleGroup = CandidateGroup<GemmArgs<double>>;
const DoubleGroup kDoubleGroups[] = {
    {kDoubleDmma, Accuracy::Exact},
    {kDoubleCudaCores, Accuracy::Exact},
};

template <class TIn, class TOut>
std::span<const CandidateGroup<HalfArgs<TIn, TOut>>> half_groups() {
    static const CandidateGroup<HalfArgs<TIn, TOut>> groups[] = {
        {half_candidates<TIn, TOut>(), Accuracy::Exact}};
    return groups;
}

/// Calls f(groups) with the candidate groups of `type` (a span of CandidateGroup<Args> for the
/// type's Args); every branch must return the same type.
template <class F>
decltype(auto) with_groups(TuneType type, F&& f) {
    switch (type) {
    case TuneType::F32:
    case TuneType::F32Tf32: return f(std::span<const FloatGroup>(kFloatGroups));
    case TuneType::F64: return f(std::span<const DoubleGroup>(kDoubleGroups));
    case TuneType::BF16: return f(half_groups<__nv_bfloat16, __nv_bfloat16>());
    case TuneType::BF16F32: return f(half_groups<__nv_bfloat16, float>());
    case TuneType::F16: return f(half_groups<__half, __half>());
    case TuneType::F16F32: return f(half_groups<__half, float>());
    }
    throw std::out_of_range("gemmlab auto: unknown type key");
}

/// The typed view of p for Args: Typed<Args>::of(p).
template <class Args>
struct Typed;
template <class T>
struct Typed<GemmArgs<T>> {
    static GemmArgs<T> of(const Problem& p) { return p.as<T>(); }
};
template <class TIn, class TOut>
struct Typed<HalfArgs<TIn, TOut>> {
    static HalfArgs<TIn, TOut> of(const Problem& p) { return p.as_half<TIn, TOut>(); }
};

/// The Args of a span of candidate groups (what with_groups passes).
template <class Groups>
using ArgsOf = typename Groups::value_type::Args;

/// A candidate found by its index across the groups, with its group's accuracy.
template <class Args>
struct Indexed {
    const CandidateFor<Args>* candidate = nullptr;
    Accuracy accuracy = Accuracy::Exact;
};

template <class Args>
Indexed<Args> candidate_at(std::span<const CandidateGroup<Args>> groups, int index) {
    if (index >= 0)
        for (const auto& g : groups) {
            if (size_t(index) < g.list.size()) return {&g.list[size_t(index)], g.accuracy};
            index -= int(g.list.size());
        }
    return {};
}

// ------------------------------------------------------------------------------ the model

/// Resident warps per SM that reach a configuration's full rate: 8 for FP32 (2 per scheduler),
/// half as many for FP64, whose pipes run at half rate; 8 for half-precision inputs
/// (docs/auto.md, "Saturating warps").
template <class Args>
constexpr int kSaturatingWarps = 8;
template <>
constexpr int kSaturatingWarps<GemmArgs<double>> = 4;

/// Bytes of one split-K partial element: the accumulation type (FP64 for double, FP32 else).
template <class Args>
constexpr double kPartialBytes = 4;
template <>
constexpr double kPartialBytes<GemmArgs<double>> = 8;

/// The fixed cost of each kernel or memset a call enqueues beyond its GEMM kernel (the pack
/// step, split-K's sum), in ns: about the host's cost of one launch. A host constant, not a
/// device query: it is what keeps small calls off the multi-kernel paths (docs/auto.md).
constexpr double kLaunchNs = 5000;

/// Split-K's fixed cost, in ns: its sum kernel's launch and run and the partials' round trip
/// beyond what the DRAM term counts; set so that the model splits where a split measured faster
/// (docs/auto.md).
constexpr double kSplitKNs = 10000;

/// The tail split's cost beyond its k tiles: every piece's FP32 partial written and read back
/// (measured on an H200 with the sum compiled out: 16.8 MB of partials cost 12.9 us, 14.7 MB
/// 14.0 us), and a fixed cost for the pieces' pipeline fill, the sums and the scratch's event,
/// set so that the split is taken only where it measured faster (docs/ladder.md).
constexpr double kTailSplitBytesPerNs = 1250;
constexpr double kTailSplitNs = 8000;

/// The cluster split's cost beyond one piece's k tiles, as the model counts a whole tile (no
/// fixed cost): the cluster launch, the two cluster barriers, and the exchange and stores,
/// which grow with the tile's FP32 bytes. Fitted on an H200 (docs/ladder.md): 128 x 64 tiles
/// split measured about 6 us more than the model's whole tile, 128 x 128 tiles about 9.5.
constexpr double kClusterSplitNs = 2500;
constexpr double kClusterSplitBytesPerNs = 9.4;

/// Shared memory per SM of the GPUs the blocks-per-SM counts were measured on (sm_90).
constexpr int kMeasuredSmemPerSm = 228 * 1024;

/// Blocks of `c` one SM of `caps` holds: the listed count (measured on sm_90, row-major NN),
/// fewer where the device's shared memory per SM is smaller and holds fewer of the largest
/// variant; 0 when one block needs more shared memory than a block may opt in to there (it
/// cannot launch). Unknown shared-memory sizes (0) leave the listed count. On sm_90 itself the
/// measured count stands: DMMA 128x64's largest variant (120 KB, both operands k-contiguous)
/// fits once per SM, its NN variant (108 KB) twice, and NN is what the rates were measured on.
template <class Args>
int resident_blocks(const CandidateFor<Args>& c, const DeviceCaps& caps) {
    if (caps.smem_per_block_optin > 0 && c.smem_bytes > caps.smem_per_block_optin) return 0;
    if (caps.smem_per_sm <= 0 || caps.smem_per_sm >= kMeasuredSmemPerSm) return c.blocks_per_sm;
    const int by_smem = caps.smem_per_sm / (c.smem_bytes + caps.smem_reserved_per_block);
    return std::clamp(by_smem, 1, c.blocks_per_sm);
}

/// True when `caps`' device can run `c` on `batches` products in one launch.
template <class Args>
bool runs_on(const CandidateFor<Args>& c, const DeviceCaps& caps, int64_t batches) {
    if (c.needs_sm90a && !caps.sm90a) return false;
    if (10 * caps.cc_major + caps.cc_minor < c.min_cc) return false;
    if (batches > 1 && !c.native_batch) return false;
    if (batches == 1 && c.batches_only) return false;
    return resident_blocks(c, caps) > 0;
}

/// True when `c` runs call p's operands as they are laid out (CandidateFor::needs_k_major_a).
template <class Args>
bool takes_call(const CandidateFor<Args>& c, const Problem& p) {
    return (!c.needs_k_major_a || p.trans_a) && p.n >= c.min_n &&
           (!c.needs_whole_tiles || (p.m % c.bm == 0 && p.n % c.bn == 0));
}

/// The SM clock the model runs at: the device's peak, or where it does not say, the clock the
/// rates were measured at (then only the DRAM term is off, by the ratio of the clocks).
double clock_ghz(const DeviceCaps& caps) {
    return caps.sm_clock_mhz > 0 ? caps.sm_clock_mhz / 1000.0 : kMeasuredClockGhz;
}

/// Which of op(A) and op(B) a condition holds for.
struct OperandFlags {
    bool a = false, b = false;
};

/// Which operands of p cannot be read in 16-byte units: base, columns, or (a batch's own
/// matrices) batch stride off 16 bytes.
OperandFlags unaligned_operands(const Problem& p) {
    const int64_t bytes = Problem::element_bytes(p.type);
    const auto readable = [&](const void* x, int64_t ld, int64_t stride) {
        return tma_readable(x, ld, bytes) && (p.batch.count == 1 || (stride * bytes) % 16 == 0);
    };
    return {!readable(p.A, p.lda, p.batch.strides.a), !readable(p.B, p.ldb, p.batch.strides.b)};
}

/// What the pack step of `c` covers on problem p: the rows of op(A) and op(B) it packs (m, n,
/// both or none) and the launches it enqueues (CandidateFor::extra_launches,
/// packs_unreadable_only).
struct PackedOperands {
    int64_t rows = 0;
    int launches = 0;
};

template <class Args>
PackedOperands packed_operands(const CandidateFor<Args>& c, const Problem& p) {
    if (!c.packs_unreadable_only) return {c.pack_bytes > 0 ? p.m + p.n : 0, c.extra_launches};
    // TF32 (rung 25) also packs an MN-major op(B), or op(A) where it swaps them; the 16-bit
    // rungs and rung 15's rotating tiles copy only what they cannot read in 16-byte units
    // (kernels/repitch.cuh).
    constexpr int64_t kElementBytes = sizeof(*std::declval<const Args&>().A);
    const WgmmaTf32Plan tf32 =
        wgmma_tf32_plan(p.m, p.n, p.A, p.lda, p.trans_a, p.B, p.ldb, p.trans_b);
    const OperandFlags packs =
        kElementBytes != 4 ? unaligned_operands(p) : OperandFlags{tf32.pack_a, tf32.pack_b};
    return {(packs.a ? p.m : 0) + (packs.b ? p.n : 0), int(packs.a) + int(packs.b)};
}

/// The modelled time of `c` in ns on `batches` m x n outputs with k in `splits` slices: the
/// busiest SM's tiles at the configuration's per-SM rate at the device's clock, plus the pack
/// step's DRAM traffic and split-K's partial sums (written and read back once, in the
/// accumulation type) at the device's peak bandwidth, plus kLaunchNs per extra kernel of the
/// pack step and kSplitKNs for split-K's sum. A batch is more tiles of the same grid
/// (gridDim.z): the waves count tiles x batches x slices.
template <class Args>
double model_time(const CandidateFor<Args>& c, const Problem& p, int splits, const DeviceCaps& caps) {
    const int64_t m = p.m, n = p.n, k = p.k, batches = p.batch.count;
    const int64_t tiles = ceil_div(m, c.bm) * ceil_div(n, c.bn) * batches * splits;
    const int64_t per_sm = ceil_div(tiles, caps.sm_count); // blocks on the busiest SM
    // The 16-bit k tiles the tail and cluster splits cut k in.
    constexpr int kTileK = hopper::kTileK<2>;
    const int k_tiles = int(ceil_div(k, int64_t(kTileK)));
    // The pack step (or the 16-bit copy of an unaligned operand): its DRAM traffic and launches.
    const PackedOperands packed = packed_operands(c, p);
    const double pack_bytes = c.pack_bytes * double(packed.rows) * double(k) * double(batches);
    const double pack_ns = (caps.dram_gbps > 0 ? pack_bytes / caps.dram_gbps : 0.0) +
                           kLaunchNs * packed.launches;
    if (c.tail_split) {
        // The whole waves, then one piece of a split tile, as the launcher plans them, each tile
        // and piece with its fill; a plan that splits nothing is the plain persistent kernel's,
        // modelled below.
        const hopper::TailSplitPlan plan = hopper::plan_tail_split(tiles, k_tiles, caps.sm_count);
        if (plan.split_tiles > 0) {
            const double busiest_k =
                double(plan.whole_tiles / caps.sm_count) * double(k + c.fill_k) +
                double(kTileK) * double(ceil_div(k_tiles, plan.pieces)) + c.fill_k;
            const double flops = 2.0 * busiest_k * c.bm * c.bn;
            const double partial_bytes = 4.0 * plan.split_blocks() * c.bm * c.bn;
            return flops / (c.flop_per_sm_cycle * clock_ghz(caps)) +
                   partial_bytes / kTailSplitBytesPerNs + kTailSplitNs + pack_ns;
        }
    }
    if (c.cluster_split) {
        // One piece of a tile (and its fill) on every busy SM, as the launcher plans it; a plan
        // that splits nothing is one block per tile, modelled below.
        const int pieces = hopper::plan_cluster_split(tiles, k_tiles, caps);
        if (pieces > 1) {
            const double flops =
                2.0 * (double(kTileK) * double(ceil_div(k_tiles, pieces)) + c.fill_k) * c.bm * c.bn;
            const double exchange_bytes = 4.0 * c.bm * c.bn;
            return flops / (c.flop_per_sm_cycle * clock_ghz(caps)) + kClusterSplitNs +
                   exchange_bytes / kClusterSplitBytesPerNs + pack_ns;
        }
    }
    const int64_t resident = std::min<int64_t>(per_sm, resident_blocks(c, caps));
    const double warps = double(resident * c.warps);
    const double saturating = c.saturating_warps > 0 ? c.saturating_warps : kSaturatingWarps<Args>;
    const double util = warps >= saturating ? 1.0 : warps / saturating;
    const double flops =
        2.0 * double(per_sm) * c.bm * c.bn * double(ceil_div(k, int64_t(splits)) + c.fill_k);
    double compute_ns = flops / (c.flop_per_sm_cycle * clock_ghz(caps) * util);
    if (c.unaligned_time_factor != 1) {
        const OperandFlags unaligned = unaligned_operands(p);
        if (unaligned.a || unaligned.b) compute_ns *= c.unaligned_time_factor;
    }
    if (c.register_a_time_factor != 1) {
        const WgmmaTf32Plan plan =
            wgmma_tf32_plan(p.m, p.n, p.A, p.lda, p.trans_a, p.B, p.ldb, p.trans_b);
        if (plan.first_in_registers) compute_ns *= c.register_a_time_factor;
    }
    const double partial_bytes =
        splits > 1 ? 2.0 * kPartialBytes<Args> * double(splits) * double(m) * double(n) : 0.0;
    const double memory_ns = caps.dram_gbps > 0 ? partial_bytes * double(batches) / caps.dram_gbps : 0.0;
    return compute_ns + memory_ns + (splits > 1 ? kSplitKNs : 0.0) + pack_ns;
}

/// Calls f(index, candidate, splits) for every option of a call of m x n x k x batches at
/// `precision` on `caps`, in the model's order: the candidates the call admits and the device
/// runs, each whole and then (split-K configurations, one batch or more) in 2, 4, 8 and 16
/// slices of at least kMinSplitK.
template <class Args, class F>
void for_each_option(std::span<const CandidateGroup<Args>> groups, const Problem& p,
                     const DeviceCaps& caps, F&& f) {
    const int64_t k = p.k, batches = p.batch.count;
    int index = 0;
    for (const auto& g : groups)
        for (const auto& c : g.list) {
            const int this_index = index++;
            if (!admits(g.accuracy, p.precision, k) || !runs_on(c, caps, batches) ||
                !takes_call(c, p))
                continue;
            for (int splits = 1; splits <= 16; splits *= 2) {
                if (splits > 1 && (!c.splits_k() || batches > 1 || k / splits < kMinSplitK)) break;
                f(this_index, c, splits);
            }
        }
}

/// auto's choice: a configuration and how many k slices it runs with.
template <class Args>
struct Choice {
    const CandidateFor<Args>* candidate = nullptr;
    int splits = 1;
    bool tuned = false;

    void launch(const Args& g, cudaStream_t stream) const {
        candidate->launch_sliced(g, stream, splits);
    }
};

/// The model's fastest option for the call; ties go to the earlier candidate and to fewer
/// slices. Throws if none can run (a list without a portable last entry).
template <class Args>
Choice<Args> model_pick(std::span<const CandidateGroup<Args>> groups, const Problem& p,
                        const DeviceCaps& caps) {
    Choice<Args> best;
    double best_time = 0;
    for_each_option(groups, p, caps,
                    [&](int, const CandidateFor<Args>& c, int splits) {
                        const double t = model_time(c, p, splits, caps);
                        if (!best.candidate || t < best_time) best = {&c, splits}, best_time = t;
                    });
    if (!best.candidate) throw CudaFailure("gemmlab auto: no candidate runs on this device");
    return best;
}

/// The tune table's choice for the call when it has one the call admits and the device runs
/// (one batch only: batches are not tuned); else no candidate. The slices are halved until each
/// has kMinSplitK of the call's k (the class spans k up to 2x below the representative).
template <class Args>
Choice<Args> tuned_pick(std::span<const CandidateGroup<Args>> groups, TuneType type,
                        const Problem& p, const DeviceCaps& caps, const TuneTable& table) {
    if (p.batch.count != 1) return {};
    const TunedChoice slot = table.at(type, shape_class_of(p.m, p.n, p.k));
    const Indexed<Args> found = candidate_at(groups, slot.candidate);
    if (!found.candidate || !admits(found.accuracy, p.precision, p.k) ||
        !runs_on(*found.candidate, caps, 1) || !takes_call(*found.candidate, p))
        return {};
    int splits = found.candidate->splits_k() ? std::max<int>(slot.splits, 1) : 1;
    while (splits > 1 && p.k / splits < kMinSplitK) splits /= 2;
    return {found.candidate, splits, true};
}

template <class Args>
Choice<Args> choose(std::span<const CandidateGroup<Args>> groups, const Problem& p,
                    const DeviceCaps& caps, const TuneTable* table) {
    const TuneType type = tune_type_of(p.type, p.c_type, p.precision);
    if (table)
        if (Choice<Args> tuned = tuned_pick(groups, type, p, caps, *table); tuned.candidate)
            return tuned;
    return model_pick(groups, p, caps);
}

TuneType type_key(const Problem& p) { return tune_type_of(p.type, p.c_type, p.precision); }

} // namespace

/// A batch of products whose C one warp tile of rung 27 holds (32 x 32), over a short k: each
/// product is all latency, and rung 27 gives it one warp (many share a block) where every tile
/// rung gives it a block mostly computing zeros. Longer k leaves the tile rungs (and split-K)
/// to the model. A single such product stays on rung 27 only while k <= 16: with the GPU
/// otherwise idle, a tile rung's block finishes sooner from 32^3 on, and below that rung 27
/// keeps a call's host cost at a launch's (docs/auto.md, "Tiny products"). Checked before the
/// model and the tune cache (whose smallest class is 64).
namespace {

constexpr int64_t kTinyMN = kSmallTile, kTinyMaxK = 128, kTinySingleMaxK = 16;

bool goes_to_small(const Problem& p) {
    const int64_t max_k = p.batch.count > 1 ? kTinyMaxK : kTinySingleMaxK;
    return p.m <= kTinyMN && p.n <= kTinyMN && p.k <= max_k;
}

/// One skinny side (at most decode_max_skinny: decode tokens, a GEMV) against a side at least
/// 16 times wider, the wide operand at least kDecodeMinWideBytes: the product is a stream of
/// the wide operand, which rung 28 reads once where the tile rungs run a few mostly empty
/// tiles. The widths are where rung 28 measured ahead of the tile rungs (docs/auto.md,
/// "Decode"): 16 columns in BF16/FP16 (mma.sync), 4 in float (FMAs), none in double (its FMA
/// form streams at half of cuBLAS's rate), and only where its fast paths read the operands
/// (decode_reads_along_k). Checked after rung 27's rule, before the model.
constexpr int64_t kDecodeMinWideBytes = int64_t(1) << 20;

int64_t decode_max_skinny(DataType t) {
    if (t == DataType::BF16 || t == DataType::F16) return 16;
    return t == DataType::F32 ? 4 : 0;
}

/// Rung 28's measured paths read both operands along k in 16-byte runs: op(A) = A^T and op(B) =
/// B in the column-major form (a row-major x W^T, as PyTorch's Linear stores both), every
/// pointer, leading dimension and batch stride a multiple of 16 bytes. Its other paths (a
/// weight contiguous along its rows, unaligned rows) are correct but slower than the tile rungs.
bool decode_reads_along_k(const Problem& p) {
    if (!p.trans_a || p.trans_b) return false;
    const int64_t per_run = 16 / Problem::element_bytes(p.type);
    const auto aligned = [&](const void* ptr, int64_t ld, int64_t stride) {
        return reinterpret_cast<uintptr_t>(ptr) % 16 == 0 && ld % per_run == 0 &&
               (p.batch.count == 1 || stride % per_run == 0);
    };
    return aligned(p.A, p.lda, p.batch.strides.a) && aligned(p.B, p.ldb, p.batch.strides.b);
}

bool goes_to_decode(const Problem& p) {
    const int64_t skinny = std::min(p.m, p.n), wide = std::max(p.m, p.n);
    return skinny <= decode_max_skinny(p.type) && wide >= 16 * skinny &&
           wide * p.k * p.batch.count * Problem::element_bytes(p.type) >= kDecodeMinWideBytes &&
           decode_reads_along_k(p);
}

/// A decode product (goes_to_decode) of 9-16 tokens in BF16/FP16, one product, the tokens along
/// n of the column-major form (a row-major x W^T), runs on rung 24's 64 x 16 tiles
/// (hopper::PersistentSkinnyConfig) where the device runs sm_90a and the tiles number a third
/// of the SMs or more, and not between one and two waves of them: one block per SM streams its
/// weight rows through a TMA ring of 16 stages, where rung 28's blocks keep fewer bytes in
/// flight. Measured with the L2 flushed on an H200 (docs/ladder.md, "Rung 24's 64 x 16 tiles
/// for decode"): 48-132 and 296-448 tiles 1.05-1.17x rung 28's speed; 32 tiles (a small weight,
/// whose k rung 28 also cuts over its warps) 0.83-1.00x, 160-224 tiles 0.93-0.96x; 1-8 tokens
/// 0.87-1.09x, most rows slower.
constexpr int64_t kSkinnyTileMinColumns = 9;

bool decode_on_skinny_tiles(const Problem& p, const DeviceCaps& caps) {
    const bool half = p.type == DataType::BF16 || p.type == DataType::F16;
    const int64_t tiles = ceil_div(p.m, int64_t(hopper::PersistentSkinnyConfig::BM));
    const int64_t sms = caps.sm_count;
    const bool fills = 3 * tiles >= sms && (tiles <= sms || tiles >= 2 * sms);
    return half && caps.sm90a && p.batch.count == 1 && p.n >= kSkinnyTileMinColumns && p.n <= 16 &&
           p.m >= 16 * p.n && fills;
}

/// Rung 24 on those tiles, and the name auto_choice reports for it.
template <class TIn, class TOut>
void launch_skinny_tiles(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    launch_persistent_tiles<hopper::PersistentSkinnyConfig>(g, stream, 1);
}
constexpr const char* kSkinnyTileName = "persistent 64x16x64 ws";

/// Double products that rung 31 (INT8 emulation) runs faster than the DMMA rungs, with an
/// error measured at or below DGEMM's. Its time relative to a DGEMM of the same shape, from its
/// parts: each INT8 GEMM kInt8GemmShare of the DGEMM (the magnitude GEMM's share cut to the
/// fraction of k it samples); the split passes kSplitShare DGEMM flop-times (2 / (m n k) of the
/// DGEMM each) per element of op(A) and op(B); the reconstruction kReconstructShare per element
/// of C; and what the call takes beyond its kernels (launches, the gaps between them, the
/// clock it runs at), kFixedShare / (m n k). The four are fitted by least squares to rung 31's
/// time over cuBLAS DGEMM's on fourteen shapes of 2048-8192 x 2048-8192 x 4096-16384, which
/// they give within 0.016 (docs/auto.md). Taken where that sum is at most kEmulationShare, a
/// DGEMM's time: the DMMA rung auto would run instead took 1.03x-1.11x of it where auto kept
/// it, so rung 31 is ahead there by more than the fit's error. Also k is at least
/// kEmulationMinK (below it, the median error on wide-range inputs measured up to 2.3x DGEMM's:
/// docs/precision.md) and the workspace fits in what the pool keeps (workspace.hpp), whole or in
/// blocks of C (int8_emulation_blocks).
constexpr double kInt8GemmShare = 0.0335, kSplitShare = 305, kReconstructShare = 1028;
constexpr double kFixedShare = 1.91e9;
constexpr double kEmulationShare = 1.0;
constexpr int64_t kEmulationMinK = 4096;

/// The caller's Precision::Int8Emulation: every float and double product, where the device
/// has rung 31's instructions.
bool emulation_asked(const Problem& p, const DeviceCaps& caps) {
    return p.precision == Precision::Int8Emulation &&
           (p.type == DataType::F32 || p.type == DataType::F64) && caps.sm90a;
}

/// The blocks of C rung 31 runs `p` in at the automatic count: the whole product where its
/// workspace fits what the pool keeps, else blocks whose workspace does (rows 0: none).
EmulationBlocks emulation_blocks(const Problem& p, const DeviceCaps& caps) {
    return int8_emulation_blocks(true, p.m, p.n, p.k, 0, caps.memory_bytes / kWorkspaceKeepShare);
}

/// Whether auto may run rung 31 on `p` at the default precision, speed aside: one double
/// product on sm_90a, k at least kEmulationMinK, a cut of C whose blocks' workspace the pool
/// keeps.
bool emulation_admitted(const Problem& p, const DeviceCaps& caps) {
    return p.type == DataType::F64 && p.batch.count == 1 && caps.sm90a && p.k >= kEmulationMinK &&
           emulation_blocks(p, caps).rows > 0;
}

/// Rung 31's modelled time on `p` as a share of a DGEMM's: its passes alone, and in all.
double emulation_passes_share(const Problem& p) {
    const double m = double(p.m), n = double(p.n), k = double(p.k);
    return kSplitShare * (m + n) / (m * n) + kReconstructShare / k + kFixedShare / (m * n * k);
}
/// In blocks of C (emulation_blocks), every block is a product of its own: the share of one
/// block against a DGEMM of the block is the whole call's against a DGEMM of the whole.
double emulation_share(const Problem& whole, const DeviceCaps& caps) {
    Problem p = whole;
    if (const EmulationBlocks b = emulation_blocks(whole, caps); b.rows > 0) p.m = b.rows, p.n = b.cols;
    // + the magnitude GEMM, over at most magnitude_blocks(double) blocks of k
    const double sampled = double(ozaki::magnitude_blocks(true) * ozaki::kMagnitudeBlock);
    const double gemms = ozaki::plan_for(true, p.k, 0).moduli + std::min(1.0, sampled / double(p.k));
    return kInt8GemmShare * gemms + emulation_passes_share(p);
}

bool goes_to_emulation(const Problem& p, const DeviceCaps& caps) {
    return emulation_admitted(p, caps) && emulation_share(p, caps) <= kEmulationShare;
}

/// The tune table's pick of rung 31 for `p`'s class (`gemmlab tune` timed it faster there); the
/// caller still asks emulation_admitted, since a class spans k below kEmulationMinK too.
bool tuned_to_emulation(const Problem& p, const TuneTable* table) {
    return table && p.type == DataType::F64 &&
           table->at(TuneType::F64, shape_class_of(p.m, p.n, p.k)).candidate == kTunedEmulation;
}

/// Rung 31 as auto runs it at the default precision: with the automatic modulus count, whatever
/// GemmOptions::emulation_moduli says (a caller's count is read only where the caller asked for
/// rung 31, by name or by Precision::Int8Emulation), so the type's bound holds.
void launch_emulation_for_auto(const Problem& p, cudaStream_t stream) {
    Problem automatic = p;
    automatic.emulation_moduli = 0;
    launch_int8_emulation_call(automatic, stream);
}

} // namespace

AutoChoice auto_choice(const Problem& p, const DeviceCaps& caps, const TuneTable* table) {
    if (emulation_asked(p, caps)) return AutoChoice{"int8_emulation", 1, false};
    if (goes_to_small(p)) return AutoChoice{"small", 1, false};
    if (goes_to_emulation(p, caps)) return AutoChoice{"int8_emulation", 1, false};
    if (goes_to_decode(p))
        return AutoChoice{decode_on_skinny_tiles(p, caps) ? kSkinnyTileName : "decode", 1, false};
    if (tuned_to_emulation(p, table) && emulation_admitted(p, caps))
        return AutoChoice{"int8_emulation", 1, true};
    return with_groups(type_key(p), [&](auto groups) {
        const auto c = choose(groups, p, caps, table);
        return AutoChoice{c.candidate->name, c.splits, c.tuned};
    });
}

namespace {

/// The device's tune table (loaded once per device), or none under an SM count target: its
/// picks were timed on every SM, so there the model picks.
const TuneTable* tune_table_for_call(int device) {
    return SmCountTarget::current() > 0 ? nullptr : device_tune_table(device);
}

} // namespace

AutoChoice current_auto_choice(const Problem& p) {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    return auto_choice(p, device_caps(device), tune_table_for_call(device));
}

std::vector<AutoOption> auto_options(const Problem& p, const DeviceCaps& caps) {
    std::vector<AutoOption> out;
    with_groups(type_key(p), [&](auto groups) {
        for_each_option(groups, p, caps,
                        [&](int index, const auto& c, int splits) {
                            out.push_back({index, c.name, splits, model_time(c, p, splits, caps)});
                        });
    });
    // Rung 31 where its accuracy rule admits it, modelled as its share of the fastest option.
    if (p.precision == Precision::Default && emulation_admitted(p, caps) && !out.empty()) {
        double fastest = out.front().model_ns;
        for (const AutoOption& o : out) fastest = std::min(fastest, o.model_ns);
        out.push_back({kTunedEmulation, "int8_emulation", 1, emulation_share(p, caps) * fastest});
    }
    return out;
}

void launch_option(const Problem& p, int candidate, int splits, cudaStream_t stream) {
    if (candidate == kTunedEmulation && p.type == DataType::F64)
        return launch_emulation_for_auto(p, stream);
    with_groups(type_key(p), [&](auto groups) {
        using Args = ArgsOf<decltype(groups)>;
        const Indexed<Args> found = candidate_at(groups, candidate);
        if (!found.candidate)
            throw std::out_of_range("gemmlab auto: no candidate " + std::to_string(candidate) +
                                    " for " + to_string(type_key(p)));
        const int slices = found.candidate->splits_k() ? std::max(splits, 1) : 1;
        Choice<Args>{found.candidate, slices}.launch(Typed<Args>::of(p), stream);
    });
}

int find_candidate(TuneType type, std::string_view name) {
    return with_groups(type, [&](auto groups) {
        int index = 0;
        for (const auto& g : groups)
            for (const auto& c : g.list) {
                if (name == c.name) return index;
                ++index;
            }
        return -1;
    });
}

ResolvedChoice resolve_tuned_choice(TuneType type, std::string_view name, int splits, int64_t k) {
    if (name == "int8_emulation") {
        if (type != TuneType::F64) return {-1, "rung 31 is tuned for f64 only"};
        if (splits != 1) return {-1, "rung 31 does not split k (splits = " + std::to_string(splits) + ")"};
        if (k < kEmulationMinK)
            return {-1, "rung 31 at k = " + std::to_string(k) + ", below the k = " +
                            std::to_string(kEmulationMinK) + " from which auto's accuracy rule takes it"};
        return {kTunedEmulation, {}};
    }
    const int index = find_candidate(type, name);
    if (index < 0) return {-1, "unknown candidate '" + std::string(name) + "'"};
    return with_groups(type, [&](auto groups) -> ResolvedChoice {
        const auto found = candidate_at(groups, index);
        const std::string what = "candidate '" + std::string(name) + "'";
        if (!admits(found.accuracy, precision_of(type), k))
            return {-1, what + " has a precision that " + to_string(type) + " calls never run"};
        if (splits != 1 && splits != 2 && splits != 4 && splits != 8 && splits != 16)
            return {-1, "splits = " + std::to_string(splits) + " is not 1, 2, 4, 8 or 16"};
        if (splits > 1 && !found.candidate->splits_k())
            return {-1, what + " does not split k (splits = " + std::to_string(splits) + ")"};
        return {index, {}};
    });
}

namespace {

/// The calling thread's last choice and what it was made from. Programs call GEMM in loops of
/// one shape, and the walk over every candidate and split is host time each call would repeat
/// (docs/auto.md, "The remembered choice"). The device's caps and tune table are fixed once
/// loaded (tables are never freed, so a reload is a new pointer), so equal inputs give the same
/// choice.
struct LastChoice {
    int device = -1;
    const TuneTable* table = nullptr;
    TuneType type = TuneType::F32;
    int64_t m = 0, n = 0, k = 0, batches = 0;
    int sm_target = 0; // SmCountTarget::current()
    const void* candidate = nullptr; // a CandidateFor<Args> of `type`'s Args (with_groups)
    int splits = 1;

    bool same_inputs(const LastChoice& o) const {
        return device == o.device && table == o.table && type == o.type && m == o.m && n == o.n &&
               k == o.k && batches == o.batches && sm_target == o.sm_target;
    }
};
thread_local LastChoice t_last_choice;

} // namespace

void launch_auto(const Problem& p, cudaStream_t stream) {
    if (p.precision == Precision::Int8Emulation && emulation_asked(p, current_device_caps())) {
        for (int64_t b = 0; b < p.batch.count; ++b) launch_int8_emulation_call(p.one_batch(b), stream);
        return;
    }
    if (goes_to_small(p)) {
        launch_every_type<&launch_small<float>, &launch_small<double>,
                          &launch_small_half<__nv_bfloat16, __nv_bfloat16>,
                          &launch_small_half<__nv_bfloat16, float>, &launch_small_half<__half, __half>,
                          &launch_small_half<__half, float>>(p, stream);
        return;
    }
    if (goes_to_decode(p)) {
        if (decode_on_skinny_tiles(p, current_device_caps())) {
            launch_half<&launch_skinny_tiles<__nv_bfloat16, __nv_bfloat16>,
                        &launch_skinny_tiles<__nv_bfloat16, float>,
                        &launch_skinny_tiles<__half, __half>, &launch_skinny_tiles<__half, float>>(
                p, stream);
            return;
        }
        launch_every_type<&launch_decode<float>, &launch_decode<double>,
                          &launch_decode_half<__nv_bfloat16, __nv_bfloat16>,
                          &launch_decode_half<__nv_bfloat16, float>, &launch_decode_half<__half, __half>,
                          &launch_decode_half<__half, float>>(p, stream);
        return;
    }
    if (goes_to_emulation(p, current_device_caps())) {
        launch_emulation_for_auto(p, stream);
        return;
    }
    LastChoice now;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&now.device));
    now.sm_target = SmCountTarget::current();
    now.table = tune_table_for_call(now.device);
    if (tuned_to_emulation(p, now.table) && emulation_admitted(p, current_device_caps())) {
        launch_emulation_for_auto(p, stream);
        return;
    }
    now.type = type_key(p);
    now.m = p.m, now.n = p.n, now.k = p.k, now.batches = p.batch.count;
    with_groups(now.type, [&](auto groups) {
        using Args = ArgsOf<decltype(groups)>;
        Choice<Args> c;
        if (now.same_inputs(t_last_choice)) {
            c = {static_cast<const CandidateFor<Args>*>(t_last_choice.candidate), t_last_choice.splits};
        } else {
            c = choose(groups, p, device_caps(now.device), now.table); // caps cached per device
            now.candidate = c.candidate, now.splits = c.splits;
            t_last_choice = now;
        }
        c.launch(Typed<Args>::of(p), stream);
    });
}

} // namespace gemmlab::detail
