// Tests of the `tensor` probe. CPU: the rounding-mode predictions and their classification, the
// fragment layouts and the wgmma shared-memory layout and descriptor (src/probe/tensor.hpp).
// GPU (skipped without a device): the probe runs, and its numbers are physically consistent.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <memory>
#include <regex>
#include <set>
#include <span>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "gemmlab/probe.hpp"
#include "probe/probes.hpp"
#include "probe/report.hpp"
#include "probe/tensor.hpp"

namespace gp = gemmlab::probe;
namespace tc = gemmlab::probe::tensor;

// ---------------------------------------------------------------- rounding predictions (CPU)

TEST(TensorRounding, PredictionsForEveryCaseAndMode) {
    using R = tc::Rounding;
    // Offsets from C in units of u, worked out by hand: above 1 the grid is 2u, below it u.
    struct Want {
        double nearest_even, nearest_away, toward_zero, down, up;
    };
    const std::array<Want, 7> want = {{
        {2, 2, 0, 0, 2},    // 1 + 1.5u
        {0, 0, 0, 0, 2},    // 1 + 0.5u
        {0, 2, 0, 0, 2},    // 1 + 1u: a tie, 1 is even
        {-2, -2, 0, -2, 0}, // -1 - 1.5u
        {0, 0, 0, -2, 0},   // -1 - 0.5u
        {0, 0, -1, -1, 0},  // 1 - 0.25u: below 1 the grid is u
        {4, 4, 4, 4, 4},    // 1 + 8 x 0.5u = 1 + 4u, representable
    }};
    ASSERT_EQ(tc::kAccumulationCases.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const auto& c = tc::kAccumulationCases[i];
        SCOPED_TRACE(std::string(c.label));
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::NearestEven), want[i].nearest_even);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::NearestAway), want[i].nearest_away);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::TowardZero), want[i].toward_zero);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::Down), want[i].down);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::Up), want[i].up);
    }
}

TEST(TensorRounding, TiesToEvenBelowOne) {
    // 1 - 0.5u lies halfway between 1 - u (odd significand) and 1 (even).
    EXPECT_EQ(tc::rounded_offset(+1, -0.5, tc::Rounding::NearestEven), 0.0);
    // 1 - 1.5u: between 1 - 2u (even) and 1 - u (odd).
    EXPECT_EQ(tc::rounded_offset(+1, -1.5, tc::Rounding::NearestEven), -2.0);
    // 1 + 3u: between 1 + 2u (odd) and 1 + 4u (even).
    EXPECT_EQ(tc::rounded_offset(+1, 3.0, tc::Rounding::NearestEven), 4.0);
    EXPECT_EQ(tc::rounded_offset(-1, -3.0, tc::Rounding::NearestEven), -4.0);
    // Representable offsets come back unchanged in every mode.
    for (tc::Rounding m : tc::kRoundings) {
        EXPECT_EQ(tc::rounded_offset(+1, 6.0, m), 6.0);
        EXPECT_EQ(tc::rounded_offset(+1, -3.0, m), -3.0);
        EXPECT_EQ(tc::rounded_offset(-1, 3.0, m), 3.0);
    }
}

TEST(TensorRounding, SameSignCasesIdentifyEachModeAlone) {
    for (tc::Rounding mode : tc::kRoundings) {
        std::vector<double> measured;
        for (const auto& c : tc::kAccumulationCases)
            measured.push_back(tc::rounded_offset(c.c_sign, c.exact_u(), mode));
        const auto modes = tc::matching_modes(measured);
        ASSERT_EQ(modes.size(), 1u) << tc::rounding_name(mode);
        EXPECT_EQ(modes.front(), mode);
    }
    // Truncation that drops the smaller addend's low bits (case 6 gives C, not 1 - u) is still
    // recognised as truncation: the verdict uses the same-sign cases only.
    EXPECT_EQ(tc::matching_modes(std::vector<double>{0, 0, 0, 0, 0, 0, 0}),
              std::vector<tc::Rounding>{tc::Rounding::TowardZero});
    // A pattern no mode gives, and too few values.
    EXPECT_TRUE(tc::matching_modes(std::vector<double>{2, 2, 0, 0, 0, 0, 4}).empty());
    EXPECT_TRUE(tc::matching_modes(std::vector<double>{2, 0}).empty());
}

