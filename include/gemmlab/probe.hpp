#pragma once
// The hardware probe suite: each probe measures one property of the GPU it runs on.

#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace gemmlab::probe {

/// What every probe may read about the device, gathered once before the probes run.
struct Context {
    int device = 0;
    std::string name;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
    int max_threads_per_block = 0;
    int max_threads_per_sm = 0;
    int regs_per_sm = 0;
    int regs_per_block = 0;
    size_t smem_per_block_optin = 0;
    size_t smem_per_sm = 0;
    size_t l2_bytes = 0;
    int mem_bus_width_bits = 0;
    /// SM clock measured by the `clock` probe (clock64 cycles per %globaltimer ns x 1000).
    /// Every cycle <-> ns conversion uses it. Filled before any other probe runs.
    double clock_mhz = 0.0;
    /// Lanes per SM the architecture documents (128 FP32, 64 FP64 on sm_90), for sanity checks.
    int fp32_lanes_per_sm = 0;
    int fp64_lanes_per_sm = 0;
    /// Prints a progress line to stderr when it is a terminal (long sweeps call it per point).
    std::function<void(std::string_view)> progress;

    double cycles_to_ns(double cycles) const { return cycles * 1e3 / clock_mhz; }
    double ns_to_cycles(double ns) const { return ns * clock_mhz * 1e-3; }
};

/// One sweep: named columns with units, one row per sweep point.
struct Table {
    std::string title;                 ///< e.g. "pointer chase latency vs footprint"
    std::vector<std::string> columns;  ///< e.g. {"footprint", "latency", "latency"}
    std::vector<std::string> units;    ///< e.g. {"KiB", "cycles", "ns"}; same length as columns
    std::vector<std::vector<double>> rows;
};

/// A headline value: what the probe concludes, in plain words.
struct Headline {
    std::string key;   ///< machine-readable, e.g. "l2_hit_latency_cycles"
    double value;      ///< in `unit`
    std::string unit;  ///< e.g. "cycles", "ns", "B", "GB/s", "FMA/cycle/SM"
    std::string text;  ///< the full line printed, e.g. "L2 hit latency: 262 cycles (139 ns at 1880 MHz)"
};

struct Result {
    std::vector<Table> tables;
    std::vector<Headline> headlines;
    /// Headline lookup by key; throws std::out_of_range when missing.
    double at(std::string_view key) const;
};

/// One registered probe.
struct ProbeInfo {
    std::string_view name;      ///< command-line name, e.g. "smem-bank"
    /// Its section of the Vega10 microbenchmarks (docs/sources.md), e.g. "2.9.2".
    std::string_view seed;
    std::string_view question;  ///< the question it answers, in a line
    Result (*run)(Context&);
};

/// Every probe, `clock` first (the others convert with the clock it measures).
std::span<const ProbeInfo> probes() noexcept;

/// Looks a probe up by name; nullptr when there is none.
const ProbeInfo* find_probe(std::string_view name) noexcept;

/// Fills everything in Context except clock_mhz from cudaGetDeviceProperties.
Context make_context(int device);

} // namespace gemmlab::probe
