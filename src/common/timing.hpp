#pragma once
// Event timing with warm-up, repetition until a minimum time, and robust statistics.

#include <algorithm>
#include <cstddef>
#include <functional>
#include <vector>

#include "common/gpu_runtime.hpp"

namespace gemmlab {

/// Summary of repeated timings of one piece of device work, in milliseconds.
struct TimingStats {
    double median_ms = 0;
    double min_ms = 0;
    double max_ms = 0;
    int samples = 0;
};

/// How to repeat a measurement.
struct TimingPolicy {
    int warmup = 3;           ///< untimed runs first: module load, caches, clocks ramping up
    int min_samples = 10;     ///< at least this many timed runs
    int max_samples = 1000;   ///< at most this many
    double min_total_ms = 200;///< keep sampling until the timed runs add up to this
    bool flush_l2 = false;    ///< "cold": overwrite a buffer as large as L2 before every sample
    /// Without flush_l2: SM cycles a one-thread kernel spins before every sample (0: none), so
    /// that the host has enqueued the sample before the GPU reaches its start event and the
    /// events bracket device time alone (about 50-100 us at 1-2 GHz).
    long long hold_cycles = 100'000;
};

/// Median, min and max of `samples_ms` (not empty).
TimingStats summarize(std::vector<double> samples_ms);

/// Times `work` (which enqueues device work on `stream`) with CUDA events around each sample,
/// following `policy`. With flush_l2, an L2-sized memset runs before each sample, outside the
/// timed region; without it, a hold of policy.hold_cycles.
TimingStats time_device_work(const std::function<void(cudaStream_t)>& work, cudaStream_t stream,
                             const TimingPolicy& policy);

/// Times several pieces of device work against each other, interleaved sample by sample: each
/// round runs, in order, every contender that still needs samples (policy's count and time,
/// per contender), so that a drift in clocks or temperature falls on all of them alike. A GPU
/// at its power limit moves its clocks within milliseconds, and a contender timed alone after
/// another inherits that one's heat (measured: docs/ladder.md, "Timing contenders
/// interleaved"). Each contender gets policy.warmup untimed runs first, in the same order.
std::vector<TimingStats> time_interleaved(const std::vector<std::function<void(cudaStream_t)>>& works,
                                          cudaStream_t stream, const TimingPolicy& policy);

} // namespace gemmlab
