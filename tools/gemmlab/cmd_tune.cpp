// `gemmlab tune`: measures auto's options on this GPU and writes the tune cache auto reads
// (tools/gemmlab/tune.hpp: what is measured; src/gemm/tune_cache.hpp: the file).

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <random>
#include <sstream>

#include <unistd.h>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "gemm/tune_cache.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/parse.hpp"
#include "gemmlab/tune.hpp"

namespace gemmlab::cli {

namespace {

using detail::TuneType;

struct TuneOptions {
    std::string dtypes = "f32,f64,bf16,f16,bf16-f32,f16-f32";
    std::string precisions = "default,tf32";
    int budget_s = 120;
    std::string cache;
    // --explain: cases to explain instead of tuning, and how they are laid out and timed.
    std::string explain;
    std::string layout = "row";
    std::string ops = "nt";
    bool cold = false;
};

/// The type keys asked for: each --dtype, float once per --precision (the others have one).
std::vector<TuneType> types_of(const TuneOptions& o) {
    const std::vector<DType> dtypes = parse_dtypes(o.dtypes);
    const std::vector<Precision> precisions = parse_precisions(o.precisions);
    std::vector<TuneType> out;
    const auto add = [&](TuneType t) {
        if (std::find(out.begin(), out.end(), t) == out.end()) out.push_back(t);
    };
    for (DType d : dtypes) {
        const DataType out_type = d == DType::BF16_F32 || d == DType::F16_F32 ? DataType::F32 : input_type(d);
        if (d == DType::F32)
            for (Precision p : precisions) add(detail::tune_type_of(DataType::F32, DataType::F32, p));
        else
            add(detail::tune_type_of(input_type(d), out_type, Precision::Default));
    }
    return out;
}

/// tune's progress on stderr: a bar redrawn in place on a terminal; in a log, one line per
/// tenth of the plan.
class ProgressBar {
public:
    explicit ProgressBar(double budget_s) : budget_s_(budget_s), tty_(isatty(STDERR_FILENO) == 1) {}
    ~ProgressBar() {
        if (tty_ && drawn_) std::fprintf(stderr, "\r\033[K");
    }
    ProgressBar(const ProgressBar&) = delete;
    ProgressBar& operator=(const ProgressBar&) = delete;

    void operator()(int done, int total, double elapsed_s, const TuneSlot& slot) {
        const std::string what = std::string(to_string(slot.type)) + " " + detail::class_name(slot.shape_class);
        if (tty_) {
            constexpr int kWidth = 24;
            const int filled = total > 0 ? done * kWidth / total : kWidth;
            std::fprintf(stderr, "\r\033[K[%s%s] %d/%d slots, %.0f of %.0f s, %s",
                         std::string(size_t(filled), '#').c_str(),
                         std::string(size_t(kWidth - filled), '.').c_str(), done, total, elapsed_s,
                         budget_s_, what.c_str());
            std::fflush(stderr);
            drawn_ = true;
        } else if (total > 0 && done * 10 / total > tenths_) {
            tenths_ = done * 10 / total;
            std::fprintf(stderr, "tune: %d/%d slots, %.0f of %.0f s (last: %s)\n", done, total,
                         elapsed_s, budget_s_, what.c_str());
        }
    }

private:
    double budget_s_;
    bool tty_;
    bool drawn_ = false;
    int tenths_ = 0;
};

/// The cache already at `path`, when it is one this device can extend; else nothing, and a
/// line saying why it is replaced.
std::optional<detail::TuneFile> existing_cache(const std::filesystem::path& path, const detail::TuneKey& key) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream text;
    text << in.rdbuf();
    try {
        detail::TuneFile f = detail::parse_tune_file(text.str());
        if (const std::string diff = detail::key_difference(f.key, key); !diff.empty()) {
            std::cout << "replacing " << path.string() << ": tuned for another device or build ("
                      << diff << ")\n";
            return std::nullopt;
        }
        return f;
    } catch (const std::exception& e) {
        std::cout << "replacing " << path.string() << ": corrupt (" << e.what() << ")\n";
        return std::nullopt;
    }
}

int run(const TuneOptions& o, const std::vector<TuneType>& types) {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const detail::TuneKey key = detail::device_tune_key(device);
    const detail::CachePath default_path = detail::resolve_cache_path(key, detail::CacheEnv::of_process());
    const std::filesystem::path path = o.cache.empty() ? default_path.path : std::filesystem::path(o.cache);
    if (path.empty())
        throw CLI::ValidationError("--cache", "no place for the tune cache: GEMMLAB_TUNE_CACHE is 'off' or "
                                              "XDG_CACHE_HOME and HOME are unset; give --cache PATH");

    std::string type_list;
    for (TuneType t : types) type_list += std::string(type_list.empty() ? "" : ",") + to_string(t);
    std::cout << "gemmlab tune: " << key.gpu_name << " (" << key.sm_count << " SMs, "
              << key.sm_clock_mhz << " MHz), types " << type_list << ", budget " << o.budget_s
              << " s\n  cache: " << path.string() << "\n";
    TuneConfig config;
    config.types = types;
    config.budget_s = o.budget_s;
    config.seed = std::random_device{}();
    TuneReport report;
    {
        ProgressBar bar(o.budget_s);
        report = run_tune(config, std::ref(bar));
    }
    print_tune_report(std::cout, report, o.budget_s);

    const detail::TuneFile file = merged_tune_file(existing_cache(path, key), key, report.entries, utc_timestamp());
    detail::write_file_atomically(path, detail::tune_file_json(file));
    std::cout << "wrote " << path.string() << ": " << file.entries.size() << " entries ("
              << report.entries.size() << " tuned now";
    if (file.entries.size() > report.entries.size())
        std::cout << ", " << file.entries.size() - report.entries.size() << " kept from the file before";
    std::cout << ")\n";
    const char* env = std::getenv("GEMMLAB_TUNE_CACHE");
    if (path != default_path.path && !(env && path == std::filesystem::path(env)))
        std::cout << "auto reads it where GEMMLAB_TUNE_CACHE=" << path.string() << " is set\n";
    return kExitOk;
}

/// --explain: each case's options timed beside cuBLAS (tune.hpp); every --dtype (bf16 unless
/// given), op and shape.
int explain(const TuneOptions& o, bool dtype_given) {
    const std::vector<DType> dtypes = parse_dtypes(dtype_given ? o.dtypes : "bf16");
    const Layout layout = parse_layout(o.layout);
    const auto ops = parse_ops(o.ops);
    const std::vector<Shape> shapes = parse_shapes(o.explain);
    const std::vector<Precision> precisions = parse_precisions(o.precisions);
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const detail::TuneKey key = detail::device_tune_key(device);
    std::cout << "gemmlab tune --explain: " << key.gpu_name << " (" << key.sm_count << " SMs), "
              << (o.cold ? "L2 flushed before each sample" : "warm, each sample behind the hold")
              << "; model times are the model's, measured are medians of CUDA events\n";
    uint64_t seed = std::random_device{}();
    for (DType d : dtypes)
        for (Precision precision : input_type(d) == DataType::F32 ? precisions : std::vector{Precision::Default})
            for (const auto& [op_a, op_b] : ops)
                for (const Shape& shape : shapes) {
                    Case c;
                    c.dtype = d;
                    c.layout = layout;
                    c.op_a = op_a, c.op_b = op_b;
                    c.shape = shape;
                    c.precision = precision;
                    std::cout << "\n";
                    print_explained(std::cout, explain_case(c, seed++, o.cold));
                }
    return kExitOk;
}

} // namespace

