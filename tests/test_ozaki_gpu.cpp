// Rung 31 (int8_emulation, Ozaki scheme II) on the GPU; skipped without a GPU that runs it.
// Through the API (every op, layout, odd shape, unaligned pointer, alpha/beta, the library's
// fills including Inf/NaN and exponents over 2^121) against the CPU reference within the type's
// bound; through the launcher for what the API cannot choose: the precision promise switched off
// (the adversarial inputs must then break the bound, and keep it with the promise on), every
// modulus count under the promise, k past one INT8 GEMM's int32 limit, and a captured graph
// replayed; through GemmOptions: Precision::Int8Emulation under auto, and a caller's own modulus
// count (its own, looser bound; Inf and NaN still propagate).

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/ozaki/crt.hpp"
#include "gemm/reference/check.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemmlab/gemmlab.hpp"
#include "test_support.hpp"

namespace {

using namespace gemmlab;
using cli::Case;
using cli::DeviceProblem;
using cli::DType;
using cli::ReferenceSource;

constexpr const char* kRung = "int8_emulation";

/// Skips the test unless this GPU (and build) can run rung 31 (sm_90a).
#define REQUIRE_RUNG_31()                                                                          \
    do {                                                                                           \
        REQUIRE_GPU();                                                                             \
        const auto info = find_gpu_kernel(kRung);                                                  \
        ASSERT_TRUE(info.has_value());                                                             \
        if (check_device_support(*info) != Status::Success) GTEST_SKIP() << last_error();          \
    } while (0)

const std::pair<Op, Op> kOps[] = {{Op::N, Op::N}, {Op::N, Op::T}, {Op::T, Op::N}, {Op::T, Op::T}};

void run_case(const Case& cs, uint64_t seed, bool exact) {
    DeviceProblem p(cs, seed, ReferenceSource::Cpu);
    const cli::RunResult r = p.run_and_check(kRung);
    ASSERT_TRUE(r.launched) << cs.describe() << ": " << r.error;
    EXPECT_TRUE(r.check.pass) << cs.describe() << ": " << reference::describe(r.check);
    EXPECT_EQ(r.check.unwritten, 0) << cs.describe();
    if (exact)
        EXPECT_EQ(r.check.inexact, 0) << cs.describe() << ": " << reference::describe(r.check);
}

class Int8Emulation : public ::testing::TestWithParam<std::tuple<DType, Layout>> {};

// Shapes around rung 30's 128 x 256 tiles and the passes' 32 x 32 tiles, k = 1, k not a multiple
// of 16 (the residue rows' padding) or of 128 (rung 30's k tile); uniform inputs within the
// bound, small integers exact with alpha and beta (C read), and unaligned pointers.
TEST_P(Int8Emulation, EveryOpLayoutAndOddShape) {
    REQUIRE_RUNG_31();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 31000;
    const cli::Shape shapes[] = {{1, 1, 1},    {17, 7, 1},      {127, 129, 1003}, {129, 65, 33},
                                 {1, 200, 17}, {300, 260, 512}, {257, 3, 130},    {5, 300, 4100}};
    for (auto [oa, ob] : kOps)
        for (const cli::Shape& s : shapes) {
            run_case({dt, layout, oa, ob, s, 1.0, 0.0, 0, FillKind::Uniform}, seed++, false);
            run_case({dt, layout, oa, ob, s, -0.5, 2.0, 0, FillKind::SmallIntegers}, seed++, true);
            Case unaligned{dt, layout, oa, ob, s, 1.0, 0.5, 1, FillKind::SmallIntegers};
            unaligned.offset = 1;
            run_case(unaligned, seed++, true);
        }
}

// k = 1: C' = a' b' exactly, so each result is the product rounded once.
TEST_P(Int8Emulation, KOfOneIsTheRoundedProduct) {
    REQUIRE_RUNG_31();
    const auto [dt, layout] = GetParam();
    for (auto [oa, ob] : kOps)
        run_case({dt, layout, oa, ob, {200, 150, 1}, 1.0, 0.0, 0, FillKind::Uniform}, 31100, true);
}

// Exponents over 2^121 (most elements must fall back), just above FLT_MIN, and Inf/NaN in A
// (rows with one go native and propagate as IEEE says).
TEST_P(Int8Emulation, WideRangeNearUnderflowAndSpecials) {
    REQUIRE_RUNG_31();
    const auto [dt, layout] = GetParam();
    uint64_t seed = 31200;
    for (FillKind fill : {FillKind::WideRange, FillKind::NearFltMin, FillKind::WithSpecials})
        for (auto [oa, ob] : kOps)
            for (cli::Shape s : {cli::Shape{70, 66, 200}, {33, 40, 9}, {130, 260, 1000}})
                run_case({dt, layout, oa, ob, s, 1.0, 0.0, 0, fill}, seed++, false);
}

// Larger products within the bound (the sums' order and the scaling differ from the reference's).
TEST_P(Int8Emulation, RandomInputsWithinTheBound) {
    REQUIRE_RUNG_31();
    const auto [dt, layout] = GetParam();
    run_case({dt, layout, Op::N, Op::T, {1024, 768, 4096}, 1.0, 0.0, 0, FillKind::Uniform}, 31300,
             false);
    run_case({dt, layout, Op::T, Op::N, {640, 512, 16384}, -1.5, 0.25, 0, FillKind::Uniform}, 31301,
             false);
}

INSTANTIATE_TEST_SUITE_P(, Int8Emulation,
                         ::testing::Combine(::testing::Values(DType::F32, DType::F64),
                                            ::testing::Values(Layout::RowMajor, Layout::ColMajor)),
                         [](const auto& info) {
                             return std::string(cli::to_string(std::get<0>(info.param))) +
                                    (std::get<1>(info.param) == Layout::RowMajor ? "_row" : "_col");
                         });

// ------------------------------------------------------------------ through the launcher

/// A column-major product on the device from host data, run by launch_int8_emulation, and
/// checked on the host against a long-double reference: worst |C - Ref| / (gamma(k) Mag).
template <class T>
struct Product {
    int64_t m, n, k;
    std::vector<T> a, b, c0; // A m x k, B k x n, C m x n (column-major, dense)