TEST(TensorRounding, NamesAndOffsetText) {
    std::set<std::string> names;
    for (tc::Rounding m : tc::kRoundings) names.insert(std::string(tc::rounding_name(m)));
    EXPECT_EQ(names.size(), tc::kRoundings.size());
    EXPECT_EQ(tc::rounding_name(tc::Rounding::TowardZero), "truncates (round toward zero)");
    EXPECT_EQ(tc::offset_text(+1, 0), "1");
    EXPECT_EQ(tc::offset_text(+1, 2), "1 + 2u");
    EXPECT_EQ(tc::offset_text(+1, -1), "1 - 1u");
    EXPECT_EQ(tc::offset_text(-1, -2), "-1 - 2u");
    EXPECT_EQ(tc::offset_text(-1, 0.5), "-1 + 0.5u");
}

TEST(TensorRounding, K16PredictionsForEveryCaseAndMode) {
    using R = tc::Rounding;
    struct Want {
        double nearest_even, nearest_away, toward_zero, down, up;
    };
    // Cases 1-6 as for k8; 7: 1 + 16 x 0.5u = 1 + 8u; 8: 1 + 1u + 1u = 1 + 2u, both
    // representable, so one rounding of the exact sum gives them in every mode.
    const std::array<Want, 8> want = {{
        {2, 2, 0, 0, 2},
        {0, 0, 0, 0, 2},
        {0, 2, 0, 0, 2},
        {-2, -2, 0, -2, 0},
        {0, 0, 0, -2, 0},
        {0, 0, -1, -1, 0},
        {8, 8, 8, 8, 8},
        {2, 2, 2, 2, 2},
    }};
    ASSERT_EQ(tc::kAccumulationCasesK16.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        const auto& c = tc::kAccumulationCasesK16[i];
        SCOPED_TRACE(std::string(c.label));
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::NearestEven), want[i].nearest_even);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::NearestAway), want[i].nearest_away);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::TowardZero), want[i].toward_zero);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::Down), want[i].down);
        EXPECT_EQ(tc::rounded_offset(c.c_sign, c.exact_u(), R::Up), want[i].up);
    }
    // The verdict reads cases 1-5 of either list, so they must be the same problems.
    for (int i = 0; i < tc::kSameSignCases; ++i) {
        const auto& a = tc::kAccumulationCases[size_t(i)];
        const auto& b = tc::kAccumulationCasesK16[size_t(i)];
        EXPECT_EQ(a.c_sign, b.c_sign);
        EXPECT_EQ(a.exact_u(), b.exact_u());
    }
}

TEST(TensorRounding, K16CasesIdentifyEachModeAndTheSplitK) {
    const auto& cases = tc::kAccumulationCasesK16;
    for (tc::Rounding mode : tc::kRoundings) {
        std::vector<double> measured;
        for (const auto& c : cases)
            measured.push_back(tc::rounded_offset(c.c_sign, c.exact_u(), mode));
        const auto modes = tc::matching_modes(measured, cases);
        ASSERT_EQ(modes.size(), 1u) << tc::rounding_name(mode);
        EXPECT_EQ(modes.front(), mode);
    }
    // An m16n8k16 done as two k8 steps with a rounding between them: case 7's halves (4u each)
    // are representable, so only case 8 (a 1u tie in each half) shows the split, in every mode.
    const auto& c7 = cases[6];
    const auto& c8 = cases[7];
    using R = tc::Rounding;
    for (R mode : tc::kRoundings) EXPECT_EQ(tc::two_step_offset(c7, mode), 8.0);
    EXPECT_EQ(tc::two_step_offset(c8, R::NearestEven), 0.0); // 1 + 1u -> 1, twice
    EXPECT_EQ(tc::two_step_offset(c8, R::TowardZero), 0.0);
    EXPECT_EQ(tc::two_step_offset(c8, R::Down), 0.0);
    EXPECT_EQ(tc::two_step_offset(c8, R::NearestAway), 4.0); // 1 + 2u, then 1 + 3u -> 1 + 4u
    EXPECT_EQ(tc::two_step_offset(c8, R::Up), 4.0);
    for (R mode : tc::kRoundings) EXPECT_NE(tc::two_step_offset(c8, mode), c8.exact_u());
    // A single-step case is the same either way.
    EXPECT_EQ(tc::two_step_offset(cases[0], R::TowardZero), 0.0);
    EXPECT_EQ(tc::two_step_offset(cases[0], R::NearestEven), 2.0);
}

