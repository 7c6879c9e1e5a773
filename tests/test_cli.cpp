// The command-line tool: argument errors (exit 2 with one line and a pointer to --help), the documented
// exit code without a GPU, the JSON bench output (CPU ladder, so no GPU is needed), and tables
// that fit in 100 columns (list, bench, probe, overhead).

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/device_info.hpp"
#include "gemmlab/parse.hpp"
#include "gemmlab/overhead.hpp"
#include "gemmlab/results.hpp"
#include "gemmlab/text.hpp"
#include "gemmlab/tune.hpp"
#include "test_support.hpp"

namespace {

gemmlab::test::CliOutput run_cli(const std::string& args) {
    return gemmlab::test::run_cli_at(GEMMLAB_CLI_PATH, args);
}

TEST(Cli, ListShowsEveryRung) {
    const auto out = run_cli("list");
    EXPECT_EQ(out.code, 0) << out.text;
    for (const char* name : {"cublas", "naive", "coalesced", "dmma", "tf32x3", "half_simt", "cpu_naive",
                             "cpu_block_4x4_k4"})
        EXPECT_NE(out.text.find(name), std::string::npos) << name;
    // Each rung's types and math: dmma is f64 only, tf32 is the one lower-precision rung, the
    // half-precision rungs have bf16 and f16, cuBLAS all four.
    EXPECT_NE(out.text.find(" f64              default tensor cores"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find(" f32              tf32    tensor cores"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find(" bf16,f16         default CUDA cores"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find(" f32,f64,bf16,f16 call    cuBLAS"), std::string::npos) << out.text;
}

// Readable at 100 columns: no line is wider (counting characters, not UTF-8 bytes), and where
// there is no GPU it says so once.
TEST(Cli, ListFitsIn100ColumnsAndSaysWhatRunsHere) {
    const auto out = run_cli("list");
    ASSERT_EQ(out.code, 0) << out.text;
    size_t start = 0;
    while (start < out.text.size()) {
        size_t end = out.text.find('\n', start);
        if (end == std::string::npos) end = out.text.size();
        const std::string line = out.text.substr(start, end - start);
        size_t columns = 0;
        for (unsigned char ch : line) columns += (ch & 0xC0) != 0x80; // UTF-8 lead bytes
        EXPECT_LE(columns, 100u) << line;
        start = end + 1;
    }
    EXPECT_NE(out.text.find(" here\n"), std::string::npos) << out.text; // the column's heading
    if (gemmlab::visible_device_count() == 0) {
        size_t count = 0;
        for (size_t p = out.text.find("no CUDA device"); p != std::string::npos;
             p = out.text.find("no CUDA device", p + 1))
            ++count;
        EXPECT_EQ(count, 1u) << out.text;
    }
}

TEST(Cli, NoSubcommandIsAUsageError) {
    const auto out = run_cli("");
    EXPECT_EQ(out.code, 2);
    EXPECT_NE(out.text.find("Usage"), std::string::npos) << out.text;
}

TEST(Cli, BadOptionValuesExitTwoAndNameTheValue) {
    struct BadArg {
        const char* args;
        const char* expect;
    };
    for (const BadArg& b : {BadArg{"bench --kernels nosuch", "'nosuch'"}, {"bench --dtype f8", "'f8'"},
                            {"bench --dtype bf16-f64", "'bf16-f64'"},
                            {"bench --device cpu --dtype bf16", "f32 and f64 only"},
                            {"bench --op nx", "'nx'"}, {"bench --shapes 3x4", "'3x4'"},
                            {"bench --sizes 12a", "'12a'"}, {"bench --layout diag", "'diag'"},
                            {"bench --preset nope", "nope"}, {"bench --reps 0", "reps"},
                            {"bench --frobnicate", "frobnicate"}, {"probe nosuch", "'nosuch'"},
                            {"verify --kernels 99", "'99'"}, {"bench --precision fp16", "fp16"},
                            {"verify --precision half", "'half'"}, {"bench --batch x", "'x'"},
                            {"bench --shapes 4x4x4@", "MxNxK@B"}, {"bench --shapes 4x4x4@-1", "'-1'"},
                            {"bench --device cpu --batch 2", "single products"},
                            {"bench --inputs huge", "huge"},
                            {"bench --device cpu --inputs wide", "signed uniform inputs only"},
                            {"bench --inputs same-sign", "same-sign"},
                            {"overhead --dtype f8", "'f8'"},
                            {"overhead --kernels nosuch", "'nosuch'"}, {"overhead --sizes 12a", "'12a'"},
                            {"overhead --tables both", "'both'"}, {"overhead --calls 0", "1 to 100000"},
                            {"overhead --sizes 0", "at least 1"},
                            {"tune --dtype f8", "'f8'"}, {"tune --dtype ,", "no type given"},
                            {"tune --precision half", "'half'"}, {"tune --budget 0", "1 to 86400"},
                            {"tune --budget soon", "soon"}, {"tune --frobnicate", "frobnicate"},
                            {"tune --explain 64x64", "'64x64' is not MxNxK"},
                            {"tune --explain 64x64x64 --op nq", "'nq'"},
                            {"tune --explain 64x64x64 --layout diagonal", "'diagonal'"}}) {
        const auto out = run_cli(b.args);
        EXPECT_EQ(out.code, 2) << b.args << "\n" << out.text;
        EXPECT_NE(out.text.find(b.expect), std::string::npos) << b.args << "\n" << out.text;
    }
}

// A bad flag or value prints its one-line message and a pointer to the subcommand's --help,
// not the whole usage.
TEST(Cli, BadFlagPrintsOneLineAndAPointerToHelp) {
    struct Bad {
        const char* args;
        const char* command; // what the pointer names
    };
    for (const Bad& b : {Bad{"bench --frobnicate", "gemmlab bench"}, {"bench --reps 0", "gemmlab bench"},
                         {"bench --kernels nosuch", "gemmlab bench"}, {"bench --sizes 12a", "gemmlab bench"},
                         {"tune --budget soon", "gemmlab tune"}, {"list --all", "gemmlab list"},
                         {"verify --precision half", "gemmlab verify"}, {"--nosuch", "gemmlab"}}) {
        const auto out = run_cli(b.args);
        EXPECT_EQ(out.code, 2) << b.args << "\n" << out.text;
        const std::string pointer = std::string("Run '") + b.command + " --help' for the options.\n";
        ASSERT_GE(out.text.size(), pointer.size()) << b.args << "\n" << out.text;
        EXPECT_EQ(out.text.substr(out.text.find('\n') + 1), pointer) << b.args << "\n" << out.text;
        EXPECT_EQ(out.text.rfind(std::string(b.command) + ": ", 0), 0u) << b.args << "\n" << out.text;
        for (const char* usage : {"Usage", "Options:", "Subcommands:", "--help  "})
            EXPECT_EQ(out.text.find(usage), std::string::npos) << b.args << ": " << usage << " in\n" << out.text;
    }
    // A first word that is no subcommand is named, with the subcommands there are.
    for (const char* word : {"--nosuch", "benchh"}) {
        const auto out = run_cli(word);
        EXPECT_EQ(out.code, 2) << out.text;
        EXPECT_NE(out.text.find(std::string("'") + word + "' is not a subcommand (list, bench, verify"),
                  std::string::npos) << out.text;
    }
}

TEST(Cli, OutOfRangeNumbersNameTheAllowedRangeInOneShortLine) {
    for (const char* args : {"bench --reps 0", "bench --min-time -1"}) {
        const auto out = run_cli(args);
        EXPECT_EQ(out.code, 2) << out.text;
        const std::string first = out.text.substr(0, out.text.find('\n'));
        EXPECT_LT(first.size(), 100u) << first;
        EXPECT_NE(first.find(" to "), std::string::npos) << first;
    }
    EXPECT_NE(run_cli("bench --reps 0").text.find("1 to 1000000"), std::string::npos);
}

TEST(Cli, NoGpuIsAOneLineErrorWithExitThree) {
    if (gemmlab::visible_device_count() > 0) GTEST_SKIP() << "a GPU is visible";
    for (const char* args : {"bench", "verify --quick", "probe clock", "overhead", "tune --budget 1",
                             "tune --explain 64x64x64"}) {
        const auto out = run_cli(args);
        EXPECT_EQ(out.code, 3) << args << "\n" << out.text;
        EXPECT_NE(out.text.find("no CUDA device"), std::string::npos) << out.text;
    }
}

// A shape whose buffers cannot fit (C alone is 160 GB) is named with the bytes it needs and
// skipped; the next shape still runs, and nothing prints a source path.
TEST(Cli, BenchSkipsAShapeTooLargeForTheGpuAndGoesOn) {
    if (gemmlab::visible_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const auto out = run_cli("bench --shapes 200000x200000x8,64x64x64 --kernels naive --reps 1 "
                             "--min-time 1 --seed 1");
    EXPECT_EQ(out.code, 0) << out.text;
    EXPECT_NE(out.text.find("skipped f32 row nn 200000x200000x8"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("bytes) of GPU memory"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find("PASS"), std::string::npos) << out.text; // 64x64x64 ran
    for (const char* leak : {".hpp", ".cu:", "reinterpret_cast"})
        EXPECT_EQ(out.text.find(leak), std::string::npos) << leak << " in:\n" << out.text;
}

// Batched shapes: MxNxK@B keeps its own batch, the others run at every --batch count; the
// FLOP count (GFLOP/s) covers all batches.
TEST(Cli, BatchedShapesAndTheirFlops) {
    namespace cli = gemmlab::cli;
    const auto shapes = cli::parse_shapes("64x32x16@512,8x8x8", {1, 3});
    ASSERT_EQ(shapes.size(), 3u);
    EXPECT_EQ(shapes[0].m, 64);
    EXPECT_EQ(shapes[0].n, 32);
    EXPECT_EQ(shapes[0].k, 16);
    EXPECT_EQ(shapes[0].batch, 512);
    EXPECT_EQ(shapes[1].batch, 1);
    EXPECT_EQ(shapes[2].batch, 3);
    EXPECT_EQ(cli::parse_sizes("10", {0, 7}).back().batch, 7);
    EXPECT_DOUBLE_EQ(cli::gemm_flops(shapes[0]), 2.0 * 64 * 32 * 16 * 512);
    cli::Case c{cli::DType::F32, gemmlab::Layout::RowMajor, gemmlab::Op::N, gemmlab::Op::T, shapes[0]};
    EXPECT_TRUE(c.batched());
    EXPECT_NE(c.describe().find("64x32x16 batch=512"), std::string::npos) << c.describe();
    c.shape.batch = 1;
    EXPECT_FALSE(c.batched());
    EXPECT_EQ(c.describe().find("batch"), std::string::npos) << c.describe();
}

// The overhead benchmark end to end, small: both tables, JSON and CSV with their fields, one
// target line per table, and every line within 100 columns.
TEST(Cli, OverheadWritesBothTablesJsonAndCsv) {
    if (gemmlab::visible_device_count() == 0) GTEST_SKIP() << "no CUDA device";
    const std::string path = ::testing::TempDir() + "gemmlab_overhead.json";
    const std::string csv = ::testing::TempDir() + "gemmlab_overhead.csv";
    const auto out = run_cli("overhead --sizes 16,64 --calls 32 --samples 3 --reps 5 --warmup 2 --seed 5 "
                             "--json " + path + " --csv " + csv);
    ASSERT_EQ(out.code, 0) << out.text;
    for (const char* text : {"Host cost per call", "Synchronized latency", "empty kernel launch",
                             "gemmlab auto", "gemmlab cublas (rung 0)", "cuBLAS direct (cublasSgemm_64)",
                             "host cost per call", "synchronized latency <= cuBLAS direct at"})
        EXPECT_NE(out.text.find(text), std::string::npos) << text << "\n" << out.text;
    std::istringstream lines(out.text);
    for (std::string line; std::getline(lines, line);)
        EXPECT_LE(gemmlab::cli::display_width(line), gemmlab::cli::kLineWidth) << line;
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["schema"], "gemmlab-overhead-1");
    EXPECT_EQ(j["seed"], 5);
    ASSERT_EQ(j["enqueue"].size(), 10u); // launch, six parts, rung 0, auto, cuBLAS direct
    for (const auto& row : j["enqueue"]) {
        for (const char* key : {"dtype", "call", "calls_per_sample", "host_us_median", "calls_per_s",
                                "drained_us_median", "vs_launch"})
            EXPECT_TRUE(row.contains(key)) << key;
        EXPECT_GT(row["host_us_median"].get<double>(), 0.0) << row["call"];
    }
    ASSERT_EQ(j["latency"].size(), 2u * 3); // sizes x (cuBLAS direct, rung 0, auto)
    for (const auto& row : j["latency"]) {
        for (const char* key : {"m", "call", "median_us", "min_us", "p90_us", "vs_cublas", "pass"})
            EXPECT_TRUE(row.contains(key)) << key;
        EXPECT_TRUE(row["pass"].get<bool>()) << row;
        EXPECT_LE(row["min_us"].get<double>(), row["median_us"].get<double>());
    }
    EXPECT_EQ(j["targets"].size(), 2u);
    std::ifstream csv_in(csv);
    std::string header, first;
    std::getline(csv_in, header);
    std::getline(csv_in, first);
    EXPECT_EQ(header.rfind("table,dtype,call,kernel", 0), 0u) << header;
    EXPECT_EQ(first.rfind("enqueue,f32,\"empty kernel launch <<<1, 32>>>\"", 0), 0u) << first;
}

TEST(Cli, ProbeListNamesEveryProbeWithItsSeedSection) {
    const auto out = run_cli("probe --list");
    EXPECT_EQ(out.code, 0) << out.text;
    for (const char* name : {"clock", "launch-rate", "latency", "smem-bank", "batchnorm", "bandwidth"})
        EXPECT_NE(out.text.find(name), std::string::npos) << name;
    EXPECT_NE(out.text.find("2.9.2"), std::string::npos);
}

TEST(Cli, CpuBenchWritesJsonWithTheDocumentedFields) {
    const std::string path = ::testing::TempDir() + "gemmlab_cpu_bench.json";
    const std::string csv = ::testing::TempDir() + "gemmlab_cpu_bench.csv";
    const auto out = run_cli("bench --device cpu --sizes 33,64 --dtype f32,f64 --op nn,tn --min-time 1 "
                             "--reps 1 --seed 42 --json " + path + " --csv " + csv);
    ASSERT_EQ(out.code, 0) << out.text;
    EXPECT_NE(out.text.find("PASS"), std::string::npos);
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    for (const char* key : {"schema", "command", "date", "seed", "cpu", "device", "rows"})
        EXPECT_TRUE(j.contains(key)) << key;
    EXPECT_EQ(j["seed"], 42);
    ASSERT_EQ(j["rows"].size(), 4u * 2 * 2 * 2); // rungs x sizes x dtypes x ops
    for (const auto& row : j["rows"]) {
        for (const char* key : {"kernel", "number", "dtype", "layout", "op", "m", "n", "k", "median_ms",
                                "min_ms", "max_ms", "gflops", "pct_cublas", "pct_peak", "peak_pipe",
                                "worst_error_over_bound", "pass"})
            EXPECT_TRUE(row.contains(key)) << key;
        EXPECT_TRUE(row["pass"].get<bool>());
        EXPECT_GT(row["gflops"].get<double>(), 0.0);
        EXPECT_LE(row["min_ms"].get<double>(), row["median_ms"].get<double>());
    }
    std::ifstream csv_in(csv);
    std::string header;
    std::getline(csv_in, header);
    EXPECT_EQ(header.rfind("number,kernel,device,dtype", 0), 0u) << header;
}

TEST(Cli, CpuLadderRunsSeedZeroProblem) {
    const auto out = run_cli("bench --device cpu --shapes 64x64x128 --dtype f64 --op tn --alpha 2 --beta 3 "
                             "--layout row --min-time 1 --reps 1");
    EXPECT_EQ(out.code, 0) << out.text;
    EXPECT_NE(out.text.find("cpu_block_4x4_k4"), std::string::npos);
}

// Every line of `text` fits in gemmlab::cli::kLineWidth (100) columns.
void expect_fits(const std::string& text, const std::string& what) {
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        EXPECT_LE(gemmlab::cli::display_width(line), gemmlab::cli::kLineWidth)
            << what << ", line " << n << " (" << gemmlab::cli::display_width(line) << " columns):\n" << line;
    }
    EXPECT_GT(n, 0) << what;
}

TEST(Cli, ListFitsInOneHundredColumns) {
    const auto out = run_cli("list");
    ASSERT_EQ(out.code, 0) << out.text;
    expect_fits(out.text, "gemmlab list");
    // The technique is still there, wrapped under its rung.
    EXPECT_NE(out.text.find("the yardstick"), std::string::npos) << out.text;
}

TEST(Cli, CpuBenchTableFitsInOneHundredColumns) {
    const auto out = run_cli("bench --device cpu --shapes 1x1x1,65x33x17 --dtype f32,f64 --op nn,tt --min-time 1 "
                             "--reps 1 --seed 3 --beta 0.5 --alpha -1.25");
    ASSERT_EQ(out.code, 0) << out.text;
    expect_fits(out.text, "gemmlab bench --device cpu");
    EXPECT_NE(out.text.find("f64 row tt 65x33x17"), std::string::npos) << out.text; // case heading
}

TEST(Cli, ProbeListFitsInOneHundredColumns) {
    const auto out = run_cli("probe --list");
    ASSERT_EQ(out.code, 0) << out.text;
    expect_fits(out.text, "gemmlab probe --list");
}

// %peak is against the pipe the row computes on: a TF32 rung against the TF32 tensor cores, not
// the FP32 FMA pipes (which would put rung 25 at 5x its peak), and so on for each engine.
TEST(Peak, EachRowIsMeasuredAgainstItsEnginesPeak) {
    using namespace gemmlab::cli;
    using gemmlab::Precision;
    const auto pipe = [](const char* k, DType dt, Precision p = Precision::Default, int major = 9, int minor = 0) {
        return peak_pipe(k, dt, p, major, minor);
    };
    EXPECT_EQ(pipe("naive", DType::F32), PeakPipe::Fp32Fma);
    EXPECT_EQ(pipe("naive", DType::F64), PeakPipe::Fp64Fma);
    EXPECT_EQ(pipe("small", DType::F64), PeakPipe::Fp64Fma);
    EXPECT_EQ(pipe("small", DType::F32), PeakPipe::Fp32Fma);
    EXPECT_EQ(pipe("small", DType::BF16), PeakPipe::HalfTensor); // mma.sync for 16-bit inputs
    EXPECT_EQ(pipe("decode", DType::F16_F32), PeakPipe::HalfTensor);
    EXPECT_EQ(pipe("dmma", DType::F64), PeakPipe::Fp64Tensor);
    EXPECT_EQ(pipe("tf32", DType::F32, Precision::Tf32), PeakPipe::Tf32Tensor);
    EXPECT_EQ(pipe("wgmma_tf32", DType::F32, Precision::Tf32), PeakPipe::Tf32Tensor);
    EXPECT_EQ(pipe("tf32x3", DType::F32), PeakPipe::Tf32Tensor);
    EXPECT_EQ(pipe("wgmma_tf32x3", DType::F32), PeakPipe::Tf32Tensor);
    EXPECT_EQ(pipe("persistent", DType::BF16), PeakPipe::HalfTensor);
    EXPECT_EQ(pipe("mma_sync_f16", DType::F16_F32), PeakPipe::HalfTensor);
    EXPECT_EQ(pipe("half_simt", DType::BF16), PeakPipe::Fp32Fma); // BF16 converted, FP32 FMAs
    EXPECT_EQ(pipe("cublas", DType::F32), PeakPipe::Fp32Fma);       // SGEMM
    EXPECT_EQ(pipe("cublas", DType::F32, Precision::Tf32), PeakPipe::Tf32Tensor);
    EXPECT_EQ(pipe("cublas", DType::F64), PeakPipe::Fp64Tensor);    // DGEMM runs DMMA on sm_90
    EXPECT_EQ(pipe("cublas", DType::F64, Precision::Default, 8, 6), PeakPipe::Fp64Fma);
    EXPECT_EQ(pipe("auto", DType::F32), PeakPipe::Tf32Tensor);      // 3xTF32
    EXPECT_EQ(pipe("auto", DType::F32, Precision::Default, 7, 5), PeakPipe::Fp32Fma);
    EXPECT_EQ(pipe("auto", DType::BF16), PeakPipe::HalfTensor);
    EXPECT_EQ(pipe("nosuch", DType::F32), PeakPipe::None);

    // FLOP per clock per SM on an H100: 128 FP32 and 64 FP64 FMA lanes; tensor cores dense.
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::Fp32Fma, 9, 0), 256);
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::Fp64Fma, 9, 0), 128);
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::Fp64Tensor, 9, 0), 256);
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::Tf32Tensor, 9, 0), 2048);
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::HalfTensor, 9, 0), 4096);
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::Tf32Tensor, 7, 5), 0); // not known: no %peak
    EXPECT_EQ(peak_flop_per_clk_sm(PeakPipe::None, 9, 0), 0);

    // Every GPU rung, in every type it takes, has a pipe whose H100 peak is known.
    for (const auto& info : gemmlab::gpu_kernels())
        for (DType dt : kAllDTypes)
            if (info.supports(input_type(dt)))
                EXPECT_GT(peak_flop_per_clk_sm(peak_pipe(info.name, dt, check_precision(std::string(info.name), dt,
                                                                                       Precision::Default),
                                                         9, 0),
                                               9, 0),
                          0)
                    << info.name << " " << to_string(dt);
}

