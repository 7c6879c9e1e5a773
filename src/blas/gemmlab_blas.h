/* libgemmlab_blas.so: a drop-in BLAS for GEMM (LD_PRELOAD it, or link it before the system BLAS).
 *
 * Exports the Fortran BLAS sgemm_/dgemm_ (column-major, 32-bit integers, the hidden string
 * lengths gfortran passes after the last argument), the CBLAS cblas_sgemm/cblas_dgemm (both
 * orders), and scipy_cblas_sgemm64_/scipy_cblas_dgemm64_ (CBLAS with 64-bit integers, the names
 * NumPy's and SciPy's wheels call in their bundled OpenBLAS). Host arrays go to the GPU through
 * gemmlab::gemm (kernel "auto") when the problem is large enough and a GPU is present; otherwise
 * the system's CPU BLAS, loaded at run time, computes them. docs/python-and-blas.md and the README
 * list the environment variables (GEMMLAB_BLAS_THRESHOLD, GEMMLAB_BLAS_DEVICE,
 * GEMMLAB_BLAS_CPU_LIBRARY, GEMMLAB_BLAS_KERNEL, GEMMLAB_BLAS_CHUNK, GEMMLAB_BLAS_VERBOSE).
 */
#ifndef GEMMLAB_BLAS_H
#define GEMMLAB_BLAS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CBLAS enumerators, by value (the same numbers as every cblas.h). */
enum { GemmlabCblasRowMajor = 101, GemmlabCblasColMajor = 102 };
enum { GemmlabCblasNoTrans = 111, GemmlabCblasTrans = 112, GemmlabCblasConjTrans = 113 };

void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_len, size_t transb_len);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, size_t transa_len, size_t transb_len);

void cblas_sgemm(int layout, int trans_a, int trans_b, int m, int n, int k, float alpha,
                 const float* a, int lda, const float* b, int ldb, float beta, float* c, int ldc);
void cblas_dgemm(int layout, int trans_a, int trans_b, int m, int n, int k, double alpha,
                 const double* a, int lda, const double* b, int ldb, double beta, double* c,
                 int ldc);

void scipy_cblas_sgemm64_(int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                          float alpha, const float* a, int64_t lda, const float* b, int64_t ldb,
                          float beta, float* c, int64_t ldc);
void scipy_cblas_dgemm64_(int layout, int trans_a, int trans_b, int64_t m, int64_t n, int64_t k,
                          double alpha, const double* a, int64_t lda, const double* b,
                          int64_t ldb, double beta, double* c, int64_t ldc);

/* Calls so far in this process that ran on the GPU and on the CPU (quick returns and argument
 * errors count in neither). Either pointer may be null. */
void gemmlab_blas_counts(long long* gpu_calls, long long* cpu_calls);

/* 1 when calls of at least the threshold size will go to the GPU (a device is visible and
 * GEMMLAB_BLAS_DEVICE does not say cpu), else 0. Initializes CUDA on first use. */
int gemmlab_blas_gpu_enabled(void);

#ifdef __cplusplus
}
#endif

#endif /* GEMMLAB_BLAS_H */
