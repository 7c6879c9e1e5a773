// `gemmlab accuracy`: each rung, auto and cuBLAS against the double-double product of the same
// inputs, over k and input distributions (accuracy.hpp says what is measured and how).

#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "common/device_info.hpp"
#include "gemmlab/accuracy.hpp"
#include "gemmlab/bench_quantized.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/parse.hpp"

namespace gemmlab::cli {

void add_accuracy_command(CLI::App& app, Action& action) {
    struct Options {
        AccuracyOptions values;
        std::string json_path;
        uint64_t seed = 0;
        bool seed_given = false;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand(
        "accuracy", "Error of each rung, auto and cuBLAS against the exact product, over k and inputs");
    AccuracyOptions& v = opt->values;
    cmd->add_option("--dtype", v.dtypes,
                    "Types, comma-separated: f32, f64, bf16, f16 (C of the same type), bf16-f32, "
                    "f16-f32 (half A and B, float C); fp8, fp8-block: rung 29 (per-tensor, "
                    "block-wise scales) and cuBLASLt into float C (inputs signed, same-sign)")
        ->capture_default_str();
    cmd->add_option("--precision", v.precisions,
                    "Call precisions of auto, comma-separated: default, tf32 (f32), int8_emulation "
                    "(f32, f64) (cuBLAS runs at default and, for f32, tf32; named rungs at their own)")
        ->capture_default_str();
    cmd->add_option("--kernels,-k", v.kernels,
                    "Rungs (names or numbers, comma-separated), 'auto' or 'all'; cuBLAS always runs")
        ->capture_default_str();
    cmd->add_option("--k", v.ks, "Depths k, comma-separated")
        ->capture_default_str()
        ->each([opt](const std::string&) { opt->values.ks_given = true; });
    cmd->add_option("--inputs", v.inputs,
                    "Input distributions: signed (U[-1,1)), same-sign (U[0,1)), wide (magnitudes "
                    "over 2^121), near-underflow (A just above FLT_MIN), or all")
        ->capture_default_str()
        ->each([opt](const std::string&) { opt->values.inputs_given = true; });
    cmd->add_option("--m", v.m, "Rows of C")->capture_default_str();
    cmd->add_option("--n", v.n, "Columns of C")->capture_default_str();
    cmd->add_option("--layout", v.layout, "row or col")->capture_default_str();
    cmd->add_option("--op", v.ops, "One op combination: nn, nt, tn or tt")->capture_default_str();
    cmd->add_flag("--quick", v.quick,
                  "k = 256, 4096, 65536 and inputs signed, same-sign (unless --k or --inputs is given)");
    cmd->add_option("--json", opt->json_path, "Write every row, the targets and device facts as JSON");
    cmd->add_option("--seed", opt->seed, "Random seed of the inputs (default: fresh, printed)")
        ->each([opt](const std::string&) { opt->seed_given = true; });
    cmd->callback([opt, &action] {
        action = [opt]() -> int {
            // fp8 and fp8-block have their own table against cuBLASLt (bench_quantized.hpp).
            AccuracyOptions plain = opt->values;
            const auto [quantized, others] = split_quantized_dtypes(plain.dtypes);
            plain.dtypes = others;
            std::vector<int64_t> quantized_ks;
            std::vector<std::string> quantized_inputs;
            if (!quantized.empty()) {
                quantized_ks = plain.quick && !plain.ks_given
                                   ? std::vector<int64_t>(std::begin(kQuickKs), std::end(kQuickKs))
                                   : parse_k_list(plain.ks);
                for (const auto& i : split(plain.inputs, ',')) {
                    if (i == "all") quantized_inputs = {"signed", "same-sign"};
                    else if (i == "signed" || i == "same-sign") quantized_inputs.push_back(i);
                    else throw CLI::ValidationError("--inputs", "fp8 and fp8-block take signed or "
                                                                "same-sign inputs, not '" + i + "'");
                }
            }
            AccuracyReport report;
            if (!others.empty()) report.config = accuracy_config(plain);
            if (visible_device_count() == 0) {
                std::cerr << "gemmlab accuracy: no CUDA device is visible; it runs GPU kernels and "
                             "needs an NVIDIA GPU\n";
                return kExitNoGpu;
            }
            const uint64_t seed = opt->seed_given ? opt->seed : std::random_device{}();
            if (!quantized.empty()) {
                std::printf("seed %llu\n", static_cast<unsigned long long>(seed));
                const int q = run_quantized_accuracy(quantized, quantized_ks, quantized_inputs,
                                                     plain.m, plain.n, seed);
                if (others.empty()) return q;
                if (q != kExitOk) return q;
            }
            report.config.seed = seed;
            report.info.command = command_line();
            report.info.date = utc_timestamp();
            report.info.seed = report.config.seed;
            report.info.cpu_name = cpu_model_name();
            report.info.cpu_threads = int(std::thread::hardware_concurrency());
            int device = 0;
            if (cudaGetDevice(&device) == cudaSuccess) report.info.device = query_device(device);
            else cudaGetLastError();
            note_kernels_this_device_cannot_run(report.config.kernels);
            report.rows = run_accuracy(report.config, report.notes);
            add_cublas_ratios(report.rows);
            report.targets = accuracy_targets(report.rows);
            print_accuracy(std::cout, report);
            if (!opt->json_path.empty()) {
                std::ofstream out(opt->json_path);
                out << accuracy_json(report).dump(2) << "\n";
                if (!out) throw std::runtime_error("cannot write " + opt->json_path);
            }
            for (const auto& r : report.rows)
                if (!r.ok()) return kExitCheckFailed;
            return kExitOk;
        };
    });
}

} // namespace gemmlab::cli
