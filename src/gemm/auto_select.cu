// `auto`: picks a rung and a tile configuration by precision, then by shape, from measured
// speeds, among those the device can run (Hopper-only code only on sm_90a).
//
// Precision first, and never lowered: which candidates may run is the call's
// GemmOptions::precision. Double: FP64 DMMA (rung 15) and the FP64 CUDA-core rungs, all IEEE
// FP64 and held to the same bound. Float, Precision::Default: the FP32 CUDA-core rungs and
// 3xTF32 (rungs 17 and 26), which meets the FP32 bound (docs/precision.md derives it) for k >= kTf32x3MinK
// and routes its own tiles with out-of-range inputs to FP32 FMAs; below that k only the CUDA
// cores. Float, Precision::Tf32 (the caller's explicit choice): TF32 (rungs 16, 25) joins them.
//
// Then speed. The candidates are configurations of rungs 13 (warp_tile), 14 (async_pipeline)
// and 15-17 listed in kernels/tile_configs.hpp and kernels/mma_configs.hpp; every one of them
// is correct for any m, n, k, op and alignment
// (predicated edge tiles, scalar fallback when a pointer or leading dimension does not allow
// 16-byte accesses), so the choice is about speed only. It is a wave-quantisation model whose
// only per-configuration input is a MEASURED number:
//
//   time(config, s) = blocks on the busiest SM * 2 * tile area * k/s * SMs / (rate * utilisation)
//                     + (pack bytes * (m + n) * k + 8 * s * m * n [s > 1]) / DRAM bandwidth
//   (both x batches for a batch; s = 1, 2, 4, 8, 16 k slices for split-K configurations, each
//   slice's tiles counted as blocks, each slice's FP32 partial written and read back once)
//
// - blocks on the busiest SM = ceil(tiles / SMs), edge tiles counted whole: a 1024x1024 C is
//   32 tiles of 128x256 (100 of 132 SMs idle) but 256 tiles of 64x64; a skinny C pays for the
//   rows its tiles waste, which steers it to the 64-wide tiles. A strided batch is more tiles
//   of the same launch (one gridDim.z slice per batch): tiles = tiles of one C x batches, so
//   1024 batches of 64x64 fill the GPU with 64-wide tiles where one 128x128 tile per batch
//   would compute 4x the useful work. For more than one batch only the candidates that batch
//   natively compete; the Hopper rungs (20-26) run once per batch and are left out.
// - rate = the configuration's f32/f64 row-major NN 4096^3 GFLOP/s on an H200 (132 SMs,
//   .perf/cfg_bench sweep of 2026-11-22, a scratch harness outside the repository, median of 21): the full-chip rate, where every SM
//   holds as many blocks as fit. Only ratios matter, so another GPU shifts all candidates
//   together.
// - utilisation = min(1, resident warps / kSaturatingWarps), resident warps = min(blocks on the
//   SM, blocks that fit) * warps per block. Measured: 8 warps of 8x16 thread tiles (one
//   128x256 block) already reach that configuration's full rate (2048^3 is one such block per
//   SM and runs at 96-98% of its 4096^3 rate), so 8 float warps count as saturating; one 4-warp
//   128x64 block per SM does not (1024^3: 27.5 vs 28.7 TFLOP/s for two 64x64 blocks).
// - pack bytes: the TF32 pack step of rungs 25-26 (tf32_wgmma.cuh) reads and writes op(A) and
//   op(B) before their kernel runs, at the device's peak DRAM bandwidth (DeviceCaps): what
//   makes those rungs lose where m and n are small and k large.
// Before any of this, C of at most 32 x 32 with k <= 128 goes to rung 27 (kTinyMN below).
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

#include <span>

