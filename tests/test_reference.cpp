// The CPU side of verification, no GPU needed: the reference GEMM against a plain triple loop,
// every CPU ladder rung against the reference, and the error-bound check itself.
//
// Random tests take their seed from GEMMLAB_TEST_SEED when set, otherwise a fresh one; the seed is
// in every failure message.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "gemm/element.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/cpu_ladder.hpp"
#include "gemm/reference/reference.hpp"

namespace {

using gemmlab::Layout;
using gemmlab::Op;
namespace ref = gemmlab::reference;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

uint64_t test_seed() {
    static const uint64_t seed = [] {
        if (const char* s = std::getenv("GEMMLAB_TEST_SEED"))
            return uint64_t(std::strtoull(s, nullptr, 0));
        return (uint64_t(std::random_device{}()) << 32) | std::random_device{}();
    }();
    return seed;
}

/// A matrix stored in `layout` with leading dimension = minimum + pad; the padding holds NaN so
/// that a read outside the matrix shows up in the result.
template <class T>
struct Mat {
    Layout layout;
    int64_t rows, cols, ld;
    std::vector<T> v;

    Mat(Layout l, int64_t r, int64_t c, int64_t pad)
        : layout(l), rows(r), cols(c),
          ld(std::max<int64_t>(1, l == Layout::RowMajor ? c : r) + pad),
          v(size_t(std::max<int64_t>(1, (l == Layout::RowMajor ? r : c) * ld)), T(kNaN)) {}

    T& at(int64_t r, int64_t c) {
        return v[size_t(layout == Layout::RowMajor ? r * ld + c : r + c * ld)];
    }
    T at(int64_t r, int64_t c) const {
        return v[size_t(layout == Layout::RowMajor ? r * ld + c : r + c * ld)];
    }
    const T* data() const { return v.data(); }
    T* data() { return v.data(); }

    template <class Gen>
    void fill(Gen&& gen) {
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t c = 0; c < cols; ++c) at(r, c) = T(gen());
    }
};

/// One GEMM problem with its operands: op(A) m x k, op(B) k x n, C m x n, all in `layout`.
template <class T>
struct Case {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    T alpha, beta;
    Mat<T> A, B, C;

    Case(Layout l, Op oa, Op ob, int64_t m_, int64_t n_, int64_t k_, T al, T be, int64_t pad)
        : layout(l), op_a(oa), op_b(ob), m(m_), n(n_), k(k_), alpha(al), beta(be),
          A(l, oa == Op::N ? m_ : k_, oa == Op::N ? k_ : m_, pad),
          B(l, ob == Op::N ? k_ : n_, ob == Op::N ? n_ : k_, pad), C(l, m_, n_, pad) {}

    T a(int64_t i, int64_t p) const { return op_a == Op::N ? A.at(i, p) : A.at(p, i); }
    T b(int64_t p, int64_t j) const { return op_b == Op::N ? B.at(p, j) : B.at(j, p); }
    int64_t dense(int64_t i, int64_t j) const {
        return layout == Layout::RowMajor ? i * n + j : i + j * m;
    }

    template <class Gen>
    void fill(Gen&& gen) {
        A.fill(gen);
        B.fill(gen);
        C.fill(gen);
    }

    /// reference::gemm into dense ref/mag.
    void reference(std::vector<double>& r, std::vector<double>& g, int threads = 0) const {
        r.assign(size_t(std::max<int64_t>(1, m * n)), kNaN);
        g.assign(r.size(), kNaN);
        ref::gemm<T>(layout, op_a, op_b, m, n, k, alpha, A.data(), A.ld, B.data(), B.ld, beta,
                     C.data(), C.ld, r.data(), g.data(), threads);
    }

    /// The definition, in long double, one element at a time.
    void triple_loop(std::vector<long double>& r, std::vector<long double>& g) const {
        r.assign(size_t(std::max<int64_t>(1, m * n)), 0);
        g.assign(r.size(), 0);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                long double s = 0, sa = 0;
                if (alpha != T(0))
                    for (int64_t p = 0; p < k; ++p) {
                        s += (long double)a(i, p) * b(p, j);
                        sa += std::fabs((long double)a(i, p) * b(p, j));
                    }
                long double c = beta != T(0) ? (long double)C.at(i, j) : 0;
                r[size_t(dense(i, j))] = (long double)alpha * s + (long double)beta * c;
                g[size_t(dense(i, j))] =
                    std::fabs((long double)alpha) * sa + std::fabs((long double)beta * c);
            }
    }

    std::string name() const {
        std::ostringstream o;
        o << to_string(layout) << ' ' << gemmlab::to_char(op_a) << gemmlab::to_char(op_b) << ' '
          << m << 'x' << n << 'x' << k << " alpha " << alpha << " beta " << beta << " lda " << A.ld
          << " ldb " << B.ld << " ldc " << C.ld << " seed " << test_seed();
        return o.str();
    }
};

