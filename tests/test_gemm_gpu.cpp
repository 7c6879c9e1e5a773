// GPU tests of the GEMM API and every registered rung. Skipped when no CUDA device is visible.

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/fill.hpp"
#include "common/timing.hpp"
#include "gemm/auto_select.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/gpu_reference.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/gemmlab.hpp"
#include "test_support.hpp"

namespace {

using namespace gemmlab;
using cli::Case;
using cli::DType;
using cli::DeviceProblem;
using cli::ReferenceSource;

std::vector<std::string> all_kernels() {
    std::vector<std::string> out;
    for (const auto& k : gpu_kernels()) out.emplace_back(k.name);
    out.push_back("auto");
    return out;
}

const std::pair<Op, Op> kOps[] = {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};

// Runs every kernel that has the case's type (and that this GPU can run) on one case, each
// checked at its own precision; with integer inputs every element must be the exact result
// rounded once to C's type (TF32 included: small integers are exact TF32; the half types:
// products and FP32 sums of small integers are exact, only the final rounding is left).
void check_all_kernels(const Case& cs, uint64_t seed, bool exact) {
    DeviceProblem p(cs, seed, ReferenceSource::Cpu);
    for (const auto& k : all_kernels()) {
        if (!cli::kernel_supports(k, cs.dtype)) continue;
        const cli::RunResult r = p.run_and_check(k);
        ASSERT_TRUE(r.launched) << k << " " << cs.describe() << ": " << r.error;
        EXPECT_TRUE(r.check.pass) << k << " " << cs.describe() << ": " << reference::describe(r.check);
        EXPECT_EQ(r.check.unwritten, 0) << k << " " << cs.describe();
        if (exact) EXPECT_EQ(r.check.inexact, 0) << k << " " << cs.describe() << ": "
                                                 << reference::describe(r.check);
    }
}

class EveryRung : public ::testing::TestWithParam<std::tuple<DType, Layout>> {};

TEST_P(EveryRung, ExactOnIntegerInputsAtOddShapes) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 11;
    for (auto [oa, ob] : kOps)
        for (cli::Shape s : {cli::Shape{1, 1, 1}, {7, 5, 3}, {67, 45, 131}, {130, 129, 70}, {257, 66, 9}})
            check_all_kernels({dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::SmallIntegers}, seed++, true);
}

TEST_P(EveryRung, RandomInputsWithinTheBound) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 1234;
    for (auto [oa, ob] : kOps)
        for (cli::Shape s : {cli::Shape{33, 17, 200}, {200, 130, 67}, {129, 257, 128}})
            check_all_kernels({dt, layout, oa, ob, s, -1.25, 0.75, 0, FillKind::Uniform}, seed++, false);
}

TEST_P(EveryRung, BetaZeroNeverReadsNaNInC) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    // DeviceProblem poisons C with NaN before each run when beta == 0.
    for (auto [oa, ob] : kOps)
        check_all_kernels({dt, layout, oa, ob, {70, 66, 40}, 1.0, 0.0, 0, FillKind::Uniform}, 7, false);
}

TEST_P(EveryRung, KZeroAndAlphaZeroScaleC) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    check_all_kernels({dt, layout, Op::N, Op::N, {20, 30, 0}, 1.0, 2.0, 0, FillKind::SmallIntegers}, 3, true);
    check_all_kernels({dt, layout, Op::T, Op::N, {20, 30, 9}, 0.0, -1.0, 0, FillKind::SmallIntegers}, 4, true);
    check_all_kernels({dt, layout, Op::N, Op::T, {20, 30, 9}, 0.0, 0.0, 0, FillKind::SmallIntegers}, 5, true);
}

TEST_P(EveryRung, PaddedLeadingDimensions) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    for (auto [oa, ob] : kOps)
        for (int64_t pad : {1, 3, 8})
            check_all_kernels({dt, layout, oa, ob, {65, 70, 33}, 1.0, 0.5, pad, FillKind::SmallIntegers}, 100 + pad, true);
}

TEST_P(EveryRung, UnalignedPointersAndLeadingDimensions) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 500;
    for (auto [oa, ob] : kOps)
        for (int64_t offset : {1, 2, 3}) {
            Case cs{dt, layout, oa, ob, {67, 45, 71}, 1.0, 0.5, 1, FillKind::SmallIntegers};
            cs.offset = offset;
            check_all_kernels(cs, seed++, true);
        }
}

TEST_P(EveryRung, OddShapesAroundTheTensorCoreTiles) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 700;
    for (auto [oa, ob] : kOps)
        for (cli::Shape s : {cli::Shape{17, 7, 1}, {127, 129, 1003}, {129, 65, 33}, {1, 200, 17}})
            check_all_kernels({dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::Uniform}, seed++, false);
}

TEST_P(EveryRung, WideRangeAndNearFltMinInputs) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 900;
    for (FillKind fill : {FillKind::WideRange, FillKind::NearFltMin})
        for (auto [oa, ob] : kOps)
            for (cli::Shape s : {cli::Shape{70, 66, 200}, {33, 40, 9}})
                check_all_kernels({dt, layout, oa, ob, s, 1.0, 0.0, 0, fill}, seed++, false);
}

// Inf and NaN in A propagate as IEEE says, on every rung: an output row that meets one is
// Inf or NaN exactly as the reference's (Inf - Inf and NaN give NaN), the others are checked
// against the bound. 3xTF32 must notice them and recompute those tiles (its split would turn
// Inf into NaN).
TEST_P(EveryRung, InfAndNanPropagate) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 1300;
    for (auto [oa, ob] : kOps)
        check_all_kernels({dt, layout, oa, ob, {70, 66, 200}, 1.0, 0.0, 0, FillKind::WithSpecials}, seed++, false);
}

TEST_P(EveryRung, TheCallsPrecisionGovernsAutoAndCublas) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 1100;
    for (auto [oa, ob] : kOps) {
        Case cs{dt, layout, oa, ob, {300, 260, 512}, 1.0, 0.0, 0, FillKind::Uniform};
        cs.precision = Precision::Tf32;
        DeviceProblem p(cs, seed++, ReferenceSource::Cpu);
        for (const std::string k : {"auto", "cublas"}) {
            const cli::RunResult r = p.run_and_check(k);
            ASSERT_TRUE(r.launched) << k << ": " << r.error;
            EXPECT_TRUE(r.check.pass) << k << " " << cs.describe() << ": " << reference::describe(r.check);
        }
    }
}