TEST(TensorRounding, ProblemsAreExactInEveryInputFormat) {
    auto check = [](std::span<const tc::AccumulationCase> cases, int p, int k_max, bool half) {
        for (const auto& c : cases) {
            SCOPED_TRACE(std::string(c.label) + " p = " + std::to_string(p));
            const tc::Problem pr = tc::accumulation_problem(c, p);
            EXPECT_EQ(pr.c, double(c.c_sign));
            double sum = 0; // every term is a power-of-two multiple well inside double
            int products = 0;
            for (int k = 0; k < 16; ++k) {
                const double a = pr.a[size_t(k)], b = pr.b[size_t(k)];
                if (a == 0 && b == 0) continue;
                ++products;
                EXPECT_LT(k, k_max);
                sum += a * b;
                if (half) {
                    EXPECT_TRUE(tc::bf16_bits(a).exact) << a;
                    EXPECT_TRUE(tc::bf16_bits(b).exact) << b;
                    EXPECT_TRUE(tc::fp16_bits(a).exact) << a;
                    EXPECT_TRUE(tc::fp16_bits(b).exact) << b;
                    EXPECT_EQ(tc::bf16_value(tc::bf16_bits(a).bits), a);
                    EXPECT_EQ(tc::fp16_value(tc::fp16_bits(b).bits), b);
                }
            }
            EXPECT_EQ(products, c.products);
            EXPECT_EQ(sum, c.exact_u() * std::ldexp(1.0, -p));
        }
    };
    check(tc::kAccumulationCases, 24, 8, true);
    check(tc::kAccumulationCases, 53, 8, false);
    check(tc::kAccumulationCasesK16, 24, 16, true);
    // Case 8 has one product in each half of K.
    const tc::Problem c8 = tc::accumulation_problem(tc::kAccumulationCasesK16[7], 24);
    EXPECT_NE(c8.a[0], 0.0);
    EXPECT_NE(c8.a[8], 0.0);
    EXPECT_EQ(c8.a[1], 0.0);
}

