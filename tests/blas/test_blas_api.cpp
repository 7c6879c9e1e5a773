// libgemmlab_blas.so linked directly (not preloaded): results of the Fortran, CBLAS and ILP64
// entries against a long-double reference, BLAS edge cases (quick returns, beta = 0 with NaN in
// C, alpha = 0 never reading A and B), argument errors reported through the program's own
// xerbla_/cblas_xerbla, and calls from several threads. ctest runs it with threshold 0 and
// 48-column chunks, so on a GPU machine every call takes the GPU pipeline with several chunks;
// without a GPU the same calls take the CPU fallback.

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "blas/gemmlab_blas.h"

// ---------------------------------------------------------------- the program's own handlers
namespace {
struct ErrorLog {
    std::string routine;
    int info = 0;
    int calls = 0;
};
ErrorLog g_fortran, g_cblas;
} // namespace

extern "C" void xerbla_(const char* name, const int* info, size_t len) {
    g_fortran.routine.assign(name, len);
    g_fortran.info = *info;
    ++g_fortran.calls;
}

extern "C" void cblas_xerbla(int p, const char* routine, const char*, ...) {
    g_cblas.routine = routine;
    g_cblas.info = p;
    ++g_cblas.calls;
}

namespace {

template <class T>
struct Case {
    char ta, tb;
    int m, n, k, pad; // leading dimensions are the minimum plus pad
    T alpha, beta;
};

template <class T>
std::vector<T> random_matrix(size_t count, std::mt19937& rng) {
    std::uniform_real_distribution<double> d(-1, 1);
    std::vector<T> v(count);
    for (auto& x : v) x = T(d(rng));
    return v;
}

/// Column-major reference in long double, and the error bound of DESIGN.md per element.
template <class T>
void check_colmajor(bool ta, bool tb, int m, int n, int k, T alpha, const std::vector<T>& A, int lda,
                    const std::vector<T>& B, int ldb, T beta, const std::vector<T>& C0,
                    const std::vector<T>& C, int ldc, const std::string& what) {
    const long double u = std::numeric_limits<T>::epsilon() / 2;
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < ldc; ++i) {
            const size_t at = size_t(i) + size_t(j) * ldc;
            if (i >= m) { // padding rows: untouched
                ASSERT_TRUE(C[at] == C0[at] || (std::isnan(C[at]) && std::isnan(C0[at])))
                    << what << ": padding (" << i << "," << j << ") written";
                continue;
            }
            long double sum = 0, abs_sum = 0;
            if (alpha != T(0))
                for (int l = 0; l < k; ++l) {
                    const long double a = ta ? A[l + size_t(i) * lda] : A[i + size_t(l) * lda];
                    const long double b = tb ? B[j + size_t(l) * ldb] : B[l + size_t(j) * ldb];
                    sum += a * b;
                    abs_sum += std::fabs(a * b);
                }
            const long double c0 = beta == T(0) ? 0 : C0[at];
            const long double want = (long double)alpha * sum + (long double)beta * c0;
            const long double bound = 2 * (k + 3) * u *
                                      (std::fabs((long double)alpha) * abs_sum + std::fabs((long double)beta * c0)) +
                                      std::numeric_limits<T>::min();
            ASSERT_LE(std::fabs(C[at] - want), bound)
                << what << ": C(" << i << "," << j << ") got " << C[at] << " want " << (double)want;
        }
}

template <class T>
void fortran_gemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
                  const T* alpha, const T* a, const int* lda, const T* b, const int* ldb,
                  const T* beta, T* c, const int* ldc) {
    if constexpr (sizeof(T) == 4) sgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
    else dgemm_(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, 1, 1);
}