// Every type: float and double, and the half types with C in the type or in float (the
// half-precision rungs, cuBLAS and auto run those).
INSTANTIATE_TEST_SUITE_P(, EveryRung,
                         ::testing::Combine(::testing::ValuesIn(cli::kAllDTypes),
                                            ::testing::Values(Layout::RowMajor, Layout::ColMajor)),
                         [](const auto& info) {
                             std::string name = cli::to_string(std::get<0>(info.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name + (std::get<1>(info.param) == Layout::RowMajor ? "_row" : "_col");
                         });

// ------------------------------------------------------------------ one skinny side

// Rung 28 and auto (which sends these shapes to it) on products with one side of 1-65 against
// a wide one: every type, layout and op; k past one 16-byte run, ragged, and long enough to be
// cut into slices (few rows: 300); aligned (rung 28's mma and vector paths), padded leading
// dimensions and odd base pointers (its element-wise paths); and a batch of them (decode
// attention). Rows past one wave of wide blocks (4300 rows, k 2056) give the wide blocks 8 and 4
// warps along k on an H100/H200; there 12 and 16 tokens in the 16-bit types are what auto runs
// on rung 24's 64 x 16 tiles (4300 rows: C stored from registers; 4096: by TMA where beta is 0).
// Integer inputs: every result exact, whatever the order of the sums.
class SkinnySide : public ::testing::TestWithParam<std::tuple<DType, Layout>> {};

void check_decode_and_auto(const Case& cs, uint64_t seed) {
    DeviceProblem p(cs, seed, ReferenceSource::Cpu);
    for (const char* k : {"decode", "auto"}) {
        const cli::RunResult r = p.run_and_check(k);
        ASSERT_TRUE(r.launched) << k << " " << cs.describe() << ": " << r.error;
        EXPECT_TRUE(r.check.pass) << k << " " << cs.describe() << ": " << reference::describe(r.check);
        EXPECT_EQ(r.check.unwritten, 0) << k << " " << cs.describe();
        EXPECT_EQ(r.check.inexact, 0) << k << " " << cs.describe() << ": " << reference::describe(r.check);
    }
}

TEST_P(SkinnySide, ExactAtEverySkinnyWidthOpAndAlignment) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 9000;
    const cli::Shape shapes[] = {{1, 4100, 300},  {5, 1030, 2049}, {16, 515, 4104}, {17, 600, 1030},
                                 {33, 1000, 513}, {64, 700, 1000}, {65, 520, 260},  {1030, 3, 2000},
                                 {2, 300, 9000},  {300, 9, 8193},  {1, 1500, 136, 3}, {1, 4300, 2056},
                                 {12, 4300, 2056}, {16, 4096, 1000}};
    for (auto [oa, ob] : kOps)
        for (const cli::Shape& s : shapes) {
            check_decode_and_auto({dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::SmallIntegers}, seed++);
            check_decode_and_auto({dt, layout, oa, ob, s, -0.5, 2.0, 3, FillKind::SmallIntegers}, seed++);
            Case unaligned{dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::SmallIntegers};
            unaligned.offset = 1;
            check_decode_and_auto(unaligned, seed++);
        }
}

// Uniform inputs over a long k, within the type's bound (the sums' order differs from the
// reference's), beta 0 and not: 8 tokens (rung 28), and 12 and 16 tokens, which auto runs on
// rung 24's 64 x 16 tiles in the 16-bit types on an sm_90a device where those number a third of
// its SMs to one wave, or two waves and more (a weight of 4608 rows: 72 tiles; 5000 rows: 79,
// the last ragged; 17000 rows: 266, two or three a block on 132 SMs). The ops put the tokens
// along n of the column-major form, as a row-major x W^T does.
TEST_P(SkinnySide, RandomInputsWithinTheBound) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    const bool row = layout == Layout::RowMajor;
    const bool half = dt != DType::F32 && dt != DType::F64;
    const DeviceInfo dev = query_device(0);
    const bool hopper = dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a();
    uint64_t seed = 77;
    for (const auto& [tokens, rows, k] :
         {std::tuple{8, 2048, 14336}, {16, 4608, 3584}, {12, 5000, 2056}, {16, 17000, 1000}}) {
        const int tiles = (rows + 63) / 64;
        const bool tiles_expected = hopper && 3 * tiles >= dev.sm_count &&
                                    (tiles <= dev.sm_count || tiles >= 2 * dev.sm_count);
        const cli::Shape s = row ? cli::Shape{tokens, rows, k} : cli::Shape{rows, tokens, k};
        for (auto [alpha, beta] : {std::pair{1.0, 0.0}, {-0.5, 0.75}}) {
            const Case cs{dt, layout, row ? Op::N : Op::T, row ? Op::T : Op::N, s, alpha, beta, 0, FillKind::Uniform};
            DeviceProblem p(cs, seed++, ReferenceSource::Cpu);
            const std::string_view pick = detail::current_auto_choice(p.normalized()).candidate;
            if (half)
                EXPECT_EQ(pick, tokens > 8 && tiles_expected ? "persistent 64x16x64 ws" : "decode")
                    << cs.describe();
            for (const char* kernel : {"decode", "auto"}) {
                const cli::RunResult r = p.run_and_check(kernel);
                ASSERT_TRUE(r.launched) << kernel << " " << cs.describe() << ": " << r.error;
                EXPECT_TRUE(r.check.pass) << kernel << " " << cs.describe() << ": " << reference::describe(r.check);
                EXPECT_EQ(r.check.unwritten, 0) << kernel << " " << cs.describe();
            }
        }
    }
}