    double worst_ratio(const detail::Int8EmulationOptions& options, T alpha = T(1), T beta = T(0),
                       cudaStream_t stream = nullptr) const {
        DeviceBuffer<T> da(a.size()), db(b.size()), dc(c0.size());
        da.copy_from_host(a.data(), a.size());
        db.copy_from_host(b.data(), b.size());
        dc.copy_from_host(c0.data(), c0.size());
        detail::GemmArgs<T> g{
            {m, n, k, alpha, da.get(), m, false, db.get(), k, false, beta, dc.get(), m}, {}};
        detail::launch_int8_emulation<T>(g, stream, options);
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));
        std::vector<T> c(c0.size());
        dc.copy_to_host(c.data(), c.size());
        return ratio(c, alpha, beta);
    }

    double ratio(const std::vector<T>& c, T alpha, T beta) const {
        const double gamma = reference::error_gamma<T>(k);
        double worst = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                long double s = 0, mag = 0;
                for (int64_t p = 0; p < k; ++p) {
                    const long double x = a[size_t(i + p * m)], y = b[size_t(p + j * k)];
                    s += x * y;
                    mag += std::fabs(x * y);
                }
                const long double c_old = c0[size_t(i + j * m)];
                const long double want = alpha * s + (beta == T(0) ? 0 : beta * c_old);
                const double bound =
                    gamma * double(std::fabs(alpha) * mag + std::fabs(beta) * std::fabs(c_old));
                const double err = double(std::fabs(c[size_t(i + j * m)] - want));
                const double r = bound > 0 ? err / bound : (err == 0 ? 0 : INFINITY);
                if (!(r <= worst)) worst = r; // NaN counts as the worst
            }
        return worst;
    }
};