void add_tune_command(CLI::App& app, Action& action) {
    auto opt = std::make_shared<TuneOptions>();
    auto* cmd = app.add_subcommand(
        "tune", "Measure auto's candidates on this GPU per shape class and write the tune cache auto reads");
    cmd->add_option("--dtype", opt->dtypes,
                    "Types, comma-separated: f32, f64, bf16, f16, bf16-f32, f16-f32")
        ->capture_default_str();
    cmd->add_option("--precision", opt->precisions,
                    "Float's precisions to tune, comma-separated: default, tf32 (the other types "
                    "have their own only)")
        ->capture_default_str();
    cmd->add_option("--budget", opt->budget_s,
                    "Seconds to spend; the cheapest classes go first and what is measured when it "
                    "runs out is written")
        ->capture_default_str()->check(CLI::Range(1, 86400));
    cmd->add_option("--cache", opt->cache,
                    "Write the cache here (default: $GEMMLAB_TUNE_CACHE, else "
                    "$XDG_CACHE_HOME/gemmlab/, else ~/.cache/gemmlab/, named for the GPU)");
    cmd->add_option("--explain", opt->explain,
                    "Tune nothing: time every option auto's model weighs for these shapes "
                    "(MxNxK or MxNxK@B, comma-separated) beside cuBLAS, with the model's time for each");
    cmd->add_option("--layout", opt->layout, "--explain: row or col")->capture_default_str();
    cmd->add_option("--op", opt->ops, "--explain: nn, nt, tn, tt (comma-separated) or all")
        ->capture_default_str();
    cmd->add_flag("--cold", opt->cold, "--explain: flush L2 before every timed sample");
    auto* dtype_option = cmd->get_option("--dtype");
    cmd->callback([opt, &action, dtype_option] {
        if (!opt->explain.empty()) {
            const bool dtype_given = dtype_option->count() > 0;
            // A bad value exits 2, GPU or not.
            parse_shapes(opt->explain);
            parse_dtypes(dtype_given ? opt->dtypes : "bf16");
            parse_layout(opt->layout);
            parse_ops(opt->ops);
            action = [opt, dtype_given]() -> int {
                if (visible_device_count() == 0) {
                    std::cerr << "gemmlab tune --explain: no CUDA device is visible\n";
                    return kExitNoGpu;
                }
                return explain(*opt, dtype_given);
            };
            return;
        }
        action = [opt]() -> int {
            const std::vector<TuneType> types = types_of(*opt); // a bad value exits 2, GPU or not
            if (visible_device_count() == 0) {
                std::cerr << "gemmlab tune: no CUDA device is visible; it measures a GPU and needs "
                             "an NVIDIA GPU\n";
                return kExitNoGpu;
            }
            return run(*opt, types);
        };
    });
}

} // namespace gemmlab::cli
