// Rung 31 (int8_emulation, Ozaki scheme II) on the GPU; skipped without a GPU that runs it.
// Through the API (every op, layout, odd shape, unaligned pointer, alpha/beta, the library's
// fills including Inf/NaN and exponents over 2^121) against the CPU reference within the type's
// bound; through the launcher for what the API cannot choose: the precision promise switched off
// (the adversarial inputs must then break the bound, and keep it with the promise on), every
// modulus count, k past one INT8 GEMM's int32 limit, and a captured graph replayed.

#include <algorithm>
#include <cmath>
#include <cstdio>
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
    const double promised = p.worst_ratio({.moduli = 0, .fallback = true});
    const double unpromised = p.worst_ratio({.moduli = 0, .fallback = false});
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