template <class T>
void run_fortran_cases() {
    std::mt19937 rng(11);
    const char ops[] = {'N', 'T', 'c', 'n'};
    const int shapes[][3] = {{1, 1, 1}, {7, 5, 3}, {33, 70, 17}, {65, 129, 40}, {50, 500, 20}, {4, 3, 0}};
    const T scalars[][2] = {{1, 0}, {T(0.7), T(1.3)}, {0, T(1.3)}, {-1, 1}};
    for (char ta : ops)
        for (char tb : {'N', 'T'})
            for (const auto& s : shapes)
                for (const auto& ab : scalars)
                    for (int pad : {0, 3}) {
                        const int m = s[0], n = s[1], k = s[2];
                        const bool at = ta != 'N' && ta != 'n', bt = tb == 'T';
                        const int lda = std::max(1, at ? k : m) + pad, ldb = std::max(1, bt ? n : k) + pad,
                                  ldc = std::max(1, m) + pad;
                        const auto A = random_matrix<T>(size_t(lda) * (at ? m : k), rng);
                        const auto B = random_matrix<T>(size_t(ldb) * (bt ? k : n), rng);
                        auto C0 = random_matrix<T>(size_t(ldc) * n, rng);
                        if (ab[1] == T(0)) // beta = 0: C must not be read
                            for (auto& x : C0) x = std::numeric_limits<T>::quiet_NaN();
                        auto C = C0;
                        fortran_gemm<T>(&ta, &tb, &m, &n, &k, &ab[0], A.data(), &lda, B.data(), &ldb,
                                        &ab[1], C.data(), &ldc);
                        const std::string what = std::string(1, ta) + tb + " " + std::to_string(m) + "x" +
                                                 std::to_string(n) + "x" + std::to_string(k) + " alpha " +
                                                 std::to_string(ab[0]) + " beta " + std::to_string(ab[1]) +
                                                 " pad " + std::to_string(pad);
                        check_colmajor(at, bt, m, n, k, ab[0], A, lda, B, ldb, ab[1], C0, C, ldc, what);
                        if (::testing::Test::HasFatalFailure()) return;
                    }
}

TEST(BlasFortran, SgemmMatchesReference) { run_fortran_cases<float>(); }
TEST(BlasFortran, DgemmMatchesReference) { run_fortran_cases<double>(); }

/// Row-major CBLAS: the same product computed through the row-major entry equals the
/// column-major reference on the transposed problem.
template <class T, class F>
void run_cblas_row_major(F gemm) {
    std::mt19937 rng(12);
    for (int ta : {GemmlabCblasNoTrans, GemmlabCblasTrans, GemmlabCblasConjTrans})
        for (int tb : {GemmlabCblasNoTrans, GemmlabCblasTrans})
            for (const auto& s : {std::array<int, 3>{9, 100, 13}, std::array<int, 3>{64, 3, 31}}) {
                const int m = s[0], n = s[1], k = s[2];
                const bool at = ta != GemmlabCblasNoTrans, bt = tb != GemmlabCblasNoTrans;
                // Row-major storage: A is m x k (or k x m), ld = columns + 2.
                const int lda = (at ? m : k) + 2, ldb = (bt ? k : n) + 2, ldc = n + 2;
                const auto A = random_matrix<T>(size_t(lda) * (at ? k : m), rng);
                const auto B = random_matrix<T>(size_t(ldb) * (bt ? n : k), rng);
                const auto C0 = random_matrix<T>(size_t(ldc) * m, rng);
                auto C = C0;
                gemm(GemmlabCblasRowMajor, ta, tb, m, n, k, T(0.5), A.data(), lda, B.data(), ldb, T(2),
                     C.data(), ldc);
                // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
                check_colmajor(bt, at, n, m, k, T(0.5), B, ldb, A, lda, T(2), C0, C, ldc,
                               "row-major ta " + std::to_string(ta) + " tb " + std::to_string(tb));
                if (::testing::Test::HasFatalFailure()) return;
            }
}

TEST(BlasCblas, RowMajorMatchesReference) {
    run_cblas_row_major<float>([](auto... a) { cblas_sgemm(a...); });
    run_cblas_row_major<double>([](auto... a) { cblas_dgemm(a...); });
}