INSTANTIATE_TEST_SUITE_P(, SkinnySide,
                         ::testing::Combine(::testing::ValuesIn(cli::kAllDTypes),
                                            ::testing::Values(Layout::RowMajor, Layout::ColMajor)),
                         [](const auto& info) {
                             std::string name = cli::to_string(std::get<0>(info.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name + (std::get<1>(info.param) == Layout::RowMajor ? "_row" : "_col");
                         });

// ------------------------------------------------------------------ half precision

const DType kHalfDTypes[] = {DType::BF16, DType::F16, DType::BF16_F32, DType::F16_F32};

class HalfRung : public ::testing::TestWithParam<DType> {};

// Sizes around every tile edge a half-precision rung may have (1, 7, 17, 127, 129, 1003) and
// k not a multiple of 8, 16 or 64, all ops and layouts, alpha/beta in float.
TEST_P(HalfRung, OddShapesAllOpsAndLayouts) {
    REQUIRE_GPU();
    const DType dt = GetParam();
    uint64_t seed = 2000;
    const cli::Shape shapes[] = {{1, 1, 1},    {7, 17, 9},      {17, 7, 63},    {127, 129, 65},
                                 {129, 127, 1003}, {1, 129, 200}, {129, 1, 17},  {1003, 7, 24},
                                 {64, 64, 64}, {7, 1003, 130}};
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (auto [oa, ob] : kOps)
            for (const cli::Shape& s : shapes) {
                check_all_kernels({dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::Uniform}, seed++, false);
                check_all_kernels({dt, layout, oa, ob, s, -0.75, 1.5, 3, FillKind::SmallIntegers}, seed++,
                                  true);
            }
}

// 2-byte aligned (not 4, 8 or 16) pointers and odd leading dimensions.
TEST_P(HalfRung, EveryPointerAlignmentAndOddLeadingDimensions) {
    REQUIRE_GPU();
    const DType dt = GetParam();
    uint64_t seed = 2500;
    for (auto [oa, ob] : kOps)
        for (int64_t offset : {1, 3, 5, 7})
            for (int64_t pad : {1, 5}) {
                Case cs{dt, Layout::RowMajor, oa, ob, {129, 66, 71}, 1.0, 0.5, pad, FillKind::Uniform};
                cs.offset = offset;
                check_all_kernels(cs, seed++, false);
            }
}

// The FP16 output range: a result beyond 65520 rounds to Inf, 65280 is exact, on every rung.
TEST(HalfRungs, Fp16OutputOverflowsToInfWhereRoundingSays) {
    REQUIRE_GPU();
    const int64_t m = 5, n = 3;
    for (int64_t k : {int64_t(256), int64_t(300)}) {
        std::vector<__half> a(size_t(m * k), __float2half_rn(255.f)), b(size_t(k * n), __float2half_rn(1.f));
        DeviceBuffer<__half> A(a.size()), B(b.size()), C(size_t(m * n));
        A.copy_from_host(a.data(), a.size());
        B.copy_from_host(b.data(), b.size());
        for (const auto& kernel : all_kernels()) {
            if (!cli::kernel_supports(kernel, DType::F16)) continue;
            GemmOptions o;
            o.kernel = kernel;
            poison_nan(C.get(), C.size());
            ASSERT_EQ(gemm(Layout::RowMajor, Op::N, Op::N, m, n, k, 1.f, A.get(), k, B.get(), n, 0.f,
                           C.get(), n, o),
                      Status::Success) << kernel << ": " << last_error();
            std::vector<__half> c(C.size());
            GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
            C.copy_to_host(c.data(), c.size());
            for (const __half& x : c) {
                const float v = __half2float(x);
                if (k == 256) EXPECT_EQ(v, 65280.f) << kernel; // 255 * 256: exact in FP16
                else EXPECT_TRUE(std::isinf(v) && v > 0) << kernel << ": " << v; // 76500
            }
        }
    }
}

// A rung that needs sm_90a says so on any other GPU (a Status, not a crash or a wrong result),
// and auto still runs there. Each rung is called with a type it implements (BF16 in and f32
// out for the half rungs, f32 for the TF32 ones), so that only the device can refuse it.
TEST(HalfRungs, Sm90aRungsReturnUnsupportedDeviceElsewhere) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    const bool hopper = dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a();
    DeviceBuffer<__nv_bfloat16> A(64), B(64);
    DeviceBuffer<float> A32(64), B32(64), C(64);
    for (const auto& k : gpu_kernels()) {
        if (!k.needs_sm90a) continue;
        GemmOptions o;
        o.kernel = std::string(k.name);
        const bool half = k.supports(DataType::BF16);
        ASSERT_TRUE(half || k.supports(DataType::F32)) << k.name;
        const Status s = half ? gemm(Layout::RowMajor, Op::N, Op::N, 8, 8, 8, 1.f, A.get(), 8, B.get(),
                                     8, 0.f, C.get(), 8, o)
                              : gemm(Layout::RowMajor, Op::N, Op::N, 8, 8, 8, 1.f, A32.get(), 8,
                                     B32.get(), 8, 0.f, C.get(), 8, o);
        if (hopper) {
            EXPECT_EQ(s, Status::Success) << k.name << ": " << last_error();
        } else {
            EXPECT_EQ(s, Status::UnsupportedDevice) << k.name;
            EXPECT_NE(std::string(last_error()).find(std::string(k.name)), std::string::npos) << last_error();
        }
    }
    check_all_kernels({DType::BF16, Layout::RowMajor, Op::N, Op::T, {65, 70, 33}, 1.0, 0.0, 0,
                       FillKind::SmallIntegers},
                      9, true);
}

INSTANTIATE_TEST_SUITE_P(, HalfRung, ::testing::ValuesIn(kHalfDTypes), [](const auto& info) {
    std::string name = cli::to_string(info.param);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

// A very tall and a very wide C: more block tiles along one side than gridDim.y's 65535 for
// every rung's tile (kLong / 256 > 65535; no rung's tile is wider than 256), so each launch must
// put that side on gridDim.x. Column-major, so tall is the long side on m inside the library
// (rung 1 keeps m on y) and wide the long side on n (every other rung keeps n on y). Integer
// inputs: every element must be the exact result rounded once to C's type (exact itself for
// f32/f64: the FP32 or FP64 sums of integers in [-4, 4] are; BF16 and FP16 C round sums past 2^8
// and 2^11 once, which check_all_kernels' inexact count allows and nothing more). With f32, bf16
// and f16 the long operand holds kLong x 129 > 2^31 elements, so its offsets must be 64-bit; f64
// uses k = 41 to halve the memory (5.5 GB). bf16 and f16 (C in the input type, so the 2-byte
// stores are covered too) run the half rungs 18-24, cuBLAS and auto.
class TallAndWide : public ::testing::TestWithParam<DType> {};

TEST_P(TallAndWide, EveryRungPastTheGridLimitAlongMAndN) {
    REQUIRE_GPU();
    constexpr int64_t kLong = 65536LL * 256 + 7;
    const DType dt = GetParam();
    const int64_t k = dt == DType::F64 ? 41 : 129;
    const struct {
        cli::Shape shape;
        Op op_a, op_b;
    } cases[] = {{{kLong, 2, k}, Op::N, Op::T}, {{2, kLong, k}, Op::T, Op::N}};
    uint64_t seed = 4000;
    for (const auto& c : cases)
        check_all_kernels({dt, Layout::ColMajor, c.op_a, c.op_b, c.shape, 1.0, 0.5, 0, FillKind::SmallIntegers},
                          seed++, true);
}

// bench's reference (the double-double GPU kernel) covers the same shapes: its result equals
// the CPU reference's wherever the inputs are integers, so auto must come out exact against it:
// equal to it for f32, f64 and f16 C (sums of 20 products of integers in [-4, 4] are at most
// 320), equal to it rounded once for BF16 C (8 significant bits: sums past 256 round).
TEST_P(TallAndWide, GpuReferencePastTheGridLimit) {
    REQUIRE_GPU();
    constexpr int64_t kLong = 65536LL * 16 + 3; // > 65535 tiles of the reference's 16 x 16
    const DType dt = GetParam();
    for (const cli::Shape s : {cli::Shape{kLong, 3, 20}, {3, kLong, 20}}) {
        const Case cs{dt, Layout::ColMajor, Op::N, Op::N, s, 1.0, 0.0, 0, FillKind::SmallIntegers};
        DeviceProblem p(cs, 4100, ReferenceSource::Gpu);
        const cli::RunResult r = p.run_and_check("auto");
        ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
        EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
        EXPECT_EQ(r.check.inexact, 0) << cs.describe() << ": " << reference::describe(r.check);
        if (dt != DType::BF16)
            EXPECT_EQ(r.check.worst_ratio, 0.0) << cs.describe() << ": " << reference::describe(r.check);
    }
}

INSTANTIATE_TEST_SUITE_P(, TallAndWide, ::testing::Values(DType::F32, DType::F64, DType::BF16, DType::F16),
                         [](const auto& info) { return std::string(cli::to_string(info.param)); });

// ------------------------------------------------------------------ rung 24's narrow tiles
// auto runs rung 24's kernel on 128x128 and 128x64 tiles too (hopper/configs.hpp), whole, in
// k slices and over a strided batch; none of these is a rung of its own, so only auto reaches
// them. Column-major nn shapes on which auto's model (on an H100 or H200) takes them: each
// result checked, and the set of picks must cover both tiles and a split. BF16 and FP16, C in
// the input type and in float.
class NarrowTiles : public ::testing::TestWithParam<DType> {};

TEST_P(NarrowTiles, AutoTakesEachTileWholeSplitAndBatchedAndIsRight) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const DType dt = GetParam();
    const bool f16 = dt == DType::F16 || dt == DType::F16_F32;
    const bool f32_out = dt == DType::BF16_F32 || dt == DType::F16_F32;
    const cli::Shape shapes[] = {{1024, 1024, 1024}, {512, 512, 16384}, {2048, 128, 2048, 32},
                                 {8192, 64, 4096},   {4096, 96, 2048},  {1000, 100, 3000},
                                 {1024, 64, 1024, 64}};
    std::set<std::string> picks;
    bool split = false;
    uint64_t seed = 9500;
    for (const cli::Shape& s : shapes) {
        detail::Problem p{};
        p.type = f16 ? DataType::F16 : DataType::BF16;
        p.c_type = f32_out ? DataType::F32 : p.type;
        p.m = s.m, p.n = s.n, p.k = s.k, p.alpha = 1;
        p.batch.count = s.batch;
        const detail::AutoChoice c = detail::current_auto_choice(p);
        picks.emplace(c.candidate);
        split |= c.candidate.starts_with("persistent 128x") && c.splits > 1;
        const FillKind fill = s.k > 8192 ? FillKind::Uniform : FillKind::SmallIntegers;
        for (auto [alpha, beta] : {std::pair{1.0, 0.0}, {-0.5, 2.0}}) {
            const Case cs{dt, Layout::ColMajor, Op::N, Op::N, s, alpha, beta, 0, fill};
            DeviceProblem run(cs, seed++, ReferenceSource::Gpu);
            const cli::RunResult r = run.run_and_check("auto");
            ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
            EXPECT_TRUE(r.check.pass) << c.candidate << " x" << c.splits << " " << cs.describe()
                                      << ": " << reference::describe(r.check);
            EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
        }
    }
    std::string all;
    for (const auto& x : picks) all += " [" + x + "]";
    EXPECT_TRUE(picks.count("persistent 128x128x64 ws")) << "picks:" << all;
    EXPECT_TRUE(picks.count("persistent 128x64x64 ws")) << "picks:" << all;
    EXPECT_TRUE(split) << "no narrow tile ran in k slices; picks:" << all;
}

INSTANTIATE_TEST_SUITE_P(, NarrowTiles,
                         ::testing::Values(DType::BF16, DType::F16, DType::BF16_F32, DType::F16_F32),
                         [](const auto& info) {
                             std::string name = cli::to_string(info.param);
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name;
                         });

// Rung 24's 64-column tiles on strided batches, where the model takes them: 64 x 64 on two
// consumer warpgroups in ping-pong (hopper/pingpong.cuh) for products of at most 64 x 64,
// 128 x 64 for 64 outputs a row. A 16-bit C with beta == 0 leaves through a 64-column staging
// buffer by TMA (each ping-pong warpgroup its own), clipped at the matrix edges (m and n short
// of a tile); beta != 0 and an FP32 C store from registers.
// Both layouts (the row-major ones swap m and n) and two op pairs; every batch checked.
TEST(SixtyFourColumnTiles, EveryBatchOfEveryEdgeIsRight) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    if (dev.sm_count != 132) GTEST_SKIP() << "the picks below are the model's on 132 SMs";
    struct TileCase {
        Layout layout;
        cli::Shape shape;
        const char* candidate;
    };
    const TileCase cases[] = {
        {Layout::ColMajor, {56, 40, 72, 1024}, "persistent 64x64x64 ws pingpong"},
        {Layout::ColMajor, {64, 64, 64, 1000}, "persistent 64x64x64 ws pingpong"},
        {Layout::RowMajor, {64, 60, 128, 700}, "persistent 64x64x64 ws pingpong"},
        {Layout::ColMajor, {500, 56, 64, 512}, "persistent 128x64x64 ws"},
        {Layout::RowMajor, {64, 520, 96, 300}, "persistent 128x64x64 ws"},
    };
    uint64_t seed = 9900;
    for (const TileCase& t : cases)
        for (DType dt : {DType::BF16, DType::F16, DType::BF16_F32})
            for (auto [op_a, op_b] : {std::pair{Op::N, Op::T}, {Op::T, Op::N}})
                for (double beta : {0.0, 0.5}) {
                    const Case cs{dt, t.layout, op_a, op_b, t.shape, 1.5, beta, 0, FillKind::SmallIntegers};
                    DeviceProblem run(cs, seed++, ReferenceSource::Gpu);
                    const detail::AutoChoice c = detail::current_auto_choice(run.normalized());
                    ASSERT_EQ(c.candidate, t.candidate) << cs.describe();
                    const cli::RunResult r = run.run_and_check("auto");
                    ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
                    EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
                    EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
                }
}

// ------------------------------------------------------------------ strided batched GEMM
// A Case with shape.batch != 1 calls gemm_strided_batched (DeviceProblem: batches stored one
// after another, batch_gap elements apart, or one shared A or B) and is checked batch by batch
// against the CPU reference within the project's bound. check_all_kernels runs every rung:
// cuBLAS (cublas*StridedBatched), the natively batched ones (13-19, one launch, gridDim.z) and
// the others once per batch, and auto.

using cli::Broadcast;

Case batched_case(DType dt, Layout layout, Op oa, Op ob, cli::Shape s, double alpha, double beta,
                  FillKind fill, Broadcast broadcast = Broadcast::None, int64_t gap = 0) {
    Case cs{dt, layout, oa, ob, s, alpha, beta, 0, fill};
    cs.broadcast = broadcast;
    cs.batch_gap = gap;
    return cs;
}

class Batched : public ::testing::TestWithParam<std::tuple<DType, Layout>> {};

TEST_P(Batched, EveryRungExactOnIntegerInputsAtOddShapes) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 6000;
    for (auto [oa, ob] : kOps)
        for (cli::Shape s : {cli::Shape{1, 1, 1, 2}, {7, 5, 3, 4}, {67, 45, 131, 3}, {130, 129, 70, 2}})
            check_all_kernels(batched_case(dt, layout, oa, ob, s, 1.0, 0.0, FillKind::SmallIntegers), seed++, true);
}