/// The classic failure of per-row scaling: each row of A is 1 then values near 2^-40, each
/// column of B the other way round, so the large elements multiply small ones and every
/// result is near 2^-40 while the scaling's steps are 2^-bits of 1.
template <class T>
Product<T> adversarial(int64_t m, int64_t n, int64_t k, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(0.5, 1.0);
    Product<T> p{m,
                 n,
                 k,
                 std::vector<T>(size_t(m * k)),
                 std::vector<T>(size_t(k * n)),
                 std::vector<T>(size_t(m * n), T(0))};
    for (int64_t i = 0; i < m; ++i)
        for (int64_t q = 0; q < k; ++q)
            p.a[size_t(i + q * m)] = T(q == 0 ? 1.0 : std::ldexp(u(rng), -40));
    for (int64_t j = 0; j < n; ++j)
        for (int64_t q = 0; q < k; ++q)
            p.b[size_t(q + j * k)] = T(q == 0 ? std::ldexp(u(rng), -40) : u(rng));
    return p;
}

template <class T>
Product<T> uniform(int64_t m, int64_t n, int64_t k, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    Product<T> p{m,
                 n,
                 k,
                 std::vector<T>(size_t(m * k)),
                 std::vector<T>(size_t(k * n)),
                 std::vector<T>(size_t(m * n))};
    for (auto* v : {&p.a, &p.b, &p.c0})
        for (T& x : *v) x = T(u(rng));
    return p;
}

template <class T>
class Int8EmulationLauncher : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(Int8EmulationLauncher, Types);

// The precision promise is what keeps these inputs within the bound: without it they break it.
TYPED_TEST(Int8EmulationLauncher, AdversarialSpreadsMustFallBack) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    const Product<T> p = adversarial<T>(96, 80, 64, 1);
    const double promised = p.worst_ratio({.moduli = 0, .fallback = detail::EmulationFallback::OutsideBound});
    const double unpromised = p.worst_ratio({.moduli = 0, .fallback = detail::EmulationFallback::None});
    std::printf("adversarial spreads: err/bound %.3g with the promise, %.3g without\n", promised,
                unpromised);
    EXPECT_LE(promised, 1.0);
    EXPECT_GT(unpromised, 1.0) << "the inputs should be beyond what the scaling can serve";
}

// Any modulus count keeps the promise: too few moduli leave fewer bits, and more elements go
// native. alpha and beta exercise both paths' epilogues.
TYPED_TEST(Int8EmulationLauncher, EveryModulusCountKeepsTheBound) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    const Product<T> p = uniform<T>(70, 90, 700, 2);
    for (int moduli = 1; moduli <= detail::ozaki::kMaxModuli; ++moduli) {
        const double r = p.worst_ratio({.moduli = moduli}, T(-0.75), T(0.5));
        std::printf("%d moduli (%d bits): err/bound %.3g\n",
                    detail::ozaki::plan_for(sizeof(T) == 8, p.k, moduli).moduli,
                    detail::ozaki::plan_for(sizeof(T) == 8, p.k, moduli).bits, r);
        EXPECT_LE(r, 1.0) << moduli << " moduli";
    }
}

/// C of the column-major call gemm(p) with `options` (alpha 1, beta 0; C poisoned with NaN first).
template <class T>
std::vector<T> call_gemm(const Product<T>& p, GemmOptions options) {
    DeviceBuffer<T> da(p.a.size()), db(p.b.size()), dc(p.c0.size());
    da.copy_from_host(p.a.data(), p.a.size());
    db.copy_from_host(p.b.data(), p.b.size());
    GEMMLAB_CUDA_CHECK(cudaMemset(dc.get(), 0xFF, dc.bytes()));
    const Status s = gemm<T>(Layout::ColMajor, Op::N, Op::N, p.m, p.n, p.k, T(1), da.get(), p.m,
                             db.get(), p.k, T(0), dc.get(), p.m, options);
    EXPECT_EQ(s, Status::Success) << last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::vector<T> c(p.c0.size());
    dc.copy_to_host(c.data(), c.size());
    return c;
}