// Under each case the table says which pipe each row's %peak is of, by rung number.
TEST(Peak, TableNamesThePipeOfEachRow) {
    using namespace gemmlab::cli;
    std::vector<BenchRow> rows;
    auto add = [&](const char* kernel, int number, PeakPipe pipe) {
        BenchRow r;
        r.kernel = kernel;
        r.number = number;
        r.device = "gpu";
        r.spec = Case{DType::F32, gemmlab::Layout::RowMajor, gemmlab::Op::N, gemmlab::Op::N,
                      {64, 64, 64}, 1.0, 0.0, 0, gemmlab::FillKind::Uniform};
        r.gflops = 1;
        r.pct_peak = 50.0;
        r.peak_pipe = pipe;
        r.result.launched = true;
        r.result.check.pass = true;
        rows.push_back(r);
    };
    add("cublas", 0, PeakPipe::Fp32Fma);
    add("naive", 1, PeakPipe::Fp32Fma);
    add("coalesced", 2, PeakPipe::Fp32Fma);
    add("tf32", 16, PeakPipe::Tf32Tensor);
    add("small", 27, PeakPipe::Fp32Fma);
    add("auto", -1, PeakPipe::Tf32Tensor);
    std::ostringstream os;
    print_table(os, rows);
    EXPECT_NE(os.str().find("%peak of: FP32 FMA 0-2, 27; TF32 tensor cores 16, auto"), std::string::npos)
        << os.str();
    expect_fits(os.str(), "bench table with its %peak legend");
}

