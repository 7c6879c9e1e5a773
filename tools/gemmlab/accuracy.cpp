// `gemmlab accuracy`, the CPU side: statistics, ratios to cuBLAS, options, targets, the tables
// and the JSON (accuracy.hpp says what is measured; accuracy.cu runs it on the GPU).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>

#include <CLI/CLI.hpp>

#include "gemmlab/accuracy.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/parse.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// A value in a table cell: "3.9e-7" (two digits, the exponent without its leading zeros).
std::string sci(double v) {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return "inf";
    if (v == 0) return "0";
    std::string s = fmt("%.1e", v);
    const size_t e = s.find('e');
    std::string mant = s.substr(0, e), exp = s.substr(e + 1);
    const char sign = exp[0];
    exp = exp.substr(1);
    while (exp.size() > 1 && exp[0] == '0') exp.erase(0, 1);
    return mant + "e" + (sign == '-' ? "-" : "") + exp;
}

/// A ratio to cuBLAS: "1.23x" below 10, "370x" below 1000, ">999x" beyond, "inf".
std::string ratio_text(double r) {
    if (std::isinf(r)) return "infx";
    if (std::isnan(r)) return "nan";
    if (r < 9.995) return fmt("%.2fx", r);
    if (r < 999.5) return fmt("%.0fx", r);
    return ">999x";
}

/// The rows' order in a table: cuBLAS, auto, then the rungs by number; the default call before
/// the TF32 one.
std::tuple<int, int, std::string> row_rank(const AccuracyRow& r) {
    const int group = r.kernel == "cublas" ? 0 : r.kernel == "auto" ? 1 : 2;
    return {group, group == 2 ? r.number : int(r.call_precision), r.kernel};
}

std::string dist_list(const std::vector<Distribution>& ds) {
    std::string out;
    for (Distribution d : ds) out += (out.empty() ? "" : ", ") + std::string(describe(d));
    return out;
}

} // namespace

const char* to_string(Distribution d) {
    switch (d) {
    case Distribution::Signed: return "signed";
    case Distribution::SameSign: return "same-sign";
    case Distribution::Wide: return "wide";
    case Distribution::NearUnderflow: return "near-underflow";
    }
    return "?";
}

const char* describe(Distribution d) {
    switch (d) {
    case Distribution::Signed: return "U[-1,1)";
    case Distribution::SameSign: return "U[0,1)";
    case Distribution::Wide: return "wide range";
    case Distribution::NearUnderflow: return "near underflow";
    }
    return "?";
}

FillKind fill_of(Distribution d) {
    switch (d) {
    case Distribution::Signed: case Distribution::SameSign: return FillKind::Uniform;
    case Distribution::Wide: return FillKind::WideRange;
    case Distribution::NearUnderflow: return FillKind::NearFltMin;
    }
    return FillKind::Uniform;
}

std::vector<Distribution> parse_distributions(const std::string& s) {
    if (s == "all") return {std::begin(kAllDistributions), std::end(kAllDistributions)};
    std::vector<Distribution> out;
    for (const auto& word : split(s, ',')) {
        const auto it = std::find_if(std::begin(kAllDistributions), std::end(kAllDistributions),
                                     [&](Distribution d) { return word == to_string(d); });
        if (it == std::end(kAllDistributions))
            throw CLI::ValidationError("--inputs", "'" + word +
                                                       "' is not signed, same-sign, wide, "
                                                       "near-underflow or all");
        if (std::find(out.begin(), out.end(), *it) == out.end()) out.push_back(*it);
    }
    if (out.empty()) throw CLI::ValidationError("--inputs", "no input distribution given");
    return out;
}

double median_of(std::vector<double>& v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double upper = v[mid];
    if (v.size() % 2) return upper;
    const double lower = *std::max_element(v.begin(), v.begin() + mid);
    return lower + (upper - lower) / 2;
}

ErrorStats error_stats(std::span<const double> got, std::span<const double> ref, std::span<const double> mag) {
    if (got.size() != ref.size() || got.size() != mag.size())
        throw std::invalid_argument("error_stats: got, ref and mag differ in length");
    ErrorStats s;
    std::vector<double> rel;
    rel.reserve(got.size());
    for (size_t i = 0; i < got.size(); ++i) {
        if (!std::isfinite(ref[i])) continue;
        ++s.elements;
        s.max_abs_ref = std::max(s.max_abs_ref, std::fabs(ref[i]));
        if (!std::isfinite(got[i])) {
            ++s.nonfinite;
            rel.push_back(kInf);
            continue;
        }
        const double err = std::fabs(got[i] - ref[i]);
        s.max_abs_err = std::max(s.max_abs_err, err);
        rel.push_back(mag[i] > 0 ? err / mag[i] : err == 0 ? 0.0 : kInf);
    }
    s.max_rel = s.nonfinite ? kInf : ratio_to(s.max_abs_err, s.max_abs_ref);
    if (s.max_abs_err == 0 && s.max_abs_ref == 0 && !s.nonfinite) s.max_rel = 0;
    s.median_rel = median_of(rel);
    return s;
}

