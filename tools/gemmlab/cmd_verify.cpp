// `gemmlab verify`: every rung (and auto) x {f32, f64, bf16, f16, bf16-f32, f16-f32} (the
// types it has) x precisions x layouts x ops x awkward
// shapes, checked element by element against the CPU reference, each rung within the bound of
// the precision it computes in. Shapes cover 1x1x1, primes, non-multiples of every tile, k = 0,
// m or n = 0, padded leading dimensions, unaligned pointers, alpha = 0, beta = 0 with NaN in C,
// inputs spread over 2^121, inputs just above FLT_MIN, and Inf/NaN in A; and strided batches
// (gemm_strided_batched: every rung, natively or once per batch) with a shared A or B, gaps
// that misalign every other batch, k = 0, alpha = 0, and batch 0.

#include <cstdio>
#include <iostream>
#include <algorithm>
#include <map>
#include <memory>
#include <random>
#include <tuple>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "common/progress.hpp"
#include "gemmlab/bench_quantized.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/parse.hpp"
#include "gemmlab/quantized.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

struct VerifyCase {
    Shape shape;
    double alpha, beta;
    int64_t ld_pad;
    FillKind fill;
    bool quick; ///< part of the --quick sweep (the one compute-sanitizer runs)
    int64_t offset = 0; ///< elements added to every base pointer (1: not 16-byte aligned)
    Broadcast broadcast = Broadcast::None; ///< batched: the operand shared by every batch
    int64_t batch_gap = 0;                 ///< batched: elements between consecutive matrices
};

constexpr FillKind U = FillKind::Uniform, I = FillKind::SmallIntegers, W = FillKind::WideRange,
                   F = FillKind::NearFltMin, S = FillKind::WithSpecials;

const VerifyCase kCases[] = {
    {{1, 1, 1}, 1.0, 0.0, 0, U, true},
    {{2, 3, 4}, 1.0, 0.0, 0, I, false},
    {{17, 13, 7}, 1.5, 0.0, 0, U, false},
    {{67, 131, 257}, 1.0, 0.5, 3, U, true},     // primes, padded leading dimensions
    {{129, 127, 65}, -1.0, 0.0, 0, I, true},    // one past / one short of 128, exact integers
    {{255, 257, 33}, 2.0, 3.0, 0, U, false},
    {{1, 300, 40}, 1.0, 0.0, 1, U, false},      // a single row
    {{300, 1, 40}, 1.0, 1.0, 0, U, false},      // a single column
    {{33, 35, 1}, 1.0, 0.0, 0, U, false},       // k = 1
    {{128, 128, 128}, 1.0, 0.0, 0, I, false},   // exact multiples of the common tiles
    {{64, 64, 128}, 2.0, 3.0, 0, U, false},     // the DCU GEMM walk-through's problem
    {{20, 30, 0}, 1.0, 2.0, 0, U, true},        // k = 0: C = beta * C
    {{0, 30, 10}, 1.0, 0.0, 0, U, true},        // m = 0: nothing to do
    {{30, 0, 10}, 1.0, 0.0, 0, U, false},       // n = 0
    {{45, 37, 29}, 0.0, 0.5, 0, U, true},       // alpha = 0: C = beta * C
    {{45, 37, 29}, 0.0, 0.0, 2, U, false},      // alpha = 0, beta = 0: zeros, NaN must not leak
    {{260, 200, 40}, 1.0, 0.0, 1, U, true},     // several 128-tiles with ragged edges
    {{520, 260, 300}, 1.0, 0.0, 0, U, false},
    {{1030, 1030, 257}, 1.0, 0.0, 4, U, false}, // large enough for the large-tile paths of auto
    {{127, 129, 1000 + 3}, 1.0, 0.0, 0, U, false},   // long k, ragged tiles
    {{67, 45, 71}, 1.0, 0.5, 1, U, true, 1},        // unaligned pointers and leading dimensions
    {{129, 66, 300}, 1.0, 0.0, 0, U, false, 3},     // unaligned pointers, aligned ld
    {{100, 90, 200}, 1.0, 0.0, 0, W, true},         // magnitudes over 2^121
    {{100, 90, 200}, 1.0, 0.0, 0, F, true},         // A just above FLT_MIN
    {{130, 70, 300}, 1.0, 0.5, 0, S, true},         // Inf and NaN in A
    {{65, 70, 3}, 1.0, 0.0, 0, W, false},           // tiny k, wide range
    {{7, 17, 1}, 1.0, 0.0, 0, U, false},            // k = 1
    // strided batches: shape {m, n, k, batch}
    {{5, 7, 3, 4}, 1.0, 0.0, 0, I, true},                             // tiny, exact integers
    {{64, 96, 32, 3}, 1.0, 0.5, 0, U, true, 0, Broadcast::None, 3},   // aligned ld, odd gap: batch 1 unaligned
    {{67, 45, 71, 3}, 1.0, 0.5, 1, U, false, 0, Broadcast::None, 8},  // ragged tiles, padded ld and gap
    {{129, 66, 40, 3}, -1.0, 0.0, 0, U, false, 0, Broadcast::A},      // one A for every batch
    {{66, 129, 40, 3}, 1.0, 1.0, 0, I, false, 0, Broadcast::B},       // one B for every batch
    {{130, 70, 300, 2}, 1.0, 0.0, 0, S, false},                       // Inf and NaN in A, per batch
    {{20, 30, 0, 3}, 1.0, 2.0, 0, U, true},                           // k = 0: C = beta * C per batch
    {{45, 37, 29, 3}, 0.0, 0.0, 0, U, false},                         // alpha = 0, beta = 0: zeros
    {{17, 13, 7, 0}, 1.0, 0.5, 0, U, true},                           // batch 0: C untouched
};