struct Shape {
    int64_t m, n, k;
};
// Odd shapes: single elements, primes, one past the 4x4 register block, several reference tiles
// (128 x 256 x 256) with remainders, and k == 0.
const Shape kShapes[] = {{1, 1, 1},  {7, 13, 5},  {67, 31, 129}, {5, 4, 9},
                         {9, 6, 11}, {130, 3, 2}, {2, 259, 3},   {6, 5, 0}};
const Layout kLayouts[] = {Layout::RowMajor, Layout::ColMajor};
const Op kOps[] = {Op::N, Op::T};

/// Calls f(layout, op_a, op_b) for both layouts and all four op combinations.
template <class F>
void for_each_layout_and_ops(F&& f) {
    for (auto layout : kLayouts)
        for (auto oa : kOps)
            for (auto ob : kOps) f(layout, oa, ob);
}

/// Small nonzero integers: every product and sum of the tests is exact in float.
struct SmallInts {
    std::mt19937_64 rng{test_seed()};
    double operator()() {
        const int v = int(rng() % 8) - 4; // -4 .. 3
        return v >= 0 ? v + 1 : v;        // -4 .. -1, 1 .. 4
    }
};

struct Uniform {
    std::mt19937_64 rng{test_seed() + 1};
    std::uniform_real_distribution<double> d{-1.0, 1.0};
    double operator()() { return d(rng); }
};

template <class T>
class ReferenceTest : public ::testing::Test {};
using Types = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ReferenceTest, Types);

// ---------------------------------------------------------------- reference vs the definition

TYPED_TEST(ReferenceTest, MatchesTripleLoopExactlyOnIntegers) {
    using T = TypeParam;
    const T scalars[][2] = {{1, 1}, {2, 0}, {-0.5, 3}, {0, -2}}; // (alpha, beta); 0 = skipped term
    for (const auto& s : kShapes)
        for_each_layout_and_ops([&](Layout layout, Op oa, Op ob) {
            for (const auto& ab : scalars)
                for (int64_t pad : {0, 3}) {
                    Case<T> c(layout, oa, ob, s.m, s.n, s.k, ab[0], ab[1], pad);
                    c.fill(SmallInts{});
                    if (ab[1] == T(0)) c.C.fill([] { return kNaN; }); // must not leak
                    SCOPED_TRACE(c.name());
                    std::vector<double> r, g;
                    std::vector<long double> rl, gl;
                    c.reference(r, g, 2);
                    c.triple_loop(rl, gl);
                    for (int64_t e = 0; e < s.m * s.n; ++e) {
                        ASSERT_EQ(r[size_t(e)], double(rl[size_t(e)])) << "ref at dense " << e;
                        ASSERT_EQ(g[size_t(e)], double(gl[size_t(e)])) << "mag at dense " << e;
                    }
                }
        });
}

TYPED_TEST(ReferenceTest, RandomInputsAgreeWithLongDoubleLoop) {
    using T = TypeParam;
    for_each_layout_and_ops([](Layout layout, Op oa, Op ob) {
        Case<T> c(layout, oa, ob, 67, 31, 129, T(1.25), T(-0.75), 1);
        c.fill(Uniform{});
        SCOPED_TRACE(c.name());
        std::vector<double> r, g;
        std::vector<long double> rl, gl;
        c.reference(r, g);
        c.triple_loop(rl, gl);
        // float inputs: double sums, error <= k 2^-53 Mag ~ 2^-46 Mag. double inputs: one final
        // rounding (2^-53 |Ref|) plus the long double loop's own k 2^-64 Mag. Both are far
        // inside T's bound gamma(129) (2^-16 resp. 2^-45).
        const double tol = sizeof(T) == sizeof(float) ? 0x1p-44 : 0x1p-51;
        for (size_t e = 0; e < r.size(); ++e) {
            ASSERT_LE(std::fabs(r[e] - double(rl[e])), tol * double(gl[e])) << e;
            ASSERT_NEAR(g[e], double(gl[e]), 0x1p-45 * double(gl[e])) << e;
        }
    });
}

