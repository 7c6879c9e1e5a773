#include <cstdio>
#include <fstream>
#include <string>

#include "gemm/reference/check.hpp"
#include "gemmlab/results.hpp"

namespace gemmlab::cli {

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string opt_pct(const std::optional<double>& v) { return v ? fmt("%.1f", *v) : "-"; }

std::string verdict(const BenchRow& r) {
    if (!r.result.launched) return "ERROR";
    return r.result.check.pass ? "PASS" : "FAIL";
}

} // namespace

void print_table(std::ostream& os, const std::vector<BenchRow>& rows) {
    char line[400];
    std::snprintf(line, sizeof line, "%-3s %-24s %-4s %-7s %-6s %6s %6s %6s %10s %21s %10s %8s %7s %10s %s\n",
                  "#", "kernel", "type", "math", "lay/op", "m", "n", "k", "median ms", "min-max ms",
                  "GFLOP/s", "%cuBLAS", "%peak", "err/bound", "check");
    os << line;
    for (const auto& r : rows) {
        const auto& s = r.spec;
        const std::string number = r.number >= 0 ? std::to_string(r.number) : "-";
        std::snprintf(line, sizeof line,
                      "%-3s %-24s %-4s %-7s %-6s %6lld %6lld %6lld %10.4f %10.4f-%-10.4f %10.1f %8s %7s %10.3g %s\n",
                      number.c_str(), r.kernel.c_str(), to_string(s.dtype), to_string(r.precision),
                      (std::string(s.layout == Layout::RowMajor ? "row" : "col") + "/" + s.ops()).c_str(),
                      (long long)s.shape.m, (long long)s.shape.n, (long long)s.shape.k, r.timing.median_ms,
                      r.timing.min_ms, r.timing.max_ms, r.gflops, opt_pct(r.pct_cublas).c_str(),
                      opt_pct(r.pct_peak).c_str(), r.result.check.worst_ratio, verdict(r).c_str());
        os << line;
        if (!r.result.launched) os << "    error: " << r.result.error << "\n";
        else if (!r.result.check.pass) os << "    " << reference::describe(r.result.check) << "\n";
    }
}

nlohmann::json to_json(const RunInfo& info, const std::vector<BenchRow>& rows) {
    nlohmann::json j;
    j["schema"] = "gemmlab-bench-1";
    j["command"] = info.command;
    j["date"] = info.date;
    j["seed"] = info.seed;
    j["cold_l2"] = info.cold;
    j["cpu"] = {{"name", info.cpu_name}, {"threads", info.cpu_threads}};
    if (info.device) {
        const auto& d = *info.device;
        j["device"] = {{"name", d.name},
                       {"sm_count", d.sm_count},
                       {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
                       {"l2_bytes", d.l2_bytes},
                       {"fp32_lanes_per_sm", d.fp32_lanes_per_sm},
                       {"fp64_lanes_per_sm", d.fp64_lanes_per_sm},
                       {"driver_version", d.driver_version},
                       {"cuda_runtime_version", d.runtime_version},
                       {"cublas_version", d.cublas_version}};
    } else {
        j["device"] = nullptr;
    }
    j["skipped"] = info.skipped;
    auto& out = j["rows"] = nlohmann::json::array();
    for (const auto& r : rows) {
        const auto& s = r.spec;
        nlohmann::json row = {
            {"kernel", r.kernel}, {"number", r.number}, {"device", r.device},
            {"dtype", to_string(s.dtype)}, {"precision", to_string(r.precision)},
            {"requested_precision", to_string(s.precision)}, {"layout", s.layout == Layout::RowMajor ? "row" : "col"},
            {"op", s.ops()}, {"m", s.shape.m}, {"n", s.shape.n}, {"k", s.shape.k},
            {"alpha", s.alpha}, {"beta", s.beta},
            {"median_ms", r.timing.median_ms}, {"min_ms", r.timing.min_ms}, {"max_ms", r.timing.max_ms},
            {"samples", r.timing.samples}, {"gflops", r.gflops},
            {"pct_cublas", r.pct_cublas ? nlohmann::json(*r.pct_cublas) : nlohmann::json(nullptr)},
            {"pct_peak", r.pct_peak ? nlohmann::json(*r.pct_peak) : nlohmann::json(nullptr)},
            {"clock_mhz", r.clock_mhz},
            {"worst_error_over_bound", r.result.check.worst_ratio},
            {"pass", r.pass()},
        };
        if (!r.result.launched) row["error"] = r.result.error;
        out.push_back(std::move(row));
    }
    return j;
}

void write_csv(std::ostream& os, const std::vector<BenchRow>& rows) {
    os << "number,kernel,device,dtype,precision,layout,op,m,n,k,alpha,beta,median_ms,min_ms,max_ms,samples,"
          "gflops,pct_cublas,pct_peak,clock_mhz,worst_error_over_bound,pass\n";
    for (const auto& r : rows) {
        const auto& s = r.spec;
        os << r.number << ',' << r.kernel << ',' << r.device << ',' << to_string(s.dtype) << ','
           << to_string(r.precision) << ',' << (s.layout == Layout::RowMajor ? "row" : "col") << ',' << s.ops() << ',' << s.shape.m
           << ',' << s.shape.n << ',' << s.shape.k << ',' << s.alpha << ',' << s.beta << ','
           << r.timing.median_ms << ',' << r.timing.min_ms << ',' << r.timing.max_ms << ','
           << r.timing.samples << ',' << r.gflops << ',' << (r.pct_cublas ? fmt("%.2f", *r.pct_cublas) : "")
           << ',' << (r.pct_peak ? fmt("%.2f", *r.pct_peak) : "") << ',' << r.clock_mhz << ','
           << r.result.check.worst_ratio << ',' << (r.pass() ? "true" : "false") << '\n';
    }
}

std::string cpu_model_name() {
    std::ifstream in("/proc/cpuinfo");
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("model name", 0) == 0) {
            const auto colon = line.find(':');
            if (colon != std::string::npos) return line.substr(colon + 2);
        }
    return "unknown";
}

} // namespace gemmlab::cli