#include "common/cuda_check.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {
namespace {

/// One configuration auto may run, for the typed arguments Args (GemmArgs<T> or
/// HalfArgs<TIn, TOut>).
template <class Args>
struct CandidateFor {
    const char* name;  // rung and configuration, for debugging
    int bm, bn;        // block tile
    int warps;         // warps per block
    int blocks_per_sm; // resident blocks per SM (ptxas registers / shared memory)
    double rate;       // measured 4096^3 NN GFLOP/s (see the header)
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
    /// The same configuration with k cut into slices (split-K), or nullptr: the model then
    /// also weighs 2, 4, 8 and 16 slices of at least hopper::kMinSplitK.
    void (*launch_split)(const Args&, cudaStream_t, int splits) = nullptr;
};

template <class T>
using Candidate = CandidateFor<GemmArgs<T>>;
template <class TIn, class TOut>
using HalfCandidate = CandidateFor<HalfArgs<TIn, TOut>>;

// ------------------------------------------------------------------ CUDA cores (rungs 13, 14)
// Resident blocks per SM from the ptxas register counts on sm_90a (65536 registers per SM):
// float 128x256x16 ~245 regs x 256 threads -> 1; 128x128x8 128 x 256 -> 2; 128x64x8 128 x 128
// -> 4; 64x64x8 96 x 128 -> 5. Double 128x64x8 ~250 x 128 -> 2; 128x128x16 ~250 x 256 -> 1;
// 64x64x8 128 x 128 -> 4.
const Candidate<float> kFloatCudaCores[] = {
    {"warp_tile 128x256x16", 128, 256, 8, 1, 47100, &launch_warp_tile_cfg<Cfg128x256x16, float>},
    {"warp_tile 128x128x8", 128, 128, 8, 2, 41000, &launch_warp_tile_cfg<Cfg128x128x8, float>},
    {"warp_tile 128x64x8", 128, 64, 4, 4, 40900, &launch_warp_tile_cfg<Cfg128x64x8, float>},
    {"async_pipeline 64x64x8 s4", 64, 64, 4, 5, 37600,
     &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>},
    {"warp_tile 64x64x8", 64, 64, 4, 5, 37500, &launch_warp_tile_cfg<Cfg64x64x8, float>},
};

const Candidate<double> kDoubleCudaCores[] = {
    {"warp_tile 128x64x8", 128, 64, 4, 2, 23800, &launch_warp_tile_cfg<Cfg128x64x8, double>},
    {"async_pipeline 128x64x16 s3", 128, 64, 4, 2, 23800,
     &launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>, double>},
    {"warp_tile 128x128x16", 128, 128, 8, 1, 23500, &launch_warp_tile_cfg<Cfg128x128x16, double>},
    {"warp_tile 64x64x8", 64, 64, 4, 4, 21100, &launch_warp_tile_cfg<Cfg64x64x8, double>},
};

// ------------------------------------------------------------ tensor cores (rungs 15, 16, 17)
// Rates: row-major NN GFLOP/s from `gemmlab_tile_sweep --sizes 4096,8192` on an H100 (132 SMs),
// 2026-11-23: the lower of the 4096^3 and 8192^3 figures of the sweeps that chose these
// configurations. The sweep of the documented run (docs/results/sweep-h100.log, gpu-check's
// sweep step) gives each within 8% of these (all but one within 3%) and the same order.
// Resident blocks per SM from ptxas registers and shared memory (ncu's block limits).


const Candidate<double> kDoubleDmma[] = {
    {"dmma 128x128x16 w64x32 s3 k16", 128, 128, 8, 1, 44600,
     &mma::launch_dmma_cfg<mma::Cfg128x128w64x32s3<16>, 16>, false, 90},
    {"dmma 128x64x16 w64x32 s4 k16", 128, 64, 4, 2, 47100,
     &mma::launch_dmma_cfg<mma::Cfg128x64w64x32s4<16>, 16>, false, 90},
    {"dmma 64x64x16 w32x32 s4 k16", 64, 64, 4, 2, 43000,
     &mma::launch_dmma_cfg<mma::Cfg64x64w32x32s4<16>, 16>, false, 90},
};

const Candidate<float> kFloatTf32x3[] = {
    {"tf32x3 128x128x32 w64x32 s3", 128, 128, 8, 1, 46400,
     &mma::launch_tf32x3_cfg<mma::Cfg128x128w64x32s3<32>>},
    {"tf32x3 64x64x32 w32x32 s4", 64, 64, 4, 2, 39500,
     &mma::launch_tf32x3_cfg<mma::Cfg64x64w32x32s4<32>>},
};

const Candidate<float> kFloatTf32[] = {
    {"tf32 128x256x32 w64x64 s3", 128, 256, 8, 1, 144500,
     &mma::launch_tf32_cfg<mma::Cfg128x256w64x64s3<32>>},
    {"tf32 128x128x32 w64x32 s3", 128, 128, 8, 1, 116000,
     &mma::launch_tf32_cfg<mma::Cfg128x128w64x32s3<32>>},
    {"tf32 64x64x32 w32x32 s4", 64, 64, 4, 2, 82500,
     &mma::launch_tf32_cfg<mma::Cfg64x64w32x32s4<32>>},
};

// ------------------------------------------------- float on warpgroup MMA (rungs 25, 26)
// Hopper only (needs_sm90a). Rates: the whole call (pack step included) at 4096^3, row-major
// nn, `gemmlab bench --dtype f32 --sizes 4096,8192` (and --precision tf32) on the H100,
// 2026-11-23 (8192^3: 121.0 and 347.2 TFLOP/s).
const Candidate<float> kFloatWgmmaTf32x3[] = {
    {"wgmma_tf32x3 128x128x32 s3 persistent", 128, 128, 12, 1, 118900,
     &launch_wgmma_tf32x3<float>, true, 0, /*pack_bytes=*/12, /*native_batch=*/false,
     &launch_wgmma_tf32x3_split},
};

const Candidate<float> kFloatWgmmaTf32[] = {
    {"wgmma_tf32 128x256x32 s4 persistent", 128, 256, 12, 1, 307900, &launch_wgmma_tf32<float>,
     true, 0, /*pack_bytes=*/8, /*native_batch=*/false, &launch_wgmma_tf32_split},
};

// ------------------------------------------------- half precision (BF16/FP16 in, C in it or f32)
// Every half-precision configuration auto may run, for A/B in TIn and C in TOut. To add a rung:
// list its configurations here (with needs_sm90a for Hopper-only code) in every instantiation;
// pick() then chooses by the same model, skipping what the device cannot run. The last entry
// must run everywhere: it is what a GPU without tensor cores for 16-bit types gets.
// Rates: bf16 4096^3 row-major nn GFLOP/s on the H100 (`gemmlab bench --dtype bf16`,
// 2026-11-23, the bench-half step of scripts/gpu-check.sh; docs/ladder.md has the rows). The wgmma rungs fall
// back to rung 19's kernel by themselves where TMA cannot read an operand (unaligned).
template <class TIn, class TOut>
std::span<const HalfCandidate<TIn, TOut>> half_candidates() {
    static const HalfCandidate<TIn, TOut> list[] = {
        {"persistent 128x256x64 ws", 128, 256, 12, 1, 677000, &launch_persistent<TIn, TOut>, true,
         0, 0, false, &launch_persistent_split<TIn, TOut>},
        {"tma 128x128x64", 128, 128, 8, 1, 516000, &launch_tma<TIn, TOut>, true, 0, 0, false},
        {"mma_sync_f16 128x128x32 s4", 128, 128, 8, 2, 339000, &launch_mma_sync_f16<TIn, TOut>, false},
        {"half_simt 64x64x16", 64, 64, 8, 4, 17100, &launch_half_simt<TIn, TOut>, false},
    };
    return list;
}

/// Resident warps per SM that reach a configuration's full rate (measured, see the header):
/// 8 for FP32 (2 per scheduler with 64-128 independent FMAs each), half as many for FP64,
/// whose pipes run at half rate. Half-precision inputs accumulate in FP32: 8, not yet measured
/// for the tensor-core rungs.
template <class Args>
constexpr int kSaturatingWarps = 8;
template <>
constexpr int kSaturatingWarps<GemmArgs<double>> = 4;

/// The modelled time of `c` in ns on `batches` m x n outputs with k in `splits` slices: the
/// busiest SM's tiles at the configuration's per-SM rate, plus the pack step's DRAM traffic
/// and split-K's partial sums (written and read back once, FP32) at the device's peak
/// bandwidth. A batch is more tiles of the same grid (gridDim.z): the waves count tiles x
/// batches x slices.
template <class Args>
double model_time(const CandidateFor<Args>& c, int64_t m, int64_t n, int64_t k, int64_t batches,
                  int splits, const DeviceCaps& caps) {
    const int64_t tiles = ceil_div(m, c.bm) * ceil_div(n, c.bn) * batches * splits;
    const int64_t per_sm = ceil_div(tiles, caps.sm_count); // blocks on the busiest SM
    const int64_t resident = per_sm < c.blocks_per_sm ? per_sm : c.blocks_per_sm;
    const double warps = double(resident * c.warps);
    const double util = warps >= kSaturatingWarps<Args> ? 1.0 : warps / kSaturatingWarps<Args>;
    // rate is GFLOP/s = FLOP/ns for the whole chip: one SM's share is rate / SMs.
    const double flops = 2.0 * double(per_sm) * c.bm * c.bn * double(ceil_div(k, int64_t(splits)));
    const double compute_ns = flops * caps.sm_count / (c.rate * util);
    double bytes = c.pack_bytes * double(m + n) * double(k);
    if (splits > 1) bytes += 2.0 * 4.0 * double(splits) * double(m) * double(n);
    const double memory_ns = caps.dram_gbps > 0 ? bytes * double(batches) / caps.dram_gbps : 0.0;
    return compute_ns + memory_ns;
}

/// auto's choice: a configuration and how many k slices it runs with.
template <class Args>
struct Choice {
    const CandidateFor<Args>* candidate = nullptr;
    int splits = 1;