TEST(BlasCblas, ScipyIlp64EntriesMatchReference) {
    run_cblas_row_major<float>([](int o, int ta, int tb, int m, int n, int k, float al, const float* a,
                                  int lda, const float* b, int ldb, float be, float* c, int ldc) {
        scipy_cblas_sgemm64_(o, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    });
    run_cblas_row_major<double>([](int o, int ta, int tb, int m, int n, int k, double al, const double* a,
                                   int lda, const double* b, int ldb, double be, double* c, int ldc) {
        scipy_cblas_dgemm64_(o, ta, tb, m, n, k, al, a, lda, b, ldb, be, c, ldc);
    });
}

TEST(BlasEdges, QuickReturnsAndAlphaZero) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    std::vector<double> A(12, nan), B(12, nan), C(12, 5.0);
    const int m = 3, n = 4, k = 3, zero = 0;
    const double alpha0 = 0, beta1 = 1, beta2 = 2, beta0 = 0;
    // alpha = 0, beta = 1: C unchanged, A and B (NaN) never read.
    dgemm_("N", "N", &m, &n, &k, &alpha0, A.data(), &m, B.data(), &k, &beta1, C.data(), &m, 1, 1);
    for (double c : C) EXPECT_EQ(c, 5.0);
    // alpha = 0, beta = 2: C = 2 C, A and B still not read.
    dgemm_("N", "N", &m, &n, &k, &alpha0, A.data(), &m, B.data(), &k, &beta2, C.data(), &m, 1, 1);
    for (double c : C) EXPECT_EQ(c, 10.0);
    // k = 0, beta = 0, NaN in C: C = 0.
    std::fill(C.begin(), C.end(), nan);
    dgemm_("N", "N", &m, &n, &zero, &beta1, A.data(), &m, B.data(), &m, &beta0, C.data(), &m, 1, 1);
    for (double c : C) EXPECT_EQ(c, 0.0);
    // m = 0: nothing touched, even with null pointers.
    dgemm_("N", "N", &zero, &n, &k, &beta1, nullptr, &m, nullptr, &k, &beta0, nullptr, &m, 1, 1);
}

// ---------------------------------------------------------------- argument errors

struct FortranError {
    const char* ta;
    const char* tb;
    int m, n, k, lda, ldb, ldc, info;
};

TEST(BlasErrors, FortranEntriesCallXerblaWithTheParameterNumber) {
    const FortranError cases[] = {
        {"X", "N", 0, 0, 0, 1, 1, 1, 1},  {"N", "/", 0, 0, 0, 1, 1, 1, 2},
        {"N", "N", -1, 0, 0, 1, 1, 1, 3}, {"N", "N", 0, -1, 0, 1, 1, 1, 4},
        {"N", "N", 0, 0, -1, 1, 1, 1, 5}, {"N", "N", 2, 0, 0, 1, 1, 2, 8},
        {"T", "N", 0, 0, 2, 1, 2, 1, 8},  {"N", "N", 0, 0, 2, 1, 1, 1, 10},
        {"N", "T", 0, 2, 0, 1, 1, 1, 10}, {"N", "N", 2, 0, 0, 2, 1, 1, 13},
    };
    double A[4] = {}, B[4] = {}, C[4] = {7, 7, 7, 7};
    const double one = 1;
    for (const auto& e : cases) {
        g_fortran = {};
        dgemm_(e.ta, e.tb, &e.m, &e.n, &e.k, &one, A, &e.lda, B, &e.ldb, &one, C, &e.ldc, 1, 1);
        EXPECT_EQ(g_fortran.calls, 1);
        EXPECT_EQ(g_fortran.routine, "DGEMM ");
        EXPECT_EQ(g_fortran.info, e.info) << "transa " << e.ta << " transb " << e.tb;
        g_fortran = {};
        const float fone = 1;
        float fA[4] = {}, fB[4] = {}, fC[4] = {};
        sgemm_(e.ta, e.tb, &e.m, &e.n, &e.k, &fone, fA, &e.lda, fB, &e.ldb, &fone, fC, &e.ldc, 1, 1);
        EXPECT_EQ(g_fortran.routine, "SGEMM ");
        EXPECT_EQ(g_fortran.info, e.info);
    }
    for (double c : C) EXPECT_EQ(c, 7.0);
}

struct CblasError {
    int layout, ta, tb, m, n, k, lda, ldb, ldc, p;
};