TEST(ReferenceDouble, DoubleDoubleSurvivesCancellation) {
    // Products of ~2^30 integers (~2^60) are not exact in double, and consecutive pairs cancel
    // to a small exact sum: plain double accumulation is off by many units here, double-double
    // is exact and its single final rounding gives the correctly rounded sum.
    const int64_t m = 9, n = 7, k = 64;
    std::mt19937_64 rng(test_seed());
    auto big = [&] {
        return double(int64_t(rng() % (1u << 30)) + (1 << 29)) * (rng() % 2 ? 1 : -1);
    };
    for (auto layout : kLayouts) {
        Case<double> c(layout, Op::N, Op::T, m, n, k, 1.0, 0.0, 0);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t p = 0; p < k; p += 2) {
                const double a = big();
                c.A.at(i, p) = a;
                c.A.at(i, p + 1) = -a + double(int64_t(rng() % 64) - 32); // a*b - a*b + small*b
            }
        for (int64_t j = 0; j < n; ++j)
            for (int64_t p = 0; p < k; p += 2) c.B.at(j, p) = c.B.at(j, p + 1) = big();
        SCOPED_TRACE(c.name());
        std::vector<double> r, g;
        c.reference(r, g);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) {
                __int128 exact = 0;
                for (int64_t p = 0; p < k; ++p)
                    exact += __int128(int64_t(c.a(i, p))) * __int128(int64_t(c.b(p, j)));
                EXPECT_EQ(r[size_t(c.dense(i, j))], double(exact)) << "(" << i << ", " << j << ")";
            }
    }
}

TYPED_TEST(ReferenceTest, AlphaZeroAndKZeroReadOnlyC) {
    using T = TypeParam;
    for (auto layout : kLayouts)
        for (int64_t k : {0, 5}) {
            Case<T> c(layout, Op::T, Op::N, 7, 13, k, k == 0 ? T(2) : T(0), T(-1.5), 2);
            c.fill(SmallInts{});
            c.A.fill([] { return kNaN; }); // alpha == 0 / k == 0: op(A) must not be touched
            SCOPED_TRACE(c.name());
            std::vector<double> r, g;
            c.reference(r, g);
            for (int64_t i = 0; i < c.m; ++i)
                for (int64_t j = 0; j < c.n; ++j) {
                    EXPECT_EQ(r[size_t(c.dense(i, j))], -1.5 * double(c.C.at(i, j)));
                    EXPECT_EQ(g[size_t(c.dense(i, j))], 1.5 * std::fabs(double(c.C.at(i, j))));
                }
        }
}

TYPED_TEST(ReferenceTest, BetaZeroNeverReadsC0) {
    using T = TypeParam;
    Case<T> c(Layout::RowMajor, Op::N, Op::N, 67, 31, 129, T(1), T(0), 0);
    c.fill(SmallInts{});
    std::vector<double> r(size_t(c.m * c.n)), g(r.size());
    // A null C0 is allowed when beta == 0.
    ref::gemm<T>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, c.A.data(), c.A.ld, c.B.data(),
                 c.B.ld, T(0), nullptr, c.C.ld, r.data(), g.data());
    for (double x : r) ASSERT_TRUE(std::isfinite(x));
}

TYPED_TEST(ReferenceTest, SameBitsForAnyThreadCount) {
    using T = TypeParam;
    // 300 x 600 spans 3 x 3 reference tiles with remainders; k = 300 spans two k slices.
    Case<T> c(Layout::ColMajor, Op::T, Op::T, 300, 600, 300, T(0.5), T(2), 1);
    c.fill(Uniform{});
    std::vector<double> r1, g1, r3, g3;
    c.reference(r1, g1, 1);
    c.reference(r3, g3, 3);
    EXPECT_EQ(r1, r3);
    EXPECT_EQ(g1, g3);
}

// ---------------------------------------------------------------- CPU ladder vs the reference

/// Runs rung `rung` on a copy of c.C and returns it.
template <class T>
Mat<T> run_rung(int rung, const Case<T>& c) {
    Mat<T> out = c.C;
    gemmlab::cpu::gemm<T>(rung, c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, c.A.data(),
                          c.A.ld, c.B.data(), c.B.ld, c.beta, out.data(), out.ld);
    return out;
}

TYPED_TEST(ReferenceTest, LadderRungsExactOnIntegers) {
    using T = TypeParam;
    const T scalars[][2] = {{1, 0}, {-2, 0.5}, {0, 3}};
    for (int rung = 0; rung < gemmlab::cpu::kRungCount; ++rung)
        for (const auto& s : kShapes)
            for_each_layout_and_ops([&](Layout layout, Op oa, Op ob) {
                for (const auto& ab : scalars) {
                    Case<T> c(layout, oa, ob, s.m, s.n, s.k, ab[0], ab[1], 2);
                    c.fill(SmallInts{});
                    if (ab[1] == T(0)) c.C.fill([] { return kNaN; });
                    SCOPED_TRACE("rung " + std::to_string(rung) + " " + c.name());
                    std::vector<double> r, g;
                    c.reference(r, g, 1);
                    const Mat<T> out = run_rung(rung, c);
                    for (int64_t i = 0; i < s.m; ++i)
                        for (int64_t j = 0; j < s.n; ++j)
                            ASSERT_EQ(double(out.at(i, j)), r[size_t(c.dense(i, j))])
                                << "(" << i << ", " << j << ")";
                    // The padding of C is untouched (still NaN).
                    const int64_t minor_size = layout == Layout::RowMajor ? s.n : s.m;
                    for (size_t e = 0; e < out.v.size(); ++e) {
                        if (int64_t(e) % out.ld >= minor_size) {
                            ASSERT_TRUE(std::isnan(double(out.v[e]))) << "padding " << e;
                        }
                    }
                }
            });
}