TEST_P(Batched, RandomInputsWithinTheBound) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 6100;
    for (auto [oa, ob] : kOps)
        for (cli::Shape s : {cli::Shape{33, 17, 200, 3}, {129, 257, 128, 2}})
            check_all_kernels(batched_case(dt, layout, oa, ob, s, -1.25, 0.75, FillKind::Uniform), seed++, false);
}

// Stride 0: one A (or one B) for every batch, C still one per batch.
TEST_P(Batched, BroadcastAOrB) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 6200;
    for (auto [oa, ob] : kOps)
        for (Broadcast bc : {Broadcast::A, Broadcast::B}) {
            check_all_kernels(batched_case(dt, layout, oa, ob, {65, 70, 33, 3}, 1.0, 0.5,
                                           FillKind::SmallIntegers, bc),
                              seed++, true);
            check_all_kernels(batched_case(dt, layout, oa, ob, {129, 64, 40, 2}, 1.0, 0.0,
                                           FillKind::Uniform, bc),
                              seed++, false);
        }
}

// Leading dimensions that allow 16-byte accesses (multiples of 8 elements) with a batch stride
// that does not: every other batch starts unaligned, so a rung must not take its vector path
// from batch 0's alignment alone. And gaps that keep alignment, plus unaligned base pointers.
TEST_P(Batched, StridesThatMisalignLaterBatches) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 6300;
    for (auto [oa, ob] : kOps) {
        for (int64_t gap : {1, 3, 8})
            for (double beta : {0.5, 0.0}) // beta == 0: C's own store path (rung 27 stages it)
                check_all_kernels(batched_case(dt, layout, oa, ob, {64, 96, 32, 3}, 1.0, beta,
                                               FillKind::SmallIntegers, Broadcast::None, gap),
                                  seed++, true);
        Case cs = batched_case(dt, layout, oa, ob, {67, 45, 71, 3}, 1.0, 0.5, FillKind::SmallIntegers,
                               Broadcast::None, 5);
        cs.offset = 1;
        check_all_kernels(cs, seed++, true);
    }
}

// C = beta * C per batch (the API's scaling kernel, batched), zeros when beta == 0 (NaN in C
// must not leak), and batch 0, which must leave C bit for bit as it was.
TEST_P(Batched, KZeroAlphaZeroAndBatchZero) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    check_all_kernels(batched_case(dt, layout, Op::N, Op::N, {20, 30, 0, 3}, 1.0, 2.0, FillKind::SmallIntegers), 1, true);
    check_all_kernels(batched_case(dt, layout, Op::T, Op::N, {20, 30, 9, 3}, 0.0, -1.0, FillKind::SmallIntegers), 2, true);
    check_all_kernels(batched_case(dt, layout, Op::N, Op::T, {20, 30, 9, 3}, 0.0, 0.0, FillKind::SmallIntegers), 3, true);
    for (double beta : {0.0, 0.5})
        check_all_kernels(batched_case(dt, layout, Op::N, Op::N, {17, 13, 7, 0}, 1.0, beta, FillKind::Uniform), 4, false);
}

TEST_P(Batched, InfAndNanPropagatePerBatch) {
    REQUIRE_GPU();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 6400;
    for (auto [oa, ob] : kOps)
        check_all_kernels(batched_case(dt, layout, oa, ob, {70, 66, 200, 2}, 1.0, 0.0, FillKind::WithSpecials),
                          seed++, false);
}

INSTANTIATE_TEST_SUITE_P(, Batched,
                         ::testing::Combine(::testing::ValuesIn(cli::kAllDTypes),
                                            ::testing::Values(Layout::RowMajor, Layout::ColMajor)),
                         [](const auto& info) {
                             std::string name = cli::to_string(std::get<0>(info.param));
                             std::replace(name.begin(), name.end(), '-', '_');
                             return name + (std::get<1>(info.param) == Layout::RowMajor ? "_row" : "_col");
                         });

// More batches than gridDim.z's 65535: the natively batched rungs split them over several
// launches, cuBLAS takes the 64-bit count itself. Tiny matrices, so the other rungs (one
// launch per batch) are left out; every one of the 2 x 65535 + 7 batches is checked.
class ManyBatches : public ::testing::TestWithParam<DType> {};

TEST_P(ManyBatches, PastTheGridLimitOnEveryNativelyBatchedRung) {
    REQUIRE_GPU();
    const DType dt = GetParam();
    std::vector<std::string> kernels = {"auto"};
    for (const auto& k : gpu_kernels())
        if (k.native_batch) kernels.emplace_back(k.name);
    uint64_t seed = 6500;
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (Broadcast bc : {Broadcast::None, Broadcast::B}) {
            const Case cs = batched_case(dt, layout, Op::N, Op::T, {3, 5, 7, 2 * 65535 + 7}, 1.0, 0.5,
                                         FillKind::SmallIntegers, bc, 1);
            DeviceProblem p(cs, seed++, ReferenceSource::Gpu);
            for (const auto& k : kernels) {
                if (!cli::kernel_supports(k, dt)) continue;
                const cli::RunResult r = p.run_and_check(k);
                ASSERT_TRUE(r.launched) << k << " " << cs.describe() << ": " << r.error;
                EXPECT_TRUE(r.check.pass) << k << " " << cs.describe() << ": " << reference::describe(r.check);
                EXPECT_EQ(r.check.unwritten, 0) << k << " " << cs.describe();
                EXPECT_EQ(r.check.inexact, 0) << k << " " << cs.describe() << ": " << reference::describe(r.check);
            }
        }
}

