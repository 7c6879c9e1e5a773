// `gemmlab overhead`'s report: the tables on stdout, the target lines, JSON and CSV.

#include <algorithm>
#include <cstdio>
#include <string>

#include "gemmlab/overhead.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, f, v);
    return buf;
}

std::string size_text(const Shape& s) {
    if (s.m == s.n && s.n == s.k) return std::to_string(s.m) + "^3";
    return std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k);
}

/// (max - min) / median, as bench's spread column.
std::string spread_text(const UsStats& st) {
    if (!(st.median > 0)) return "-";
    const double pct = 100.0 * (st.max - st.min) / st.median;
    return pct < 100 ? fmt("%.1f%%", pct) : pct < 99999.5 ? fmt("%.0f%%", pct) : ">99999%";
}

/// The gemmlab kernels of the report other than rung 0, in first-seen order: the ones the
/// targets are about.
std::vector<std::string> target_kernels(const OverheadReport& r) {
    std::vector<std::string> out;
    auto note = [&](const std::string& k) {
        if (!k.empty() && k != "cublas" && std::find(out.begin(), out.end(), k) == out.end())
            out.push_back(k);
    };
    for (const auto& row : r.enqueue) note(row.kernel);
    for (const auto& row : r.latency) note(row.kernel);
    return out;
}

std::vector<DType> report_dtypes(const OverheadReport& r) {
    std::vector<DType> out;
    auto note = [&](DType d) {
        if (std::find(out.begin(), out.end(), d) == out.end()) out.push_back(d);
    };
    for (const auto& row : r.enqueue) note(row.dtype);
    for (const auto& row : r.latency) note(row.dtype);
    return out;
}

/// A CSV field: quoted when it holds a comma or a quote (labels such as "<<<1, 32>>>" do).
std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"") == std::string::npos) return s;
    std::string out = "\"";
    for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
    return out + "\"";
}

nlohmann::json opt_json(const std::optional<double>& v) {
    return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

} // namespace

std::vector<std::string> overhead_targets(const OverheadReport& r) {
    std::vector<std::string> out;
    for (DType dt : report_dtypes(r))
        for (const std::string& k : target_kernels(r)) {
            const std::string who = std::string(to_string(dt)) + " gemmlab " + k + ": ";
            for (const auto& row : r.enqueue)
                if (row.dtype == dt && row.kernel == k && row.vs_launch) {
                    const bool met = *row.vs_launch <= kMaxHostCostVsLaunch;
                    out.push_back("target: " + who + "host cost per call " + fmt("%.2f", *row.vs_launch) +
                                  "x an empty-kernel launch (<= " + fmt("%.1f", kMaxHostCostVsLaunch) +
                                  "x): " + (met ? "met" : "MISSED"));
                }
            int sizes = 0, met = 0;
            double worst = 0;
            std::string worst_size, errors;
            for (const auto& row : r.latency) {
                if (row.dtype != dt || row.kernel != k) continue;
                ++sizes;
                if (!row.vs_cublas) { // the call failed: the size counts as missed
                    errors += (errors.empty() ? "" : ", ") + size_text(row.shape);
                    continue;
                }
                met += *row.vs_cublas <= kMaxLatencyVsCublas;
                if (worst_size.empty() || *row.vs_cublas > worst)
                    worst = *row.vs_cublas, worst_size = size_text(row.shape);
            }
            std::string detail;
            if (!worst_size.empty()) detail = "worst " + fmt("%.2f", worst) + "x at " + worst_size;
            if (!errors.empty()) detail += (detail.empty() ? "" : "; ") + std::string("errors at ") + errors;
            if (sizes > 0)
                out.push_back("target: " + who + "synchronized latency <= cuBLAS direct at " +
                              std::to_string(met) + " of " + std::to_string(sizes) + " sizes (" +
                              detail + "): " + (met == sizes ? "met" : "MISSED"));
        }
    return out;
}