TYPED_TEST(ReferenceTest, LadderRungsWithinBoundOnRandomInputs) {
    using T = TypeParam;
    for (int rung = 0; rung < gemmlab::cpu::kRungCount; ++rung)
        for_each_layout_and_ops([&](Layout layout, Op oa, Op ob) {
            for (const Shape s : {Shape{67, 31, 129}, Shape{13, 9, 300}}) {
                Case<T> c(layout, oa, ob, s.m, s.n, s.k, T(0.75), T(-1.25), 1);
                c.fill(Uniform{});
                SCOPED_TRACE("rung " + std::to_string(rung) + " " + c.name());
                std::vector<double> r, g;
                c.reference(r, g);
                const Mat<T> out = run_rung(rung, c);
                const auto res =
                    ref::check<T>(layout, c.m, c.n, c.k, out.data(), out.ld, r.data(), g.data());
                EXPECT_TRUE(res.pass) << ref::describe(res);
                EXPECT_EQ(res.unwritten, 0);
            }
        });
}

TEST(CpuLadder, UnknownRungThrows) {
    float x = 0;
    EXPECT_THROW(gemmlab::cpu::gemm<float>(gemmlab::cpu::kRungCount, Layout::RowMajor, Op::N, Op::N,
                                           1, 1, 1, 1.f, &x, 1, &x, 1, 0.f, &x, 1),
                 std::out_of_range);
    EXPECT_THROW(gemmlab::cpu::gemm<float>(-1, Layout::RowMajor, Op::N, Op::N, 1, 1, 1, 1.f, &x, 1,
                                           &x, 1, 0.f, &x, 1),
                 std::out_of_range);
}

// ---------------------------------------------------------------- check()

/// A problem, its reference, and C = the reference rounded to T.
template <class T>
struct Checked {
    Case<T> c;
    std::vector<double> r, g;
    Mat<T> out;

    explicit Checked(Layout layout, int64_t m = 37, int64_t n = 23, int64_t k = 41)
        : c(layout, Op::N, Op::T, m, n, k, T(1), T(0.5), 3), out(layout, m, n, 3) {
        c.fill(Uniform{});
        c.reference(r, g);
        for (int64_t i = 0; i < m; ++i)
            for (int64_t j = 0; j < n; ++j) out.at(i, j) = T(r[size_t(c.dense(i, j))]);
    }
    ref::CheckResult check() const {
        return ref::check<T>(c.layout, c.m, c.n, c.k, out.data(), out.ld, r.data(), g.data());
    }
};

TYPED_TEST(ReferenceTest, CheckPassesOnTheReferenceItself) {
    for (auto layout : kLayouts) {
        Checked<TypeParam> t(layout);
        const auto res = t.check();
        EXPECT_TRUE(res.pass) << ref::describe(res);
        EXPECT_EQ(res.failures, 0);
        EXPECT_EQ(res.unwritten, 0);
        EXPECT_LE(res.worst_ratio, 1.0 / 6); // rounding to T costs at most u*Mag of gamma >= 6u
    }
}

TYPED_TEST(ReferenceTest, CheckFindsAPerturbationAtItsPosition) {
    using T = TypeParam;
    for (auto layout : kLayouts) {
        Checked<T> t(layout);
        const int64_t row = 29, col = 4; // m != n, so a swapped (row, col) would show
        const double want = t.r[size_t(t.c.dense(row, col))];
        const double bound = ref::error_gamma<T>(t.c.k) * t.g[size_t(t.c.dense(row, col))];
        // Many ulps: well past the bound, yet a plausible "almost right" value.
        t.out.at(row, col) = T(want + 4 * bound);
        const auto res = t.check();
        EXPECT_FALSE(res.pass);
        EXPECT_EQ(res.failures, 1);
        EXPECT_EQ(res.unwritten, 0);
        EXPECT_EQ(res.worst_row, row);
        EXPECT_EQ(res.worst_col, col);
        EXPECT_EQ(res.want, want);
        EXPECT_GT(res.worst_ratio, 3.0);
        EXPECT_NE(ref::describe(res).find("worst (29, 4)"), std::string::npos)
            << ref::describe(res);
    }
}