/// Worst |C - AB| / bound for a caller's own modulus count that keeps `bits` bits (alpha 1, beta
/// 0). The scaling moves each a_ip by at most 2^-bits max_q |a_iq| (b likewise), so
/// |C - AB| <= 2^-bits (max|a_i| |b_j|_1 + max|b_j| |a_i|_1) + k 2^-2bits max|a_i| max|b_j|
/// + 3u sum_p |a_ip b_pj|, the first terms times 1 + 2u for the roundings after them
/// (docs/precision.md, "Rung 31"). Where AB is not finite, C must be the
/// same Inf, or NaN (a mismatch counts infinite).
template <class T>
double count_bound_ratio(const Product<T>& p, const std::vector<T>& c, int bits) {
    const long double step = std::ldexp(1.0L, -bits);
    const long double u = sizeof(T) == 8 ? 0x1p-53L : 0x1p-24L;
    double worst = 0;
    for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.m; ++i) {
            long double s = 0, mag = 0, a_max = 0, b_max = 0, a_sum = 0, b_sum = 0;
            for (int64_t q = 0; q < p.k; ++q) {
                const long double x = p.a[size_t(i + q * p.m)], y = p.b[size_t(q + j * p.k)];
                s += x * y;
                mag += std::fabs(x * y);
                a_max = std::max(a_max, std::fabs(x)), b_max = std::max(b_max, std::fabs(y));
                a_sum += std::fabs(x), b_sum += std::fabs(y);
            }
            const long double got = c[size_t(i + j * p.m)];
            double r;
            if (!std::isfinite(s))
                r = (std::isnan(s) ? std::isnan(got) : got == s) ? 0 : INFINITY;
            else {
                const long double scaling = step * (a_max * b_sum + b_max * a_sum) +
                                            p.k * step * step * a_max * b_max;
                const long double bound = (1 + 2 * u) * scaling + 3 * u * mag; // rounded twice
                const long double err = std::fabs(got - s);
                r = bound > 0 ? double(err / bound) : (err == 0 ? 0 : INFINITY);
            }
            if (!(r <= worst)) worst = r; // NaN counts as the worst
        }
    return worst;
}

// Precision::Int8Emulation: auto runs rung 31, bit for bit what the rung named gives, at the
// type's bound, on a shape that auto under Default never emulates.
TYPED_TEST(Int8EmulationLauncher, Int8EmulationPrecisionRunsTheRungUnderAuto) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    const Product<T> p = uniform<T>(100, 90, 300, 6);
    GemmOptions asked, named;
    asked.precision = Precision::Int8Emulation;
    named.kernel = kRung;
    const std::vector<T> c = call_gemm(p, asked);
    EXPECT_TRUE(c == call_gemm(p, named)) << "auto under Int8Emulation is not rung 31";
    EXPECT_LE(p.ratio(c, T(1), T(0)), 1.0);
}

// Where auto runs rung 31 at the default precision, it runs the automatic count: a caller's
// emulation_moduli (read by the rung named or under Int8Emulation) does not lower the result
// below the type's bound. 2048 x 2048 x 16384 in double is a shape auto emulates (docs/auto.md);
// its result is bit for bit the named rung's with the automatic count, not with 6 moduli.
/// C from launch_int8_emulation on op(A) (m x k) and op(B) (k x n) stored column-major as the
/// ops say, beta C0 read; A and B U[-1, 1) from `seed`, with an Inf in A and a NaN in B where
/// `specials` (their rows and columns take the native path).
template <class T>
std::vector<T> emulated(int64_t m, int64_t n, int64_t k, bool ta, bool tb, bool specials, uint64_t seed,
                        size_t budget) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    std::vector<T> a(size_t(m * k)), b(size_t(k * n)), c(size_t(m * n));
    for (T& x : a) x = T(u(rng));
    for (T& x : b) x = T(u(rng));
    for (T& x : c) x = T(u(rng));
    if (specials) {
        a[7] = T(INFINITY);
        b[size_t(b.size() / 2)] = T(NAN);
    }
    DeviceBuffer<T> da(a.size()), db(b.size()), dc(c.size());
    da.copy_from_host(a.data(), a.size());
    db.copy_from_host(b.data(), b.size());
    dc.copy_from_host(c.data(), c.size());
    detail::GemmArgs<T> g{{m, n, k, T(1.5), da.get(), ta ? k : m, ta, db.get(), tb ? n : k, tb, T(-0.5), dc.get(), m},
                          {}};
    detail::Int8EmulationOptions o;
    o.workspace_budget = budget;
    detail::launch_int8_emulation<T>(g, nullptr, o);
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    dc.copy_to_host(c.data(), c.size());
    return c;
}