    void launch(const Args& g, cudaStream_t stream) const {
        if (splits > 1) candidate->launch_split(g, stream, splits);
        else candidate->launch(g, stream);
    }
};

/// The fastest candidate (and split) by the model over the given lists for the shape and
/// batch, among those `caps` can run (and, for more than one batch, that batch natively); ties
/// go to the earlier one and to fewer slices. Throws if none can run (a list without a portable
/// last entry).
template <class Args>
Choice<Args> pick(std::initializer_list<std::span<const CandidateFor<Args>>> lists, int64_t m,
                  int64_t n, int64_t k, int64_t batches, const DeviceCaps& caps) {
    Choice<Args> best;
    double best_time = 0;
    for (const auto& list : lists)
        for (const auto& c : list) {
            if (c.needs_sm90a && !caps.sm90a) continue;
            if (10 * caps.cc_major + caps.cc_minor < c.min_cc) continue;
            if (batches > 1 && !c.native_batch) continue;
            for (int splits = 1; splits <= 16; splits *= 2) {
                if (splits > 1 && (!c.launch_split || k / splits < kMinSplitK)) break;
                const double t = model_time(c, m, n, k, batches, splits, caps);
                if (!best.candidate || t < best_time) best = {&c, splits}, best_time = t;
            }
        }
    if (!best.candidate) throw CudaFailure("gemmlab auto: no candidate runs on this device");
    return best;
}

/// auto for half precision: one launcher per (TIn, TOut), behind launch_half like a rung's.
template <class TIn, class TOut>
void auto_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    pick<HalfArgs<TIn, TOut>>({half_candidates<TIn, TOut>()}, g.m, g.n, g.k, g.batch.count,
                              current_device_caps())
        .launch(g, stream);
}

} // namespace