INSTANTIATE_TEST_SUITE_P(, ManyBatches, ::testing::ValuesIn(cli::kAllDTypes), [](const auto& info) {
    std::string name = cli::to_string(info.param);
    std::replace(name.begin(), name.end(), '-', '_');
    return name;
});

// A batched call computes what the same rung's gemm calls on each batch compute, bit for bit:
// natively (the same kernel, its batch on gridDim.z) or looped by the API (one launch per
// batch). cuBLAS and auto are left out: either may choose another kernel for a batch.
TEST(BatchedApi, EachBatchIsWhatTheRungsGemmGives) {
    REQUIRE_GPU();
    const int64_t m = 37, n = 29, k = 41, count = 3;
    const int64_t sa = m * k + 3, sb = k * n + 5, sc = m * n + 7;
    DeviceBuffer<float> A(size_t(count * sa)), B(size_t(count * sb)), C1(size_t(count * sc)), C2(size_t(count * sc));
    fill_random(A.get(), A.size(), 1, FillKind::Uniform);
    fill_random(B.get(), B.size(), 2, FillKind::Uniform);
    for (const char* kernel : {"warp_tile", "async_pipeline", "tf32x3", "naive", "double_buffer"}) {
        GemmOptions o;
        o.kernel = kernel;
        poison_nan(C1.get(), C1.size());
        poison_nan(C2.get(), C2.size());
        // Batched call, col-major, strides with gaps.
        ASSERT_EQ(gemm_strided_batched<float>(Layout::ColMajor, Op::N, Op::N, m, n, k, 1.5f, A.get(), m, sa,
                                              B.get(), k, sb, 0.f, C1.get(), m, sc, count, o),
                  Status::Success) << kernel << ": " << last_error();
        // The same, batch by batch through gemm.
        for (int64_t b = 0; b < count; ++b)
            ASSERT_EQ(gemm<float>(Layout::ColMajor, Op::N, Op::N, m, n, k, 1.5f, A.get() + b * sa, m,
                                  B.get() + b * sb, k, 0.f, C2.get() + b * sc, m, o),
                      Status::Success) << kernel << ": " << last_error();
        GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<float> c1(C1.size()), c2(C2.size());
        C1.copy_to_host(c1.data(), c1.size());
        C2.copy_to_host(c2.data(), c2.size());
        for (int64_t b = 0; b < count; ++b)
            for (int64_t j = 0; j < n; ++j)
                for (int64_t i = 0; i < m; ++i) {
                    const size_t at = size_t(b * sc + i + j * m);
                    ASSERT_EQ(std::memcmp(&c1[at], &c2[at], sizeof(float)), 0)
                        << kernel << " batch " << b << " (" << i << ", " << j << "): " << c1[at] << " vs " << c2[at];
                }
    }
    // batch_count 1 with strides that would overlap for two batches: allowed, same as gemm.
    poison_nan(C1.get(), C1.size());
    ASSERT_EQ(gemm_strided_batched<float>(Layout::ColMajor, Op::N, Op::N, m, n, k, 1.f, A.get(), m, 0, B.get(),
                                          k, 0, 0.f, C1.get(), m, 0, 1),
              Status::Success) << last_error();
}

TEST(BatchedApi, HostPointerIsRejectedAndOverlapIsAStatus) {
    REQUIRE_GPU();
    std::vector<float> host(64, 1.f);
    DeviceBuffer<float> dev(64);
    EXPECT_EQ(gemm_strided_batched<float>(Layout::RowMajor, Op::N, Op::N, 2, 2, 2, 1.f, host.data(), 2, 4,
                                          dev.get(), 2, 4, 0.f, dev.get(), 2, 4, 3),
              Status::NotDevicePointer);
    EXPECT_EQ(gemm_strided_batched<float>(Layout::RowMajor, Op::N, Op::N, 2, 2, 2, 1.f, dev.get(), 2, 4,
                                          dev.get(), 2, 4, 0.f, dev.get(), 2, 3, 3),
              Status::InvalidStride);
}

TEST(GemmApi, EmptyOutputTouchesNothing) {
    REQUIRE_GPU();
    DeviceBuffer<float> C(16);
    fill_random(C.get(), 16, 1, FillKind::SmallIntegers);
    std::vector<float> before(16), after(16);
    C.copy_to_host(before.data(), 16);
    // n == 0: A and B may even be null; C must not change.
    ASSERT_EQ(gemm<float>(Layout::ColMajor, Op::N, Op::N, 4, 0, 3, 1.f, nullptr, 4, nullptr, 3, 0.f,
                          C.get(), 4),
              Status::Success) << last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    C.copy_to_host(after.data(), 16);
    EXPECT_EQ(before, after);
}

TEST(GemmApi, HostPointerIsRejected) {
    REQUIRE_GPU();
    std::vector<float> host(64, 1.f);
    DeviceBuffer<float> dev(64);
    EXPECT_EQ(gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, host.data(), 4, dev.get(), 4,
                          0.f, dev.get(), 4),
              Status::NotDevicePointer);
    EXPECT_NE(std::string(last_error()).find("A is a host pointer"), std::string::npos) << last_error();
    EXPECT_EQ(gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, dev.get(), 4, dev.get(), 4,
                          0.f, host.data(), 4),
              Status::NotDevicePointer);
}

// The TF32 rung's products are off by up to 2^-10 relative: at a small k, where the FP32 bound
// is tight, that is far outside it. The default `auto` must meet it on the same inputs.
TEST(GemmApi, DefaultPrecisionAutoIsFp32AccurateWhereTf32IsNot) {
    REQUIRE_GPU();
    Case cs{DType::F32, Layout::RowMajor, Op::N, Op::N, {512, 512, 32}, 1.0, 0.0, 0, FillKind::Uniform};
    DeviceProblem p(cs, 77, ReferenceSource::Gpu);
    const auto fp32 = p.run_and_check("auto");
    ASSERT_TRUE(fp32.launched) << fp32.error;
    EXPECT_TRUE(fp32.check.pass) << reference::describe(fp32.check);
    const auto tf32 = p.run_and_check("tf32"); // checked at its own, looser bound
    ASSERT_TRUE(tf32.launched) << tf32.error;
    EXPECT_TRUE(tf32.check.pass) << reference::describe(tf32.check);
    // Error relative to each one's bound: scale TF32's to the FP32 bound to compare.
    const double tf32_vs_fp32_bound = tf32.check.worst_ratio * reference::error_gamma<float>(32, Precision::Tf32) /
                                      reference::error_gamma<float>(32);
    EXPECT_GT(tf32_vs_fp32_bound, 1.0) << "TF32 should not meet the FP32 bound at k = 32";
}