// A product whose workspace passes the budget runs in blocks of C, each a product of its own
// (int8_emulation_blocks): every row of op(A) and column of op(B) is scaled over all of k as in
// the whole product, so the result has the whole product's bits, NaN and Inf included.
template <class T>
void blocks_match_whole() {
    constexpr bool kDouble = std::is_same_v<T, double>;
    const int64_t m = 300, n = 520, k = 4100;
    const size_t budget = detail::int8_emulation_workspace_bytes(kDouble, 128, 256, k);
    const detail::EmulationBlocks cut = detail::int8_emulation_blocks(kDouble, m, n, k, 0, budget);
    ASSERT_GT(cut.rows, 0);
    ASSERT_LT(cut.rows * cut.cols, m * n) << "the budget must cut this product";
    const detail::EmulationBlocks whole = detail::int8_emulation_blocks(kDouble, m, n, k, 0, size_t(1) << 40);
    EXPECT_EQ(whole.rows, m);
    EXPECT_EQ(whole.cols, n);
    uint64_t seed = 31700;
    for (auto [oa, ob] : kOps)
        for (bool specials : {false, true}) {
            const bool ta = oa == Op::T, tb = ob == Op::T;
            const std::vector<T> one = emulated<T>(m, n, k, ta, tb, specials, seed, size_t(1) << 40);
            const std::vector<T> cut_c = emulated<T>(m, n, k, ta, tb, specials, seed, budget);
            ++seed;
            int64_t differ = 0;
            for (size_t i = 0; i < one.size(); ++i) differ += std::memcmp(&one[i], &cut_c[i], sizeof(T)) != 0;
            EXPECT_EQ(differ, 0) << (kDouble ? "double" : "float") << " op " << ta << tb << " specials " << specials
                                 << ": blocks of " << cut.rows << " x " << cut.cols;
        }
}

TEST(Int8EmulationBlocks, BlocksOfCGiveTheWholeProductsBits) {
    REQUIRE_RUNG_31();
    blocks_match_whole<double>();
    blocks_match_whole<float>();
}

TEST(Int8EmulationUnderAuto, DefaultPrecisionIgnoresACallersModulusCount) {
    REQUIRE_RUNG_31();
    const Product<double> p = uniform<double>(2048, 2048, 16384, 8);
    GemmOptions under_auto, named_automatic, named_six;
    under_auto.emulation_moduli = named_six.emulation_moduli = 6;
    named_automatic.kernel = named_six.kernel = kRung;
    const std::vector<double> c = call_gemm(p, under_auto);
    EXPECT_TRUE(c == call_gemm(p, named_automatic)) << "auto did not run rung 31's automatic count";
    EXPECT_FALSE(c == call_gemm(p, named_six)) << "6 moduli should give other bits";
}

