// `auto`: picks a rung and a tile configuration by shape, from measured speeds.
//
// The candidates are configurations of rungs 13 (warp_tile) and 14 (async_pipeline) listed in
// kernels/tile_configs.hpp; every one of them is correct for any m, n, k, op and alignment
// (predicated edge tiles, scalar fallback when a pointer or leading dimension does not allow
// 16-byte accesses), so the choice is about speed only. It is a wave-quantisation model whose
// only per-configuration input is a MEASURED number:
//
//   time(config) ~ blocks on the busiest SM * tile area / (rate * utilisation)
//
// - blocks on the busiest SM = ceil(tiles / SMs), edge tiles counted whole: a 1024x1024 C is
//   32 tiles of 128x256 (100 of 132 SMs idle) but 256 tiles of 64x64; a skinny C pays for the
//   rows its tiles waste, which steers it to the 64-wide tiles.
// - rate = the configuration's f32/f64 row-major NN 4096^3 GFLOP/s on an H200 (132 SMs,
//   .perf/cfg_bench sweep of 2026-11-22, a scratch harness outside the repository, median of 21): the full-chip rate, where every SM
//   holds as many blocks as fit. Only ratios matter, so another GPU shifts all candidates
//   together.
// - utilisation = min(1, resident warps / kSaturatingWarps), resident warps = min(blocks on the
//   SM, blocks that fit) * warps per block. Measured: 8 warps of 8x16 thread tiles (one
//   128x256 block) already reach that configuration's full rate (2048^3 is one such block per
//   SM and runs at 96-98% of its 4096^3 rate), so 8 float warps count as saturating; one 4-warp
//   128x64 block per SM does not (1024^3: 27.5 vs 28.7 TFLOP/s for two 64x64 blocks).
// Ties go to the earlier candidate.
//
// What the measured table gives (f32, 132 SMs): >= 2048^2 -> rung 13 128x256x16 (2048^3: 45.3
// TFLOP/s = 0.935x cuBLAS, 4096^3: 47.1 = 0.936x); 1024^2 and skinny C -> rung 14 64x64x8 s4
// (1024^3: 28.7 = 0.91x cuBLAS; 128x256 would leave 100 SMs idle: 11.0). Double: rung 13
// 128x64x8 (1024^3: 19.1, 2048^3: 22.5, 4096^3: 23.8), two 4-warp blocks per SM.

#include <array>
#include <atomic>

#include "common/cuda_check.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {
namespace {

template <class T>
struct Candidate {
    const char* name;  // rung and configuration, for debugging
    int bm, bn;        // block tile
    int warps;         // warps per block
    int blocks_per_sm; // resident blocks per SM (ptxas registers / shared memory)
    double rate;       // measured 4096^3 NN GFLOP/s on H200 (see the header)
    Launcher<T> launch;
};

// Resident blocks per SM from the ptxas register counts on sm_90a (65536 registers per SM):
// (double 128x64x16 s3 ~230 x 128 -> 2)
// float 128x256x16 ~245 regs x 256 threads -> 1; 128x128x8 128 x 256 -> 2; 128x64x8 128 x 128
// -> 4; 64x64x8 96 x 128 -> 5. Double 128x64x8 ~250 x 128 -> 2; 128x128x16 ~250 x 256 -> 1;
// 64x64x8 128 x 128 -> 4.
const std::array<Candidate<float>, 5> kFloatCandidates{{
    {"warp_tile 128x256x16", 128, 256, 8, 1, 47100, &launch_warp_tile_cfg<Cfg128x256x16, float>},
    {"warp_tile 128x128x8", 128, 128, 8, 2, 41000, &launch_warp_tile_cfg<Cfg128x128x8, float>},
    {"warp_tile 128x64x8", 128, 64, 4, 4, 40900, &launch_warp_tile_cfg<Cfg128x64x8, float>},
    {"async_pipeline 64x64x8 s4", 64, 64, 4, 5, 37600,
     &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>},
    {"warp_tile 64x64x8", 64, 64, 4, 5, 37500, &launch_warp_tile_cfg<Cfg64x64x8, float>},
}};

const std::array<Candidate<double>, 4> kDoubleCandidates{{
    {"warp_tile 128x64x8", 128, 64, 4, 2, 23800, &launch_warp_tile_cfg<Cfg128x64x8, double>},
    {"async_pipeline 128x64x16 s3", 128, 64, 4, 2, 23800,
     &launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>, double>},
    {"warp_tile 128x128x16", 128, 128, 8, 1, 23500, &launch_warp_tile_cfg<Cfg128x128x16, double>},
    {"warp_tile 64x64x8", 64, 64, 4, 4, 21100, &launch_warp_tile_cfg<Cfg64x64x8, double>},
}};

/// Resident warps per SM that reach a configuration's full rate (measured, see the header):
/// 8 for FP32 (2 per scheduler with 64-128 independent FMAs each), half as many for FP64,
/// whose pipes run at half rate.
template <class T>
constexpr int kSaturatingWarps = sizeof(T) == 4 ? 8 : 4;

/// Number of SMs of the current device, cached per device (a cudaDeviceGetAttribute per call
/// would cost more than picking).
int sm_count() {
    constexpr int kMaxDevices = 64;
    static std::array<std::atomic<int>, kMaxDevices> cache{};
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    if (device >= 0 && device < kMaxDevices) {
        if (const int cached = cache[device].load(std::memory_order_relaxed)) return cached;
    }
    int sms = 0;
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (sms < 1) sms = 1;
    if (device >= 0 && device < kMaxDevices) cache[device].store(sms, std::memory_order_relaxed);
    return sms;
}

template <class T, size_t N>
const Candidate<T>& pick(const std::array<Candidate<T>, N>& candidates, int64_t m, int64_t n,
                         int sms) {
    const Candidate<T>* best = &candidates[0];
    double best_time = 0;
    for (const auto& c : candidates) {
        const int64_t tiles = ceil_div(m, c.bm) * ceil_div(n, c.bn);
        const int64_t per_sm = ceil_div(tiles, sms); // blocks on the busiest SM
        const int64_t resident = per_sm < c.blocks_per_sm ? per_sm : c.blocks_per_sm;
        const double warps = double(resident * c.warps);
        const double util = warps >= kSaturatingWarps<T> ? 1.0 : warps / kSaturatingWarps<T>;
        const double time = double(per_sm) * c.bm * c.bn / (c.rate * util);
        if (&c == &candidates[0] || time < best_time) best = &c, best_time = time;
    }
    return *best;
}

} // namespace

template <class T>
void launch_auto(const GemmArgs<T>& g, cudaStream_t stream) {
    const int sms = sm_count();
    if constexpr (sizeof(T) == 4) pick(kFloatCandidates, g.m, g.n, sms).launch(g, stream);
    else pick(kDoubleCandidates, g.m, g.n, sms).launch(g, stream);
}

template void launch_auto<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_auto<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
