// The exported entry points of libgemmlab_blas.so: argument checks with the reference BLAS's
// rules and error reporting, reduction to one column-major problem, and the choice between the
// GPU and the CPU BLAS.
//
// Errors follow the reference implementations exactly, because the netlib test programs check
// them: the Fortran entries call xerbla_("SGEMM ", info) with the Fortran parameter number, the
// CBLAS entries cblas_xerbla(p, "cblas_sgemm", ...) with the CBLAS parameter number. Both
// handlers are looked up at run time through the global scope, so a program's own xerbla (the
// test programs define one) replaces the system BLAS's, as with a statically linked BLAS; this
// library defines neither, so the lookup never finds it.

#include <dlfcn.h>

#include <algorithm>
#include <cctype>
#include <cstdarg>
#include <cstdio>

#include "blas/blas_internal.hpp"
#include "blas/gemmlab_blas.h"

#define GEMMLAB_BLAS_EXPORT extern "C" __attribute__((visibility("default")))

namespace gemmlab::blas {
namespace {

// ---------------------------------------------------------------- error reporting

using FortranXerbla = void (*)(const char* name, const int* info, size_t name_len);
using CblasXerbla = void (*)(int p, const char* routine, const char* form, ...);

void report_fortran(const char* name6, int info) {
    static const auto handler = reinterpret_cast<FortranXerbla>(dlsym(RTLD_DEFAULT, "xerbla_"));
    if (handler) {
        handler(name6, &info, 6);
        return;
    }
    // The reference XERBLA's message; it then STOPs the program, a library loaded into someone
    // else's process does not.
    std::fprintf(stderr, " ** On entry to %.6s parameter number %2d had an illegal value\n", name6, info);
}

/// Reference CBLAS's convention for row-major calls: the handler receives the parameter number
/// of the Fortran call made after swapping A and B (M and N, lda and ldb trade places) plus one,
/// and un-swaps it itself when the global RowMajorStrg is set; the reference cblas_*gemm sets
/// RowMajorStrg for the length of a row-major call. So where a RowMajorStrg exists in the
/// process (reference CBLAS, or a program written against it, like the CBLAS test programs), we
/// pass the swapped number with RowMajorStrg = 1; elsewhere the CBLAS number itself.
int swap_row_major_gemm(int p) {
    switch (p) {
    case 4: return 5;
    case 5: return 4;
    case 9: return 11;
    case 11: return 9;
    default: return p;
    }
}

void report_cblas(const char* routine, int p, bool row_major, const char* form, int value = 0) {
    static const auto handler = reinterpret_cast<CblasXerbla>(dlsym(RTLD_DEFAULT, "cblas_xerbla"));
    static int* const row_major_flag = static_cast<int*>(dlsym(RTLD_DEFAULT, "RowMajorStrg"));
    if (!handler) {
        std::fprintf(stderr, "Parameter %d to routine %s was incorrect\n", p, routine);
        if (*form) std::fprintf(stderr, form, value);
        return;
    }
    if (!row_major_flag) {
        handler(p, routine, form, value);
        return;
    }
    const int saved = *row_major_flag;
    *row_major_flag = row_major ? 1 : 0;
    handler(row_major ? swap_row_major_gemm(p) : p, routine, form, value);
    *row_major_flag = saved;
}

// ---------------------------------------------------------------- checks and dispatch

/// LSAME-style reading of a Fortran TRANS argument: 'N'/'n' -> N, 'T'/'t'/'C'/'c' -> T
/// (conjugation is a no-op for real data), anything else -> invalid.
enum class Trans { N, T, Invalid };
Trans fortran_trans(char c) {
    c = char(std::toupper(static_cast<unsigned char>(c)));
    return c == 'N' ? Trans::N : (c == 'T' || c == 'C') ? Trans::T : Trans::Invalid;
}
Trans cblas_trans(int t) {
    return t == GemmlabCblasNoTrans ? Trans::N
           : t == GemmlabCblasTrans || t == GemmlabCblasConjTrans ? Trans::T
                                                                  : Trans::Invalid;
}

/// The reference xGEMM's checks, in its order: the Fortran parameter number of the first bad
/// argument (3 m, 4 n, 5 k, 8 lda, 10 ldb, 13 ldc), or 0.
int check_sizes(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb,
                int64_t ldc) {
    const int64_t rows_a = ta == Trans::N ? m : k, rows_b = tb == Trans::N ? k : n;
    if (m < 0) return 3;
    if (n < 0) return 4;
    if (k < 0) return 5;
    if (lda < std::max<int64_t>(1, rows_a)) return 8;
    if (ldb < std::max<int64_t>(1, rows_b)) return 10;
    if (ldc < std::max<int64_t>(1, m)) return 13;
    return 0;
}

/// GPU when enabled and m*n*k reaches threshold^3; the columns a failed GPU call left behind go
/// to the CPU.
template <class T>
void execute(const Problem<T>& p, Family family) {
    // The reference quick return: nothing to compute, C unchanged (and not even read).
    if (p.m == 0 || p.n == 0 || ((p.alpha == T(0) || p.k == 0) && p.beta == T(1))) return;
    const double t = config().threshold;
    if (double(p.m) * double(p.n) * double(p.k) >= t * t * t && gpu_enabled()) {
        const int64_t done = gpu_gemm(p);
        if (done == p.n) return;
        cpu_gemm(p.columns(done, p.n - done), family);
        return;
    }
    cpu_gemm(p, family);
}

template <class T>
void fortran_gemm(const char* name6, const char* transa, const char* transb, const int* m,
                  const int* n, const int* k, const T* alpha, const T* a, const int* lda,
                  const T* b, const int* ldb, const T* beta, T* c, const int* ldc) {
    const Trans ta = fortran_trans(*transa), tb = fortran_trans(*transb);
    int info = ta == Trans::Invalid ? 1 : tb == Trans::Invalid ? 2 : 0;
    if (!info) info = check_sizes(ta, tb, *m, *n, *k, *lda, *ldb, *ldc);
    if (info) {
        report_fortran(name6, info);
        return;
    }
    execute(Problem<T>{ta == Trans::T, tb == Trans::T, *m, *n, *k, *alpha, a, *lda, b, *ldb, *beta,
                       c, *ldc},
            Family::Lp64);
}

/// CBLAS: a row-major C = op(A) op(B) is the column-major C^T = op(B)^T op(A)^T, so row-major
/// calls become column-major ones with A and B (and m and n) swapped, as in reference CBLAS.
template <class T>
void cblas_gemm(const char* routine, Family family, int layout, int trans_a, int trans_b,
                int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t lda, const T* b,
                int64_t ldb, T beta, T* c, int64_t ldc) {
    const bool row = layout == GemmlabCblasRowMajor;
    if (!row && layout != GemmlabCblasColMajor) {
        report_cblas(routine, 1, false, "Illegal layout setting, %d\n", layout);
        return;
    }
    const Trans ta = cblas_trans(trans_a), tb = cblas_trans(trans_b);
    if (ta == Trans::Invalid) {
        report_cblas(routine, 2, row, "Illegal TransA setting, %d\n", trans_a);
        return;
    }
    if (tb == Trans::Invalid) {
        report_cblas(routine, 3, row, "Illegal TransB setting, %d\n", trans_b);
        return;
    }
    Problem<T> p = row ? Problem<T>{tb == Trans::T, ta == Trans::T, n, m, k, alpha, b, ldb, a, lda, beta, c, ldc}
                       : Problem<T>{ta == Trans::T, tb == Trans::T, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc};
    // Checked in the column-major form, like the Fortran routine reference CBLAS calls; the
    // CBLAS number is the Fortran one plus one (the layout argument), with m/n and lda/ldb
    // traded back for row-major.
    if (const int info = check_sizes(p.ta ? Trans::T : Trans::N, p.tb ? Trans::T : Trans::N, p.m,
                                     p.n, p.k, p.lda, p.ldb, p.ldc)) {
        const int fortran_plus_one = info + 1;
        report_cblas(routine, row ? swap_row_major_gemm(fortran_plus_one) : fortran_plus_one, row, "");
        return;
    }
    execute(p, family);
}

} // namespace
} // namespace gemmlab::blas