void print_overhead(std::ostream& os, const OverheadReport& r) {
    char line[256];
    const auto& info = r.info;
    std::string head = "gemmlab overhead";
    if (info.device)
        head += " on " + info.device->name + " (" + std::to_string(info.device->sm_count) + " SMs)";
    head += ", seed " + std::to_string(info.seed) + ", host " + info.cpu_name + " (" +
            std::to_string(info.cpu_threads) + " threads); cudaStreamSynchronize waits by " +
            r.schedule;
    os << wrap_paragraph("", head, 4);

    for (DType dt : report_dtypes(r)) {
        bool first = true;
        for (const auto& row : r.enqueue) {
            if (row.dtype != dt) continue;
            if (first) {
                os << "\n"
                   << wrap_paragraph("", std::string("Host cost per call, enqueued back to back: ") +
                                             to_string(dt) + " row-major nn 1x1x1, " +
                                             std::to_string(r.calls_per_sample) +
                                             " calls per sample, median of " +
                                             std::to_string(r.enqueue_samples) + " samples",
                                     4);
                std::snprintf(line, sizeof line, "%-40s %8s %11s %8s %7s %10s\n", "call", "us/call",
                              "calls/s", "x launch", "spread", "drained us");
                os << line;
                first = false;
            }
            std::snprintf(line, sizeof line, "%-40s %8.2f %11.0f %8s %7s %10.2f\n", row.call.c_str(),
                          row.host.median, row.calls_per_s(),
                          row.vs_launch ? fmt("%.2f", *row.vs_launch).c_str() : "-",
                          spread_text(row.host).c_str(), row.drained.median);
            os << line;
        }
        if (!first)
            os << wrap_paragraph("", "(us/call: the host's time in the enqueue loop alone; drained "
                                     "us: per call until the stream is idle, larger when the GPU "
                                     "rather than the host sets the pace)",
                                 1);

        first = true;
        Shape last{-1, -1, -1};
        for (const auto& row : r.latency) {
            if (row.dtype != dt) continue;
            if (first) {
                os << "\n"
                   << wrap_paragraph("", std::string("Synchronized latency, one call + "
                                                     "cudaStreamSynchronize: ") +
                                             to_string(dt) + " row-major nn, median of " +
                                             std::to_string(r.latency_reps) + " after " +
                                             std::to_string(r.warmup) + " warm-up calls",
                                     4);
                std::snprintf(line, sizeof line, "%-7s %-32s %9s %8s %8s %9s %9s %s\n", "size",
                              "call", "median us", "min us", "p90 us", "x cuBLAS", "err/bound",
                              "check");
                os << line;
                first = false;
            }
            const bool new_size = row.shape.m != last.m || row.shape.n != last.n || row.shape.k != last.k;
            last = row.shape;
            const std::string size = new_size ? size_text(row.shape) : "";
            if (!row.error.empty()) {
                std::snprintf(line, sizeof line, "%-7s %-32s %9s %8s %8s %9s %9s %s\n", size.c_str(),
                              row.call.c_str(), "-", "-", "-", "-", "-", "ERROR");
                os << line << wrap_paragraph("    error: ", row.error, 4);
                continue;
            }
            std::snprintf(line, sizeof line, "%-7s %-32s %9.2f %8.2f %8.2f %9s %9s %s\n", size.c_str(),
                          row.call.c_str(), row.latency.median, row.latency.min, row.latency.p90,
                          row.vs_cublas ? fmt("%.2f", *row.vs_cublas).c_str() : "-",
                          row.check ? fmt("%.3g", row.check->worst_ratio).c_str() : "-",
                          row.check ? (row.check->pass ? "PASS" : "FAIL") : "-");
            os << line;
            if (row.check && !row.check->pass)
                os << wrap_paragraph("    ", reference::describe(*row.check), 4);
        }
    }
    if (!r.targets.empty()) os << "\n";
    for (const auto& t : r.targets) os << wrap_paragraph("", t, 4);
}

