// `auto`: picks a rung and a tile configuration by shape.
//
// The candidates are the configurations of rungs 13 (warp_tile) and 14 (async_pipeline) listed
// in kernels/tile_configs.hpp; every one of them is correct for any m, n, k, op and alignment
// (predicated edge tiles, scalar fallback when a pointer or leading dimension does not allow
// 16-byte accesses), so the choice is about speed only. It comes from a small cost model:
//
//   time(config) ~ blocks on the busiest SM * tile area / (efficiency * utilisation)
//
// - blocks on the busiest SM = ceil(tiles / SMs): the wave-quantisation tail. A 1024x1024 C is
//   64 tiles of 128x128 (half the 132 SMs idle) but 256 tiles of 64x64.
// - tile area = BM * BN, edge tiles counted whole: a skinny C (m or n below the tile) pays for
//   the rows it wastes, which steers skinny shapes to the 64-wide tiles.
// - efficiency = the config's throughput on a full SM relative to 128x128 (larger thread tiles
//   read less shared memory per FMA). These numbers are estimates to be recalibrated from the
//   measured rung 13/14 rows in docs/ladder.md.
// - utilisation = min(1, resident warps / warps needed to saturate an SM), resident warps =
//   min(blocks on the SM, blocks that fit (registers, shared memory)) * warps per block. One
//   8-warp block per SM does not keep the FP32 pipes busy; DFMA (half rate) needs fewer warps.
// Ties go to the earlier candidate (larger tiles, rung 14).
//
// Rule of thumb that falls out (float, 132 SMs): C with >= ~2 x 132 128x128 tiles (2048^2 and
// up) -> 128x128; mid-size and skinny C (1024^2, m or n <= 64) -> 64x64 (many small blocks fill
// the SMs); in between 128x64 can win. Double: 128x128 once every SM gets a block, else 64x64.

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
    const char* name;       // rung and configuration, for debugging
    int bm, bn;             // block tile
    int warps;              // warps per block
    int blocks_per_sm;      // resident blocks per SM (from ptxas registers / shared memory)
    double efficiency;      // full-SM throughput relative to rung 14 128x128x8
    Launcher<T> launch;
};

// Resident blocks per SM follow from the ptxas register counts on sm_90a (65536 registers per
// SM): 128x128 float 128 regs x 256 threads -> 2; 128x64 float 128 x 128 -> 4; 64x64 float
// 95 x 128 -> 5; 128x128 double ~216 x 256 -> 1; 64x64 double 128 x 128 -> 4.
const std::array<Candidate<float>, 6> kFloatCandidates{{
    {"async_pipeline 128x128x8 s4", 128, 128, 8, 2, 1.00,
     &launch_async_pipeline_cfg<WithStages<Cfg128x128x8, 4>, float>},
    {"async_pipeline 128x64x8 s4", 128, 64, 4, 4, 0.92,
     &launch_async_pipeline_cfg<WithStages<Cfg128x64x8, 4>, float>},
    {"async_pipeline 64x64x8 s4", 64, 64, 4, 5, 0.75,
     &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>},
    {"warp_tile 128x128x8", 128, 128, 8, 2, 0.95, &launch_warp_tile_cfg<Cfg128x128x8, float>},
    {"warp_tile 128x64x8", 128, 64, 4, 4, 0.87, &launch_warp_tile_cfg<Cfg128x64x8, float>},
    {"warp_tile 64x64x8", 64, 64, 4, 5, 0.71, &launch_warp_tile_cfg<Cfg64x64x8, float>},
}};

const std::array<Candidate<double>, 4> kDoubleCandidates{{
    {"async_pipeline 128x128x8 s4", 128, 128, 8, 1, 1.00,
     &launch_async_pipeline_cfg<WithStages<Cfg128x128x8, 4>, double>},
    {"async_pipeline 64x64x8 s4", 64, 64, 4, 4, 0.80,
     &launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, double>},
    {"warp_tile 128x128x8", 128, 128, 8, 1, 0.95, &launch_warp_tile_cfg<Cfg128x128x8, double>},
    {"warp_tile 64x64x8", 64, 64, 4, 4, 0.76, &launch_warp_tile_cfg<Cfg64x64x8, double>},
}};

/// Warps per SM that keep its FMA pipes busy: 4 schedulers x 4 warps for FP32, half as many
/// for FP64, whose pipes run at half rate.
template <class T>
constexpr int kSaturatingWarps = sizeof(T) == 4 ? 16 : 8;

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
        const double time = double(per_sm) * c.bm * c.bn / (c.efficiency * util);
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