TEST(BlasErrors, CblasEntriesCallCblasXerblaWithTheCblasParameterNumber) {
    constexpr int R = GemmlabCblasRowMajor, Cm = GemmlabCblasColMajor, N = GemmlabCblasNoTrans,
                  T = GemmlabCblasTrans;
    // With no RowMajorStrg in the process the handler gets the CBLAS position itself.
    const CblasError cases[] = {
        {0, N, N, 0, 0, 0, 1, 1, 1, 1},   {Cm, 0, N, 0, 0, 0, 1, 1, 1, 2},
        {R, N, 99, 0, 0, 0, 1, 1, 1, 3},  {Cm, N, N, -1, 0, 0, 1, 1, 1, 4},
        {Cm, N, N, 0, -1, 0, 1, 1, 1, 5}, {Cm, N, N, 0, 0, -1, 1, 1, 1, 6},
        {Cm, N, N, 2, 0, 0, 1, 1, 2, 9},  {Cm, N, N, 0, 0, 2, 1, 1, 1, 11},
        {Cm, N, N, 2, 0, 0, 2, 1, 1, 14}, {R, N, N, -1, 0, 0, 1, 1, 1, 4},
        {R, N, N, 0, -1, 0, 1, 1, 1, 5},  {R, N, N, 0, 0, -1, 1, 1, 1, 6},
        {R, N, N, 0, 0, 2, 1, 1, 1, 9},   {R, T, N, 2, 0, 0, 1, 1, 1, 9},
        {R, N, N, 0, 2, 0, 1, 1, 2, 11},  {R, N, N, 0, 2, 0, 1, 2, 1, 14},
    };
    double A[4] = {}, B[4] = {}, C[4] = {};
    for (const auto& e : cases) {
        g_cblas = {};
        cblas_dgemm(e.layout, e.ta, e.tb, e.m, e.n, e.k, 1.0, A, e.lda, B, e.ldb, 1.0, C, e.ldc);
        EXPECT_EQ(g_cblas.calls, 1);
        EXPECT_EQ(g_cblas.routine, "cblas_dgemm");
        EXPECT_EQ(g_cblas.info, e.p) << "layout " << e.layout << " m " << e.m << " n " << e.n
                                     << " k " << e.k << " lda " << e.lda << " ldb " << e.ldb
                                     << " ldc " << e.ldc;
    }
}

// ---------------------------------------------------------------- where the calls go, threads

TEST(BlasPath, CallsReachTheGpuWhenThereIsOne) {
    if (!gemmlab_blas_gpu_enabled()) GTEST_SKIP() << "no CUDA device: every call runs on the CPU BLAS";
    long long gpu0 = 0, gpu1 = 0;
    gemmlab_blas_counts(&gpu0, nullptr);
    std::mt19937 rng(13);
    const int m = 40, n = 200, k = 30;
    const auto A = random_matrix<double>(size_t(m) * k, rng), B = random_matrix<double>(size_t(k) * n, rng);
    std::vector<double> C0(size_t(m) * n, 0.0), C = C0;
    const double one = 1, zero = 0;
    dgemm_("N", "N", &m, &n, &k, &one, A.data(), &m, B.data(), &k, &zero, C.data(), &m, 1, 1);
    gemmlab_blas_counts(&gpu1, nullptr);
    EXPECT_EQ(gpu1, gpu0 + 1) << "threshold 0 with a GPU: the call must run there";
    check_colmajor(false, false, m, n, k, 1.0, A, m, B, k, 0.0, C0, C, m, "gpu path");
}

TEST(BlasThreads, ConcurrentCallsAreCorrect) {
    constexpr int kThreads = 4, kCalls = 8;
    std::vector<std::thread> threads;
    std::vector<int> failures(kThreads, 0);
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([t, &failures] {
            std::mt19937 rng(100 + t);
            for (int c = 0; c < kCalls; ++c) {
                const int m = 17 + t, n = 130 + c, k = 9 + c;
                const auto A = random_matrix<double>(size_t(m) * k, rng);
                const auto B = random_matrix<double>(size_t(k) * n, rng);
                std::vector<double> C(size_t(m) * n, 0.0);
                const double one = 1, zero = 0;
                dgemm_("N", "N", &m, &n, &k, &one, A.data(), &m, B.data(), &k, &zero, C.data(), &m, 1, 1);
                for (int j = 0; j < n; ++j)
                    for (int i = 0; i < m; ++i) {
                        double want = 0, mag = 0;
                        for (int l = 0; l < k; ++l) {
                            want += A[i + size_t(l) * m] * B[l + size_t(j) * k];
                            mag += std::fabs(A[i + size_t(l) * m] * B[l + size_t(j) * k]);
                        }
                        if (std::fabs(C[i + size_t(j) * m] - want) > 1e-14 * (k + 3) * mag + 1e-300) ++failures[t];
                    }
            }
        });
    for (auto& th : threads) th.join();
    for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
}

} // namespace
