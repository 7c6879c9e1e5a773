// `gemmlab tune`: the measuring loop and its report (tune.hpp says what and why).

#include "gemmlab/tune.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gemm/auto_select.hpp"
#include "gemm/device_caps.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

using detail::TuneEntry;
using detail::TuneType;

std::vector<TuneSlot> tune_plan(const std::vector<TuneType>& types) {
    std::vector<int> classes(detail::kShapeClassCount);
    for (int c = 0; c < detail::kShapeClassCount; ++c) classes[size_t(c)] = c;
    const auto flops = [](int c) {
        const detail::ClassShape s = detail::representative(c);
        return double(s.m) * double(s.n) * double(s.k);
    };
    std::stable_sort(classes.begin(), classes.end(), [&](int a, int b) { return flops(a) < flops(b); });
    std::vector<TuneSlot> plan;
    for (int c : classes)
        for (TuneType t : types) plan.push_back({t, c});
    return plan;
}

namespace {

/// bench's spelling of a type key's A/B and C types.
DType dtype_of(TuneType t) {
    switch (t) {
    case TuneType::F32: case TuneType::F32Tf32: return DType::F32;
    case TuneType::F64: return DType::F64;
    case TuneType::BF16: return DType::BF16;
    case TuneType::BF16F32: return DType::BF16_F32;
    case TuneType::F16: return DType::F16;
    case TuneType::F16F32: return DType::F16_F32;
    }
    return DType::F32;
}

/// Times every option of one slot and returns its entry.
TuneEntry tune_slot(const TuneSlot& slot, const Case& c, uint64_t seed, const detail::DeviceCaps& caps,
                    cudaStream_t stream) {
    DeviceProblem problem(c, seed, ReferenceSource::None);
    const detail::Problem p = problem.normalized();
    const detail::AutoChoice model = detail::auto_choice(p, caps, nullptr);
    TuneEntry e;
    e.type = to_string(slot.type);
    e.shape = detail::representative(slot.shape_class);
    e.model_candidate = std::string(model.candidate);
    e.model_splits = model.splits;
    double best_ns = std::numeric_limits<double>::infinity();
    double model_ns = best_ns;
    for (const detail::AutoOption& o : detail::auto_options(p, caps)) {
        const TimingStats t = time_device_work(
            [&](cudaStream_t s) { detail::launch_option(p, o.candidate, o.splits, s); }, stream,
            kTunePolicy);
        const double ns = t.median_ms * 1e6;
        if (o.name == model.candidate && o.splits == model.splits) model_ns = ns;
        if (ns < best_ns) {
            best_ns = ns;
            e.candidate = std::string(o.name);
            e.splits = o.splits;
        }
    }
    e.model_ns = model_ns;
    if (!(best_ns * kMinSpeedup <= model_ns)) { // not clearly faster: the model's pick stays
        e.candidate = e.model_candidate;
        e.splits = e.model_splits;
        best_ns = model_ns;
    }
    e.ns = best_ns;
    return e;
}

} // namespace

