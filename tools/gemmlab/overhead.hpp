#pragma once
// `gemmlab overhead`: what the host side of a gemm call costs, measured in one run beside a bare
// kernel launch and beside cuBLAS, so that a regression of the per-call path shows.
//
// Two tables per type:
// - enqueue: N calls at 1x1x1 back to back on one stream, no synchronization, timed on the host
//   (steady_clock) around the loop alone: microseconds per call and calls per second, next to an
//   empty-kernel launch, the pieces of gemm's own host path (validation, the pointer checks),
//   rung 0 (cuBLAS through gemmlab) and cuBLAS called directly;
// - latency: one call + cudaStreamSynchronize, timed on the host, median over many repetitions
//   after warm-up, at 16^3 .. 512^3, each gemmlab kernel beside cuBLAS called directly, with
//   the ratio and the result checked once against the reference (as bench does).

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmlab/bench_core.hpp"
#include "gemmlab/results.hpp"

namespace gemmlab::cli {

/// Summary of repeated host-timed samples, in microseconds.
struct UsStats {
    double median = 0, min = 0, p90 = 0, max = 0;
    int samples = 0;
};

/// Median, min, 90th percentile and max of `us` (empty: all zero).
UsStats summarize_us(std::vector<double> us);

/// One way of enqueuing a call, timed back to back.
struct EnqueueRow {
    DType dtype = DType::F32;
    std::string call;         ///< what was called, e.g. "gemmlab auto"
    std::string kernel;       ///< the gemmlab kernel key ("auto", "cublas"); empty for other rows
    int calls_per_sample = 0;
    UsStats host;             ///< per call: the enqueue loop alone
    UsStats drained;          ///< per call: from the loop's start until the stream is idle
    std::optional<double> vs_launch; ///< host.median / the empty-kernel launch's, same run
    double calls_per_s() const { return host.median > 0 ? 1e6 / host.median : 0; }
};

/// One call + synchronize at one size.
struct LatencyRow {
    DType dtype = DType::F32;
    Shape shape;
    std::string call;   ///< "cuBLAS direct (cublasSgemm_64)", "gemmlab auto", ...
    std::string kernel; ///< the gemmlab kernel key; empty for the direct cuBLAS row
    UsStats latency;
    std::optional<double> vs_cublas;            ///< latency.median / the direct cuBLAS row's
    std::optional<reference::CheckResult> check; ///< gemmlab rows: the result checked once
    std::string error;                          ///< the call failed (no timing)
    bool pass() const { return error.empty() && (!check || check->pass); }
};

/// What a run measured, and how.
struct OverheadReport {
    RunInfo info;
    std::string schedule; ///< how the host waits in cudaStreamSynchronize (device flags)
    int calls_per_sample = 0, enqueue_samples = 0, latency_reps = 0, warmup = 0;
    std::vector<EnqueueRow> enqueue;
    std::vector<LatencyRow> latency;
    /// One line per gemmlab kernel and type for each of the host-path targets: host cost per call
    /// within 1.2x an empty-kernel launch, latency <= cuBLAS at every size (overhead_targets).
    std::vector<std::string> targets;
};

/// What to measure.
struct OverheadConfig {
    std::vector<DType> dtypes = {DType::F32};
    std::vector<std::string> kernels = {"auto"}; ///< gemmlab kernels besides rung 0
    std::vector<int64_t> sizes = {16, 32, 64, 128, 256, 512};
    bool enqueue = true, latency = true;
    int calls = 512;     ///< back-to-back calls per enqueue sample
    int samples = 30;    ///< enqueue samples per row (after one warm-up sample)
    int reps = 200;      ///< latency repetitions per row
    int warmup = 20;     ///< latency calls per row before timing
    uint64_t seed = 0;
};

/// The host-path targets (docs/cli.md, "overhead"), checked by overhead_targets.
inline constexpr double kMaxHostCostVsLaunch = 1.2;
inline constexpr double kMaxLatencyVsCublas = 1.0;

/// Runs the measurements on the current device (which must exist).
OverheadReport run_overhead(const OverheadConfig& config, RunInfo info);

/// The target lines of a report's rows ("target: ... met" / "... MISSED").
std::vector<std::string> overhead_targets(const OverheadReport& report);

/// The tables and target lines, every line within kLineWidth columns.
void print_overhead(std::ostream& os, const OverheadReport& report);
nlohmann::json overhead_json(const OverheadReport& report);
/// Both tables in one CSV, told apart by its first column ("enqueue" or "latency").
void write_overhead_csv(std::ostream& os, const OverheadReport& report);

} // namespace gemmlab::cli
