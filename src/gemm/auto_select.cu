// `auto`: picks a rung and a tile configuration by precision, then by shape, among those the
// device can run (Hopper-only code only on sm_90a): from the tune cache where `gemmlab tune` has
// measured this GPU (gemm/tune_cache.hpp), else from a model whose inputs are the device's own.
//
// Precision first, and never lowered: which candidates may run is the call's
// GemmOptions::precision. Double: FP64 DMMA (rung 15) and the FP64 CUDA-core rungs, all IEEE
// FP64 and held to the same bound. Float, Precision::Default: the FP32 CUDA-core rungs and
// 3xTF32 (rungs 17 and 26), which meets the FP32 bound (docs/precision.md derives it) for k >= kTf32x3MinK
// and routes its own tiles with out-of-range inputs to FP32 FMAs; below that k only the CUDA
// cores. Float, Precision::Tf32 (the caller's explicit choice): TF32 (rungs 16, 25) joins them.
// Each candidate list carries its Accuracy, and admits() is the one place these rules live: a
// tuned choice passes through it too, so a cache can never lower a call's precision.
//
// Then speed. The candidates are configurations of rungs 13 (warp_tile), 14 (async_pipeline)
// and 15-26 listed below; every one of them is correct for any m, n, k, op and alignment
// (predicated edge tiles, scalar fallback when a pointer or leading dimension does not allow
// 16-byte accesses), so the choice is about speed only.
//
// The tune table, when the cache has an entry for the call's type key and shape class
// (tune_table.hpp) and the call is one batch: that candidate and its k slices, if the call
// admits it and the device runs it (else the model), with the slices halved until each has
// kMinSplitK of k.
//
// Otherwise the model, a wave-quantisation model whose per-configuration input is a MEASURED
// throughput per SM and clock cycle and whose device inputs are queried (DeviceCaps):
//
//   time(config, s) = blocks on the busiest SM * 2 * tile area * (k/s + fill_k)
//                         / (flop_per_sm_cycle * SM clock * utilisation)
//                     + (pack bytes * (m + n) * k + 2 * partial bytes * s * m * n [s > 1])
//                         / DRAM bandwidth
//                     + kLaunchNs * extra launches + kSplitKNs * [s > 1]
//   (the first two x batches for a batch; s = 1, 2, 4, 8, 16 k slices for split-K
//   configurations, one batch only, each slice's tiles counted as blocks, each slice's partial
//   written and read back once in the accumulation type, and one more kernel to sum them)
//
// - blocks on the busiest SM = ceil(tiles / SMs), edge tiles counted whole: a 1024x1024 C is
//   32 tiles of 128x256 (100 of 132 SMs idle) but 256 tiles of 64x64; a skinny C pays for the
//   rows its tiles waste, which steers it to the 64-wide tiles. A strided batch is more tiles
//   of the same launch (one gridDim.z slice per batch): tiles = tiles of one C x batches, so
//   1024 batches of 64x64 fill the GPU with 64-wide tiles where one 128x128 tile per batch
//   would compute 4x the useful work. For more than one batch only the candidates that batch
//   natively compete; the Hopper rungs (20-26) run once per batch and are left out.
// - flop_per_sm_cycle = the configuration's f32/f64/bf16 row-major NN 4096^3 GFLOP/s, measured
//   on a 132-SM GPU at 1980 MHz (see per_sm_cycle), divided by 132 x 1.98 GHz: the full-chip
//   rate where every SM holds as many blocks as fit, per SM and cycle. Times the device's SM
//   count and peak clock it predicts another GPU of the same architecture; across
//   architectures it is a guess (other pipes, caches, tensor cores), which is what
//   `gemmlab tune` replaces with measurements.
// - utilisation = min(1, resident warps / kSaturatingWarps), resident warps = min(blocks on the
//   SM, blocks that fit) * warps per block. Blocks that fit: the listed count (ptxas registers
//   and shared memory on sm_90), fewer where the device's shared memory per SM holds fewer
//   (resident_blocks); a candidate whose block needs more shared memory than the device lets a
//   block opt in to is not a candidate there. Measured: 8 warps of 8x16 thread tiles (one
//   128x256 block) already reach that configuration's full rate (2048^3 is one such block per
//   SM and runs at 96-98% of its 4096^3 rate), so 8 float warps count as saturating; one 4-warp
//   128x64 block per SM does not (1024^3: 27.5 vs 28.7 TFLOP/s for two 64x64 blocks).
// - fill_k: what a block costs whatever its k (the pipeline's first loads, the epilogue), in
//   k steps of its tile: where k is short (strided batches of k = 64-128, small squares) it
//   is most of a block's time, and it is not the same for every configuration. Measured for
//   the float CUDA-core and mma.sync 3xTF32 configurations (the ones short-k float calls
//   choose among) by `gemmlab_tile_sweep --batch` on the bench's batched shapes (H100,
//   2026-11-23, docs/results/batched-sweep-h100-2026-11-23/): each row's time against the
//   model's without it, as k * (measured / modelled - 1), the median over the 12 shapes.
//   3xTF32 128x128 pays 85 (two 32-deep stages before its first MMA, one block per SM, the
//   split), the CUDA cores' tiles 18-31. On 128x128x64 x 1024 the model picked 3xTF32
//   128x128 (0.79x cuBLAS in that sweep) over warp_tile 128x128x8 (1.15x). 3xTF32 64x32 pays
//   25 (small-tiles-h100-2026-11-23/). 0 elsewhere (the DMMA tiles: see kDoubleDmma).
// - pack bytes: the TF32 pack step of rungs 25-26 (tf32_wgmma.cuh) reads and writes op(A) and
//   op(B) before their kernel runs (rung 25 only those TMA cannot load as they are:
//   packed_operands), at the device's peak DRAM bandwidth (DeviceCaps): what makes those rungs
//   lose where m and n are small and k large.
// - extra launches: the pack step's kernels (rungs 25-26), each a fixed cost (kLaunchNs,
//   measured), and split-K's sum (kSplitKNs, measured): what keeps small calls on
//   single-kernel paths.
// Before any of this, C of at most 32 x 32 goes to rung 27 (kTinyMN below) with k <= 128 in a
// batch, k <= 16 alone.
// Ties go to the earlier candidate. The CUDA-core rates were measured on an H200 (below), the
// tensor-core ones on an H100 (at their table): the two chips share clocks and SM counts, and
// the CUDA-core ones were re-measured beside the tensor-core ones in the same H100 run
// (warp_tile 128x256x16: 46.7 TFLOP/s vs 47.1 on the H200).
//
// What the measured table gives (f32, 132 SMs): >= 2048^2 -> rung 13 128x256x16 (2048^3: 45.3
// TFLOP/s = 0.935x cuBLAS, 4096^3: 47.1 = 0.936x); 1024^2 and skinny C -> rung 14 64x64x8 s4
// (1024^3: 28.7 = 0.91x cuBLAS; 128x256 would leave 100 SMs idle: 11.0); 3xTF32 128x128
// (46.4) where 128x128 tiles fit best, level with the CUDA cores elsewhere. Double: rung 15
// 128x64x16 s4 (47.1 on the H100, twice rung 13's 23.8), 64x64 where its tiles fill more SMs.
// Single products of about 64^3-768^3: 3xTF32 64x32 and DMMA 32x64, whose twice-as-many tiles
// fill more SMs without split-K's second kernel.