TEST(TensorRounding, SixteenBitEncodings) {
    EXPECT_EQ(tc::bf16_bits(1.0).bits, 0x3F80);
    EXPECT_EQ(tc::bf16_bits(-2.0).bits, 0xC000);
    EXPECT_EQ(tc::bf16_bits(1.5 * std::ldexp(1.0, -12)).bits, (115 << 7) | 0x40);
    EXPECT_EQ(tc::bf16_bits(1.0 + std::ldexp(1.0, -7)).bits, 0x3F81);
    EXPECT_EQ(tc::fp16_bits(1.0).bits, 0x3C00);
    EXPECT_EQ(tc::fp16_bits(-2.0).bits, 0xC000);
    EXPECT_EQ(tc::fp16_bits(std::ldexp(1.0, -14)).bits, 0x0400); // smallest normal
    EXPECT_EQ(tc::fp16_bits(65504.0).bits, 0x7BFF);               // largest finite
    EXPECT_EQ(tc::fp16_bits(0.0).bits, 0x0000);
    EXPECT_EQ(tc::fp16_bits(-0.0).bits, 0x8000);
    EXPECT_TRUE(tc::fp16_bits(0.0).exact);
    // The widest products' factors: 2 - 2^-7 is 8 ones in bf16, 2 - 2^-10 11 ones in fp16.
    EXPECT_EQ(tc::bf16_bits(2.0 - std::ldexp(1.0, -7)).bits, 0x3FFF);
    EXPECT_EQ(tc::fp16_bits(2.0 - std::ldexp(1.0, -10)).bits, 0x3FFF);
    // What cannot be encoded exactly says so.
    EXPECT_FALSE(tc::bf16_bits(1.0 + std::ldexp(1.0, -8)).exact);
    EXPECT_FALSE(tc::fp16_bits(1.0 + std::ldexp(1.0, -11)).exact);
    EXPECT_FALSE(tc::fp16_bits(std::ldexp(1.0, -15)).exact); // subnormal in fp16
    EXPECT_FALSE(tc::fp16_bits(65536.0).exact);
    EXPECT_FALSE(tc::bf16_bits(std::ldexp(1.0, 128)).exact);
    EXPECT_TRUE(tc::bf16_bits(std::ldexp(1.0, -126)).exact);
    EXPECT_FALSE(tc::bf16_bits(std::ldexp(1.0, -127)).exact);
    // Decoding inverts encoding.
    for (double x : {1.0, -3.5, 0.1875, std::ldexp(1.0, -14), 1.0 + std::ldexp(1.0, -10)})
        EXPECT_EQ(tc::fp16_value(tc::fp16_bits(x).bits), x) << x;
    for (double x : {1.0, -3.5, std::ldexp(1.5, -100), std::ldexp(1.0, 100)})
        EXPECT_EQ(tc::bf16_value(tc::bf16_bits(x).bits), x) << x;
    // The product cases are exact in FP32: 16 and 22 significant bits.
    const double qb = 2.0 - std::ldexp(1.0, -7), qh = 2.0 - std::ldexp(1.0, -10);
    EXPECT_EQ(double(float(qb * qb)), qb * qb);
    EXPECT_EQ(double(float(qh * qh)), qh * qh);
    EXPECT_EQ(qb * qb, 4.0 - std::ldexp(1.0, -5) + std::ldexp(1.0, -14));
    EXPECT_EQ(qh * qh, 4.0 - std::ldexp(1.0, -8) + std::ldexp(1.0, -20));
}

// ---------------------------------------------------------------- layouts (CPU)

TEST(TensorLayout, Mma16x8x8FragmentsCoverEachElementOnce) {
    namespace l = tc::m16n8k8;
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane) {
        for (int i = 0; i < l::kA; ++i) a.insert({l::a(lane, i).row, l::a(lane, i).col});
        for (int i = 0; i < l::kB; ++i) b.insert({l::b(lane, i).row, l::b(lane, i).col});
        for (int i = 0; i < l::kC; ++i) c.insert({l::c(lane, i).row, l::c(lane, i).col});
    }
    EXPECT_EQ(a.size(), 16u * 8u);
    EXPECT_EQ(b.size(), 8u * 8u);
    EXPECT_EQ(c.size(), 16u * 8u);
    for (auto [r, k] : a) EXPECT_TRUE(r >= 0 && r < 16 && k >= 0 && k < 8);
    for (auto [k, n] : b) EXPECT_TRUE(k >= 0 && k < 8 && n >= 0 && n < 8);
    for (auto [r, n] : c) EXPECT_TRUE(r >= 0 && r < 16 && n >= 0 && n < 8);
    // The element the rounding cases read, D(0, 0), is lane 0's first accumulator.
    EXPECT_EQ(l::c(0, 0).row, 0);
    EXPECT_EQ(l::c(0, 0).col, 0);
}