// GemmOptions::emulation_moduli is the caller's accuracy: with few moduli the type's bound is
// broken (the count was obeyed, not raised) and the count's own bound holds; the API's call is
// the launcher's with only Inf/NaN falling back, and rows holding Inf or NaN still propagate.
TYPED_TEST(Int8EmulationLauncher, ACallersModulusCountIsItsOwnAccuracy) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    constexpr bool kDouble = sizeof(T) == 8;
    Product<T> p = uniform<T>(80, 70, 700, 7);
    p.a[size_t(3 + 5 * p.m)] = T(NAN);
    p.a[size_t(7 + 2 * p.m)] = T(INFINITY);
    const std::vector<int> counts = kDouble ? std::vector<int>{6, 10, 14} : std::vector<int>{4, 6};
    for (int moduli : counts) {
        const detail::ozaki::Plan plan = detail::ozaki::plan_for(kDouble, p.k, moduli);
        ASSERT_EQ(plan.moduli, moduli);
        GemmOptions options;
        options.kernel = kRung;
        options.emulation_moduli = moduli;
        const std::vector<T> c = call_gemm(p, options);
        const double own = count_bound_ratio(p, c, plan.bits);
        std::printf("%d moduli (%d bits): err / the count's bound %.3g\n", moduli, plan.bits, own);
        EXPECT_LE(own, 1.0) << moduli << " moduli";
        for (int64_t j = 0; j < p.n; ++j) {
            EXPECT_TRUE(std::isnan(c[size_t(3 + j * p.m)])) << "row 3 holds a NaN, column " << j;
            EXPECT_TRUE(std::isinf(c[size_t(7 + j * p.m)])) << "row 7 holds an Inf, column " << j;
        }
        if (moduli == counts.front()) {
            Product<T> finite = p;
            finite.a[size_t(3 + 5 * p.m)] = finite.a[size_t(7 + 2 * p.m)] = T(0.5);
            const std::vector<T> cf = call_gemm(finite, options);
            EXPECT_GT(finite.ratio(cf, T(1), T(0)), 1.0) << "so few moduli should miss the type's bound";
            DeviceBuffer<T> da(finite.a.size()), db(finite.b.size()), dc(finite.c0.size());
            da.copy_from_host(finite.a.data(), finite.a.size());
            db.copy_from_host(finite.b.data(), finite.b.size());
            detail::GemmArgs<T> g{{finite.m, finite.n, finite.k, T(1), da.get(), finite.m, false,
                                   db.get(), finite.k, false, T(0), dc.get(), finite.m},
                                  {}};
            detail::launch_int8_emulation<T>(
                g, nullptr, {.moduli = moduli, .fallback = detail::EmulationFallback::Nonfinite});
            GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
            std::vector<T> cl(cf.size());
            dc.copy_to_host(cl.data(), cl.size());
            EXPECT_TRUE(cl == cf) << "the API's count is the launcher's";
        }
    }
}

// k past one INT8 GEMM's int32 exactness (kMaxChunkK): the sums are cut into chunks and folded.
TYPED_TEST(Int8EmulationLauncher, KBeyondOneInt8Gemm) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    const Product<T> p = uniform<T>(33, 17, detail::ozaki::kMaxChunkK + 3001, 3);
    EXPECT_LE(p.worst_ratio({}), 1.0);
    EXPECT_LE(p.worst_ratio({}, T(2), T(-1)), 1.0);
}

// Captured on a stream (global mode: a synchronization or cudaMalloc fails the capture) and
// replayed twice: the second replay sees the new inputs written between the two.
TYPED_TEST(Int8EmulationLauncher, CapturedGraphReplays) {
    REQUIRE_RUNG_31();
    using T = TypeParam;
    Product<T> p = uniform<T>(150, 130, 300, 4);
    DeviceBuffer<T> da(p.a.size()), db(p.b.size()), dc(p.c0.size());
    da.copy_from_host(p.a.data(), p.a.size());
    db.copy_from_host(p.b.data(), p.b.size());
    Stream stream;
    GemmOptions options;
    options.kernel = kRung;
    options.stream = stream.get();
    const auto call = [&] {
        return gemm<T>(Layout::ColMajor, Op::N, Op::N, p.m, p.n, p.k, T(1), da.get(), p.m, db.get(),
                       p.k, T(0), dc.get(), p.m, options);
    };
    ASSERT_EQ(call(), Status::Success) << last_error(); // warm-up outside the capture
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    GEMMLAB_CUDA_CHECK(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal));
    const Status s = call();
    GEMMLAB_CUDA_CHECK(cudaStreamEndCapture(stream.get(), &graph));
    ASSERT_EQ(s, Status::Success) << last_error();
    GEMMLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int replay = 0; replay < 2; ++replay) {
        if (replay == 1) {
            p = uniform<T>(p.m, p.n, p.k, 5);
            da.copy_from_host(p.a.data(), p.a.size());
            db.copy_from_host(p.b.data(), p.b.size());
        }
        GEMMLAB_CUDA_CHECK(cudaMemset(dc.get(), 0xFF, dc.bytes())); // NaN: unwritten shows
        GEMMLAB_CUDA_CHECK(cudaGraphLaunch(exec, stream.get()));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        std::vector<T> c(p.c0.size());
        dc.copy_to_host(c.data(), c.size());
        EXPECT_LE(p.ratio(c, T(1), T(0)), 1.0) << "replay " << replay;
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
}

} // namespace