TYPED_TEST(ReferenceTest, CheckFlagsNaNAsUnwrittenAndInfAsWrong) {
    using T = TypeParam;
    for (auto layout : kLayouts) {
        Checked<T> t(layout);
        t.out.at(3, 17) = std::numeric_limits<T>::quiet_NaN();
        t.out.at(30, 2) = std::numeric_limits<T>::infinity();
        const auto res = t.check();
        EXPECT_FALSE(res.pass);
        EXPECT_EQ(res.failures, 2);
        EXPECT_EQ(res.unwritten, 1);
        EXPECT_TRUE(std::isinf(res.worst_ratio));
        const std::string d = ref::describe(res);
        EXPECT_NE(d.find("2 failed (1 unwritten)"), std::string::npos) << d;
    }
}

TYPED_TEST(ReferenceTest, CheckZeroBoundDemandsExactness) {
    using T = TypeParam;
    // alpha = 0, beta = 0: Ref = 0 and Mag = 0, so only an exact 0 passes.
    Case<T> c(Layout::ColMajor, Op::N, Op::N, 4, 3, 5, T(0), T(0), 0);
    c.fill(SmallInts{});
    std::vector<double> r, g;
    c.reference(r, g);
    Mat<T> out(Layout::ColMajor, 4, 3, 0);
    out.fill([] { return 0.0; });
    EXPECT_TRUE(
        ref::check<T>(Layout::ColMajor, 4, 3, 5, out.data(), out.ld, r.data(), g.data()).pass);
    out.at(2, 1) = std::numeric_limits<T>::denorm_min();
    const auto res =
        ref::check<T>(Layout::ColMajor, 4, 3, 5, out.data(), out.ld, r.data(), g.data());
    EXPECT_FALSE(res.pass);
    EXPECT_EQ(res.worst_row, 2);
    EXPECT_EQ(res.worst_col, 1);
}

TEST(Check, GammaAndDescribe) {
    EXPECT_EQ(ref::error_gamma<float>(0), 6 * 0x1p-24);
    EXPECT_EQ(ref::error_gamma<float>(1021), 2048 * 0x1p-24);
    EXPECT_EQ(ref::error_gamma<double>(125), 256 * 0x1p-53);
    // TF32: two inputs each rounded to 10 explicit mantissa bits, then the FP32 accumulation.
    EXPECT_EQ(ref::error_gamma<float>(1021, gemmlab::Precision::Tf32), 0x1p-10 + 0x1p-22 + 2048 * 0x1p-24);
    // Double has no TF32 mode: the same bound either way.
    EXPECT_EQ(ref::error_gamma<double>(125, gemmlab::Precision::Tf32), 256 * 0x1p-53);
    ref::CheckResult r;
    r.worst_row = 12;
    r.worst_col = 7;
    r.got = 3.25;
    r.want = 3.2500001;
    r.worst_ratio = 0.03;
    EXPECT_EQ(ref::describe(r), "worst (12, 7): got 3.25 want 3.2500001 err/bound 0.03");
    EXPECT_EQ(ref::describe(ref::CheckResult{}), "no elements");
    const float none = 0;
    const auto empty = ref::check<float>(Layout::RowMajor, 0, 5, 3, &none, 5, nullptr, nullptr);
    EXPECT_TRUE(empty.pass);
    EXPECT_EQ(empty.worst_row, -1);
}

// ------------------------------------------------------------------ BF16 / FP16 inputs

using gemmlab::detail::to_double;

/// v rounded to nearest in T (exact for the small integers and powers of two used below).
template <class T>
T to(double v) {
    if constexpr (std::is_same_v<T, __nv_bfloat16>) return __double2bfloat16(v);
    else if constexpr (std::is_same_v<T, __half>) return __double2half(v);
    else return T(v);
}

/// A dense column-major problem with A, B in TIn and C0 in TOut, kept as the values' doubles
/// too, for the long double loop.
template <class TIn, class TOut>
struct HalfCase {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    float alpha, beta;
    int64_t lda, ldb, ldc;
    std::vector<TIn> A, B;
    std::vector<TOut> C;

