#pragma once
// Rows of a bench run, and their three renderings: a table on stdout, JSON and CSV files.

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/device_info.hpp"
#include "gemmlab/bench_core.hpp"

namespace gemmlab::cli {

struct BenchRow {
    std::string kernel;       ///< rung name
    int number = -1;          ///< rung number
    std::string device;       ///< "gpu" or "cpu"
    Case spec;
    /// The precision the row was checked at: the rung's own, or the call's for auto/cuBLAS.
    Precision precision = Precision::Default;
    TimingStats timing;
    double gflops = 0;
    std::optional<double> pct_cublas; ///< percent of rung 0 on the same shape, same run
    /// Percent of the peak of `peak_pipe` (SMs x FLOP/clk/SM x the measured clock).
    std::optional<double> pct_peak;
    PeakPipe peak_pipe = PeakPipe::None; ///< the engine and precision %peak is taken against
    double clock_mhz = 0;             ///< SM clock measured right after this row's timing
    RunResult result;
    bool pass() const { return result.launched && result.check.pass; }
};

/// Everything about the run that a reader needs to trust or reproduce the numbers.
struct RunInfo {
    std::string command;
    std::string date;
    uint64_t seed = 0;
    std::optional<DeviceInfo> device; ///< absent for a CPU-only run
    std::string cpu_name;
    int cpu_threads = 0;
    bool cold = false;
    std::vector<std::string> skipped; ///< one line per shape that did not fit (too_large_message)
};

void print_table(std::ostream& os, const std::vector<BenchRow>& rows);
/// The device facts every JSON result records (name, SMs, compute capability, versions, ...).
nlohmann::json device_json(const DeviceInfo& d);
nlohmann::json to_json(const RunInfo& info, const std::vector<BenchRow>& rows);
void write_csv(std::ostream& os, const std::vector<BenchRow>& rows);

/// The CPU model name from /proc/cpuinfo, or "unknown".
std::string cpu_model_name();

} // namespace gemmlab::cli