/// C that one warp tile of rung 27 holds (32 x 32), over a short k: such a product is all
/// latency, and rung 27 gives it one warp (a batch of them shares blocks) where every tile
/// rung gives it a block mostly computing zeros. Longer k leaves the tile rungs (and split-K)
/// to the model: one warp's k loop would then be the whole call's latency.
constexpr int64_t kTinyMN = kSmallTile, kTinyMaxK = 128;

void launch_auto(const Problem& p, cudaStream_t stream) {
    if (p.m <= kTinyMN && p.n <= kTinyMN && p.k <= kTinyMaxK) {
        launch_every_type<&launch_small<float>, &launch_small<double>,
                          &launch_small_half<__nv_bfloat16, __nv_bfloat16>,
                          &launch_small_half<__nv_bfloat16, float>, &launch_small_half<__half, __half>,
                          &launch_small_half<__half, float>>(p, stream);
        return;
    }
    if (p.type == DataType::BF16 || p.type == DataType::F16) {
        launch_half<&auto_half<__nv_bfloat16, __nv_bfloat16>, &auto_half<__nv_bfloat16, float>,
                    &auto_half<__half, __half>, &auto_half<__half, float>>(p, stream);
        return;
    }
    const DeviceCaps caps = current_device_caps(); // cached per device
    if (p.type == DataType::F64) {
        // DMMA computes in IEEE FP64 like the FMA pipe: both meet the FP64 bound.
        pick<GemmArgs<double>>({kDoubleDmma, kDoubleCudaCores}, p.m, p.n, p.k, p.batch.count, caps)
            .launch(p.as<double>(), stream);
        return;
    }
    const auto g = p.as<float>();
    // 3xTF32 meets the FP32 bound from kTf32x3MinK on (see the header); below, CUDA cores.
    const bool tf32x3_ok = p.k >= mma::kTf32x3MinK;
    if (p.precision == Precision::Tf32)
        pick<GemmArgs<float>>({kFloatWgmmaTf32, kFloatTf32, kFloatWgmmaTf32x3, kFloatTf32x3,
                               kFloatCudaCores},
                              p.m, p.n, p.k, p.batch.count, caps)
            .launch(g, stream);
    else if (tf32x3_ok)
        pick<GemmArgs<float>>({kFloatWgmmaTf32x3, kFloatTf32x3, kFloatCudaCores}, p.m, p.n, p.k, p.batch.count, caps)
            .launch(g, stream);
    else
        pick<GemmArgs<float>>({kFloatCudaCores}, p.m, p.n, p.k, p.batch.count, caps).launch(g, stream);
}

} // namespace gemmlab::detail
