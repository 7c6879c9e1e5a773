// Messages that reach users: CUDA/cuBLAS failures name the API function and the error, never a
// source path or the call's argument casts (those only with GEMMLAB_DEBUG or in debug builds),
// a shape too large for the GPU is named with the bytes it needs, and a bad command line gets
// one line and a pointer to --help. CPU only.

#include <algorithm>
#include <string>
#include <vector>
#include <utility>

#include <gtest/gtest.h>

#include "common/cuda_check.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/commands.hpp"

namespace {

using gemmlab::format_bytes;
using gemmlab::detail::called_function;
using gemmlab::detail::failure_message;
namespace cli = gemmlab::cli;

TEST(FailureMessage, NamesTheFunctionAndTheErrorWithoutCallTextOrPath) {
    const std::string call = "cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T))";
    const std::string msg = failure_message(call, "out of memory", "cudaErrorMemoryAllocation",
                                            "/work/src/common/device_buffer.hpp", 19, false);
    EXPECT_EQ(msg, "cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)");
    for (const char* leak : {"reinterpret_cast", "/", ".hpp", ":19", "sizeof"})
        EXPECT_EQ(msg.find(leak), std::string::npos) << leak << " in: " << msg;
}

TEST(FailureMessage, DevelopersGetTheCallAndItsLocation) {
    const std::string msg = failure_message("cublasGemmEx(h, a, b)", "the GPU program failed to execute",
                                            "CUBLAS_STATUS_EXECUTION_FAILED", "src/gemm/x.cu", 42, true);
    EXPECT_EQ(msg, "cublasGemmEx failed: the GPU program failed to execute (CUBLAS_STATUS_EXECUTION_FAILED)"
                   " [cublasGemmEx(h, a, b) at src/gemm/x.cu:42]");
}

TEST(FailureMessage, CalledFunction) {
    EXPECT_EQ(called_function("cudaMemcpyAsync(dst, src, n, kind, s)"), "cudaMemcpyAsync");
    EXPECT_EQ(called_function("cudaGetLastError ()"), "cudaGetLastError");
    EXPECT_EQ(called_function("kernel launch"), "kernel launch");
    EXPECT_EQ(called_function("(x)"), "(x)");
}

TEST(FormatBytes, ReadableUnits) {
    EXPECT_EQ(format_bytes(0), "0 B");
    EXPECT_EQ(format_bytes(1023), "1023 B");
    EXPECT_EQ(format_bytes(1024), "1.00 KiB");
    EXPECT_EQ(format_bytes(1.5 * (1 << 20)), "1.50 MiB");
    EXPECT_EQ(format_bytes(80.0 * (1ull << 30)), "80.0 GiB");
    EXPECT_EQ(format_bytes(960e9), "894 GiB");
    EXPECT_EQ(format_bytes(3.0 * (1ull << 40)), "3.00 TiB");
}

cli::Case case_of(cli::DType dt, gemmlab::Layout layout, cli::Shape s) {
    return {dt, layout, gemmlab::Op::N, gemmlab::Op::N, s, 1.0, 0.0, 0, gemmlab::FillKind::Uniform};
}

TEST(TooLarge, DeviceBytesCountEveryBuffer) {
    using cli::DeviceProblem;
    using cli::ReferenceSource;
    // f32 1000 x 2000 x 3000: A 3e6, B 6e6, C0 and C 2e6 each, 4 B each; the GPU reference adds
    // two doubles per element of C.
    const cli::Case f32 = case_of(cli::DType::F32, gemmlab::Layout::RowMajor, {1000, 2000, 3000});
    EXPECT_DOUBLE_EQ(DeviceProblem::device_bytes(f32, ReferenceSource::Cpu), 4.0 * (3e6 + 6e6 + 4e6));
    EXPECT_DOUBLE_EQ(DeviceProblem::device_bytes(f32, ReferenceSource::Gpu),
                     4.0 * (3e6 + 6e6 + 4e6) + 16.0 * 2e6);
    cli::Case f64 = case_of(cli::DType::F64, gemmlab::Layout::ColMajor, {1000, 2000, 3000});
    f64.ld_pad = 1; // column-major: ld = rows + 1
    EXPECT_DOUBLE_EQ(DeviceProblem::device_bytes(f64, ReferenceSource::Cpu),
                     8.0 * (1001.0 * 3000 + 3001.0 * 2000 + 2 * 1001.0 * 2000));
    // The half types: A and B 2 bytes, C 2 bytes (bf16, f16) or 4 (bf16-f32, f16-f32).
    for (const auto [dt, c_bytes] : {std::pair{cli::DType::BF16, 2.0}, std::pair{cli::DType::F16, 2.0},
                                     std::pair{cli::DType::BF16_F32, 4.0}, std::pair{cli::DType::F16_F32, 4.0}}) {
        const cli::Case half = case_of(dt, gemmlab::Layout::RowMajor, {1000, 2000, 3000});
        EXPECT_DOUBLE_EQ(DeviceProblem::device_bytes(half, ReferenceSource::Cpu),
                         2.0 * (3e6 + 6e6) + c_bytes * 4e6) << cli::to_string(dt);
        EXPECT_DOUBLE_EQ(DeviceProblem::device_bytes(half, ReferenceSource::Gpu),
                         2.0 * (3e6 + 6e6) + c_bytes * 4e6 + 16.0 * 2e6) << cli::to_string(dt);
    }
    // Shapes whose element counts overflow 64-bit integers still get a finite, huge count.
    const cli::Case huge = case_of(cli::DType::F32, gemmlab::Layout::RowMajor, {int64_t(1) << 40, int64_t(1) << 40, 8});
    EXPECT_GT(DeviceProblem::device_bytes(huge, ReferenceSource::Gpu), 1e24);
}

TEST(TooLarge, MessageNamesTheShapeTheBytesAndWhatIsFree) {
    const cli::Case cs = case_of(cli::DType::F32, gemmlab::Layout::RowMajor, {200000, 200000, 8});
    const double need = cli::DeviceProblem::device_bytes(cs, cli::ReferenceSource::Gpu);
    const std::string msg = cli::too_large_message(cs, need, size_t(79) << 30, size_t(80) << 30);
    EXPECT_EQ(msg.rfind("skipped f32 row nn 200000x200000x8", 0), 0u) << msg;
    EXPECT_NE(msg.find("needs 894 GiB (960012800000 bytes) of GPU memory"), std::string::npos) << msg;
    EXPECT_NE(msg.find("79.0 GiB of 80.0 GiB free"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    EXPECT_EQ(msg.find(".cu"), std::string::npos) << msg;
}

// The error of a bad command line, as CLI11 reports it, becomes two lines: the message with
// the command it belongs to, and where the options are listed.
TEST(UsageError, OneLineAndAPointerToTheSubcommandsHelp) {
    CLI::App app{"test", "gemmlab"};
    app.require_subcommand(1);
    auto* bench = app.add_subcommand("bench", "b");
    int reps = 1;
    bench->add_option("--reps", reps)->check(CLI::Range(1, 10));
    app.add_subcommand("list", "l");
    auto parse = [&](std::vector<std::string> args) -> std::string {
        app.clear();
        std::vector<char*> argv;
        args.insert(args.begin(), "gemmlab");
        for (auto& a : args) argv.push_back(a.data());
        try {
            app.parse(int(argv.size()), argv.data());
        } catch (const CLI::ParseError& e) {
            return cli::usage_error(app, e.what());
        }
        return "parsed";
    };
    const std::string extra = parse({"bench", "--frobnicate"});
    EXPECT_EQ(extra.substr(extra.find('\n') + 1), "Run 'gemmlab bench --help' for the options.\n") << extra;
    EXPECT_EQ(extra.rfind("gemmlab bench: ", 0), 0u) << extra;
    EXPECT_NE(extra.find("--frobnicate"), std::string::npos) << extra;
    const std::string range = parse({"bench", "--reps", "0"});
    EXPECT_EQ(std::count(range.begin(), range.end(), '\n'), 2) << range;
    EXPECT_NE(range.find("1 to 10"), std::string::npos) << range;
    // Before any subcommand, the pointer is to the tool's own --help.
    const std::string top = parse({"--nosuch"});
    EXPECT_EQ(top.substr(top.find('\n') + 1), "Run 'gemmlab --help' for the options.\n") << top;
    // A message of several lines keeps its first; trailing blanks go.
    EXPECT_EQ(cli::usage_error(app, "first line \nsecond line\n"),
              "gemmlab: first line\nRun 'gemmlab --help' for the options.\n");
}

} // namespace