    HalfCase(Layout l, Op oa, Op ob, int64_t m_, int64_t n_, int64_t k_, float al, float be)
        : layout(l), op_a(oa), op_b(ob), m(m_), n(n_), k(k_), alpha(al), beta(be) {
        const bool row = l == Layout::RowMajor;
        auto stored = [&](int64_t r, int64_t c, bool t, int64_t& ld) {
            const int64_t rows = t ? c : r, cols = t ? r : c;
            ld = std::max<int64_t>(1, row ? cols : rows);
            return size_t(std::max<int64_t>(1, ld * (row ? rows : cols)));
        };
        A.resize(stored(m, k, oa == Op::T, lda));
        B.resize(stored(k, n, ob == Op::T, ldb));
        C.resize(stored(m, n, false, ldc));
    }
    // Element (i, p) of op(A) etc., in the storage of `layout`.
    size_t at(int64_t r, int64_t c, int64_t ld) const {
        return size_t(layout == Layout::RowMajor ? r * ld + c : r + c * ld);
    }
    double a(int64_t i, int64_t p) const { return to_double(A[op_a == Op::N ? at(i, p, lda) : at(p, i, lda)]); }
    double b(int64_t p, int64_t j) const { return to_double(B[op_b == Op::N ? at(p, j, ldb) : at(j, p, ldb)]); }
    int64_t dense(int64_t i, int64_t j) const { return layout == Layout::RowMajor ? i * n + j : i + j * m; }

    void reference(std::vector<double>& r, std::vector<double>& g) const {
        r.assign(size_t(std::max<int64_t>(1, m * n)), kNaN);
        g.assign(r.size(), kNaN);
        ref::half_gemm<TIn, TOut>(layout, op_a, op_b, m, n, k, alpha, A.data(), lda, B.data(), ldb,
                                  beta, C.data(), ldc, r.data(), g.data(), 2);
    }
};

template <class P>
class HalfReferenceTest : public ::testing::Test {};
struct PairBf16 { using In = __nv_bfloat16; using Out = __nv_bfloat16; };
struct PairBf16F32 { using In = __nv_bfloat16; using Out = float; };
struct PairF16 { using In = __half; using Out = __half; };
struct PairF16F32 { using In = __half; using Out = float; };
using HalfPairs = ::testing::Types<PairBf16, PairBf16F32, PairF16, PairF16F32>;
TYPED_TEST_SUITE(HalfReferenceTest, HalfPairs);

TYPED_TEST(HalfReferenceTest, MatchesTripleLoopExactlyOnIntegers) {
    using TIn = typename TypeParam::In;
    using TOut = typename TypeParam::Out;
    const float scalars[][2] = {{1, 1}, {2, 0}, {-0.5f, 3}, {0, -2}};
    for (const auto& s : kShapes)
        for_each_layout_and_ops([&](Layout layout, Op oa, Op ob) {
            for (const auto& ab : scalars) {
                HalfCase<TIn, TOut> c(layout, oa, ob, s.m, s.n, s.k, ab[0], ab[1]);
                SmallInts gen;
                for (auto& x : c.A) x = to<TIn>(gen());
                for (auto& x : c.B) x = to<TIn>(gen());
                for (auto& x : c.C) x = to<TOut>(ab[1] == 0 ? kNaN : gen()); // NaN must not leak
                std::vector<double> r, g;
                c.reference(r, g);
                for (int64_t i = 0; i < s.m; ++i)
                    for (int64_t j = 0; j < s.n; ++j) {
                        long double sum = 0, mag = 0;
                        if (ab[0] != 0)
                            for (int64_t p = 0; p < s.k; ++p) {
                                sum += (long double)c.a(i, p) * c.b(p, j);
                                mag += std::fabs((long double)c.a(i, p) * c.b(p, j));
                            }
                        const long double c0 = ab[1] != 0 ? to_double(c.C[c.at(i, j, c.ldc)]) : 0;
                        const size_t e = size_t(c.dense(i, j));
                        ASSERT_EQ(r[e], double((long double)ab[0] * sum + (long double)ab[1] * c0))
                            << i << "," << j << " " << to_string(layout) << " k " << s.k;
                        ASSERT_EQ(g[e], double(std::fabs((long double)ab[0]) * mag +
                                               std::fabs((long double)ab[1] * c0)));
                    }
            }
        });
}