struct Tally {
    int passed = 0, total = 0;
    double worst = 0;
};

} // namespace

void add_verify_command(CLI::App& app, Action& action) {
    struct Options {
        bool quick = false;
        std::string kernels = "all";
        std::string dtypes = "f32,f64,bf16,f16,bf16-f32,f16-f32";
        std::string precisions = "default,tf32";
        uint64_t seed = 0;
        bool seed_given = false;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("verify", "Check every rung on awkward shapes, layouts and ops");
    cmd->add_flag("--quick", opt->quick, "A short sweep (the one compute-sanitizer runs)");
    cmd->add_option("--kernels,-k", opt->kernels, "Rungs (names or numbers, comma-separated), 'auto' or 'all' (every rung and auto)")
        ->capture_default_str();
    cmd->add_option("--dtype", opt->dtypes,
                    "Types, comma-separated: f32, f64, bf16, f16 (C of the same type), bf16-f32, "
                    "f16-f32 (half A and B, float C)")
        ->capture_default_str();
    cmd->add_option("--precision", opt->precisions,
                    "Call precisions for auto and cuBLAS, comma-separated: default, tf32, "
                    "int8_emulation (named rungs run once, at their own)")
        ->capture_default_str();
    cmd->add_option("--seed", opt->seed, "Random seed (default: fresh, printed)")
        ->each([opt](const std::string&) { opt->seed_given = true; });
    cmd->callback([opt, &action] {
        action = [opt] {
            const auto kernels = parse_gpu_kernels(opt->kernels);
            const auto dtypes = parse_dtypes(opt->dtypes);
            const auto precisions = parse_precisions(opt->precisions);
            if (visible_device_count() == 0) {
                std::cerr << "gemmlab verify: no CUDA device is visible; verify needs an NVIDIA GPU\n";
                return int(kExitNoGpu);
            }
            const uint64_t seed = opt->seed_given ? opt->seed : std::random_device{}();
            std::printf("gemmlab verify%s: seed %llu\n", opt->quick ? " --quick" : "", (unsigned long long)seed);
            note_kernels_this_device_cannot_run(kernels);
            std::vector<const VerifyCase*> cases;
            for (const auto& c : kCases)
                if (!opt->quick || c.quick) cases.push_back(&c);
            const auto all_ops = parse_ops("all");
            // Key: kernel, type, the precision it was checked at.
            using Key = std::tuple<std::string, DType, Precision>;
            std::map<Key, Tally> tally;
            std::vector<Key> order; // first-seen order, for the table
            int failures_printed = 0;
            // A named rung computes the same under every call precision: it runs once, under the
            // first. auto and cuBLAS follow the call where it changes their math (TF32: float;
            // INT8 emulation: auto in float and double); elsewhere a second precision would
            // repeat the first.
            const auto runs_under = [&](const std::string& k, DType dt, Precision prec) {
                const bool follows_call = k == "auto" || k == "cublas";
                if (!follows_call && prec != precisions.front()) return false;
                if (prec != precisions.front() &&
                    (!precision_changes_math(dt, prec) ||
                     check_precision(k, dt, prec) == check_precision(k, dt, precisions.front())))
                    return false;
                return kernel_supports(k, dt);
            };
            // The (type, precision) pairs under which some chosen kernel runs.
            std::vector<std::pair<DType, Precision>> sweeps;
            std::vector<std::string> skipped; // cases too large for the GPU
            for (DType dt : dtypes)
                for (Precision prec : precisions)
                    if (std::any_of(kernels.begin(), kernels.end(),
                                    [&](const std::string& k) { return runs_under(k, dt, prec); }))
                        sweeps.emplace_back(dt, prec);
            Progress progress(int(sweeps.size() * 2 * all_ops.size() * cases.size()));
            uint64_t case_seed = seed;
            for (auto [dt, prec] : sweeps)
                for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
                    for (auto [oa, ob] : all_ops)
                        for (const VerifyCase* vc : cases) {
                            const Case cs{dt,         layout,     oa,       ob,   vc->shape, vc->alpha,
                                          vc->beta,   vc->ld_pad, vc->fill, prec, vc->offset,
                                          vc->broadcast, vc->batch_gap};
                            progress.step(cs.describe());
                            std::unique_ptr<DeviceProblem> owned;
                            try {
                                owned = std::make_unique<DeviceProblem>(cs, case_seed++, ReferenceSource::Cpu);
                            } catch (const OutOfDeviceMemory&) {
                                skipped.push_back(too_large_note(cs, ReferenceSource::Cpu));
                                continue;
                            }
                            DeviceProblem& problem = *owned;
                            for (const auto& k : kernels) {
                                if (!runs_under(k, dt, prec)) continue;
                                const RunResult r = problem.run_and_check(k);
                                const bool ok = r.launched && r.check.pass;
                                const Key key{k, dt, check_precision(k, dt, prec)};
                                if (!tally.count(key)) order.push_back(key);
                                Tally& t = tally[key];
                                ++t.total;
                                t.passed += ok;
                                t.worst = std::max(t.worst, r.check.worst_ratio);
                                if (!ok && failures_printed++ < 40) {
                                    char lead[40];
                                    std::snprintf(lead, sizeof lead, "FAIL %-24s ", k.c_str());
                                    std::fputs(wrap_paragraph(lead, cs.describe() + ": " +
                                                                        (r.launched ? reference::describe(r.check) : r.error),
                                                              4).c_str(), stdout);
                                }
                            }
                        }
            progress.done();
            std::printf("\n%-26s %-8s %-8s %11s %12s %s\n", "kernel", "type", "math", "passed",
                        "worst e/b", "result");
            int failed_total = 0, cases_total = 0;
            std::sort(order.begin(), order.end(), [&](const Key& a, const Key& b) {
                const auto rank = [&](const std::string& k) {
                    return int(std::find(kernels.begin(), kernels.end(), k) - kernels.begin());
                };
                return std::tuple(rank(std::get<0>(a)), std::get<1>(a), std::get<2>(a)) <
                       std::tuple(rank(std::get<0>(b)), std::get<1>(b), std::get<2>(b));
            });
            for (const auto& key : order) {
                const auto& [k, dt, prec] = key;
                const Tally& t = tally[key];
                failed_total += t.total - t.passed;
                cases_total += t.total;
                std::printf("%-26s %-8s %-8s %5d/%-5d %12.3g %s\n", k.c_str(), to_string(dt),
                            to_string(prec), t.passed, t.total, t.worst,
                            t.passed == t.total ? "PASS" : "FAIL");
            }
            for (const auto& note : skipped) std::printf("%s\n", note.c_str());
            std::printf("verify: %d of %d checks passed, %d failed\n", cases_total - failed_total,
                        cases_total, failed_total);
            // The 8-bit rungs (29, 30) have their own entry points and cases.
            int quantized = int(kExitOk);
            if (check_device_support(quantized_kernels()[0]) == Status::Success)
                quantized = run_quantized_verify(seed + 1000003);
            else
                std::printf("verify: the 8-bit rungs skipped (they need sm_90a and a build for it)\n");
            return failed_total || quantized != int(kExitOk) ? int(kExitCheckFailed) : int(kExitOk);
        };
    });
}

} // namespace gemmlab::cli