#include "gemm/auto_select.hpp"

#include <algorithm>
#include <span>
#include <stdexcept>

#include "common/cuda_check.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/split_k.cuh"
#include "gemm/kernels/tile_configs.hpp"
#include "gemm/tune_cache.hpp"

namespace gemmlab::detail {
namespace {

/// The GPU the rates were measured on: an H100 SXM and an H200 SXM, both 132 SMs with the SM
/// clock measured at 1980 MHz during the runs (README, "The ladder, measured").
constexpr int kMeasuredSms = 132;
constexpr double kMeasuredClockGhz = 1.98;

/// FLOP per SM per clock cycle of a configuration measured at `gflops` on that GPU.
constexpr double per_sm_cycle(double gflops) { return gflops / (kMeasuredSms * kMeasuredClockGhz); }

// ------------------------------------------------------------------ shared memory per block
// What one block of each kernel family takes, the largest over its op-flag and alignment
// variants, from the kernel's own formula (in the file named). The largest, so that a device
// never gets a candidate whose block cannot launch there; on sm_90 (228 KB per SM) it limits
// no float or half configuration below its listed blocks per SM (the model's picks there are
// what they were before shared memory entered it; tests/test_auto_model.cpp pins some).

/// Rung 13 (13_warp_tile.cu, WarpTileKernel): two (BK, BMN + 16 bytes) tiles of each operand.
constexpr int warp_tile_smem(int bm, int bn, int bk, int elem) {
    const int pad = 16 / elem;
    return 2 * bk * (bm + pad + bn + pad) * elem;
}
/// Rung 14 (14_async_pipeline.cu, AsyncPipelineKernel): per stage a (BK, BM + 16 bytes) A tile
/// and a (BN, BK + 16 bytes) B tile.
constexpr int async_pipeline_smem(int bm, int bn, int bk, int stages, int elem) {
    const int pad = 16 / elem;
    return stages * (bk * (bm + pad) + bn * (bk + pad)) * elem;
}
/// Rungs 15-17 (mma_tile.cuh, MmaKernel): per stage each operand (BMN, BK + 4) or
/// (BK, BMN + 32 bytes), whichever its op flag gives.
constexpr int mma_operand_elems(int bmn, int bk, int elem) {
    return std::max(bmn * (bk + 4), bk * (bmn + 32 / elem));
}
constexpr int mma_tile_smem(int bm, int bn, int bk, int stages, int elem) {
    return stages * (mma_operand_elems(bm, bk, elem) + mma_operand_elems(bn, bk, elem)) * elem;
}
/// Rung 15's rotating mainloop: its f64 stages (k tile 16) and each stage's two 8-byte mbarriers.
constexpr int dmma_rotating_smem(int bm, int bn, int stages) {
    return mma_tile_smem(bm, bn, 16, stages, 8) + 16 * stages;
}
/// Rung 18 (18_half_simt.cu): static float (BK, BMN + 1) tiles.
constexpr int half_simt_smem(int bm, int bn, int bk) { return bk * (bm + 1 + bn + 1) * 4; }
/// Rung 19 (19_mma_sync_f16.cu, Plan): unpadded swizzled 16-bit tiles per stage.
constexpr int mma_sync_f16_smem(int bm, int bn, int bk, int stages) {
    return stages * (bm + bn) * bk * 2;
}
/// Rungs 20-26 (hopper_gemm.cuh, Smem): per stage and part 128 bytes of k for each of the
/// BM + BN rows, C's staging buffer in the persistent plans (16 KB per consumer warpgroup), two
/// barriers per stage and 1 KB of alignment.
constexpr int hopper_smem(int bm, int bn, int stages, int parts, bool persistent) {
    const int c_staging = persistent ? bm / 64 * 16384 : 0;
    return stages * parts * (bm + bn) * 128 + c_staging + 16 * stages + 1024;
}

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
    /// step of rungs 25-26: read 4, write 4 per part); 0 for the others. The rate (measured at
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
    /// tf32_wgmma.cuh): an op(B) that is not K-major, and an operand that is not 16-byte
    /// aligned. pack_bytes and extra_launches (one pack kernel each) then count only those.
    /// False: both are packed on every call (rung 26).
    bool packs_unreadable_only = false;

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

/// `c` with its measured fill_k (CandidateFor::fill_k), the one field set past the defaults.
Candidate<float> with_fill(Candidate<float> c, int fill_k) {
    c.fill_k = fill_k;
    return c;
}
template <class TIn, class TOut>
using HalfCandidate = CandidateFor<HalfArgs<TIn, TOut>>;

// ------------------------------------------------------------------ CUDA cores (rungs 13, 14)
// Resident blocks per SM from the ptxas register counts on sm_90a (65536 registers per SM):
// float 128x256x16 ~245 regs x 256 threads -> 1; 128x128x8 128 x 256 -> 2; 128x64x8 128 x 128
// -> 4; 64x64x8 96 x 128 -> 5. Double 128x64x8 ~250 x 128 -> 2; 128x128x16 ~250 x 256 -> 1;
// 64x64x8 128 x 128 -> 4. Rates: 4096^3 row-major NN GFLOP/s on an H200 (.perf/cfg_bench
// sweep of 2026-11-22, a scratch harness outside the repository, median of 21).
// Every one of them (and rungs 15-17 below) splits k by split_k.cuh, the slices a batch of the
// configuration's own kernel (CandidateFor::splits_k).

const Candidate<float> kFloatCudaCores[] = {
    with_fill({"warp_tile 128x256x16", 128, 256, 8, 1, per_sm_cycle(47100),
               warp_tile_smem(128, 256, 16, 4), &launch_warp_tile_cfg<Cfg128x256x16, float>},
              23),
    with_fill({"warp_tile 128x128x8", 128, 128, 8, 2, per_sm_cycle(41000),
               warp_tile_smem(128, 128, 8, 4), &launch_warp_tile_cfg<Cfg128x128x8, float>},
              23),
    with_fill({"warp_tile 128x64x8", 128, 64, 4, 4, per_sm_cycle(40900),
               warp_tile_smem(128, 64, 8, 4), &launch_warp_tile_cfg<Cfg128x64x8, float>},
              23),
    with_fill({"async_pipeline 64x64x8 s4", 64, 64, 4, 5, per_sm_cycle(37600),
               async_pipeline_smem(64, 64, 8, 4, 4),
               &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>},
              18),
    with_fill({"warp_tile 64x64x8", 64, 64, 4, 5, per_sm_cycle(37500),
               warp_tile_smem(64, 64, 8, 4), &launch_warp_tile_cfg<Cfg64x64x8, float>},
              31),
};

const Candidate<double> kDoubleCudaCores[] = {
    {"warp_tile 128x64x8", 128, 64, 4, 2, per_sm_cycle(23800), warp_tile_smem(128, 64, 8, 8),
     &launch_warp_tile_cfg<Cfg128x64x8, double>},
    {"async_pipeline 128x64x16 s3", 128, 64, 4, 2, per_sm_cycle(23800),
     async_pipeline_smem(128, 64, 16, 3, 8),
     &launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>, double>},
    {"warp_tile 128x128x16", 128, 128, 8, 1, per_sm_cycle(23500), warp_tile_smem(128, 128, 16, 8),
     &launch_warp_tile_cfg<Cfg128x128x16, double>},
    {"warp_tile 64x64x8", 64, 64, 4, 4, per_sm_cycle(21100), warp_tile_smem(64, 64, 8, 8),
     &launch_warp_tile_cfg<Cfg64x64x8, double>},
};

// ------------------------------------------------------------ tensor cores (rungs 15, 16, 17)
// Rates: row-major NN GFLOP/s from `gemmlab_tile_sweep --sizes 4096,8192` on an H100 (132 SMs),
// 2026-11-23: the lower of the 4096^3 and 8192^3 figures of the sweeps that chose these
// configurations. The sweep of the documented run (docs/results/sweep-h100.log, gpu-check's
// sweep step) gives each within 8% of these (all but one within 3%) and the same order.
// Resident blocks per SM from ptxas registers and shared memory (ncu's block limits).
// Saturation: one 4-warp DMMA block per SM does not keep the FP64 tensor cores busy. Measured
// (H100, bench-mixed of 2026-11-23): 1024x1024x8192 runs 128 blocks of 128x64, one per SM, at
// 38.7 TFLOP/s against 47.1 with two per SM (4096^3): 82%, what the model's linear utilisation
// gives for 4 of 5 saturating warps.
constexpr int kDmmaSaturatingWarps = 5;

// fill_k: measured for the DMMA tiles too (63-78 k steps: 128x128 63 in its earlier k16
// mainloop, rotating 128x64 78, 64x64 63-65, 32x64 72; the batched sweeps of
// docs/results/batched-sweep-h100-2026-11-23 and small-tiles-h100-2026-11-23) but left out of
// the model: the FP64 CUDA-core tiles' are not all
// measured, and with DMMA's figures in and theirs at 0 the model sent the k = 64 batches to
// async_pipeline 128x64x16 (unmeasured there). The one FP64 CUDA-core tile those sweeps time,
// warp_tile 128x64x8, takes 1.2-1.6x DMMA 64x64's time on them. Between DMMA tiles the figures
// differ by a few k steps.
const Candidate<double> kDoubleDmma[] = {
    // Rung 15's row: eight warps, one block per SM, the rotating mainloop with its stages
    // handed over by mbarriers (mma_tile.cuh). Rate: the three sweeps of 2026-11-25 (H100),
    // medians 56,986 / 55,300 GFLOP/s at 4096^3 / 8192^3; the lower. It replaced 128x128 k16
    // loaded tile by tile behind block barriers (44,600 in the sweep of 2026-11-23).
    {"dmma 128x128x16 w64x32 s4 g16 k8 rotating", 128, 128, 8, 1, per_sm_cycle(55300),
     dmma_rotating_smem(128, 128, 4),
     &mma::launch_dmma_rotating_cfg<mma::Cfg128x128w64x32s4g16<16>>, false, 90, 0, true, nullptr,
     0, kDmmaSaturatingWarps},
    // Tiles taken in groups of 16 tile rows, 4 stages where two blocks fit in an SM for the
    // call's op flags, else 3 (launch_dmma_128x64): two blocks per SM in every layout; k8
    // DMMAs in the rotating-fragment mainloop. Rate: the sweep of 2026-11-23 (second H100
    // run), NN (4 stages, then k16 loaded tile by tile), 51,152 / 51,354 GFLOP/s at 4096^3 /
    // 8192^3 against 49,598 / 47,731 for the plain raster beside it; the lower. The rotating
    // mainloop measured 51,265-51,341 at 8192^3 (two later sweeps) and, with its stages on
    // mbarriers, 50,745 / 52,136 (medians of the three sweeps of 2026-11-25), so the rate stands.
    {"dmma 128x64x16 w64x32 s4/s3 g16 k8 rotating", 128, 64, 4, 2, per_sm_cycle(51150),
     dmma_rotating_smem(128, 64, 3), &mma::launch_dmma_128x64, false, 90, 0, true,
     nullptr, 0, kDmmaSaturatingWarps},
    {"dmma 64x64x16 w32x32 s4 k16", 64, 64, 4, 2, per_sm_cycle(43000),
     mma_tile_smem(64, 64, 16, 4, 8), &mma::launch_dmma_cfg<mma::Cfg64x64w32x32s4<16>, 16>,
     false, 90, 0, true, nullptr, 0, kDmmaSaturatingWarps},
    // Twice 64x64's tiles on a small C, in one kernel where 64x64 would split k: 512^3 is 128
    // tiles (17.7 us against cuBLAS's 18.2 in the sweep of 2026-11-23; 64x64 21.6). Rate:
    // 4096^3 in that sweep; three blocks per SM by shared memory (60 KB each).
    {"dmma 32x64x16 w16x32 s4 k16", 32, 64, 4, 3, per_sm_cycle(40400),
     mma_tile_smem(32, 64, 16, 4, 8), &mma::launch_dmma_cfg<mma::Cfg32x64w16x32s4<16>, 16>,
     false, 90, 0, true, nullptr, 0, kDmmaSaturatingWarps},
};

const Candidate<float> kFloatTf32x3[] = {
    with_fill({"tf32x3 128x128x32 w64x32 s3", 128, 128, 8, 1, per_sm_cycle(46400),
               mma_tile_smem(128, 128, 32, 3, 4), &mma::launch_tf32x3_cfg<mma::Cfg128x128w64x32s3<32>>},
              85),
    with_fill({"tf32x3 64x64x32 w32x32 s4", 64, 64, 4, 2, per_sm_cycle(39500),
               mma_tile_smem(64, 64, 32, 4, 4), &mma::launch_tf32x3_cfg<mma::Cfg64x64w32x32s4<32>>},
              44),
    // Twice 64x64's tiles on a small C, one kernel (512^3: 19.8 us against cuBLAS's 24.3 and
    // 28.4 for the CUDA cores' 64x64, unsplit, in the sweep of 2026-11-23). Rate and fill_k:
    // that sweep's 4096^3 and a batched sweep of the same day.
    with_fill({"tf32x3 64x32x32 w32x16 s4", 64, 32, 4, 3, per_sm_cycle(31400),
               mma_tile_smem(64, 32, 32, 4, 4), &mma::launch_tf32x3_cfg<mma::Cfg64x32w32x16s4<32>>},
              25),
};

const Candidate<float> kFloatTf32[] = {
    {"tf32 128x256x32 w64x64 s3", 128, 256, 8, 1, per_sm_cycle(144500),
     mma_tile_smem(128, 256, 32, 3, 4), &mma::launch_tf32_cfg<mma::Cfg128x256w64x64s3<32>>},
    {"tf32 128x128x32 w64x32 s3", 128, 128, 8, 1, per_sm_cycle(116000),
     mma_tile_smem(128, 128, 32, 3, 4), &mma::launch_tf32_cfg<mma::Cfg128x128w64x32s3<32>>},
    {"tf32 64x64x32 w32x32 s4", 64, 64, 4, 2, per_sm_cycle(82500),
     mma_tile_smem(64, 64, 32, 4, 4), &mma::launch_tf32_cfg<mma::Cfg64x64w32x32s4<32>>},
};

// ------------------------------------------------- float on warpgroup MMA (rungs 25, 26)
// Hopper only (needs_sm90a). Rates: the whole call (pack step included) at 4096^3, row-major
// nn, `gemmlab bench --dtype f32 --sizes 4096,8192` (and --precision tf32) on the H100:
// 3xTF32 on 2026-11-23 (8192^3: 121.0 TFLOP/s); TF32 on 2026-11-25, where row-major nn packs
// nothing (its op(A) is K-major, its op(B) goes through registers), the lower of two runs
// (docs/results/tf32-tma-rounding-h100-2026-11-25/bench-rs1.log; 8192^3: 355.4). 3xTF32 packs
// two parts (big and small). Extra launches: the pack kernels, and for 3xTF32 the memset of
// its range flags.
const Candidate<float> kFloatWgmmaTf32x3[] = {
    {"wgmma_tf32x3 128x128x32 s3 persistent", 128, 128, 12, 1, per_sm_cycle(118900),
     hopper_smem(128, 128, 3, 2, true), &launch_wgmma_tf32x3<float>, true, 0, /*pack_bytes=*/12,
     /*native_batch=*/false, &launch_wgmma_tf32x3_split, /*extra_launches=*/3},
};

const Candidate<float> kFloatWgmmaTf32[] = {
    {"wgmma_tf32 128x256x32 s4 persistent", 128, 256, 12, 1, per_sm_cycle(337900),
     hopper_smem(128, 256, 4, 1, true), &launch_wgmma_tf32<float>, true, 0, /*pack_bytes=*/8,
     /*native_batch=*/false, &launch_wgmma_tf32_split, /*extra_launches=*/2,
     /*saturating_warps=*/0, /*fill_k=*/0, /*packs_unreadable_only=*/true},
};

// ------------------------------------------------- half precision (BF16/FP16 in, C in it or f32)
// Every half-precision configuration auto may run, for A/B in TIn and C in TOut. To add a rung:
// list its configurations here (with needs_sm90a for Hopper-only code) in every instantiation;
// the model then weighs it, skipping what the device cannot run. The last entry must run
// everywhere: it is what a GPU without tensor cores for 16-bit types gets.
// Rates: bf16 4096^3 row-major nn GFLOP/s on the H100 (`gemmlab bench --dtype bf16`,
// 2026-11-23, the bench-half step of scripts/gpu-check.sh; docs/ladder.md has the rows). The wgmma rungs fall
// back to rung 19's kernel by themselves where TMA cannot read an operand (unaligned).
template <class TIn, class TOut>
std::span<const HalfCandidate<TIn, TOut>> half_candidates() {
    static const HalfCandidate<TIn, TOut> list[] = {
        {"persistent 128x256x64 ws", 128, 256, 12, 1, per_sm_cycle(677000),
         hopper_smem(128, 256, 4, 1, true), &launch_persistent<TIn, TOut>, true, 0, 0, false,
         &launch_persistent_split<TIn, TOut>},
        {"tma 128x128x64", 128, 128, 8, 1, per_sm_cycle(516000), hopper_smem(128, 128, 4, 1, false),
         &launch_tma<TIn, TOut>, true, 0, 0, false},
        {"mma_sync_f16 128x128x32 s4", 128, 128, 8, 2, per_sm_cycle(339000),
         mma_sync_f16_smem(128, 128, 32, 4), &launch_mma_sync_f16<TIn, TOut>, false},
        // For batches of small products. Rate: `gemmlab_tile_sweep --sizes 4096 --only
        // mma_sync_f16` on the H100, 2026-11-23; 5 blocks per SM (94 registers x 128 threads).
        {"mma_sync_f16 64x64x32 s4", 64, 64, 4, 5, per_sm_cycle(250200),
         mma_sync_f16_smem(64, 64, 32, 4),
         &mma::launch_mma_sync_f16_cfg<mma::Cfg64x64w32x32s4<32>, TIn, TOut>, false},
        {"half_simt 64x64x16", 64, 64, 8, 4, per_sm_cycle(17100), half_simt_smem(64, 64, 16),
         &launch_half_simt<TIn, TOut>, false},
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

/// Resident warps per SM that reach a configuration's full rate (measured, see the header):
/// 8 for FP32 (2 per scheduler with 64-128 independent FMAs each), half as many for FP64,
/// whose pipes run at half rate. Half-precision inputs accumulate in FP32: 8, not yet measured
/// for the tensor-core rungs.
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
/// step, split-K's sum), in ns. Measured: `gemmlab tune` on the H100 (2026-11-23) timed rung 26
/// at 64 x 64 x 64 at 25.5 us against 10.1 us for the CUDA cores' 64x64 tiles, both a few
/// microseconds of GPU work: 15.4 us for its memset and two pack kernels, 5 us each, about the
/// host's cost of one launch there (`gemmlab overhead`: 4.3 us). A host constant, not a device
/// query: it is what keeps small calls off the multi-kernel paths.
constexpr double kLaunchNs = 5000;

/// Split-K's fixed cost, in ns: its sum kernel's launch and run and the partials' round trip
/// beyond what the DRAM term counts. kLaunchNs alone made the model split 512^3 float calls in
/// two (3xTF32 64x32: 15.9 us modelled against 18.5 whole), where they ran slower. Measured on
/// the H100, 2026-11-23 (`gemmlab bench --shapes 512x512x512 --op all` with the tune cache naming
/// each option, docs/results/small-tiles-h100-2026-11-23/forced-512.log), median over the four
/// ops: 3xTF32 64x32 whole 20.6 us, in two slices 25.5; async_pipeline 64x64 in two 27.0. Beyond
/// the model's compute and DRAM terms the two splits cost 12.5 and 10.0 us; the lower is kept,
/// so that the model splits where a split measured faster (async_pipeline 64x64: 28.4 us whole).
constexpr double kSplitKNs = 10000;

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
    return resident_blocks(c, caps) > 0;
}

/// The SM clock the model runs at: the device's peak, or where it does not say, the clock the
/// rates were measured at (then only the DRAM term is off, by the ratio of the clocks).
double clock_ghz(const DeviceCaps& caps) {
    return caps.sm_clock_mhz > 0 ? caps.sm_clock_mhz / 1000.0 : kMeasuredClockGhz;
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
    const WgmmaTf32Packs packs = wgmma_tf32_packs(p.A, p.lda, p.B, p.ldb, p.trans_b);
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
    const int64_t resident = std::min<int64_t>(per_sm, resident_blocks(c, caps));
    const double warps = double(resident * c.warps);
    const double saturating = c.saturating_warps > 0 ? c.saturating_warps : kSaturatingWarps<Args>;
    const double util = warps >= saturating ? 1.0 : warps / saturating;
    const double flops =
        2.0 * double(per_sm) * c.bm * c.bn * double(ceil_div(k, int64_t(splits)) + c.fill_k);
    const double compute_ns = flops / (c.flop_per_sm_cycle * clock_ghz(caps) * util);
    const PackedOperands packed = packed_operands(c, p);
    double bytes = c.pack_bytes * double(packed.rows) * double(k);
    if (splits > 1) bytes += 2.0 * kPartialBytes<Args> * double(splits) * double(m) * double(n);
    const double memory_ns = caps.dram_gbps > 0 ? bytes * double(batches) / caps.dram_gbps : 0.0;
    const double launch_ns = kLaunchNs * packed.launches + (splits > 1 ? kSplitKNs : 0.0);
    return compute_ns + memory_ns + launch_ns;
}

/// Calls f(index, candidate, splits) for every option of a call of m x n x k x batches at
/// `precision` on `caps`, in the model's order: the candidates the call admits and the device
/// runs, each whole and then (split-K configurations, one batch or more) in 2, 4, 8 and 16
/// slices of at least kMinSplitK.
template <class Args, class F>
void for_each_option(std::span<const CandidateGroup<Args>> groups, Precision precision, int64_t k,
                     int64_t batches, const DeviceCaps& caps, F&& f) {
    int index = 0;
    for (const auto& g : groups)
        for (const auto& c : g.list) {
            const int this_index = index++;
            if (!admits(g.accuracy, precision, k) || !runs_on(c, caps, batches)) continue;
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
    for_each_option(groups, p.precision, p.k, p.batch.count, caps,
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
        !runs_on(*found.candidate, caps, 1))
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
/// to the model: one warp's k loop would then be the whole call's latency. A single such
/// product stays on rung 27 only while k <= 16 (one staging step of the rung in float
/// accumulation, two in double): with the GPU otherwise idle, a tile rung's block, its k split
/// over 4 warps and the tensor cores, finishes sooner from 32^3 on. Measured on the H100,
/// 2026-11-23, synchronized latency at 16^3 / 32^3
/// (`gemmlab overhead --kernels small,tf32x3,dmma,mma_sync_f16,tma`,
/// docs/results/small-tiles-h100-2026-11-23): rung 27 13.4 / 14.1 us (f32), 14.0 / 14.9 (f64),
/// 15.1 / 17.8 (bf16); tf32x3 (its CUDA-core 64x64 tiles below k = 40) 11.9 / 12.7, dmma 13.7 /
/// 14.8, mma_sync_f16 12.8 / 13.8. At 16^3 rung 27 is within 1.5 us of them and keeps the host
/// cost of a call at a launch's: with every single tiny product on the model, auto's launch
/// at 1x1x1 cost 1.13-1.17x an empty launch (gpu-check-run4 there), on rung 27 1.02x
/// (docs/results/gpu-check-h100-2026-11-23f). Checked before the model and the tune cache
/// (whose smallest class is 64).
namespace {

constexpr int64_t kTinyMN = kSmallTile, kTinyMaxK = 128, kTinySingleMaxK = 16;

bool goes_to_small(const Problem& p) {
    const int64_t max_k = p.batch.count > 1 ? kTinyMaxK : kTinySingleMaxK;
    return p.m <= kTinyMN && p.n <= kTinyMN && p.k <= max_k;
}

} // namespace

AutoChoice auto_choice(const Problem& p, const DeviceCaps& caps, const TuneTable* table) {
    if (goes_to_small(p)) return AutoChoice{"small", 1, false};
    return with_groups(type_key(p), [&](auto groups) {
        const auto c = choose(groups, p, caps, table);
        return AutoChoice{c.candidate->name, c.splits, c.tuned};
    });
}

AutoChoice current_auto_choice(const Problem& p) {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    return auto_choice(p, device_caps(device), device_tune_table(device));
}

std::vector<AutoOption> auto_options(TuneType type, int64_t m, int64_t n, int64_t k,
                                     const DeviceCaps& caps) {
    (void)m, (void)n; // every shape admits the same options; the parameters say what is asked
    std::vector<AutoOption> out;
    with_groups(type, [&](auto groups) {
        for_each_option(groups, precision_of(type), k, 1, caps,
                        [&](int index, const auto& c, int splits) {
                            out.push_back({index, c.name, splits});
                        });
    });
    return out;
}

void launch_option(const Problem& p, int candidate, int splits, cudaStream_t stream) {
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
/// (`gemmlab overhead`, H100, 2026-11-23, 1x1x1 f32 calls on the model: 6.5 us per call against
/// 5.2 for the launch alone, where a run that skipped the model measured 4.7 against 4.1). The
/// device's caps and tune table are fixed once loaded (tables are never freed, so a reload is a
/// new pointer), so equal inputs give the same choice.
struct LastChoice {
    int device = -1;
    const TuneTable* table = nullptr;
    TuneType type = TuneType::F32;
    int64_t m = 0, n = 0, k = 0, batches = 0;
    const void* candidate = nullptr; // a CandidateFor<Args> of `type`'s Args (with_groups)
    int splits = 1;

    bool same_inputs(const LastChoice& o) const {
        return device == o.device && table == o.table && type == o.type && m == o.m && n == o.n &&
               k == o.k && batches == o.batches;
    }
};
thread_local LastChoice t_last_choice;

} // namespace

void launch_auto(const Problem& p, cudaStream_t stream) {
    if (goes_to_small(p)) {
        launch_every_type<&launch_small<float>, &launch_small<double>,
                          &launch_small_half<__nv_bfloat16, __nv_bfloat16>,
                          &launch_small_half<__nv_bfloat16, float>, &launch_small_half<__half, __half>,
                          &launch_small_half<__half, float>>(p, stream);
        return;
    }
    LastChoice now;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&now.device));
    now.table = device_tune_table(now.device); // loaded once per device
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