TEST(HalfCheck, OutputRoundingConstants) {
    const auto bf = ref::output_rounding<__nv_bfloat16>();
    const auto h = ref::output_rounding<__half>();
    const auto f = ref::output_rounding<float>();
    EXPECT_EQ(bf.u, 0x1p-8);
    EXPECT_EQ(h.u, 0x1p-11);
    EXPECT_EQ(f.u, 0.0);
    // Half the subnormal spacing: BF16 2^-133 / 2, FP16 2^-24 / 2.
    EXPECT_EQ(bf.eta, 0x1p-134);
    EXPECT_EQ(h.eta, 0x1p-25);
    // The first value that rounds to Inf is the largest finite plus half its ulp: the
    // conversions agree.
    EXPECT_EQ(h.overflow, 65504.0 + 16.0);
    EXPECT_TRUE(std::isinf(to_double(__double2half(h.overflow))));
    EXPECT_EQ(to_double(__double2half(std::nextafter(h.overflow, 0.0))), 65504.0);
    EXPECT_TRUE(std::isinf(to_double(__double2bfloat16(bf.overflow))));
    EXPECT_FALSE(std::isinf(to_double(__double2bfloat16(std::nextafter(bf.overflow, 0.0)))));
    EXPECT_TRUE(std::isinf(double(float(f.overflow))));
    EXPECT_FALSE(std::isinf(double(float(std::nextafter(f.overflow, 0.0)))));
    // The bound: gamma(k) (Mag + 2^-126) for the FP32 accumulation, then the rounding to C.
    const double acc = ref::error_gamma<float>(5) * (2.0 + ref::kFltMin);
    EXPECT_EQ(ref::half_bound(5, 1.5, 2.0, bf), acc + 0x1p-8 * (1.5 + acc) + 0x1p-134);
    EXPECT_EQ(ref::half_bound(5, -1.5, 2.0, f), acc);
}

/// Checks one output element `got` against an exact result `want` with magnitude `mag` at k.
template <class TIn, class TOut>
ref::CheckResult check_one(TOut got, double want, double mag, int64_t k = 1) {
    return ref::check_half<TIn, TOut>(Layout::RowMajor, 1, 1, k, &got, 1, &want, &mag);
}

// A value a quarter of a BF16 ulp above 1: its correct rounding passes, and so must anything
// within the rounding of a nearby FP32 result, but one BF16 ulp more fails.
TEST(HalfCheck, Bf16OutputOneUlpBeyondTheRoundingFails) {
    using B = __nv_bfloat16;
    const double want = 1.0 + 0x1p-9; // BF16 spacing at 1 is 2^-7, below 1 it is 2^-8
    const auto exact = check_one<B, B>(to<B>(want), want, 1.0);
    EXPECT_TRUE(exact.pass) << ref::describe(exact);
    EXPECT_EQ(exact.inexact, 0);
    EXPECT_EQ(to_double(to<B>(want)), 1.0);
    for (double wrong : {1.0 + 0x1p-7, 1.0 - 0x1p-8}) { // the neighbours of the correct 1.0
        const auto r = check_one<B, B>(to<B>(wrong), want, 1.0);
        EXPECT_FALSE(r.pass) << wrong << ": " << ref::describe(r);
        EXPECT_EQ(r.inexact, 1);
        EXPECT_GT(r.worst_ratio, 1.0);
    }
    // The same value in a float C: the bound has no output rounding, 2^-9 off fails.
    EXPECT_FALSE((check_one<B, float>(1.0f, want, 1.0).pass));
    EXPECT_TRUE((check_one<B, float>(float(want), want, 1.0).pass));
}

TEST(HalfCheck, F16OutputOneUlpBeyondTheRoundingFails) {
    using H = __half;
    // At the bottom of a binade u_out |Ref| is half an ulp: FP16 spacing in [512, 1024) is 0.5,
    // below 512 it is 0.25. (Near the top of a binade the relative bound allows up to a whole
    // ulp: the bound is u_out |Ref|, not half an ulp of the rounded result.)
    const double want = 512.1;
    const auto exact = check_one<H, H>(to<H>(want), want, want);
    EXPECT_TRUE(exact.pass) << ref::describe(exact);
    EXPECT_EQ(to_double(to<H>(want)), 512.0);
    for (double wrong : {512.5, 511.75}) {
        const auto r = check_one<H, H>(to<H>(wrong), want, want);
        EXPECT_FALSE(r.pass) << wrong << ": " << ref::describe(r);
        EXPECT_EQ(r.inexact, 1);
    }
}

// Below FP16's smallest normal (2^-14) the spacing is 2^-24 whatever the magnitude: the relative
// u_out allows nothing there, the absolute eta = 2^-25 allows the correct rounding.
TEST(HalfCheck, F16SubnormalOutputsGetHalfTheSubnormalSpacing) {
    using H = __half;
    const double want = 5 * 0x1p-26; // 1.25 subnormal steps
    ASSERT_EQ(to_double(to<H>(want)), 0x1p-24);
    const auto r = check_one<H, H>(to<H>(want), want, want);
    EXPECT_TRUE(r.pass) << ref::describe(r);
    EXPECT_EQ(r.inexact, 0);
    const auto wrong = check_one<H, H>(to<H>(0x1p-23), want, want); // one step further
    EXPECT_FALSE(wrong.pass) << ref::describe(wrong);
    // Flushed to zero: 1.25 steps off, beyond eta.
    EXPECT_FALSE((check_one<H, H>(to<H>(0.0), want, want).pass));
}