// TF32 mode promises inputs rounded to nearest (docs/precision.md): truncating them (what the
// tensor cores do with raw FP32 operands) or not rounding at all must fail here. One operand
// holds random floats of |x| in [1/8, 8) whose bits below TF32 are not exactly half a place
// (the two tie rules the rungs use, to even by TMA and away from zero by cvt.rna, differ only
// there), the other +-1 and +-2. Every product is then a multiple of 2^-13 below 16 and every
// sum of k = 72 of them below 2^11, so the FP32 sums are exact in any order and C must equal
// sum(tf32(x) * y) exactly. k = 72 leaves a partial k tile; k % 4 == 0 keeps K-major rows
// 16-byte aligned, so rung 25 takes both its paths (TMA rounding a K-major operand as it
// lands, the pack rounding the others) across the four ops.
TEST(Tf32Mode, EveryTf32RungRoundsItsInputsToNearest) {
    REQUIRE_GPU();
    const auto tf32_of = [](float x) { // to nearest; never called on a tie
        uint32_t bits;
        std::memcpy(&bits, &x, 4);
        bits = (bits + 0x1000u) & ~0x1FFFu;
        std::memcpy(&x, &bits, 4);
        return x;
    };
    std::mt19937 rng(2026);
    const auto rounding_value = [&] {
        std::uniform_int_distribution<uint32_t> mantissa(0, (1u << 23) - 1);
        std::uniform_int_distribution<int> exponent(-3, 2), sign(0, 1);
        uint32_t m;
        do m = mantissa(rng);
        while ((m & 0x1FFFu) == 0x1000u);
        const uint32_t bits = (uint32_t(sign(rng)) << 31) | (uint32_t(127 + exponent(rng)) << 23) | m;
        float x;
        std::memcpy(&x, &bits, 4);
        return x;
    };
    const auto exact_value = [&] {
        const float values[] = {1.f, -1.f, 2.f, -2.f};
        return values[std::uniform_int_distribution<int>(0, 3)(rng)];
    };

    std::vector<std::pair<std::string, Precision>> rungs;
    for (const auto& k : gpu_kernels())
        if (k.precision == Precision::Tf32 && check_device_support(k) == Status::Success)
            rungs.emplace_back(std::string(k.name), Precision::Tf32);
    rungs.emplace_back("auto", Precision::Tf32);

    const int64_t m = 136, n = 200, k = 72;
    DeviceBuffer<float> A(m * k), B(k * n), C(m * n);
    std::vector<float> a(m * k), b(k * n), c(m * n), want(m * n);
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (const auto& [op_a, op_b] : kOps)
            for (bool rounding_in_a : {true, false}) {
                // Element (i, l) of op(A) and (l, j) of op(B), wherever the layout and op put it.
                const bool row = layout == Layout::RowMajor;
                const int64_t lda = (row == (op_a == Op::N)) ? k : m;
                const int64_t ldb = (row == (op_b == Op::N)) ? n : k;
                const auto at_a = [&](int64_t i, int64_t l) {
                    const bool i_major = row == (op_a == Op::N); // rows of op(A) contiguous in k
                    return i_major ? i * lda + l : l * lda + i;
                };
                const auto at_b = [&](int64_t l, int64_t j) {
                    const bool l_major = row == (op_b == Op::N);
                    return l_major ? l * ldb + j : j * ldb + l;
                };
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t l = 0; l < k; ++l) a[at_a(i, l)] = rounding_in_a ? rounding_value() : exact_value();
                for (int64_t l = 0; l < k; ++l)
                    for (int64_t j = 0; j < n; ++j) b[at_b(l, j)] = rounding_in_a ? exact_value() : rounding_value();
                const int64_t ldc = row ? n : m;
                for (int64_t i = 0; i < m; ++i)
                    for (int64_t j = 0; j < n; ++j) {
                        double sum = 0;
                        for (int64_t l = 0; l < k; ++l)
                            sum += double(tf32_of(a[at_a(i, l)])) * double(tf32_of(b[at_b(l, j)]));
                        want[row ? i * ldc + j : j * ldc + i] = float(sum); // exact
                    }
                A.copy_from_host(a.data(), a.size());
                B.copy_from_host(b.data(), b.size());
                for (const auto& [name, precision] : rungs) {
                    poison_nan(C.get(), C.size());
                    GemmOptions options;
                    options.kernel = name;
                    options.precision = precision;
                    const std::string what = name + " " + (row ? "row" : "col") + " " +
                                             (op_a == Op::N ? "n" : "t") + (op_b == Op::N ? "n" : "t") +
                                             (rounding_in_a ? ", A rounds" : ", B rounds");
                    ASSERT_EQ(gemm<float>(layout, op_a, op_b, m, n, k, 1.f, A.get(), lda, B.get(), ldb,
                                          0.f, C.get(), ldc, options),
                              Status::Success)
                        << what << ": " << last_error();
                    C.copy_to_host(c.data(), c.size());
                    int64_t wrong = 0, first = -1;
                    for (int64_t e = 0; e < m * n; ++e)
                        if (c[e] != want[e] && wrong++ == 0) first = e;
                    EXPECT_EQ(wrong, 0) << what << ": element " << first << " is " << c[std::max<int64_t>(first, 0)]
                                        << ", sum(tf32(a) b) is " << want[std::max<int64_t>(first, 0)];
                }
            }
}

