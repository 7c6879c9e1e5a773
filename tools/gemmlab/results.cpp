#include <algorithm>
#include <cstdio>
#include <fstream>
#include <string>

#include "gemm/reference/check.hpp"
#include "gemmlab/results.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

std::string opt_pct(const std::optional<double>& v) { return v ? fmt("%.1f", *v) : "-"; }

/// (max - min) / median of the timed samples, in at most 7 columns.
std::string spread_pct(const TimingStats& t) {
    if (!(t.median_ms > 0)) return "-";
    const double pct = 100.0 * (t.max_ms - t.min_ms) / t.median_ms;
    if (pct < 100) return fmt("%.1f%%", pct);
    if (pct < 99999.5) return fmt("%.0f%%", pct);
    return ">99999%";
}

/// "%peak of: FP32 FMA 0-14, 27; TF32 tensor cores 16, 17, 25, 26, auto": which pipe each
/// row's %peak is taken against, for the rows of one case (empty when none has a %peak).
std::string peak_legend(const std::vector<const BenchRow*>& rows) {
    std::vector<std::pair<PeakPipe, std::vector<int>>> groups; // in the order rows meet them
    for (const BenchRow* r : rows) {
        if (!r->pct_peak) continue;
        auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == r->peak_pipe; });
        if (it == groups.end()) it = groups.insert(groups.end(), {r->peak_pipe, {}});
        it->second.push_back(r->number);
    }
    std::string text;
    for (const auto& [pipe, numbers] : groups) {
        text += std::string(text.empty() ? "" : "; ") + to_string(pipe);
        std::vector<int> sorted = numbers;
        std::sort(sorted.begin(), sorted.end());
        // Runs of consecutive rung numbers as "a-b"; -1 (auto) last, by name.
        std::string list;
        bool has_auto = false;
        for (size_t i = 0; i < sorted.size();) {
            if (sorted[i] < 0) { has_auto = true; ++i; continue; }
            size_t j = i;
            while (j + 1 < sorted.size() && sorted[j + 1] == sorted[j] + 1) ++j;
            list += std::string(list.empty() ? " " : ", ") + std::to_string(sorted[i]) +
                    (j > i ? "-" + std::to_string(sorted[j]) : "");
            i = j + 1;
        }
        if (has_auto) list += list.empty() ? " auto" : ", auto";
        text += list;
    }
    return text;
}

std::string verdict(const BenchRow& r) {
    if (!r.result.launched) return "ERROR";
    return r.result.check.pass ? "PASS" : "FAIL";
}

} // namespace

void print_table(std::ostream& os, const std::vector<BenchRow>& rows) {
    // The case (type, layout, ops, shape, alpha, beta) heads each group of rows, so that the
    // columns keep to what differs between rungs and the table fits in kLineWidth columns.
    char line[256];
    std::snprintf(line, sizeof line, "%-3s %-24s %-7s %10s %7s %9s  %7s  %6s  %9s %s\n", "#", "kernel",
                  "math", "median ms", "spread", "GFLOP/s", "%cuBLAS", "%peak", "err/bound", "check");
    const std::string header = line;
    std::string last_case;
    std::vector<const BenchRow*> case_rows; // the rows of the case being printed
    auto end_case = [&] {
        const std::string legend = peak_legend(case_rows);
        if (!legend.empty()) os << wrap_paragraph("    %peak of: ", legend, 14);
        case_rows.clear();
    };
    for (const auto& r : rows) {
        const std::string this_case = r.spec.describe();
        if (this_case != last_case) {
            end_case();
            os << (last_case.empty() ? "" : "\n") << wrap_paragraph("", this_case, 4) << header;
            last_case = this_case;
        }
        case_rows.push_back(&r);
        const std::string number = r.number >= 0 ? std::to_string(r.number) : "-";
        const std::string spread = spread_pct(r.timing);
        std::snprintf(line, sizeof line, "%-3s %-24s %-7s %10.4f %7s %9.1f  %7s  %6s  %9.3g %s\n",
                      number.c_str(), r.kernel.c_str(), to_string(r.precision), r.timing.median_ms,
                      spread.c_str(), r.gflops, opt_pct(r.pct_cublas).c_str(), opt_pct(r.pct_peak).c_str(),
                      r.result.check.worst_ratio, verdict(r).c_str());
        os << line;
        if (!r.result.launched) os << wrap_paragraph("    error: ", r.result.error, 4);
        else if (!r.result.check.pass) os << wrap_paragraph("    ", reference::describe(r.result.check), 4);
    }
    end_case();
}

nlohmann::json device_json(const DeviceInfo& d) {
    return {{"name", d.name},
            {"sm_count", d.sm_count},
            {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)},
            {"l2_bytes", d.l2_bytes},
            {"fp32_lanes_per_sm", d.fp32_lanes_per_sm},
            {"fp64_lanes_per_sm", d.fp64_lanes_per_sm},
            {"driver_version", d.driver_version},
            {"cuda_runtime_version", d.runtime_version},
            {"cublas_version", d.cublas_version}};
}

nlohmann::json to_json(const RunInfo& info, const std::vector<BenchRow>& rows) {
    nlohmann::json j;
    j["schema"] = "gemmlab-bench-1";
    j["command"] = info.command;
    j["date"] = info.date;
    j["seed"] = info.seed;
    j["cold_l2"] = info.cold;
    j["cpu"] = {{"name", info.cpu_name}, {"threads", info.cpu_threads}};
    j["device"] = info.device ? device_json(*info.device) : nlohmann::json(nullptr);
    j["skipped"] = info.skipped;
    auto& out = j["rows"] = nlohmann::json::array();
    for (const auto& r : rows) {
        const auto& s = r.spec;
        nlohmann::json row = {
            {"kernel", r.kernel}, {"number", r.number}, {"device", r.device},
            {"dtype", to_string(s.dtype)}, {"precision", to_string(r.precision)},
            {"requested_precision", to_string(s.precision)}, {"layout", s.layout == Layout::RowMajor ? "row" : "col"},
            {"op", s.ops()}, {"m", s.shape.m}, {"n", s.shape.n}, {"k", s.shape.k},
            {"batch", s.shape.batch},
            {"alpha", s.alpha}, {"beta", s.beta},
            {"median_ms", r.timing.median_ms}, {"min_ms", r.timing.min_ms}, {"max_ms", r.timing.max_ms},
            {"samples", r.timing.samples}, {"gflops", r.gflops},
            {"pct_cublas", r.pct_cublas ? nlohmann::json(*r.pct_cublas) : nlohmann::json(nullptr)},
            {"pct_peak", r.pct_peak ? nlohmann::json(*r.pct_peak) : nlohmann::json(nullptr)},
            {"peak_pipe", r.pct_peak ? nlohmann::json(to_string(r.peak_pipe)) : nlohmann::json(nullptr)},
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
    os << "number,kernel,device,dtype,precision,layout,op,m,n,k,batch,alpha,beta,median_ms,min_ms,max_ms,samples,"
          "gflops,pct_cublas,pct_peak,clock_mhz,worst_error_over_bound,pass\n";
    for (const auto& r : rows) {
        const auto& s = r.spec;
        os << r.number << ',' << r.kernel << ',' << r.device << ',' << to_string(s.dtype) << ','
           << to_string(r.precision) << ',' << (s.layout == Layout::RowMajor ? "row" : "col") << ',' << s.ops() << ',' << s.shape.m
           << ',' << s.shape.n << ',' << s.shape.k << ',' << s.shape.batch << ',' << s.alpha << ',' << s.beta << ','
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