TEST(TensorLayout, Mma16x8x16HalfFragmentsCoverEachElementOnce) {
    namespace l = tc::m16n8k16;
    std::set<std::pair<int, int>> a, b, c;
    for (int lane = 0; lane < 32; ++lane)
        for (int e = 0; e < l::kElems; ++e) {
            for (int i = 0; i < l::kA; ++i) a.insert({l::a(lane, i, e).row, l::a(lane, i, e).col});
            for (int i = 0; i < l::kB; ++i) b.insert({l::b(lane, i, e).row, l::b(lane, i, e).col});
        }
    for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < l::kC; ++i) c.insert({l::c(lane, i).row, l::c(lane, i).col});
    EXPECT_EQ(a.size(), 16u * 16u);
    EXPECT_EQ(b.size(), 16u * 8u);
    EXPECT_EQ(c.size(), 16u * 8u);
    for (auto [r, k] : a) EXPECT_TRUE(r >= 0 && r < 16 && k >= 0 && k < 16);
    for (auto [k, n] : b) EXPECT_TRUE(k >= 0 && k < 16 && n >= 0 && n < 8);
    // PTX ISA figure: lane 5 (group 1, thread 1): a6/a7 (register 3) are A(9, 10) and A(9, 11);
    // b2 (register 1, low half) is B(10, 1).
    EXPECT_EQ(l::a(5, 3, 0).row, 9);
    EXPECT_EQ(l::a(5, 3, 0).col, 10);
    EXPECT_EQ(l::a(5, 3, 1).col, 11);
    EXPECT_EQ(l::a(5, 2, 0).row, 1);
    EXPECT_EQ(l::b(5, 1, 0).row, 10);
    EXPECT_EQ(l::b(5, 1, 0).col, 1);
    // Row 0 of A (what the rounding cases fill) is spread over lanes 0-3, k 0-15.
    std::set<int> row0;
    for (int lane = 0; lane < 4; ++lane)
        for (int i = 0; i < l::kA; ++i)
            for (int e = 0; e < 2; ++e)
                if (l::a(lane, i, e).row == 0) row0.insert(l::a(lane, i, e).col);
    EXPECT_EQ(row0.size(), 16u);
}

TEST(TensorLayout, WgmmaAccumulatorCoversTheTileOnce) {
    for (int n : {64, 128, 256}) {
        std::set<std::pair<int, int>> seen;
        for (int t = 0; t < 128; ++t)
            for (int r = 0; r < n / 2; ++r) {
                const tc::Coord at = tc::wgmma_d(t, r);
                ASSERT_TRUE(at.row >= 0 && at.row < 64 && at.col >= 0 && at.col < n)
                    << n << " " << t << " " << r;
                seen.insert({at.row, at.col});
            }
        EXPECT_EQ(seen.size(), size_t(64 * n)) << n;
    }
    // Warp 1 starts at row 16; lane 5 (group 1, thread 1) holds columns 2-3 of rows 17 and 25.
    EXPECT_EQ(tc::wgmma_d(32 + 5, 0).row, 17);
    EXPECT_EQ(tc::wgmma_d(32 + 5, 0).col, 2);
    EXPECT_EQ(tc::wgmma_d(32 + 5, 3).row, 25);
    EXPECT_EQ(tc::wgmma_d(32 + 5, 3).col, 3);
    EXPECT_EQ(tc::wgmma_d(32 + 5, 4).col, 10); // the next 8-column slab
}

TEST(TensorLayout, KMajorNoSwizzleCoreMatrices) {
    for (int rows : {64, 256}) {
        std::set<uint32_t> offsets;
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < 16; ++k) {
                const uint32_t o = tc::kmajor_offset(r, k);
                EXPECT_EQ(o % 2, 0u);
                EXPECT_LT(o, uint32_t(rows * 32));
                offsets.insert(o);
            }
        EXPECT_EQ(offsets.size(), size_t(rows * 16)) << rows; // dense and one-to-one
    }
    // A core matrix is 8 rows of 16 contiguous bytes.
    EXPECT_EQ(tc::kmajor_offset(0, 1) - tc::kmajor_offset(0, 0), 2u);
    EXPECT_EQ(tc::kmajor_offset(1, 0) - tc::kmajor_offset(0, 0), 16u);
    EXPECT_EQ(tc::kmajor_offset(7, 7) - tc::kmajor_offset(0, 0), tc::kCoreMatrixBytes - 2);
    // The next core matrix along K is one leading-dimension offset away, along M/N one stride.
    EXPECT_EQ(tc::kmajor_offset(0, 8) - tc::kmajor_offset(0, 0), tc::kLeadingByteOffset);
    EXPECT_EQ(tc::kmajor_offset(8, 0) - tc::kmajor_offset(0, 0), tc::kStrideByteOffset);
    EXPECT_EQ(tc::kmajor_offset(13, 11) - tc::kmajor_offset(5, 3),
              tc::kLeadingByteOffset + tc::kStrideByteOffset);
}