TEST(GemmApi, ConcurrentCallsFromFourThreadsOnTheirOwnStreams) {
    REQUIRE_GPU();
    std::vector<std::thread> threads;
    std::vector<int> failures(4, 0);
    for (int t = 0; t < 4; ++t)
        threads.emplace_back([t, &failures] {
            const std::string kernels[] = {"auto", "cublas", "coalesced", "auto"};
            for (int rep = 0; rep < 3; ++rep) {
                // Each thread: its own problem, its own stream (inside DeviceProblem).
                DeviceProblem p({t % 2 ? DType::F64 : DType::F32, Layout::RowMajor, Op::N, Op::T,
                                 {96 + t, 80 + rep, 50}, 1.0, 0.0, 0, FillKind::SmallIntegers},
                                uint64_t(t * 10 + rep), ReferenceSource::Cpu);
                const auto r = p.run_and_check(kernels[t]);
                if (!r.launched || !r.check.pass || r.check.worst_ratio != 0.0) ++failures[t];
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

// ------------------------------------------------------------------ the tail split
// auto's tail-split candidates (rung 24's kernel with hopper/tail_split.cuh's schedule), launched
// by name: a whole wave and a few tiles more in 2 to 8 pieces, odd m and n, a ragged k, and
// fewer tiles than SMs (nothing split), on the three tile widths, every op, beta 0 (C by TMA for the
// whole tiles) and not, C in the input type and in float. Each result within its bound against
// the GPU reference, and the same bits on a second run (the pieces are added in one order,
// whichever block finishes last).
struct SplitScheduleCase {
    const char* candidate;
    int64_t m, n, k;
    int64_t batches = 1; ///< a strided batch of products stored one after another
};

/// auto's candidate `sc.candidate` launched by index (whatever auto would pick) on sc's
/// product or strided batch, twice: the same bits both times, and each product within its
/// bound against the GPU reference.
template <class TIn, class TOut>
void check_split_schedule(const SplitScheduleCase& sc, bool ta, bool tb, float beta, uint64_t seed) {
    const int64_t m = sc.m, n = sc.n, k = sc.k, batches = sc.batches;
    const int64_t lda = ta ? k : m, ldb = tb ? n : k, ldc = m;
    const int64_t sa = m * k, sb = k * n, sc_stride = m * n;
    DeviceBuffer<TIn> A(size_t(sa * batches)), B(size_t(sb * batches));
    DeviceBuffer<TOut> C0(size_t(sc_stride * batches)), C(size_t(sc_stride * batches));
    DeviceBuffer<double> ref(static_cast<size_t>(sc_stride)), mag(static_cast<size_t>(sc_stride));
    fill_random(A.get(), A.size(), seed, FillKind::Uniform);
    fill_random(B.get(), B.size(), seed + 1, FillKind::Uniform);
    fill_random(C0.get(), C0.size(), seed + 2, FillKind::Uniform);
    detail::Problem p{};
    p.type = std::is_same_v<TIn, __half> ? DataType::F16 : DataType::BF16;
    p.c_type = std::is_same_v<TOut, float> ? DataType::F32 : p.type;
    p.precision = Precision::Default;
    p.m = m, p.n = n, p.k = k, p.alpha = -1.25, p.beta = beta;
    p.A = A.get(), p.lda = lda, p.trans_a = ta;
    p.B = B.get(), p.ldb = ldb, p.trans_b = tb;
    p.C = C.get(), p.ldc = ldc;
    p.batch.count = batches;
    if (batches > 1) p.batch.strides = {sa, sb, sc_stride};
    const int index = detail::find_candidate(detail::tune_type_of(p.type, p.c_type, p.precision), sc.candidate);
    ASSERT_GE(index, 0) << sc.candidate;
    const std::string what = std::string(sc.candidate) + " " + std::to_string(m) + "x" +
                             std::to_string(n) + "x" + std::to_string(k) +
                             (batches > 1 ? " x " + std::to_string(batches) : std::string()) + (ta ? " t" : " n") +
                             (tb ? "t" : "n") + " beta " + std::to_string(beta);
    std::vector<TOut> first(C.size()), again(C.size());
    for (int run = 0; run < 2; ++run) {
        ASSERT_EQ(cudaMemcpy(C.get(), C0.get(), C.bytes(), cudaMemcpyDeviceToDevice), cudaSuccess);
        detail::launch_option(p, index, 1, nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess) << what;
        C.copy_to_host(run == 0 ? first.data() : again.data(), C.size());
    }
    EXPECT_EQ(std::memcmp(first.data(), again.data(), C.bytes()), 0) << what << ": not reproducible";
    std::vector<double> ref_h(static_cast<size_t>(sc_stride)), mag_h(static_cast<size_t>(sc_stride));
    for (int64_t b = 0; b < batches; ++b) {
        detail::Problem one = p;
        one.batch = {};
        one.A = A.get() + b * sa, one.B = B.get() + b * sb, one.C = C.get() + b * sc_stride;
        reference::gpu_reference_half(one.as_half<TIn, TOut>(), C0.get() + b * sc_stride, ldc, ref.get(),
                                      mag.get(), nullptr);
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        ref.copy_to_host(ref_h.data(), ref_h.size());
        mag.copy_to_host(mag_h.data(), mag_h.size());
        const auto r = reference::check_half<TIn, TOut>(Layout::ColMajor, m, n, k, first.data() + b * sc_stride,
                                                        ldc, ref_h.data(), mag_h.data());
        EXPECT_TRUE(r.pass) << what << ", product " << b << ": " << reference::describe(r);
        EXPECT_EQ(r.unwritten, 0) << what << ", product " << b;
    }
}

/// check_split_schedule over every case, op pair and beta (0 and 0.5), with BF16 C and with a
/// float C from FP16 inputs.
template <size_t N>
void check_every_split_schedule(const SplitScheduleCase (&cases)[N], uint64_t seed) {
    for (const auto& c : cases)
        for (auto [ta, tb] : kOps)
            for (float beta : {0.0f, 0.5f}) {
                const bool t_a = ta == Op::T, t_b = tb == Op::T;
                check_split_schedule<__nv_bfloat16, __nv_bfloat16>(c, t_a, t_b, beta, seed += 3);
                check_split_schedule<__half, float>(c, t_a, t_b, beta, seed += 3);
            }
}

TEST(TailSplit, EveryPieceOfTheLastWaveIsAddedOnceInOneOrder) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const char* wide = "persistent 128x256x64 ws tail-split";
    const char* narrow = "persistent 128x128x64 ws tail-split";
    const char* slim = "persistent 128x64x64 ws tail-split";
    const SplitScheduleCase cases[] = {
        {wide, 2048, 2304, 1000},   // 144 tiles: a whole wave, 12 tiles in 2 pieces, a ragged k
        {wide, 2000, 2100, 1100},   // the same with odd edges
        {narrow, 1536, 1536, 1040}, // 144 tiles of 128 x 128, 12 in 2 pieces
        {narrow, 1664, 1408, 4096}, // 143 tiles: 11 in 8 pieces of 8 k tiles
        {wide, 700, 900, 2048},     // fewer tiles than SMs: nothing split, every tile whole
        {slim, 18944, 64, 3584},    // 148 tiles of 128 x 64: 16 in 7 pieces (a prefill's weight)
        {slim, 16900, 60, 2100},    // 133 tiles: the last in 4 pieces, odd edges, a ragged k
    };
    // Cases whose last wave is split on a GPU of this many SMs (the launcher's rule:
    // hopper::plan_tail_split): the test must reach the split path, not only whole tiles.
    int split = 0;
    for (const auto& c : cases) {
        const int64_t bn = c.candidate == wide ? 256 : c.candidate == narrow ? 128 : 64;
        const int64_t k_tiles = (c.k + 63) / 64;
        const int64_t tiles = ((c.m + 127) / 128) * ((c.n + bn - 1) / bn), rest = tiles % dev.sm_count;
        split += tiles >= dev.sm_count && rest > 0 && std::min<int64_t>(dev.sm_count / rest, k_tiles / 8) >= 2;
    }
    EXPECT_GE(split, 6);
    check_every_split_schedule(cases, 7700);
}

// auto's cluster-split candidates (rung 24's kernel with hopper/cluster_split.cuh's schedule),
// launched by name as above: fewer tiles than SMs in 2, 4 and 8 pieces on the three tiles
// (128 x 64, 128 x 128 and 64 x 64), odd m and n, a ragged k, a k too short to cut and more tiles than SMs (nothing split:
// one block per tile), every op, beta 0 and not, C in the input type and in float.
TEST(ClusterSplit, EveryPieceIsAddedOnceInOneOrder) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const char* narrow = "persistent 128x128x64 ws cluster-split";
    const char* slim = "persistent 128x64x64 ws cluster-split";
    const char* small = "persistent 64x64x64 ws cluster-split";
    const char* flat = "persistent 64x128x64 ws cluster-split";
    const SplitScheduleCase cases[] = {
        {slim, 2000, 56, 1000},     // 16 tiles in 4 pieces, a ragged k
        {slim, 1000, 40, 4104},     // 8 tiles in 8 pieces, a ragged k
        {small, 4096, 64, 4096},    // 64 tiles of 64 x 64 in 2 pieces (a prefill of 64 tokens)
        {small, 600, 60, 4104},     // 10 tiles in 8 pieces, odd edges, a ragged k
        {narrow, 1000, 296, 2056},  // 24 tiles in 4 pieces
        {narrow, 1000, 150, 2056},  // 16 tiles in 4 pieces (16 clusters of 8 exceed an H200)
        {narrow, 1000, 296, 200},   // 4 k tiles: nothing split
        {narrow, 2048, 2048, 512},  // 256 tiles: nothing split
        {flat, 500, 296, 2056},     // 24 tiles of 64 x 128 in 4 pieces, odd edges
        {flat, 1024, 1024, 1024},   // 128 tiles: nothing split
    };
    // Cases split on a GPU of this many SMs (the launcher's rule: hopper::plan_cluster_split):
    // the test must reach the exchange, not only whole tiles.
    int split = 0;
    for (const auto& c : cases) {
        const bool one_warpgroup = c.candidate == small || c.candidate == flat;
        const int64_t bn = c.candidate == narrow || c.candidate == flat ? 128 : 64, bm = one_warpgroup ? 64 : 128;
        const int64_t tiles = ((c.m + bm - 1) / bm) * ((c.n + bn - 1) / bn), k_tiles = (c.k + 63) / 64;
        split += std::min<int64_t>({8, dev.sm_count / tiles, k_tiles / 4}) >= 2;
    }
    EXPECT_GE(split, 6);
    check_every_split_schedule(cases, 9100);
}

// Rung 24's 64 x 128 tile over strided batches, by name: whole tiles and odd edges, every op,
// beta 0 and not, C in BF16 and in float from FP16: auto runs the tile on batches too (docs/auto.md,
// "64 x 128 tiles").
TEST(FlatTiles, StridedBatchesMeetTheBound) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const char* flat = "persistent 64x128x64 ws";
    const SplitScheduleCase cases[] = {{flat, 64, 512, 128, 6}, {flat, 100, 300, 72, 5}};
    check_every_split_schedule(cases, 9500);
}

// Rung 24's 64 x 64 tiles on ping-pong consumers (hopper/pingpong.cuh), by name: strided batches
// of one k tile a product (a block's tiles alternate between the warpgroups, many per block),
// odd edges with a ragged k of several k tiles, and one product of many tiles; every op, beta 0
// and not, C in BF16 (the TMA store where it can) and in float from FP16 (from registers).
TEST(PingPongTiles, EveryTileMeetsTheBound) {
    REQUIRE_GPU();
    const DeviceInfo dev = query_device(0);
    if (!(dev.cc_major == 9 && dev.cc_minor == 0 && built_with_sm90a()))
        GTEST_SKIP() << "rung 24 needs sm_90a";
    const char* pingpong = "persistent 64x64x64 ws pingpong";
    const SplitScheduleCase cases[] = {
        {pingpong, 64, 64, 64, 1024}, // 1024 tiles: about eight a block, four a warpgroup
        {pingpong, 100, 70, 200, 37}, // 148 tiles with odd edges, four k tiles, the last ragged
        {pingpong, 1000, 520, 1000},  // 144 tiles of sixteen k tiles: a block with one, two
    };
    check_every_split_schedule(cases, 9700);
}

// Odd leading dimensions on products large enough that auto takes the wgmma rungs, which copy
// such an operand into workspace with aligned columns first (kernels/repitch.cuh): every op,
// beta 0 and not, C in the input type and in float, and a strided batch whose later products
// start unaligned.
TEST(Repitch, OddLeadingDimensionsThroughTheWgmmaRungs) {
    REQUIRE_GPU();
    uint64_t seed = 9300;
    for (DType dt : {DType::BF16, DType::F16_F32})
        for (auto [oa, ob] : kOps)
            for (double beta : {0.0, 0.5}) {
                Case cs{dt, Layout::RowMajor, oa, ob, {1031, 517, 1029}, 1.0, beta, 0, FillKind::Uniform};
                DeviceProblem p(cs, seed++, ReferenceSource::Cpu);
                const cli::RunResult r = p.run_and_check("auto");
                ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
                EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
                EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
            }
    for (auto [oa, ob] : kOps)
        check_all_kernels(batched_case(DType::BF16, Layout::ColMajor, oa, ob, {300, 260, 270, 3}, 1.0,
                                       0.5, FillKind::SmallIntegers, Broadcast::None, 3),
                          seed++, true);
}

// ------------------------------------------------------------------ split-K
// Shapes whose m x n tiles cannot fill the GPU while k is long: auto's model cuts k into slices
// there (split-K: split_k.cuh, and inside the wgmma kernel on an sm_90a GPU).
// k is not a multiple of any tile, so the last slice is ragged.
const cli::Shape kSplitShapes[] = {{256, 192, 8192 + 33}, {130, 70, 4096 + 5}};

TEST(SplitK, AutoOnLargeKIsWithinTheBoundForEveryType) {
    REQUIRE_GPU();
    uint64_t seed = 2100;
    for (DType dt : cli::kAllDTypes)
        for (cli::Shape s : kSplitShapes)
            for (Precision precision : {Precision::Default, Precision::Tf32}) {
                if (precision == Precision::Tf32 && dt != DType::F32) continue;
                Case cs{dt, Layout::RowMajor, Op::N, Op::T, s, -1.5, 0.5, 0, FillKind::Uniform};
                cs.precision = precision;
                DeviceProblem p(cs, seed++, ReferenceSource::Cpu);
                const cli::RunResult r = p.run_and_check("auto");
                ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
                EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
                EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
            }
}

// The slices' partial sums are added in one fixed order (no atomics): the same call gives the
// same bits every time.
template <class TIn, class TOut>
void expect_bitwise_reproducible(Precision precision) {
    const int64_t m = 256, n = 192, k = 8192 + 33;
    DeviceBuffer<TIn> A(size_t(m * k)), B(size_t(k * n));
    DeviceBuffer<TOut> C(size_t(m * n));
    using Scalar = std::conditional_t<std::is_same_v<TIn, double>, double, float>;
    fill_random(A.get(), A.size(), 31, FillKind::Uniform);
    fill_random(B.get(), B.size(), 32, FillKind::Uniform);
    GemmOptions options;
    options.precision = precision;
    std::vector<TOut> first(C.size()), again(C.size());
    for (int run = 0; run < 3; ++run) {
        fill_random(C.get(), C.size(), 33, FillKind::Uniform); // beta != 0: C is read as well
        ASSERT_EQ(gemm(Layout::RowMajor, Op::N, Op::N, m, n, k, Scalar(0.75), A.get(), k, B.get(), n,
                       Scalar(0.5), C.get(), n, options),
                  Status::Success)
            << last_error();
        ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
        C.copy_to_host(run == 0 ? first.data() : again.data(), C.size());
        if (run > 0)
            EXPECT_EQ(std::memcmp(first.data(), again.data(), C.bytes()), 0) << "run " << run;
    }
}

TEST(SplitK, AutoIsBitwiseReproducible) {
    REQUIRE_GPU();
    expect_bitwise_reproducible<float, float>(Precision::Default);
    expect_bitwise_reproducible<float, float>(Precision::Tf32);
    expect_bitwise_reproducible<double, double>(Precision::Default);
    expect_bitwise_reproducible<__nv_bfloat16, __nv_bfloat16>(Precision::Default);
    expect_bitwise_reproducible<__half, float>(Precision::Default);
}

// GemmOptions::sm_count_target: the persistent rung launches at most that many blocks, so a
// product of many waves takes several times longer on an eighth of the SMs, and each of its
// tiles sums k in the same order as on all of them (the same bits). auto under a target runs
// too and stays within the bound; a negative target is refused before any launch.
TEST(SmCountTarget, ThePersistentRungRunsOnAnEighthOfTheSmsSlowerAndBitForBit) {
    REQUIRE_GPU();
    if (!gemmlab::detail::current_device_caps().sm90a) GTEST_SKIP() << "rung 24 needs sm_90a";
    const int sms = gemmlab::detail::current_device_caps().sm_count;
    const int64_t m = 4096, n = 4096, k = 2048;
    DeviceBuffer<__nv_bfloat16> A(size_t(m * k)), B(size_t(k * n));
    DeviceBuffer<__nv_bfloat16> C_all(size_t(m * n)), C_few(size_t(m * n));
    fill_random(A.get(), A.size(), 41, FillKind::Uniform);
    fill_random(B.get(), B.size(), 42, FillKind::Uniform);
    GemmOptions all, few;
    all.kernel = few.kernel = "persistent";
    few.sm_count_target = std::max(1, sms / 8);
    auto call = [&](const GemmOptions& o, __nv_bfloat16* C) {
        return gemm(Layout::RowMajor, Op::N, Op::T, m, n, k, 1.0f, A.get(), k, B.get(), k, 0.0f, C, n, o);
    };
    // Timed interleaved, as the bench times contenders.
    TimingPolicy policy;
    policy.min_samples = 5;
    policy.min_total_ms = 20;
    const std::vector<TimingStats> t = time_interleaved(
        {[&](cudaStream_t s) { all.stream = s; ASSERT_EQ(call(all, C_all.get()), Status::Success) << last_error(); },
         [&](cudaStream_t s) { few.stream = s; ASSERT_EQ(call(few, C_few.get()), Status::Success) << last_error(); }},
        nullptr, policy);
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const double t_all = t[0].median_ms, t_few = t[1].median_ms;
    EXPECT_GT(t_few, 3.0 * t_all) << "on all " << sms << " SMs " << t_all << " ms, on " << few.sm_count_target
                                   << " of them " << t_few << " ms";
    std::vector<__nv_bfloat16> h_all(C_all.size()), h_few(C_few.size());
    C_all.copy_to_host(h_all.data(), h_all.size());
    C_few.copy_to_host(h_few.data(), h_few.size());
    EXPECT_EQ(std::memcmp(h_all.data(), h_few.data(), C_all.bytes()), 0);

    for (DType dt : {DType::BF16, DType::F32, DType::F64}) {
        Case cs{dt, Layout::RowMajor, Op::N, Op::T, {1000, 1536, 520, 1}, 1.0, 0.5, 0, FillKind::Uniform};
        cs.sm_count_target = 5;
        DeviceProblem p(cs, 43, ReferenceSource::Cpu);
        const cli::RunResult r = p.run_and_check("auto");
        ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
        EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
        EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
        GemmOptions negative;
        negative.sm_count_target = -1;
        EXPECT_EQ(p.call(negative), Status::InvalidSize);
        EXPECT_NE(std::string(last_error()).find("sm_count_target"), std::string::npos) << last_error();
    }
}

} // namespace