nlohmann::json overhead_json(const OverheadReport& r) {
    nlohmann::json j;
    j["schema"] = "gemmlab-overhead-1";
    j["command"] = r.info.command;
    j["date"] = r.info.date;
    j["seed"] = r.info.seed;
    j["cpu"] = {{"name", r.info.cpu_name}, {"threads", r.info.cpu_threads}};
    j["device"] = r.info.device ? device_json(*r.info.device) : nlohmann::json(nullptr);
    j["sync_schedule"] = r.schedule;
    j["settings"] = {{"calls_per_sample", r.calls_per_sample},
                     {"enqueue_samples", r.enqueue_samples},
                     {"latency_reps", r.latency_reps},
                     {"warmup", r.warmup}};
    auto& enqueue = j["enqueue"] = nlohmann::json::array();
    for (const auto& row : r.enqueue)
        enqueue.push_back({{"dtype", to_string(row.dtype)},
                           {"call", row.call},
                           {"kernel", row.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.kernel)},
                           {"calls_per_sample", row.calls_per_sample},
                           {"samples", row.host.samples},
                           {"host_us_median", row.host.median},
                           {"host_us_min", row.host.min},
                           {"host_us_p90", row.host.p90},
                           {"host_us_max", row.host.max},
                           {"calls_per_s", row.calls_per_s()},
                           {"drained_us_median", row.drained.median},
                           {"vs_launch", opt_json(row.vs_launch)}});
    auto& latency = j["latency"] = nlohmann::json::array();
    for (const auto& row : r.latency) {
        nlohmann::json x = {
            {"dtype", to_string(row.dtype)},
            {"m", row.shape.m},
            {"n", row.shape.n},
            {"k", row.shape.k},
            {"call", row.call},
            {"kernel", row.kernel.empty() ? nlohmann::json(nullptr) : nlohmann::json(row.kernel)},
            {"samples", row.latency.samples},
            {"median_us", row.latency.median},
            {"min_us", row.latency.min},
            {"p90_us", row.latency.p90},
            {"max_us", row.latency.max},
            {"vs_cublas", opt_json(row.vs_cublas)},
            {"worst_error_over_bound", row.check ? nlohmann::json(row.check->worst_ratio) : nlohmann::json(nullptr)},
            {"pass", row.pass()}};
        if (!row.error.empty()) x["error"] = row.error;
        latency.push_back(std::move(x));
    }
    j["targets"] = r.targets;
    return j;
}

void write_overhead_csv(std::ostream& os, const OverheadReport& r) {
    os << "table,dtype,call,kernel,m,n,k,samples,median_us,min_us,p90_us,max_us,calls_per_s,"
          "drained_us,ratio,ratio_to,worst_error_over_bound,pass\n";
    for (const auto& row : r.enqueue)
        os << "enqueue," << to_string(row.dtype) << ',' << csv_field(row.call) << ',' << row.kernel
           << ",1,1,1," << row.host.samples << ',' << row.host.median << ',' << row.host.min << ','
           << row.host.p90 << ',' << row.host.max << ',' << row.calls_per_s() << ','
           << row.drained.median << ',' << (row.vs_launch ? fmt("%.4f", *row.vs_launch) : "")
           << ",empty kernel launch,,true\n";
    for (const auto& row : r.latency)
        os << "latency," << to_string(row.dtype) << ',' << csv_field(row.call) << ',' << row.kernel
           << ',' << row.shape.m << ',' << row.shape.n << ',' << row.shape.k << ','
           << row.latency.samples << ',' << row.latency.median << ',' << row.latency.min << ','
           << row.latency.p90 << ',' << row.latency.max << ",,,"
           << (row.vs_cublas ? fmt("%.4f", *row.vs_cublas) : "") << ",cuBLAS direct,"
           << (row.check ? fmt("%g", row.check->worst_ratio) : "") << ','
           << (row.pass() ? "true" : "false") << '\n';
}

} // namespace gemmlab::cli