TEST(TensorLayout, DescriptorFields) {
    const uint64_t d = tc::wgmma_descriptor(0x1230, 128, 256);
    EXPECT_EQ(d & 0x3FFF, 0x123u);      // start address >> 4
    EXPECT_EQ((d >> 16) & 0x3FFF, 8u);  // 128 B >> 4
    EXPECT_EQ((d >> 32) & 0x3FFF, 16u); // 256 B >> 4
    EXPECT_EQ((d >> 49) & 0x7, 0u);     // base offset
    EXPECT_EQ(d >> 62, 0u);             // no swizzle
    // Only bits 4-17 of an address are encoded; the device ORs an address into a stride template.
    EXPECT_EQ(tc::wgmma_descriptor(0x40000 + 0x20, 0, 0), 0x2u);
    EXPECT_EQ(tc::wgmma_descriptor(0x400, 0, 0) | tc::wgmma_descriptor(0, 128, 256),
              tc::wgmma_descriptor(0x400, 128, 256));
}

TEST(TensorRegistry, IsRegisteredWithAQuestion) {
    const gp::ProbeInfo* p = gp::find_probe("tensor");
    ASSERT_NE(p, nullptr);
    EXPECT_FALSE(p->question.empty());
    EXPECT_EQ(p->run, &gp::run_tensor);
    EXPECT_EQ(gp::probes().front().name, "clock");
}

// ---------------------------------------------------------------- the probe on a GPU

namespace {

bool has_device() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); // clear the "no device" error
        return false;
    }
    return n > 0;
}

const gp::Table* find_table(const gp::Result& r, const std::string& title_start) {
    for (const auto& t : r.tables)
        if (t.title.rfind(title_start, 0) == 0) return &t;
    return nullptr;
}

int column(const gp::Table& t, const std::string& name, const std::string& unit) {
    for (size_t i = 0; i < t.columns.size(); ++i)
        if (t.columns[i] == name && t.units[i] == unit) return int(i);
    return -1;
}

bool has_headline(const gp::Result& r, const std::string& key) {
    return std::any_of(r.headlines.begin(), r.headlines.end(),
                       [&](const gp::Headline& h) { return h.key == key; });
}

} // namespace

class ProbeTensorGpu : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!has_device()) return;
        ctx_ = std::make_unique<gp::Context>(gp::make_context(0));
        (void)gp::run_clock(*ctx_);
        result_ = std::make_unique<gp::Result>(gp::run_tensor(*ctx_));
    }
    static void TearDownTestSuite() {
        result_.reset();
        ctx_.reset();
    }
    void SetUp() override {
        if (!ctx_) GTEST_SKIP() << "no CUDA device visible";
        if (has_headline(*result_, "tensor_skipped"))
            GTEST_SKIP() << "the probe skipped this device";
    }
    static const gp::Result& result() { return *result_; }
    static const gp::Context& ctx() { return *ctx_; }

    static std::unique_ptr<gp::Context> ctx_;
    static std::unique_ptr<gp::Result> result_;
};

std::unique_ptr<gp::Context> ProbeTensorGpu::ctx_;
std::unique_ptr<gp::Result> ProbeTensorGpu::result_;

TEST_F(ProbeTensorGpu, WellFormedAndReportable) {
    const gp::Result& r = result();
    EXPECT_FALSE(r.tables.empty());
    EXPECT_FALSE(r.headlines.empty());
    for (const auto& t : r.tables) {
        EXPECT_FALSE(t.title.empty());
        EXPECT_EQ(t.columns.size(), t.units.size()) << t.title;
        EXPECT_FALSE(t.rows.empty()) << t.title;
        for (const auto& row : t.rows) {
            ASSERT_EQ(row.size(), t.columns.size()) << t.title;
            for (double v : row) EXPECT_TRUE(std::isfinite(v)) << t.title;
        }
    }
    for (const auto& h : r.headlines) {
        EXPECT_FALSE(h.key.empty());
        EXPECT_FALSE(h.unit.empty()) << h.key;
        EXPECT_TRUE(std::isfinite(h.value)) << h.key;
        EXPECT_FALSE(std::regex_search(h.text, std::regex(R"(\b-?nan\b|\binf\b)"))) << h.text;
    }
    const nlohmann::json j = gp::to_json(ctx(), {{gp::find_probe("tensor"), r}});
    EXPECT_EQ(j.at("probes").at(0).at("name"), "tensor");
}