double ratio_to(double value, double cublas) {
    if (cublas == 0) return value == 0 ? 1.0 : kInf;
    return value / cublas;
}

std::string AccuracyRow::label() const {
    const bool follows_call = kernel == "auto" || kernel == "cublas";
    if (!follows_call || call_precision == Precision::Default) return kernel;
    return kernel + "/" + to_string(call_precision);
}

std::vector<int64_t> parse_k_list(const std::string& s, const std::string& option) {
    std::vector<int64_t> out;
    for (const auto& word : split(s, ',')) {
        size_t used = 0;
        long long v = 0;
        try {
            v = std::stoll(word, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (word.empty() || used != word.size())
            throw CLI::ValidationError(option, "'" + word + "' is not an integer");
        if (v < 1) throw CLI::ValidationError(option, "k must be at least 1, not " + word);
        out.push_back(v);
    }
    if (out.empty()) throw CLI::ValidationError(option, "no k given");
    return out;
}

AccuracyConfig accuracy_config(const AccuracyOptions& o) {
    AccuracyConfig c;
    c.dtypes = parse_dtypes(o.dtypes);
    c.precisions = parse_precisions(o.precisions);
    for (const auto& k : parse_gpu_kernels(o.kernels))
        if (k != "cublas") c.kernels.push_back(k); // rung 0 always runs: every ratio needs it
    c.ks = o.quick && !o.ks_given ? std::vector<int64_t>(std::begin(kQuickKs), std::end(kQuickKs))
                                  : parse_k_list(o.ks);
    c.dists = o.quick && !o.inputs_given
                  ? std::vector<Distribution>{Distribution::Signed, Distribution::SameSign}
                  : parse_distributions(o.inputs);
    if (o.m < 1) throw CLI::ValidationError("--m", "m must be at least 1");
    if (o.n < 1) throw CLI::ValidationError("--n", "n must be at least 1");
    c.m = o.m;
    c.n = o.n;
    c.layout = parse_layout(o.layout);
    const auto ops = parse_ops(o.ops);
    if (ops.size() != 1) throw CLI::ValidationError("--op", "give one op combination (nn, nt, tn or tt)");
    c.op_a = ops[0].first;
    c.op_b = ops[0].second;
    return c;
}

void add_cublas_ratios(std::vector<AccuracyRow>& rows) {
    using Key = std::tuple<DType, Distribution, int64_t, Precision>;
    std::map<Key, const AccuracyRow*> cublas;
    for (const auto& r : rows)
        if (r.kernel == "cublas" && r.error.empty())
            cublas[{r.dtype, r.dist, r.k, r.call_precision}] = &r;
    for (auto& r : rows) {
        r.max_vs_cublas.reset();
        r.median_vs_cublas.reset();
        if (!r.error.empty()) continue;
        // cuBLAS has no INT8 emulation: those rows compare with its default math.
        const Precision math = r.math == Precision::Int8Emulation ? Precision::Default : r.math;
        const auto it = cublas.find({r.dtype, r.dist, r.k, math});
        if (it == cublas.end()) continue;
        r.max_vs_cublas = ratio_to(r.stats.max_rel, it->second->stats.max_rel);
        r.median_vs_cublas = ratio_to(r.stats.median_rel, it->second->stats.median_rel);
    }
}

std::vector<std::string> accuracy_targets(const std::vector<AccuracyRow>& rows) {
    struct Target {
        DType dtype;
        Precision precision;
        double limit;
        const char* against;
    };
    const Target targets[] = {{DType::F32, Precision::Default, kDefaultTarget, "cuBLAS SGEMM"},
                              {DType::F32, Precision::Tf32, kTf32Target, "cuBLAS TF32"},
                              {DType::F64, Precision::Default, kDefaultTarget, "cuBLAS DGEMM"}};
    std::vector<std::string> out;
    for (const Target& t : targets) {
        int checks = 0, within = 0;
        double worst = -1;
        std::string worst_at;
        std::vector<int64_t> ks;
        std::vector<Distribution> dists;
        for (const auto& r : rows) {
            if (r.dtype != t.dtype || r.kernel != "auto" || r.call_precision != t.precision) continue;
            if (r.dist != Distribution::Signed && r.dist != Distribution::SameSign) continue;
            if (r.k < 256 || r.k > 65536) continue;
            if (std::find(ks.begin(), ks.end(), r.k) == ks.end()) ks.push_back(r.k);
            if (std::find(dists.begin(), dists.end(), r.dist) == dists.end()) dists.push_back(r.dist);
            const std::pair<const char*, std::optional<double>> stats[] = {
                {"max", r.max_vs_cublas}, {"median", r.median_vs_cublas}};
            for (const auto& [name, v] : stats) {
                ++checks;
                const double ratio = v && r.error.empty() ? *v : kInf;
                within += ratio <= t.limit;
                if (ratio > worst) {
                    worst = ratio;
                    worst_at = std::string(name) + ", k=" + std::to_string(r.k) + ", " + describe(r.dist);
                }
            }
        }
        if (checks == 0) continue;
        std::sort(ks.begin(), ks.end());
        std::sort(dists.begin(), dists.end());
        std::string k_text;
        for (int64_t k : ks) k_text += (k_text.empty() ? "" : ",") + std::to_string(k);
        const std::string who = std::string(to_string(t.dtype)) + " auto" +
                                (t.precision == Precision::Tf32 ? "/tf32" : "");
        out.push_back("target: " + who + " within " + fmt("%.1f", t.limit) + "x of " + t.against +
                      " (max and median error; " + dist_list(dists) + "; k=" + k_text + "): " +
                      std::to_string(within) + " of " + std::to_string(checks) + " within, worst " +
                      ratio_text(worst) + " (" + worst_at + "): " +
                      (within == checks ? "met" : "MISSED"));
    }
    return out;
}

void print_accuracy(std::ostream& os, const AccuracyReport& report) {
    const AccuracyConfig& c = report.config;
    const std::string shape = std::to_string(c.m) + "x" + std::to_string(c.n) + ", " +
                              (c.layout == Layout::RowMajor ? "row" : "col") + "-major " +
                              to_char(c.op_a) + to_char(c.op_b);
    os << wrap_paragraph("", "gemmlab accuracy: " + shape + ", alpha 1, beta 0, seed " +
                                 std::to_string(report.info.seed) +
                                 "; error against the double-double product of the same inputs.",
                         2);
    os << wrap_paragraph("", "x cuBLAS: the ratio to cuBLAS on the same inputs at the row's math "
                             "(TF32 rows, the rungs of math tf32 and auto/tf32, against cublas/tf32; "
                             "every other row against cublas's true FP32/FP64). '!': outside its "
                             "precision's bound (listed after the tables).",
                         2);
    for (DType dt : c.dtypes)
        for (Distribution dist : c.dists) {
            std::vector<const AccuracyRow*> rows;
            std::vector<int64_t> ks;
            for (const auto& r : report.rows)
                if (r.dtype == dt && r.dist == dist) {
                    rows.push_back(&r);
                    if (std::find(ks.begin(), ks.end(), r.k) == ks.end()) ks.push_back(r.k);
                }
            if (rows.empty()) continue;
            std::sort(ks.begin(), ks.end());
            // One line per kernel label, in row_rank order.
            std::vector<const AccuracyRow*> heads;
            for (const AccuracyRow* r : rows)
                if (std::none_of(heads.begin(), heads.end(),
                                 [&](const AccuracyRow* h) { return h->label() == r->label(); }))
                    heads.push_back(r);
            std::stable_sort(heads.begin(), heads.end(), [](const AccuracyRow* a, const AccuracyRow* b) {
                return row_rank(*a) < row_rank(*b);
            });
            size_t label_w = 6;
            for (const AccuracyRow* h : heads) label_w = std::max(label_w, h->label().size());
            const auto find = [&](const AccuracyRow* head, int64_t k) -> const AccuracyRow* {
                for (const AccuracyRow* r : rows)
                    if (r->k == k && r->label() == head->label()) return r;
                return nullptr;
            };
            // "3.9e-7 1.23x": the statistic, its ratio to cuBLAS, '!' outside the bound.
            const auto cell_of = [&](const AccuracyRow* head, int64_t k, int stat) -> std::string {
                const AccuracyRow* r = find(head, k);
                if (!r) return "-";
                if (!r->error.empty()) return "error";
                const double v = stat == 0 ? r->stats.max_rel : r->stats.median_rel;
                const auto& ratio = stat == 0 ? r->max_vs_cublas : r->median_vs_cublas;
                std::string cell = sci(v);
                if (ratio) cell.append(" ").append(ratio_text(*ratio));
                if (!r->bound_pass) cell.append("!");
                return cell;
            };
            constexpr size_t kGap = 2;
            for (int stat = 0; stat < 2; ++stat) {
                size_t cell_w = 0; // the widest cell or header of this table
                for (int64_t k : ks) {
                    cell_w = std::max(cell_w, ("k=" + std::to_string(k)).size());
                    for (const AccuracyRow* head : heads) cell_w = std::max(cell_w, cell_of(head, k, stat).size());
                }
                const size_t per_part =
                    std::max<size_t>(1, (kLineWidth - std::min(label_w, kLineWidth / 2)) / (cell_w + kGap));
                os << "\n"
                   << wrap_paragraph("", std::string(to_string(dt)) + ", " + describe(dist) + " inputs: " +
                                             (stat == 0 ? "max |err| / max |ref|"
                                                        : "median of |err| / (|A||B|)") +
                                             ", x cuBLAS",
                                     2);
                const auto pad = [&](const std::string& text) {
                    return std::string(kGap + cell_w - std::min(cell_w, text.size()), ' ') + text;
                };
                for (size_t first = 0; first < ks.size(); first += per_part) {
                    const size_t last = std::min(ks.size(), first + per_part);
                    std::string line = "kernel" + std::string(label_w - 6, ' ');
                    for (size_t i = first; i < last; ++i) line += pad("k=" + std::to_string(ks[i]));
                    os << line << "\n";
                    for (const AccuracyRow* head : heads) {
                        std::string row = head->label() + std::string(label_w - head->label().size(), ' ');
                        for (size_t i = first; i < last; ++i) row += pad(cell_of(head, ks[i], stat));
                        os << row << "\n";
                    }
                }
            }
        }
    bool header = false;
    for (const auto& r : report.rows) {
        if (r.ok()) continue;
        if (!header) os << "\nfailures:\n";
        header = true;
        const std::string what = std::string(to_string(r.dtype)) + " " + describe(r.dist) + " k=" +
                                 std::to_string(r.k) + " " + r.label() + ": ";
        std::string why = r.error;
        if (why.empty()) {
            why = "outside the bound, worst error / bound " + fmt("%.3g", r.worst_over_bound);
            if (r.stats.nonfinite) why += ", " + std::to_string(r.stats.nonfinite) + " elements not finite";
        }
        os << wrap_paragraph("  ", what + why, 4);
    }
    for (const auto& note : report.notes) os << wrap_paragraph("", note, 2);
    os << "\n";
    for (const auto& t : report.targets) os << wrap_paragraph("", t, 8);
}

nlohmann::json accuracy_json(const AccuracyReport& report) {
    const AccuracyConfig& c = report.config;
    const auto num = [](double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(nullptr); };
    const auto opt = [&](const std::optional<double>& v) { return v ? num(*v) : nlohmann::json(nullptr); };
    nlohmann::json j;
    j["schema"] = "gemmlab-accuracy-1";
    j["command"] = report.info.command;
    j["date"] = report.info.date;
    j["seed"] = report.info.seed;
    j["cpu"] = {{"name", report.info.cpu_name}, {"threads", report.info.cpu_threads}};
    j["device"] = report.info.device ? device_json(*report.info.device) : nlohmann::json(nullptr);
    j["m"] = c.m;
    j["n"] = c.n;
    j["layout"] = c.layout == Layout::RowMajor ? "row" : "col";
    j["op"] = std::string{to_char(c.op_a), to_char(c.op_b)};
    j["ks"] = c.ks;
    auto& inputs = j["inputs"] = nlohmann::json::array();
    for (Distribution d : c.dists) inputs.push_back(to_string(d));
    auto& out = j["rows"] = nlohmann::json::array();
    for (const auto& r : report.rows) {
        nlohmann::json row = {
            {"dtype", to_string(r.dtype)},
            {"kernel", r.kernel},
            {"number", r.number},
            {"label", r.label()},
            {"call_precision", to_string(r.call_precision)},
            {"math", to_string(r.math)},
            {"inputs", to_string(r.dist)},
            {"k", r.k},
            {"elements", r.stats.elements},
            {"nonfinite", r.stats.nonfinite},
            {"max_abs_err", num(r.stats.max_abs_err)},
            {"max_abs_ref", num(r.stats.max_abs_ref)},
            {"max_rel", num(r.stats.max_rel)},
            {"median_rel", num(r.stats.median_rel)},
            {"max_vs_cublas", opt(r.max_vs_cublas)},
            {"median_vs_cublas", opt(r.median_vs_cublas)},
            {"worst_error_over_bound", num(r.worst_over_bound)},
            {"bound_pass", r.bound_pass},
            {"pass", r.ok()},
        };
        if (!r.error.empty()) row["error"] = r.error;
        out.push_back(std::move(row));
    }
    j["targets"] = report.targets;
    j["notes"] = report.notes;
    return j;
}

} // namespace gemmlab::cli