// The GPU bench table's worst cases, rendered directly: the longest rung name, large numbers,
// an error row with a long message and a failed check.
TEST(Tables, BenchTableFitsWithLongNamesAndErrors) {
    using namespace gemmlab::cli;
    BenchRow ok;
    ok.kernel = "register_prefetch_global";
    ok.number = 4;
    ok.device = "gpu";
    ok.spec = Case{DType::F64, gemmlab::Layout::ColMajor, gemmlab::Op::T, gemmlab::Op::T,
                   {123456789, 987654321, 1234567}, -1.25, 0.75, 0, gemmlab::FillKind::Uniform};
    ok.timing.median_ms = 98765.4321;
    ok.timing.min_ms = 0.0001;
    ok.timing.max_ms = 99999999.0;
    ok.gflops = 987654.3;
    ok.pct_cublas = 12345.6;
    ok.pct_peak = 100.0;
    ok.result.launched = true;
    ok.result.check.pass = true;
    ok.result.check.worst_ratio = 1.23456e-300;
    BenchRow err = ok;
    err.kernel = "auto";
    err.number = -1;
    err.result.launched = false;
    err.result.error = "CudaError: cudaMalloc failed: out of memory (cudaErrorMemoryAllocation); " +
                       std::string(150, 'x') + " and more words after a very long one";
    BenchRow noisy = ok; // a short CPU run on a loaded machine: samples 1000x apart
    noisy.timing.median_ms = 0.0012;
    noisy.timing.max_ms = 9.5;
    BenchRow bad = ok;
    bad.result.check.pass = false;
    bad.result.check.worst_ratio = 1e300;
    std::ostringstream os;
    print_table(os, {ok, err, noisy, bad});
    expect_fits(os.str(), "bench table");
    EXPECT_NE(os.str().find("f64 col tt 123456789x987654321x1234567"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("out of memory"), std::string::npos) << os.str();
}

// The overhead report's worst cases, rendered directly: the longest labels, an error row with
// a long message, a failed check, large numbers, and the target lines (one met, one missed).
TEST(Tables, OverheadReportFitsAndStatesTheTargets) {
    using namespace gemmlab::cli;
    OverheadReport r;
    r.info.seed = 123456789012345ull;
    r.info.cpu_name = "Intel(R) Xeon(R) Platinum 8480+ with a very long model name for good measure";
    r.info.cpu_threads = 224;
    r.schedule = "auto (cudaDeviceScheduleAuto: spin while CPU cores outnumber GPUs)";
    r.calls_per_sample = 512;
    r.enqueue_samples = 30;
    r.latency_reps = 200;
    r.warmup = 20;
    const auto stats = [](double median) {
        UsStats s;
        s.median = median;
        s.min = median * 0.9;
        s.p90 = median * 1.1;
        s.max = median * 123456;
        s.samples = 30;
        return s;
    };
    for (auto [call, kernel, us] : {std::tuple{"empty kernel launch <<<1, 32>>>", "", 4.4},
                                    {"part: same via cudaPointerGetAttributes", "", 0.31},
                                    {"gemmlab cluster_multicast", "cluster_multicast", 123456.78},
                                    {"gemmlab auto", "auto", 4.1},
                                    {"cuBLAS direct (cublasGemmEx_64)", "", 11.0}}) {
        EnqueueRow e;
        e.dtype = DType::BF16_F32;
        e.call = call;
        e.kernel = kernel;
        e.calls_per_sample = 512;
        e.host = stats(us);
        e.drained = stats(us * 2);
        e.vs_launch = us / 4.4;
        r.enqueue.push_back(e);
    }
    for (int64_t size : {16, 512}) {
        LatencyRow l;
        l.dtype = DType::BF16_F32;
        l.shape = {size, size, size};
        l.call = "cuBLAS direct (cublasGemmEx_64)";
        l.latency = stats(9.5);
        l.vs_cublas = 1.0;
        r.latency.push_back(l);
        l.call = "gemmlab auto";
        l.kernel = "auto";
        l.latency = stats(size == 16 ? 7.0 : 10.5);
        l.vs_cublas = l.latency.median / 9.5;
        l.check = gemmlab::reference::CheckResult{};
        l.check->worst_ratio = 1.23456e-300;
        r.latency.push_back(l);
        l.call = "gemmlab cluster_multicast";
        l.kernel = "cluster_multicast";
        l.vs_cublas.reset();
        l.check.reset();
        l.error = "UnsupportedDevice: kernel 'cluster_multicast' (rung 23) needs sm_90a " + std::string(120, 'x');
        r.latency.push_back(l);
    }
    r.latency[1].check->pass = false;
    r.targets = overhead_targets(r);
    std::ostringstream os;
    print_overhead(os, r);
    expect_fits(os.str(), "overhead report");
    const std::string text = os.str();
    const std::vector<std::string> want = {
        "target: bf16-f32 gemmlab cluster_multicast: host cost per call 28058.36x an empty-kernel "
        "launch (<= 1.2x): MISSED",
        // the error rows count as missed
        "target: bf16-f32 gemmlab cluster_multicast: synchronized latency <= cuBLAS direct at 0 of 2 "
        "sizes (errors at 16^3, 512^3): MISSED",
        "target: bf16-f32 gemmlab auto: host cost per call 0.93x an empty-kernel launch (<= 1.2x): met",
        "target: bf16-f32 gemmlab auto: synchronized latency <= cuBLAS direct at 1 of 2 sizes "
        "(worst 1.11x at 512^3): MISSED"};
    EXPECT_EQ(r.targets, want);
    EXPECT_NE(text.find("target: bf16-f32 gemmlab auto: host cost"), std::string::npos) << text;
    EXPECT_NE(text.find("needs sm_90a"), std::string::npos) << text;
    EXPECT_NE(text.find("FAIL"), std::string::npos) << text;
    std::ostringstream csv;
    write_overhead_csv(csv, r);
    EXPECT_NE(csv.str().find("enqueue,bf16-f32,\"empty kernel launch <<<1, 32>>>\","), std::string::npos)
        << csv.str();
    const nlohmann::json j = overhead_json(r);
    EXPECT_EQ(j["latency"][2]["pass"], false);
    EXPECT_TRUE(j["latency"][2].contains("error"));
}

TEST(Tables, WrapWords) {
    using gemmlab::cli::wrap_words;
    EXPECT_EQ(wrap_words("", 10), std::vector<std::string>{});
    EXPECT_EQ(wrap_words("a bb ccc dddd", 6), (std::vector<std::string>{"a bb", "ccc", "dddd"}));
    EXPECT_EQ(wrap_words("  spaced   out  ", 20), (std::vector<std::string>{"spaced out"}));
    EXPECT_EQ(wrap_words("short averyveryverylongword x", 8),
              (std::vector<std::string>{"short", "averyver", "yverylon", "gword x"}));
    EXPECT_EQ(wrap_words("§§§§§", 2), (std::vector<std::string>{"§§", "§§", "§"})); // cut by columns
    EXPECT_EQ(gemmlab::cli::display_width("Vega10 §2.6"), 11u); // § is one column, two bytes
}

TEST(Tables, WrapParagraphIndentsContinuationLines) {
    const std::string out = gemmlab::cli::wrap_paragraph("  -> ", std::string(30, 'a') + " " + std::string(30, 'b'), 5, 40);
    EXPECT_EQ(out, "  -> " + std::string(30, 'a') + "\n     " + std::string(30, 'b') + "\n");
}

// Probe tables: the widest real ones (8 columns of long headers) print in parts that each fit,
// every value still appears, and a narrow table stays in one piece.
TEST(Tables, ProbeTablesFitInOneHundredColumns) {
    gemmlab::probe::Table wide;
    wide.title = "warp divergence: time of one loop whose body takes one of P paths, with the paths "
                 "chosen within a warp or across warps (one block per SM, 8 warps)";
    wide.columns = {"paths", "within a warp", "within a warp", "across warps", "across warps",
                    "selected operands", "slowdown within a warp", "slowdown across warps"};
    wide.units = {"count", "cycles", "ns", "cycles", "ns", "cycles", "x", "x"};
    wide.rows = {{1, 66610, 33641.5, 66610, 33641.5, 66242, 1, 1},
                 {32, 2.12095e+06, -1.07119e+06, 69333, 35016.7, 66242, 31.8413, 1.04088}};
    const std::string text = gemmlab::cli::format_probe_table(wide);
    expect_fits(text, "8-column probe table");
    EXPECT_NE(text.find("(part 2 of"), std::string::npos) << text;
    for (const char* v : {"66610", "33641.5", "2.12095e+06", "-1.07119e+06", "31.8413", "1.04088"})
        EXPECT_NE(text.find(v), std::string::npos) << v << "\n" << text;
    for (const char* word : {"slowdown", "selected", "operands", "(count)"})
        EXPECT_NE(text.find(word), std::string::npos) << word << "\n" << text;

    gemmlab::probe::Table narrow;
    narrow.title = "clock";
    narrow.columns = {"sample", "spin time", "median SM clock"};
    narrow.units = {"index", "ms", "MHz"};
    narrow.rows = {{0, 10, 1980}};
    const std::string small = gemmlab::cli::format_probe_table(narrow);
    expect_fits(small, "3-column probe table");
    EXPECT_EQ(small.find("(part"), std::string::npos) << small;
    // Headers never run into each other: "spin time (ms)" and "median SM clock" stay apart.
    EXPECT_EQ(small.find("(ms)median"), std::string::npos) << small;
}

// ------------------------------------------------------------------------------ tune

gemmlab::detail::TuneEntry tune_entry(const char* type, int64_t m, int64_t n, int64_t k, const char* winner,
                                      int splits, double ns, const char* model, int model_splits,
                                      double model_ns) {
    gemmlab::detail::TuneEntry e;
    e.type = type;
    e.shape = {m, n, k};
    e.candidate = winner;
    e.splits = splits;
    e.ns = ns;
    e.model_candidate = model;
    e.model_splits = model_splits;
    e.model_ns = model_ns;
    return e;
}

// The plan runs the cheapest classes first, every type key at each class, and covers them all.
TEST(Tune, PlanGoesFromTheCheapestClassAndCoversEverySlot) {
    using gemmlab::detail::TuneType;
    const auto plan = gemmlab::cli::tune_plan({TuneType::F32, TuneType::BF16});
    ASSERT_EQ(plan.size(), size_t(2 * gemmlab::detail::kShapeClassCount));
    EXPECT_EQ(plan[0].type, TuneType::F32);
    EXPECT_EQ(plan[1].type, TuneType::BF16);
    EXPECT_EQ(gemmlab::detail::class_name(plan[0].shape_class), "m64 n64 k64");
    EXPECT_EQ(gemmlab::detail::class_name(plan.back().shape_class), "m4096 n4096 k16384");
    double last = 0;
    for (const auto& slot : plan) {
        const auto s = gemmlab::detail::representative(slot.shape_class);
        const double flops = double(s.m) * double(s.n) * double(s.k);
        EXPECT_GE(flops, last);
        last = flops;
    }
}

// The longest names and classes, a skipped slot, a spent budget: within 100 columns, and the
// summary per type says how many slots changed.
TEST(Tune, ReportFitsAndSummarizesEachType) {
    using namespace gemmlab::cli;
    TuneReport r;
    r.planned = 1715;
    r.elapsed_s = 90.4;
    r.budget_spent = true;
    r.skipped = {"skipped f64 col nn 4096x4096x16384 alpha=1 beta=0: needs 2.5 GiB (2684354560 bytes) "
                 "of GPU memory; 1.0 GiB of 80 GiB free"};
    r.entries = {tune_entry("f32", 4096, 4096, 16384, "wgmma_tf32x3 128x128x32 s3 persistent", 16, 123456789.0,
                            "warp_tile 128x256x16", 1, 223456789.0),
                 tune_entry("bf16-f32", 64, 64, 16384, "persistent 128x256x64 ws", 16, 12.5,
                            "persistent 128x256x64 ws", 8, 20.0),
                 tune_entry("f32-tf32", 64, 64, 64, "tf32 64x64x32 w32x32 s4", 1, 5000, "tf32 64x64x32 w32x32 s4", 1, 5000)};
    std::ostringstream os;
    print_tune_report(os, r, 90);
    expect_fits(os.str(), "tune report");
    EXPECT_NE(os.str().find("tuned 3 of 1715 slots"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("m4096 n4096 k16384"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("1.81x"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("f32-tf32: 1 slots, 0 changed"), std::string::npos) << os.str();
    EXPECT_NE(os.str().find("bf16-f32: 1 slots, 1 changed (geomean 1.60x"), std::string::npos) << os.str();
}

// A cache already at the path keeps its slots that this run did not measure, when it is this
// device's; a stale one, and entries auto would not use, are not carried over.
TEST(Tune, MergeKeepsTheOtherSlotsOfTheSameDevice) {
    using namespace gemmlab::cli;
    gemmlab::detail::TuneKey key;
    key.gpu_name = "NVIDIA H100 80GB HBM3";
    key.sm_count = 132;
    gemmlab::detail::TuneFile old;
    old.key = key;
    old.entries = {tune_entry("f64", 64, 64, 64, "warp_tile 64x64x8", 1, 10, "warp_tile 64x64x8", 1, 10),
                   tune_entry("f32", 64, 64, 64, "warp_tile 128x64x8", 1, 10, "warp_tile 64x64x8", 1, 11),
                   tune_entry("f32", 128, 64, 64, "no such candidate", 1, 10, "warp_tile 64x64x8", 1, 11),
                   tune_entry("f32", 100, 64, 64, "warp_tile 64x64x8", 1, 10, "warp_tile 64x64x8", 1, 11)};
    const std::vector<gemmlab::detail::TuneEntry> fresh = {
        tune_entry("f32", 64, 64, 64, "warp_tile 64x64x8", 1, 9, "warp_tile 64x64x8", 1, 9)};
    const auto merged = merged_tune_file(old, key, fresh, "now");
    ASSERT_EQ(merged.entries.size(), 2u);
    EXPECT_EQ(merged.entries[0].type, "f64");
    EXPECT_EQ(merged.entries[1].ns, 9);
    EXPECT_EQ(merged.tuned_at, "now");

    gemmlab::detail::TuneKey other = key;
    other.sm_clock_mhz = 1;
    EXPECT_EQ(merged_tune_file(old, other, fresh, "now").entries.size(), 1u);
    EXPECT_EQ(merged_tune_file(std::nullopt, key, fresh, "now").entries.size(), 1u);
}

} // namespace