TEST_F(ProbeTensorGpu, MmaSyncThroughputBeatsTheCudaCores) {
    const gp::Result& r = result();
    const double f64_small = r.at("tensor_f64_m8n8k4_flop_per_clk_sm");
    const double tf32 = r.at("tensor_tf32_m16n8k8_flop_per_clk_sm");
    const double bf16 = r.at("tensor_bf16_m16n8k16_flop_per_clk_sm");
    const double fp16 = r.at("tensor_fp16_m16n8k16_flop_per_clk_sm");
    for (double v : {f64_small, tf32, bf16, fp16}) {
        EXPECT_GT(v, 0.0);
        EXPECT_LT(v, 32768.0); // far above any tensor core: a unit slip
    }
    if (ctx().cc_major >= 9 && !has_headline(r, "tensor_f64_sm90_shapes_skipped")) {
        const double f64 = r.at("tensor_f64_m16n8k16_flop_per_clk_sm");
        // The FP64 FMA pipes peak at 2 x 64 lanes = 128 FLOP/clk/SM on sm_90.
        EXPECT_GT(f64, 2.0 * std::max(ctx().fp64_lanes_per_sm, 64));
        EXPECT_GT(tf32, r.at("tensor_f64_m16n8k8_flop_per_clk_sm"));
        EXPECT_GT(tf32, f64);
    }
    EXPECT_GT(tf32, f64_small);
    EXPECT_GT(bf16, tf32 * 0.9); // 16-bit inputs are never slower than tf32
}

TEST_F(ProbeTensorGpu, LatenciesArePositiveAndSane) {
    const gp::Table* s = find_table(result(), "mma.sync per shape");
    ASSERT_NE(s, nullptr);
    const int lat = column(*s, "latency", "cycles");
    const int lat_ns = column(*s, "latency", "ns");
    const int best = column(*s, "best", "FLOP/clk/SM");
    ASSERT_GE(lat, 0);
    ASSERT_GE(lat_ns, 0);
    ASSERT_GE(best, 0);
    EXPECT_GE(s->rows.size(), 4u);
    for (const auto& row : s->rows) {
        EXPECT_GT(row[size_t(lat)], 0.0);
        EXPECT_LT(row[size_t(lat)], 2000.0);
        EXPECT_NEAR(row[size_t(lat_ns)], ctx().cycles_to_ns(row[size_t(lat)]),
                    1e-6 * row[size_t(lat_ns)] + 1e-9);
        EXPECT_GT(row[size_t(best)], 0.0);
    }
    // Throughput tables: every point a sweep point the probe defines, clock64 and events agree.
    for (const auto& t : result().tables) {
        if (t.title.find("mma.sync throughput") == std::string::npos) continue;
        const int clk = column(t, "FLOP per clk per SM (clock64)", "FLOP/clk/SM");
        const int ev = column(t, "FLOP per clk per SM (events)", "FLOP/clk/SM");
        ASSERT_GE(clk, 0) << t.title;
        ASSERT_GE(ev, 0) << t.title;
        for (const auto& row : t.rows) {
            EXPECT_TRUE(row[0] >= 1 && row[0] <= 32) << t.title;
            EXPECT_TRUE(row[1] == 1 || row[1] == 4 || row[1] == 8) << t.title;
            // Events include the launch and every SM's skew, so they read a little lower.
            EXPECT_LT(row[size_t(ev)], row[size_t(clk)] * 1.1) << t.title;
            EXPECT_GT(row[size_t(ev)], row[size_t(clk)] * 0.5) << t.title;
        }
    }
}