// FP16 results beyond 65504: round to nearest gives Inf from 65520 on (and 65504 below it).
TEST(HalfCheck, F16OverflowIsInfExactlyWhereRoundingGivesInf) {
    using H = __half;
    const double inf = std::numeric_limits<double>::infinity();
    // Exact result far beyond: Inf of the right sign passes, the largest finite does not.
    EXPECT_TRUE((check_one<H, H>(to<H>(inf), 70000.0, 70000.0).pass));
    EXPECT_TRUE((check_one<H, H>(to<H>(-inf), -70000.0, 70000.0).pass));
    EXPECT_FALSE((check_one<H, H>(to<H>(-inf), 70000.0, 70000.0).pass));
    EXPECT_FALSE((check_one<H, H>(to<H>(65504.0), 70000.0, 70000.0).pass));
    // Just below the threshold: 65504 passes, Inf only if the FP32 result may have crossed it.
    EXPECT_TRUE((check_one<H, H>(to<H>(65504.0), 65510.0, 65510.0).pass));
    EXPECT_FALSE((check_one<H, H>(to<H>(inf), 65000.0, 65000.0).pass));
    const double near = 65519.0; // within gamma(k) Mag of 65520 for a large enough Mag
    EXPECT_FALSE((check_one<H, H>(to<H>(inf), near, near, 1).pass));
    EXPECT_TRUE((check_one<H, H>(to<H>(inf), near, 1.0e6, 1000).pass));
    // A float C from FP16 inputs does not overflow there.
    EXPECT_FALSE((check_one<H, float>(float(inf), 70000.0, 70000.0).pass));
    EXPECT_TRUE((check_one<H, float>(70000.0f, 70000.0, 70000.0).pass));
}

TEST(HalfCheck, NaNIsUnwrittenAndSpecialsMustMatch) {
    using B = __nv_bfloat16;
    const auto r = check_one<B, B>(to<B>(kNaN), 0.5, 0.5);
    EXPECT_FALSE(r.pass);
    EXPECT_EQ(r.unwritten, 1);
    EXPECT_TRUE((check_one<B, B>(to<B>(kNaN), kNaN, 1.0).pass));
    EXPECT_FALSE((check_one<B, B>(to<B>(1.0), kNaN, 1.0).pass));
}

// The whole path on a random product: the reference rounded to C's type passes everywhere, with
// every element correctly rounded; a wrong index does not.
TYPED_TEST(HalfReferenceTest, CheckAcceptsTheRoundedReferenceAndCatchesAWrongIndex) {
    using TIn = typename TypeParam::In;
    using TOut = typename TypeParam::Out;
    for (auto layout : kLayouts) {
        HalfCase<TIn, TOut> c(layout, Op::N, Op::T, 37, 29, 70, 1.5f, 0.5f);
        Uniform u;
        for (auto& x : c.A) x = to<TIn>(u());
        for (auto& x : c.B) x = to<TIn>(u());
        for (auto& x : c.C) x = to<TOut>(u());
        std::vector<double> r, g;
        c.reference(r, g);
        const int64_t ldo = layout == Layout::RowMajor ? c.n : c.m;
        std::vector<TOut> out(r.size());
        for (size_t e = 0; e < r.size(); ++e) out[e] = to<TOut>(r[e]);
        auto res = ref::check_half<TIn, TOut>(layout, c.m, c.n, c.k, out.data(), ldo, r.data(), g.data());
        EXPECT_TRUE(res.pass) << ref::describe(res);
        EXPECT_EQ(res.inexact, 0);
        // Element (i, j) gets the value of (j, i): a transposed index. The pair whose two values
        // differ most, so that the wrong one is far outside the bound whatever the random data
        // (in BF16 a pair of close values can round within it).
        int64_t wi = 0, wj = 1;
        for (int64_t i = 0; i < c.n; ++i)
            for (int64_t j = i + 1; j < c.n; ++j)
                if (std::abs(r[size_t(c.dense(i, j))] - r[size_t(c.dense(j, i))]) >
                    std::abs(r[size_t(c.dense(wi, wj))] - r[size_t(c.dense(wj, wi))])) {
                    wi = i;
                    wj = j;
                }
        out[size_t(c.dense(wi, wj))] = to<TOut>(r[size_t(c.dense(wj, wi))]);
        res = ref::check_half<TIn, TOut>(layout, c.m, c.n, c.k, out.data(), ldo, r.data(), g.data());
        EXPECT_FALSE(res.pass) << ref::describe(res);
        EXPECT_EQ(res.worst_row, wi);
        EXPECT_EQ(res.worst_col, wj);
    }
}

} // namespace
