#pragma once
// The CPU reference GEMM that every GPU result is checked against.
//
// It returns two dense m x n arrays: Ref, the product computed in higher precision than T, and
// Mag, the magnitude that scales the error bound of DESIGN.md (see check.hpp).
//
// Accumulation:
//   BF16 / FP16 inputs (half_gemm): double, as for float; every product of two such values is
//                  exact in double (at most 11 x 11 significant bits), C0 may be the half type
//                  or float, alpha and beta are float.
//   float  inputs: double. Every product of two floats is exact in double, so the only error is
//                  the rounding of the k-term double sum (relative 2^-53 per term, ~2^-29 of the
//                  float bound).
//   double inputs: double-double, "Dot2" style (Ogita, Rump, Oishi 2005): each product is split
//                  exactly into fl(a*b) + err with an FMA, the rounded product is added with
//                  TwoSum, and both error terms go into a second double. The result is as if the
//                  sum were computed with unit roundoff 2^-106 and then rounded once. Chosen over
//                  x87 `long double` because it vectorizes (AVX2) and is ~2^-42 more accurate.
// Mag is accumulated in plain double for both types: it only scales a bound.
//
// Speed: op(A) and op(B) are packed (converted to double) into contiguous panels, so every
// layout/op combination runs the same register-blocked inner kernel; (MC x NC) tiles of the output
// are spread over std::threads.

#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemmlab/gemm.hpp"

namespace gemmlab::reference {

/// Ref = alpha*op(A)*op(B) + beta*C0 in higher precision, and the error-bound magnitude
/// Mag = |alpha| * sum_p |op(A)[i,p]|*|op(B)[p,j]| + |beta|*|C0[i,j]|.
///
/// A, B and C0 are host arrays stored in `layout` with leading dimensions lda, ldb, ldc, exactly
/// as the public `gemmlab::gemm` takes them. `ref` and `mag` are written dense m x n in `layout`
/// (row-major: ld = n, column-major: ld = m).
/// - beta == 0: C0 is not read (it may be null; NaN in it does not leak).
/// - k == 0 or alpha == 0: Ref = beta*C0, op(A) and op(B) are not read.
/// - m == 0 or n == 0: nothing is written.
/// - `threads` = 0 uses std::thread::hardware_concurrency().
/// A non-finite accumulated sum (Inf/NaN in the inputs, overflow) is passed through unrefined.
template <class T>
void gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
          int64_t lda, const T* B, int64_t ldb, T beta, const T* C0, int64_t ldc, double* ref,
          double* mag, int threads = 0);

extern template void gemm<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*,
                                 int64_t, const float*, int64_t, float, const float*, int64_t,
                                 double*, double*, int);
extern template void gemm<double>(Layout, Op, Op, int64_t, int64_t, int64_t, double, const double*,
                                  int64_t, const double*, int64_t, double, const double*, int64_t,
                                  double*, double*, int);

/// The same for the half-precision API: A and B in TIn (__nv_bfloat16 or __half), C0 in TOut
/// (TIn or float), alpha and beta float. Ref is the exact result (to within the double sum's
/// rounding), before any rounding to TOut.
template <class TIn, class TOut>
void half_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
               const TIn* A, int64_t lda, const TIn* B, int64_t ldb, float beta, const TOut* C0,
               int64_t ldc, double* ref, double* mag, int threads = 0);

} // namespace gemmlab::reference