using gemmlab::blas::Family;

GEMMLAB_BLAS_EXPORT void sgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                const int* k, const float* alpha, const float* a, const int* lda,
                                const float* b, const int* ldb, const float* beta, float* c,
                                const int* ldc, size_t, size_t) {
    gemmlab::blas::fortran_gemm("SGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMMLAB_BLAS_EXPORT void dgemm_(const char* transa, const char* transb, const int* m, const int* n,
                                const int* k, const double* alpha, const double* a, const int* lda,
                                const double* b, const int* ldb, const double* beta, double* c,
                                const int* ldc, size_t, size_t) {
    gemmlab::blas::fortran_gemm("DGEMM ", transa, transb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMMLAB_BLAS_EXPORT void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k,
                                     float alpha, const float* a, int lda, const float* b, int ldb,
                                     float beta, float* c, int ldc) {
    gemmlab::blas::cblas_gemm("cblas_sgemm", Family::Lp64, layout, trans_a, trans_b, m, n, k, alpha,
                              a, lda, b, ldb, beta, c, ldc);
}

GEMMLAB_BLAS_EXPORT void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k,
                                     double alpha, const double* a, int lda, const double* b,
                                     int ldb, double beta, double* c, int ldc) {
    gemmlab::blas::cblas_gemm("cblas_dgemm", Family::Lp64, layout, trans_a, trans_b, m, n, k, alpha,
                              a, lda, b, ldb, beta, c, ldc);
}

GEMMLAB_BLAS_EXPORT void scipy_cblas_sgemm64_(int layout, int trans_a, int trans_b, int64_t m,
                                              int64_t n, int64_t k, float alpha, const float* a,
                                              int64_t lda, const float* b, int64_t ldb, float beta,
                                              float* c, int64_t ldc) {
    gemmlab::blas::cblas_gemm("cblas_sgemm", Family::ScipyIlp64, layout, trans_a, trans_b, m, n, k,
                              alpha, a, lda, b, ldb, beta, c, ldc);
}

GEMMLAB_BLAS_EXPORT void scipy_cblas_dgemm64_(int layout, int trans_a, int trans_b, int64_t m,
                                              int64_t n, int64_t k, double alpha, const double* a,
                                              int64_t lda, const double* b, int64_t ldb,
                                              double beta, double* c, int64_t ldc) {
    gemmlab::blas::cblas_gemm("cblas_dgemm", Family::ScipyIlp64, layout, trans_a, trans_b, m, n, k,
                              alpha, a, lda, b, ldb, beta, c, ldc);
}
