// `gemmlab overhead`: the host cost of a gemm call and its synchronized latency at small sizes,
// beside an empty-kernel launch and cuBLAS in the same run (overhead.hpp says what each table
// measures, overhead.cu how).

#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "common/device_info.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/overhead.hpp"
#include "gemmlab/parse.hpp"

namespace gemmlab::cli {

namespace {

struct OverheadOptions {
    std::string dtypes = "f32";
    std::string kernels = "auto";
    std::string sizes = "16,32,64,128,256,512";
    std::string tables = "enqueue,latency";
    int calls = 512, samples = 30, reps = 200, warmup = 20;
    std::string json_path, csv_path;
    uint64_t seed = 0;
    bool seed_given = false;
};

/// Every option value checked (a bad one is a usage error, exit 2, GPU or not).
OverheadConfig config_of(const OverheadOptions& o) {
    OverheadConfig c;
    c.dtypes = parse_dtypes(o.dtypes);
    c.kernels.clear();
    for (const auto& k : parse_gpu_kernels(o.kernels))
        if (k != "cublas") c.kernels.push_back(k); // rung 0 is always measured
    c.sizes.clear();
    for (const Shape& s : parse_sizes(o.sizes)) {
        if (s.m < 1) throw CLI::ValidationError("--sizes", "sizes must be at least 1");
        c.sizes.push_back(s.m);
    }
    c.enqueue = c.latency = false;
    for (const auto& t : split(o.tables, ',')) {
        if (t == "enqueue") c.enqueue = true;
        else if (t == "latency") c.latency = true;
        else throw CLI::ValidationError("--tables", "'" + t + "' is not enqueue or latency");
    }
    if (!c.enqueue && !c.latency) throw CLI::ValidationError("--tables", "no table given");
    c.calls = o.calls;
    c.samples = o.samples;
    c.reps = o.reps;
    c.warmup = o.warmup;
    return c;
}

} // namespace

void add_overhead_command(CLI::App& app, Action& action) {
    auto opt = std::make_shared<OverheadOptions>();
    auto* cmd = app.add_subcommand(
        "overhead", "Time the host side of a call and the latency at small sizes, beside cuBLAS");
    cmd->add_option("--dtype", opt->dtypes,
                    "Types, comma-separated: f32, f64, bf16, f16, bf16-f32, f16-f32")
        ->capture_default_str();
    cmd->add_option("--kernels,-k", opt->kernels,
                    "gemmlab kernels to measure (names or numbers, 'auto'); rung 0 (cublas) and "
                    "cuBLAS called directly are always measured")
        ->capture_default_str();
    cmd->add_option("--sizes", opt->sizes, "Square sizes of the latency table")->capture_default_str();
    cmd->add_option("--tables", opt->tables, "enqueue, latency or both")->capture_default_str();
    cmd->add_option("--calls", opt->calls, "Back-to-back calls per enqueue sample")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--samples", opt->samples, "Enqueue samples per row (after one warm-up sample)")
        ->capture_default_str()->check(CLI::Range(1, 100000));
    cmd->add_option("--reps", opt->reps, "Synchronized calls timed per latency row")
        ->capture_default_str()->check(CLI::Range(1, 1000000));
    cmd->add_option("--warmup", opt->warmup, "Untimed calls per latency row first")
        ->capture_default_str()->check(CLI::Range(0, 100000));
    cmd->add_option("--json", opt->json_path, "Write both tables, the targets and device facts as JSON");
    cmd->add_option("--csv", opt->csv_path, "Write both tables as CSV");
    cmd->add_option("--seed", opt->seed, "Random seed of the inputs (default: fresh, printed)")
        ->each([opt](const std::string&) { opt->seed_given = true; });
    cmd->callback([opt, &action] {
        action = [opt]() -> int {
            const OverheadConfig parsed = config_of(*opt);
            if (visible_device_count() == 0) {
                std::cerr << "gemmlab overhead: no CUDA device is visible; it times GPU calls and "
                             "needs an NVIDIA GPU\n";
                return kExitNoGpu;
            }
            OverheadConfig c = parsed;
            c.seed = opt->seed_given ? opt->seed : std::random_device{}();
            RunInfo info;
            info.command = command_line();
            info.date = utc_timestamp();
            info.seed = c.seed;
            info.cpu_name = cpu_model_name();
            info.cpu_threads = int(std::thread::hardware_concurrency());
            note_kernels_this_device_cannot_run(c.kernels);
            for (DType dt : c.dtypes)
                for (const auto& k : c.kernels)
                    if (const auto info = find_gpu_kernel(k); info && !info->supports(input_type(dt)))
                        std::cout << "skipping " << k << " for " << to_string(dt) << ": rung "
                                  << info->number << " has no " << to_string(input_type(dt)) << "\n";
            const OverheadReport report = run_overhead(c, info);
            print_overhead(std::cout, report);
            if (!opt->json_path.empty()) {
                std::ofstream out(opt->json_path);
                out << overhead_json(report).dump(2) << "\n";
                if (!out) throw std::runtime_error("cannot write " + opt->json_path);
            }
            if (!opt->csv_path.empty()) {
                std::ofstream out(opt->csv_path);
                write_overhead_csv(out, report);
                if (!out) throw std::runtime_error("cannot write " + opt->csv_path);
            }
            for (const auto& row : report.latency)
                if (!row.pass()) return kExitCheckFailed;
            return kExitOk;
        };
    });
}

} // namespace gemmlab::cli