TEST_F(ProbeTensorGpu, WgmmaRunsAndItsLayoutCheckPasses) {
    const gp::Result& r = result();
    if (has_headline(r, "tensor_wgmma_skipped"))
        GTEST_SKIP() << "wgmma rows skipped on this device or build";
    EXPECT_EQ(r.at("tensor_wgmma_layout_check"), 1.0);
    const double mma_bf16 = r.at("tensor_bf16_m16n8k16_flop_per_clk_sm");
    for (const char* key : {"tensor_wgmma_bf16_m64n64k16_flop_per_clk_sm",
                            "tensor_wgmma_bf16_m64n128k16_flop_per_clk_sm",
                            "tensor_wgmma_bf16_m64n256k16_flop_per_clk_sm"}) {
        const double v = r.at(key);
        EXPECT_GT(v, 2.0 * std::max(ctx().fp32_lanes_per_sm, 128))
            << key; // above the FP32 FMA peak
        EXPECT_GT(v, 0.5 * mma_bf16) << key;
        EXPECT_LT(v, 32768.0) << key;
    }
    // The widest tile reaches at least what bf16 mma.sync reaches.
    EXPECT_GT(r.at("tensor_wgmma_bf16_m64n256k16_flop_per_clk_sm"), 0.9 * mma_bf16);
    const gp::Table* lat = find_table(r, "wgmma bf16 m64nNk16 latency");
    ASSERT_NE(lat, nullptr);
    ASSERT_EQ(lat->rows.size(), 3u);
    for (const auto& row : lat->rows) EXPECT_GT(row[2], 0.0);
}

TEST_F(ProbeTensorGpu, RoundingVerdicts) {
    const gp::Result& r = result();
    const double tf32 = r.at("tensor_tf32_accumulation_rounding");
    EXPECT_GE(tf32, -1.0);
    EXPECT_LE(tf32, 4.0);
    // The PTX ISA leaves tf32 product precision to the hardware: only the verdict's form is checked.
    const double exact = r.at("tensor_tf32_products_exact");
    EXPECT_TRUE(exact == 0.0 || exact == 1.0) << exact;
    EXPECT_GE(r.at("tensor_tf32_operand_low_bits"), 0.0) << "an operand result matching no reading";
    // 16-bit inputs: always measured on mma.sync; on wgmma where its rows ran and its layout check
    // passed. The PTX ISA states neither their accumulation rounding nor their product
    // precision, so only the verdicts' form is checked.
    std::vector<std::string> keys = {"bf16", "fp16"};
    if (!has_headline(r, "tensor_wgmma_skipped") &&
        !has_headline(r, "tensor_wgmma_rounding_skipped"))
        keys.push_back("wgmma_bf16");
    for (const std::string& k : keys) {
        const double mode = r.at("tensor_" + k + "_accumulation_rounding");
        EXPECT_TRUE(mode == std::floor(mode) && mode >= -1.0 && mode <= 4.0) << k << " " << mode;
        for (const char* flag : {"_sum_rounded_once", "_products_exact"}) {
            const double v = r.at("tensor_" + k + flag);
            EXPECT_TRUE(v == 0.0 || v == 1.0) << k << flag << " " << v;
        }
        const gp::Table* t = find_table(r, (k == "bf16"   ? "bf16 mma.sync m16n8k16"
                                            : k == "fp16" ? "fp16 mma.sync m16n8k16"
                                                          : "wgmma bf16 m64n64k16") +
                                               std::string(" accumulation"));
        ASSERT_NE(t, nullptr) << k;
        ASSERT_EQ(t->rows.size(), tc::kAccumulationCasesK16.size()) << k;
        // D is an FP32 value within a few u of C = +-1, where FP32's spacing is u or 2u: every
        // offset is a whole number of u, and a small one (anything else is a misplaced operand).
        for (const auto& row : t->rows) {
            EXPECT_EQ(row[3], std::floor(row[3])) << k;
            EXPECT_LE(std::fabs(row[3]), 64.0) << k;
        }
    }
    if (has_headline(r, "tensor_f64_accumulation_rounding")) {
        // PTX ISA: f64 mma multiplies and adds with the precision of fma, rounding to nearest even.
        EXPECT_EQ(r.at("tensor_f64_accumulation_rounding"), double(int(tc::Rounding::NearestEven)));
        EXPECT_EQ(r.at("tensor_f64_product_fused"), 1.0);
    }
}
