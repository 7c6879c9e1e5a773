// The command-line tool: argument errors (exit 2 with a message and the usage), the documented
// exit code without a GPU, and the JSON bench output (CPU ladder, so no GPU is needed).

#include <array>
#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "common/device_info.hpp"

namespace {

struct Output {
    int code;
    std::string text; // stdout and stderr together
};

Output run_cli(const std::string& args) {
    const std::string cmd = std::string(GEMMLAB_CLI_PATH) + " " + args + " 2>&1";
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return {-1, "popen failed"};
    std::string text;
    std::array<char, 4096> buf{};
    while (size_t n = fread(buf.data(), 1, buf.size(), pipe)) text.append(buf.data(), n);
    const int status = pclose(pipe);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

TEST(Cli, ListShowsEveryRung) {
    const auto out = run_cli("list");
    EXPECT_EQ(out.code, 0) << out.text;
    for (const char* name : {"cublas", "naive", "coalesced", "dmma", "tf32x3", "cpu_naive", "cpu_block_4x4_k4"})
        EXPECT_NE(out.text.find(name), std::string::npos) << name;
    // Each rung's types and math: dmma is f64 only, tf32 is the one lower-precision rung.
    EXPECT_NE(out.text.find(" f64      default  tensor cores"), std::string::npos) << out.text;
    EXPECT_NE(out.text.find(" f32      tf32     tensor cores"), std::string::npos) << out.text;
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
    for (const BadArg& b : {BadArg{"bench --kernels nosuch", "'nosuch'"}, {"bench --dtype f16", "'f16'"},
                            {"bench --op nx", "'nx'"}, {"bench --shapes 3x4", "'3x4'"},
                            {"bench --sizes 12a", "'12a'"}, {"bench --layout diag", "'diag'"},
                            {"bench --preset nope", "nope"}, {"bench --reps 0", "reps"},
                            {"bench --frobnicate", "frobnicate"}, {"probe nosuch", "'nosuch'"},
                            {"verify --kernels 99", "'99'"}, {"bench --precision fp16", "fp16"},
                            {"verify --precision half", "'half'"}}) {
        const auto out = run_cli(b.args);
        EXPECT_EQ(out.code, 2) << b.args << "\n" << out.text;
        EXPECT_NE(out.text.find(b.expect), std::string::npos) << b.args << "\n" << out.text;
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
    for (const char* args : {"bench", "verify --quick", "probe clock"}) {
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
                                "min_ms", "max_ms", "gflops", "pct_cublas", "pct_peak",
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

} // namespace