TuneReport run_tune(const TuneConfig& config, const TuneProgressFn& progress) {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const detail::DeviceCaps caps = detail::device_caps(device);
    const std::vector<TuneSlot> plan = tune_plan(config.types);
    TuneReport report;
    report.planned = int(plan.size());
    Stream stream;
    const auto start = std::chrono::steady_clock::now();
    const auto elapsed = [&] {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    uint64_t seed = config.seed;
    int done = 0;
    for (const TuneSlot& slot : plan) {
        if (elapsed() >= config.budget_s) {
            report.budget_spent = true;
            break;
        }
        const detail::ClassShape s = detail::representative(slot.shape_class);
        Case c;
        c.dtype = dtype_of(slot.type);
        c.layout = Layout::ColMajor;
        c.shape = {s.m, s.n, s.k};
        c.precision = detail::precision_of(slot.type);
        // Room for the buffers and as much again for the workspace of the pack step and
        // split-K's partial sums.
        size_t free_bytes = 0, total_bytes = 0;
        GEMMLAB_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
        const double needed = DeviceProblem::device_bytes(c, ReferenceSource::None);
        if (2 * needed > double(free_bytes)) {
            report.skipped.push_back(too_large_message(c, 2 * needed, free_bytes, total_bytes));
        } else {
            try {
                report.entries.push_back(tune_slot(slot, c, seed++, caps, stream.get()));
            } catch (const OutOfDeviceMemory&) { // taken by another process meanwhile
                report.skipped.push_back(too_large_message(c, 2 * needed, free_bytes, total_bytes));
            }
        }
        if (progress) progress(++done, report.planned, elapsed(), slot);
    }
    report.elapsed_s = elapsed();
    return report;
}

// ------------------------------------------------------------------------------ the report

namespace {

int class_of(const TuneEntry& e) { return detail::shape_class_of(e.shape.m, e.shape.n, e.shape.k); }

bool changed(const TuneEntry& e) {
    return e.candidate != e.model_candidate || e.splits != e.model_splits;
}

std::string pad(std::string s, size_t width, bool right = false) {
    const size_t w = display_width(s);
    if (w >= width) return s;
    return right ? std::string(width - w, ' ') + s : s + std::string(width - w, ' ');
}

} // namespace

void print_tune_report(std::ostream& os, const TuneReport& r, double budget_s) {
    std::set<std::string> types;
    for (const TuneEntry& e : r.entries) types.insert(e.type);
    std::string head = "tuned " + std::to_string(r.entries.size()) + " of " +
                       std::to_string(r.planned) + " slots in " + fmt("%.0f", r.elapsed_s) +
                       " s (budget " + fmt("%.0f", budget_s) + " s" +
                       (r.budget_spent ? ", spent: the rest keep the model" : "") + ")";
    if (!r.skipped.empty())
        head += "; " + std::to_string(r.skipped.size()) + " skipped (too large for GPU memory)";
    os << wrap_paragraph("", head, 2);
    for (const std::string& line : r.skipped) os << wrap_paragraph("  ", line, 4);

    const size_t widths[] = {8, 18, 37, 6, 10, 8};
    const auto row = [&](const std::string (&cells)[6]) {
        std::string line;
        for (size_t i = 0; i < 6; ++i)
            line += (i ? "  " : "") + pad(cells[i], widths[i], /*right=*/i >= 3);
        os << line << "\n";
    };
    size_t changes = 0;
    for (const TuneEntry& e : r.entries) changes += changed(e);
    if (changes == 0) {
        os << "the model's pick was the fastest (within " << fmt("%.0f", 100 * (kMinSpeedup - 1))
           << "%) in every slot tuned\n";
    } else {
        os << "slots where a measured winner beats the model's pick by "
           << fmt("%.0f", 100 * (kMinSpeedup - 1)) << "% or more:\n";
        row({"type", "class", "winner", "splits", "us", "x model"});
        for (const TuneEntry& e : r.entries)
            if (changed(e))
                row({e.type, detail::class_name(class_of(e)), e.candidate, std::to_string(e.splits),
                     fmt("%.1f", e.ns / 1e3), fmt("%.2fx", e.model_ns / e.ns)});
    }
    for (const std::string& type : types) {
        int slots = 0, moved = 0;
        double log_sum = 0, best = 1;
        std::string best_class;
        for (const TuneEntry& e : r.entries) {
            if (e.type != type) continue;
            ++slots;
            if (!changed(e)) continue;
            ++moved;
            const double x = e.model_ns / e.ns;
            log_sum += std::log(x);
            if (x > best) best = x, best_class = detail::class_name(class_of(e));
        }
        std::string line = type + ": " + std::to_string(slots) + " slots, " + std::to_string(moved) +
                           " changed";
        if (moved > 0)
            line += " (geomean " + fmt("%.2fx", std::exp(log_sum / moved)) + " over those, best " +
                    fmt("%.2fx", best) + " at " + best_class + ")";
        os << line << "\n";
    }
}

detail::TuneFile merged_tune_file(const std::optional<detail::TuneFile>& old, const detail::TuneKey& key,
                                  const std::vector<TuneEntry>& fresh, std::string tuned_at) {
    detail::TuneFile f;
    f.key = key;
    f.tuned_at = std::move(tuned_at);
    std::set<std::pair<std::string, int>> covered;
    for (const TuneEntry& e : fresh) covered.insert({e.type, class_of(e)});
    if (old && old->key == key)
        for (const TuneEntry& e : old->entries) {
            // Only what auto would use: a bad entry is not carried into the new file.
            const auto type = detail::tune_type_named(e.type);
            const detail::ClassShape rep = detail::representative(class_of(e));
            if (!type || rep.m != e.shape.m || rep.n != e.shape.n || rep.k != e.shape.k ||
                detail::resolve_tuned_choice(*type, e.candidate, e.splits, rep.k).candidate < 0)
                continue;
            if (covered.insert({e.type, class_of(e)}).second) f.entries.push_back(e);
        }
    f.entries.insert(f.entries.end(), fresh.begin(), fresh.end());
    return f;
}

// ------------------------------------------------------------------------------ --explain

Explained explain_case(const Case& c, uint64_t seed, bool cold) {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const detail::DeviceCaps caps = detail::device_caps(device);
    DeviceProblem problem(c, seed, ReferenceSource::None);
    const detail::Problem p = problem.normalized();
    const detail::AutoChoice pick = detail::auto_choice(p, caps, nullptr);
    const std::vector<detail::AutoOption> options = detail::auto_options(p, caps);

    Stream stream;
    const auto call = [&problem](const char* kernel) {
        return [&problem, kernel](cudaStream_t s) {
            GemmOptions o;
            o.kernel = kernel;
            o.stream = s;
            o.precision = problem.spec().precision;
            if (problem.call(o) != Status::Success)
                throw CudaFailure(std::string("gemmlab tune --explain: ") + kernel + " failed");
        };
    };
    std::vector<std::function<void(cudaStream_t)>> works = {call("cublas"), call("auto")};
    for (const detail::AutoOption& o : options)
        works.push_back([&p, o](cudaStream_t s) { detail::launch_option(p, o.candidate, o.splits, s); });
    TimingPolicy policy = kTunePolicy;
    policy.flush_l2 = cold;
    const std::vector<TimingStats> t = time_interleaved(works, stream.get(), policy);

    Explained e;
    e.case_text = c.describe();
    e.auto_pick = std::string(pick.candidate);
    e.auto_splits = pick.splits;
    e.cublas_us = t[0].median_ms * 1e3;
    e.auto_us = t[1].median_ms * 1e3;
    for (size_t i = 0; i < options.size(); ++i) {
        const detail::AutoOption& o = options[i];
        e.options.push_back({std::string(o.name), o.splits, o.model_ns / 1e3, t[i + 2].median_ms * 1e3,
                             o.name == pick.candidate && o.splits == pick.splits});
    }
    return e;
}

void print_explained(std::ostream& os, const Explained& e) {
    os << e.case_text << "\n  cublas " << fmt("%.1f", e.cublas_us) << " us; auto ("
       << e.auto_pick << (e.auto_splits > 1 ? ", " + std::to_string(e.auto_splits) + " slices" : "")
       << ") " << fmt("%.1f", e.auto_us) << " us, " << fmt("%.3fx", e.cublas_us / e.auto_us)
       << " cuBLAS\n";
    size_t fastest = 0;
    for (size_t i = 1; i < e.options.size(); ++i)
        if (e.options[i].measured_us < e.options[fastest].measured_us) fastest = i;
    os << "  " << pad("option", 40) << pad("splits", 7, true) << pad("model us", 10, true)
       << pad("measured", 10, true) << pad("x cuBLAS", 10, true) << "\n";
    for (size_t i = 0; i < e.options.size(); ++i) {
        const ExplainedOption& o = e.options[i];
        std::string mark = o.model_pick ? " <- model" : "";
        if (i == fastest) mark += " <- fastest";
        os << "  " << pad(o.name, 40) << pad(std::to_string(o.splits), 7, true)
           << pad(fmt("%.1f", o.model_us), 10, true) << pad(fmt("%.1f", o.measured_us), 10, true)
           << pad(fmt("%.3f", e.cublas_us / o.measured_us), 10, true) << mark << "\n";
    }
}

} // namespace gemmlab::cli
