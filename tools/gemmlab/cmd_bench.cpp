// `gemmlab bench`: for each shape, fresh random inputs and one reference; for each rung, poison C,
// run once, check every element, then time. cuBLAS (rung 0) is always timed on the same shape so
// that every row carries its percentage of cuBLAS from the same run. A batched shape
// (`--batch`, `MxNxK@B`, `--preset batched`) calls gemm_strided_batched on contiguous batches,
// cuBLAS its strided batched form, every batch checked; GFLOP/s count all batches.

#include <chrono>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <thread>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "common/progress.hpp"
#include "gemm/reference/cpu_ladder.hpp"
#include "gemm/reference/reference.hpp"
#include "gemmlab/accuracy.hpp"
#include "gemmlab/bench_quantized.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/parse.hpp"
#include "gemmlab/results.hpp"

namespace gemmlab::cli {

namespace {

struct BenchConfig {
    std::string kernels = "all";
    std::string dtypes = "f32";
    std::string layout = "row";
    std::string ops = "nn";
    std::string sizes;
    std::string shapes;
    std::string batches = "1";
    double alpha = 1.0, beta = 0.0;
    int min_samples = 10;
    double min_time_ms = 200;
    bool cold = false;
    std::string json_path, csv_path;
    uint64_t seed = 0;
    bool seed_given = false;
    std::string device = "gpu";
    std::string preset;
    std::string precision = "default";
    std::string inputs = "signed"; // accuracy's spelling (Distribution)
    bool kernels_given = false, dtypes_given = false; // on the command line (--preset batched)
};

/// `--preset batched`: strided batched shapes, row-major, MxNxK@batch.
/// Attention-like (batch 32-1024, m and n 64-512, k 64-128: a head's Q K^T is nt, P V nn) and
/// many small squares, one of them past gridDim.z's 65535 batches.
constexpr const char* kBatchedShapes =
    "64x64x64@1024,128x128x64@1024,256x256x64@256,512x512x64@64,512x512x128@32,"
    "128x128x128@512,256x256x128@128,512x64x128@256,64x512x64@512,"
    "16x16x16@100000,32x32x32@16384,64x64x64@4096,128x128x128@1024,256x256x256@256";

/// `--preset llm`: the linear layers of four open LLM shapes as PyTorch's Linear runs them
/// (y = x W^T: row-major nt, m = tokens, n = the layer's outputs, k = its inputs) at 1 to 8192
/// tokens, and decode attention (one query against a cached K: 1 x context x head_dim, a batch
/// of heads). docs/workloads.md lists the models and why these layers.
struct LlmModel {
    const char* name;
    int64_t hidden, qkv, mlp; // qkv: fused Q, K and V outputs (grouped-query heads)
};
constexpr LlmModel kLlmModels[] = {
    {"llama-3.2-1b", 2048, 3072, 8192},
    {"qwen2.5-7b", 3584, 4608, 18944},
    {"llama-3.1-8b", 4096, 6144, 14336},
    {"llama-3.1-70b", 8192, 10240, 28672},
};
constexpr int64_t kLlmTokens[] = {1, 8, 16, 64, 128, 512, 2048, 8192};

std::string llm_shapes() {
    std::string out;
    auto add = [&](int64_t m, int64_t n, int64_t k) {
        out += (out.empty() ? "" : ",") + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
    };
    for (const auto& model : kLlmModels)
        for (int64_t tokens : kLlmTokens) {
            add(tokens, model.qkv, model.hidden);    // fused QKV projection
            add(tokens, model.hidden, model.hidden); // attention output projection
            add(tokens, model.mlp, model.hidden);    // MLP gate (and up: the same shape)
            add(tokens, model.hidden, model.mlp);    // MLP down projection
        }
    // Decode attention, Q K^T of one token: 32 heads x batch 8, head_dim 128, 4096 and 16384
    // cached positions.
    out += ",1x4096x128@256,1x16384x128@256";
    return out;
}

/// Presets: each reproduces one source document's own experiment (docs/sources.md) with the
/// rungs that implement its steps, or runs a published workload set (batched, llm).
void apply_preset(BenchConfig& c) {
    if (c.preset.empty()) return;
    if (c.preset == "dcu") { // DCU GEMM (docs/sources.md): DGEMM "TN", C row-major 64x64, K = 128, alpha 2, beta 3
        c.dtypes = "f64";
        c.layout = "row";
        c.ops = "tn";
        c.shapes = "64x64x128";
        c.sizes.clear();
        c.alpha = 2;
        c.beta = 3;
        c.kernels = "cublas,naive,register_tile_global,register_prefetch_global,smem_tile,"
                    "smem_interleaved_reads";
    } else if (c.preset == "sgemm-v") { // SGEMM v1-v8 (docs/sources.md): column-major NN
        c.dtypes = "f32";
        c.layout = "col";
        c.ops = "nn";
        c.sizes = "256,512,1024,2048,4096";
        c.shapes.clear();
        c.kernels = "cublas,coalesced,smem_tile,smem_conflict_free,thread_tile_1d,vectorized,"
                    "thread_tile_4x4,thread_tile_8x8";
    } else if (c.preset == "thread-tile") { // 1-D thread tile (docs/sources.md): float 4096^3, rungs 5-7
        c.dtypes = "f32";
        c.sizes = "4096";
        c.shapes.clear();
        c.kernels = "cublas,smem_tile,smem_conflict_free,thread_tile_1d";
    } else if (c.preset == "batched") { // strided batched GEMM against cuBLAS strided batched
        if (!c.dtypes_given) c.dtypes = "f32,f64,bf16,f16";
        if (!c.kernels_given) c.kernels = "cublas,auto";
        c.layout = "row";
        c.ops = "nn,nt";
        c.shapes = kBatchedShapes;
        c.sizes.clear();
        c.batches = "1";
    } else if (c.preset == "llm") { // LLM linear layers and decode attention, nt
        if (!c.dtypes_given) c.dtypes = "bf16,f16";
        if (!c.kernels_given) c.kernels = "cublas,auto";
        c.layout = "row";
        c.ops = "nt";
        c.shapes = llm_shapes();
        c.sizes.clear();
        c.batches = "1";
    } else {
        throw CLI::ValidationError("--preset", "'" + c.preset +
                                                   "' is not dcu, sgemm-v, thread-tile, batched or llm");
    }
}

std::vector<Shape> shapes_of(const BenchConfig& c, const char* default_sizes) {
    const auto batches = parse_batches(c.batches);
    if (!c.shapes.empty()) return parse_shapes(c.shapes, batches);
    return parse_sizes(c.sizes.empty() ? default_sizes : c.sizes, batches);
}

void write_outputs(const BenchConfig& c, const RunInfo& info, const std::vector<BenchRow>& rows) {
    print_table(std::cout, rows);
    for (const auto& note : info.skipped) std::cout << note << "\n";
    if (!c.json_path.empty()) {
        std::ofstream out(c.json_path);
        out << to_json(info, rows).dump(2) << "\n";
        if (!out) throw std::runtime_error("cannot write " + c.json_path);
    }
    if (!c.csv_path.empty()) {
        std::ofstream out(c.csv_path);
        write_csv(out, rows);
        if (!out) throw std::runtime_error("cannot write " + c.csv_path);
    }
}

int exit_code_of(const std::vector<BenchRow>& rows) {
    for (const auto& r : rows)
        if (!r.pass()) return kExitCheckFailed;
    return kExitOk;
}

int run_gpu_bench(const BenchConfig& c, RunInfo info) {
    const auto kernels = parse_gpu_kernels(c.kernels);
    const auto dtypes = parse_dtypes(c.dtypes);
    const auto layout = parse_layout(c.layout);
    const auto ops = parse_ops(c.ops);
    const auto shapes = shapes_of(c, "1024,2048,4096");
    const Precision precision = parse_precision(c.precision);
    const FillKind fill = fill_of(parse_distributions(c.inputs).front());
    info.device = query_device(0);
    const DeviceInfo& dev = *info.device;
    std::cout << "gemmlab bench on " << dev.name << " (" << dev.sm_count << " SMs), seed " << info.seed
              << (c.cold ? ", cold L2" : "") << ", precision " << to_string(precision)
              << (fill == FillKind::Uniform ? "" : ", inputs " + c.inputs)
              << (precision == Precision::Tf32 ? " (auto may use TF32; cuBLAS runs CUBLAS_COMPUTE_32F_FAST_TF32)"
                  : precision == Precision::Int8Emulation ? " (auto runs rung 31 for float and double; cuBLAS its default)"
                                                          : "")
              << "\n";
    note_kernels_this_device_cannot_run(kernels);

    TimingPolicy policy;
    policy.min_samples = c.min_samples;
    policy.min_total_ms = c.min_time_ms;
    policy.flush_l2 = c.cold;

    std::vector<BenchRow> rows;
    // Per case: the reference, each kernel's checked run, then the timing of all of them.
    Progress progress(int(dtypes.size() * ops.size() * shapes.size() * (kernels.size() + 2)));
    uint64_t case_seed = info.seed;
    for (DType dt : dtypes)
        for (auto [oa, ob] : ops)
            for (const Shape& shape : shapes) {
                Case cs{dt, layout, oa, ob, shape, c.alpha, c.beta, 0, fill, precision};
                progress.step("reference " + cs.describe());
                std::unique_ptr<DeviceProblem> owned; // a shape too large for the GPU is skipped
                try {
                    owned = std::make_unique<DeviceProblem>(cs, case_seed++, ReferenceSource::Gpu);
                } catch (const OutOfDeviceMemory&) {
                    info.skipped.push_back(too_large_note(cs, ReferenceSource::Gpu));
                    continue;
                }
                DeviceProblem& problem = *owned;
                // cuBLAS first, always (checked first, and first in each timing round): every
                // other row is reported as a percentage of it.
                std::vector<std::string> order = {"cublas"};
                for (const auto& k : kernels)
                    if (k != "cublas") order.push_back(k);
                const bool show_cublas = std::find(kernels.begin(), kernels.end(), "cublas") != kernels.end();
                std::vector<BenchRow> case_rows;
                std::vector<std::string> timed; // the kernels that launched, in order
                for (const auto& k : order) {
                    progress.step(k + " " + cs.describe());
                    if (!kernel_supports(k, dt)) continue;
                    const auto info_k = find_gpu_kernel(k);
                    BenchRow row;
                    row.kernel = k;
                    row.number = info_k ? info_k->number : -1;
                    row.device = "gpu";
                    row.spec = cs;
                    row.precision = check_precision(k, dt, precision);
                    row.result = problem.run_and_check(k);
                    if (row.result.launched) timed.push_back(k);
                    case_rows.push_back(std::move(row));
                }
                // All rows of the case are timed together, interleaved sample by sample, so that
                // each one's ratio to cuBLAS is taken at the same clocks and temperature.
                progress.step("timing " + std::to_string(timed.size()) + " kernels on " + cs.describe());
                const std::vector<TimingStats> timings = problem.time(timed, policy);
                const double clock_mhz = measure_sm_clock_mhz(dev.device, 5000);
                std::optional<double> cublas_ms;
                for (size_t i = 0; i < timed.size(); ++i)
                    if (timed[i] == "cublas") cublas_ms = timings[i].median_ms;
                size_t next = 0;
                for (BenchRow& row : case_rows) {
                    if (row.result.launched) {
                        row.timing = timings[next++];
                        row.clock_mhz = clock_mhz;
                        row.gflops = gemm_flops(shape) / (row.timing.median_ms * 1e6);
                        if (cublas_ms) row.pct_cublas = 100.0 * *cublas_ms / row.timing.median_ms;
                        // %peak is of the pipe the row's kernel computes on (FMA or tensor
                        // cores, in its precision), at the clock measured after the timing.
                        row.peak_pipe = peak_pipe(row.kernel, dt, row.precision, dev.cc_major, dev.cc_minor);
                        const double per_clk = peak_flop_per_clk_sm(row.peak_pipe, dev.cc_major, dev.cc_minor);
                        if (per_clk > 0 && row.clock_mhz > 0)
                            row.pct_peak = 100.0 * row.gflops /
                                           (double(dev.sm_count) * per_clk * row.clock_mhz * 1e-3);
                    }
                    if (row.kernel != "cublas" || show_cublas) rows.push_back(std::move(row));
                }
            }
    progress.done();
    write_outputs(c, info, rows);
    return exit_code_of(rows);
}

template <class T>
BenchRow run_cpu_case(const std::string& kernel, int rung, const Case& cs, uint64_t seed,
                      const BenchConfig& c) {
    const int64_t m = cs.shape.m, n = cs.shape.n, k = cs.shape.k;
    const bool row_major = cs.layout == Layout::RowMajor;
    auto stored = [&](int64_t r, int64_t cl, bool t) {
        const int64_t rows = t ? cl : r, cols = t ? r : cl;
        const int64_t ld = std::max<int64_t>(1, row_major ? cols : rows);
        return std::pair{ld, std::max<int64_t>(1, ld * (row_major ? rows : cols))};
    };
    const auto [lda, na] = stored(m, k, cs.op_a == Op::T);
    const auto [ldb, nb] = stored(k, n, cs.op_b == Op::T);
    const auto [ldc, nc] = stored(m, n, false);
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<T> A(static_cast<size_t>(na)), B(static_cast<size_t>(nb)), C0(static_cast<size_t>(nc)), C(static_cast<size_t>(nc));
    for (auto* v : {&A, &B, &C0})
        for (auto& x : *v) x = T(u(rng));
    std::vector<double> ref(size_t(m * n)), mag(size_t(m * n));
    reference::gemm<T>(cs.layout, cs.op_a, cs.op_b, m, n, k, T(cs.alpha), A.data(), lda, B.data(), ldb,
                       T(cs.beta), C0.data(), ldc, ref.data(), mag.data());
    auto run = [&] {
        cpu::gemm<T>(rung, cs.layout, cs.op_a, cs.op_b, m, n, k, T(cs.alpha), A.data(), lda, B.data(),
                     ldb, T(cs.beta), C.data(), ldc);
    };
    BenchRow row;
    row.kernel = kernel;
    row.number = rung;
    row.device = "cpu";
    row.spec = cs;
    C = C0;
    run();
    row.result.launched = true;
    row.result.check = reference::check<T>(cs.layout, m, n, k, C.data(), ldc, ref.data(), mag.data());
    std::vector<double> samples;
    double total = 0;
    while (int(samples.size()) < std::min(c.min_samples, 5) || total < c.min_time_ms) {
        const auto t0 = std::chrono::steady_clock::now();
        run();
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        samples.push_back(ms);
        total += ms;
    }
    row.timing = summarize(samples);
    row.gflops = gemm_flops(cs.shape) / (row.timing.median_ms * 1e6);
    return row;
}

int run_cpu_bench(const BenchConfig& c, RunInfo info) {
    const auto kernels = parse_cpu_kernels(c.kernels);
    const auto dtypes = parse_dtypes(c.dtypes);
    for (DType dt : dtypes)
        if (dt != DType::F32 && dt != DType::F64)
            throw CLI::ValidationError("--dtype", std::string("the CPU ladder runs f32 and f64 only, not '") +
                                                      to_string(dt) + "'");
    const auto layout = parse_layout(c.layout);
    const auto ops = parse_ops(c.ops);
    const auto shapes = shapes_of(c, "128,256,512");
    for (const Shape& s : shapes)
        if (s.batch != 1)
            throw CLI::ValidationError("--batch", "the CPU ladder runs single products only (batch " +
                                                      std::to_string(s.batch) + " asked)");
    if (c.inputs != to_string(Distribution::Signed))
        throw CLI::ValidationError("--inputs", "the CPU ladder draws signed uniform inputs only ('" +
                                                   c.inputs + "' asked)");
    std::cout << "gemmlab bench --device cpu on " << info.cpu_name << " (one core per rung), seed "
              << info.seed << "\n";
    std::vector<BenchRow> rows;
    Progress progress(int(dtypes.size() * ops.size() * shapes.size() * kernels.size()));
    uint64_t seed = info.seed;
    for (DType dt : dtypes)
        for (auto [oa, ob] : ops)
            for (const Shape& shape : shapes) {
                const Case cs{dt, layout, oa, ob, shape, c.alpha, c.beta, 0, FillKind::Uniform};
                ++seed;
                for (const auto& k : kernels) {
                    progress.step(k + " " + cs.describe());
                    int rung = 0;
                    for (const auto& info_k : cpu_kernels())
                        if (info_k.name == k) rung = info_k.number;
                    rows.push_back(dt == DType::F32 ? run_cpu_case<float>(k, rung, cs, seed, c)
                                                    : run_cpu_case<double>(k, rung, cs, seed, c));
                }
            }
    progress.done();
    write_outputs(c, info, rows);
    return exit_code_of(rows);
}

} // namespace

void add_bench_command(CLI::App& app, Action& action) {
    auto cfg = std::make_shared<BenchConfig>();
    auto* cmd = app.add_subcommand("bench", "Check and time GEMM rungs side by side with cuBLAS");
    cmd->add_option("--kernels,-k", cfg->kernels, "Rungs by name or number, comma-separated, 'auto', or 'all'")
        ->capture_default_str()
        ->each([cfg](const std::string&) { cfg->kernels_given = true; });
    cmd->add_option("--dtype", cfg->dtypes,
                    "Types, comma-separated: f32, f64, bf16, f16 (C of the same type), bf16-f32, "
                    "f16-f32 (half A and B, float C); fp8 (E4M3, BF16 C, per-tensor scales), fp8-block "
                    "(block-wise scales), int8 (int32 C): the quantized rungs against cuBLASLt "
                    "(row-major nt; default sizes 4096,8192)")
        ->capture_default_str()
        ->each([cfg](const std::string&) { cfg->dtypes_given = true; });
    cmd->add_option("--layout", cfg->layout, "row or col")->capture_default_str();
    cmd->add_option("--op", cfg->ops, "nn, nt, tn, tt (comma-separated) or all")->capture_default_str();
    cmd->add_option("--sizes", cfg->sizes, "Square sizes, e.g. 1024,2048,4096 (default; CPU: 128,256,512)");
    cmd->add_option("--shapes", cfg->shapes,
                    "Shapes MxNxK, comma-separated (instead of --sizes); MxNxK@B is a strided "
                    "batch of B products of that shape");
    cmd->add_option("--batch", cfg->batches,
                    "Strided batch counts, comma-separated: each size or shape without @B runs as "
                    "gemm_strided_batched with B contiguous products (1: plain gemm) against "
                    "cuBLAS's strided batched GEMM; GFLOP/s count all batches")
        ->capture_default_str();
    cmd->add_option("--alpha", cfg->alpha, "alpha")->capture_default_str();
    cmd->add_option("--beta", cfg->beta, "beta (0: C is poisoned with NaN and must be fully written)")
        ->capture_default_str();
    cmd->add_option("--reps", cfg->min_samples, "Minimum timed repetitions")
        ->capture_default_str()->check(CLI::Range(1, 1000000));
    cmd->add_option("--min-time", cfg->min_time_ms, "Minimum total timed milliseconds per row")
        ->capture_default_str()->check(CLI::Range(0.0, 1.0e7));
    cmd->add_flag("--cold", cfg->cold, "Flush L2 (write 2x its size) before every timed sample");
    cmd->add_option("--json", cfg->json_path, "Write rows and device facts as JSON");
    cmd->add_option("--csv", cfg->csv_path, "Write rows as CSV");
    cmd->add_option("--seed", cfg->seed, "Random seed (default: fresh, printed)")->each([cfg](const std::string&) { cfg->seed_given = true; });
    cmd->add_option("--device", cfg->device, "gpu or cpu (the CPU blocking ladder: register blocking on one core)")
        ->capture_default_str()->check(CLI::IsMember({"gpu", "cpu"}));
    cmd->add_option("--precision", cfg->precision,
                    "default (each type's own accuracy), tf32 (float: auto may use TF32 and "
                    "cuBLAS runs CUBLAS_COMPUTE_32F_FAST_TF32) or int8_emulation (float and "
                    "double: auto runs rung 31 at the type's bound; cuBLAS runs its default); "
                    "named rungs keep their own math")
        ->capture_default_str()->check(CLI::IsMember({"default", "tf32", "int8_emulation"}));
    cmd->add_option("--inputs", cfg->inputs,
                    "A and B, as `gemmlab accuracy --inputs` names them: signed (U[-1, 1), the "
                    "default), wide (+-[1, 2) 2^e, e over [-60, 60]: where rung 31 sends "
                    "elements to its FMA pass) or near-underflow (A just above FLT_MIN)")
        ->capture_default_str()
        ->check(CLI::IsMember({to_string(Distribution::Signed), to_string(Distribution::Wide),
                               to_string(Distribution::NearUnderflow)}));
    cmd->add_option("--preset", cfg->preset,
                    "Reproduce a source document's experiment (docs/sources.md): dcu, sgemm-v, "
                    "thread-tile; or batched: "
                    "strided batched shapes (attention-like, batch 32-1024, m, n 64-512, k 64-128; "
                    "many small squares), row-major nn and nt, cublas and auto (or --kernels) in "
                    "f32, f64, bf16, f16 (or --dtype); or llm: the linear layers of four open "
                    "LLMs (hidden 2048-8192, MLP up to 28672, fused QKV) at 1-8192 tokens and "
                    "decode attention, row-major nt, cublas and auto in bf16 and f16 "
                    "(docs/workloads.md)")
        ->check(CLI::IsMember({"dcu", "sgemm-v", "thread-tile", "batched", "llm"}));
    cmd->callback([cfg, &action] { action = [cfg] {
        BenchConfig c = *cfg;
        apply_preset(c);
        if (!c.seed_given) c.seed = std::random_device{}();
        RunInfo info;
        info.command = command_line();
        info.date = utc_timestamp();
        info.seed = c.seed;
        info.cold = c.cold;
        info.cpu_name = cpu_model_name();
        info.cpu_threads = int(std::thread::hardware_concurrency());
        if (c.device == "cpu") return run_cpu_bench(c, info);
        // fp8 and int8 rows have their own bench against cuBLASLt (bench_quantized.hpp).
        const auto [quantized, others] = split_quantized_dtypes(c.dtypes);
        c.dtypes = others;
        // A bad option value is a usage error (exit 2) even on a machine without a GPU.
        parse_gpu_kernels(c.kernels);
        if (!others.empty()) parse_dtypes(c.dtypes);
        parse_layout(c.layout);
        parse_ops(c.ops);
        shapes_of(c, "1024");
        if (visible_device_count() == 0) {
            std::cerr << "gemmlab bench: no CUDA device is visible; the GPU ladder needs an NVIDIA GPU "
                         "(`gemmlab bench --device cpu` runs the CPU ladder)\n";
            return int(kExitNoGpu);
        }
        const int code = others.empty() ? int(kExitOk) : run_gpu_bench(c, info);
        if (quantized.empty()) return code;
        TimingPolicy policy;
        policy.min_samples = c.min_samples;
        policy.min_total_ms = c.min_time_ms;
        policy.flush_l2 = c.cold;
        const int q = run_quantized_bench(quantized, shapes_of(c, "4096,8192"), policy, c.seed);
        return code != kExitOk ? code : q;
    }; });
}

} // namespace gemmlab::cli
