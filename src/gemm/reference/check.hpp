#pragma once
// The correctness rule of DESIGN.md as a function: every element of a computed C against the
// higher-precision reference (reference.hpp), within gamma(k) * Mag.

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemmlab/gemm.hpp"

namespace gemmlab::reference {

/// Outcome of comparing one computed C with its reference.
struct CheckResult {
    bool pass = true;
    /// Caller's (row, col) of the element with the largest ratio (the first one on ties); -1 when
    /// the matrix is empty.
    int64_t worst_row = -1, worst_col = -1;
    double got = 0, want = 0; ///< C and Ref at the worst element
    /// |got - want| / bound, max over elements; inf where the bound is 0 and got != want, or got
    /// is not finite.
    double worst_ratio = 0;
    int64_t failures = 0;  ///< elements outside the bound (unwritten ones included)
    int64_t unwritten = 0; ///< NaN in C where the reference is finite
    /// Elements where C is not Ref rounded to nearest in C's type: 0 means every element is the
    /// correctly rounded exact result, which exactly representable (small integer) inputs must
    /// give; with other inputs it only counts, the bound decides.
    int64_t inexact = 0;
    /// The batch of the worst element when a strided batched call was checked batch by batch
    /// (merge); -1 for a single product.
    int64_t worst_batch = -1;
};

/// Folds the check of batch `batch` of a strided batched call into `all` (which starts as a
/// default CheckResult): pass when every batch passes, the counts add up, and the worst element
/// is kept with its batch (the first one on ties).
void merge(CheckResult& all, const CheckResult& one, int64_t batch);

/// gamma(k) = 2 * (k + 3) * u with u = 2^-24 (float) or 2^-53 (double), for Precision::Default:
/// the input type's own bound, which every method claiming that precision must meet with this
/// same constant (CUDA-core FMA, FP64 DMMA, 3xTF32).
/// Why: a k-term dot product in any summation order puts at most k roundings on each term (its
/// product and up to k - 1 additions; fewer with FMA or tree/split-k sums); the +3 covers the
/// rounding of the alpha multiply, the beta multiply and the final add; the factor 2 absorbs the
/// second-order terms of (1 + u)^(k+3) - 1 and leaves slack, while a wrong index or a missing
/// term is still far outside it.
///
/// Precision::Tf32 (float only; double ignores it): 2^-10 + 2^-22 + the FP32 gamma(k) above.
/// Why: each input is rounded once to TF32, |tf32(x) - x| <= 2^-11 |x|, so each product carries
/// a relative error up to (1 + 2^-11)^2 - 1 = 2^-10 + 2^-22, on top of the FP32 accumulation.
/// Mag folds |alpha| sum |A||B| and |beta| |C0| into one number, so the C0 term gets this
/// allowance too (C0 itself is never rounded to TF32): the bound is that much looser on it.
template <class T>
double error_gamma(int64_t k, Precision precision = Precision::Default);

/// Checks C (m x n, stored in `layout` with leading dimension ldc) against ref and mag (dense m x n
/// in `layout`, as reference::gemm writes them). Element (i, j) passes iff
/// |C - Ref| <= gamma(k) * Mag, so Mag == 0 demands exact equality. A NaN or Inf in C where Ref is
/// finite fails (a NaN is also counted as unwritten). Where Ref itself is not finite (Inf/NaN in
/// the inputs), C must be the same Inf, or NaN for NaN.
template <class T>
CheckResult check(Layout layout, int64_t m, int64_t n, int64_t k, const T* C, int64_t ldc,
                  const double* ref, const double* mag, Precision precision = Precision::Default);

/// What rounding the FP32 result once to C's type adds, for BF16/FP16 inputs (docs/precision.md,
/// "BF16 and FP16 inputs").
struct OutputRounding {
    double u;        ///< unit roundoff of C's type in its normal range: 2^-8 BF16, 2^-11 FP16;
                     ///< 0 for float C (that rounding is the accumulation's last, inside gamma)
    double eta;      ///< half the spacing of C's subnormals, the most a rounding below C's
                     ///< normal range errs by: 2^-134 BF16, 2^-25 FP16, 0 for float C
    double overflow; ///< the smallest |t| that rounds to Inf in C's type: BF16 (2 - 2^-8) 2^127,
                     ///< FP16 65520, float (2 - 2^-24) 2^127
};

/// The OutputRounding of TOut (__nv_bfloat16, __half or float).
template <class TOut>
OutputRounding output_rounding();

/// FLT_MIN = 2^-126. Below it an FP32 operation errs by up to u * FLT_MIN = 2^-150 absolutely
/// rather than u relatively, which the half bound allows for by adding FLT_MIN to Mag.
inline constexpr double kFltMin = 0x1p-126;

/// The bound of one element of a BF16/FP16-input GEMM with C in TOut:
///   acc + u_out (|Ref| + acc) + eta_out,   acc = gamma(k) (Mag + 2^-126)
/// with gamma(k) = 2 (k + 3) 2^-24 the FP32 accumulation's (the products are exact), 2^-126 for
/// FP32 results below FLT_MIN, and u_out, eta_out the final rounding to C's type. Derived in
/// docs/precision.md ("BF16 and FP16 inputs").
double half_bound(int64_t k, double ref, double mag, const OutputRounding& out);

/// check() for BF16/FP16 inputs (TIn) with C in TOut (TIn or float): element (i, j) passes iff
/// |C - Ref| <= half_bound(k, Ref, Mag). C = +-Inf where Ref is finite passes iff the FP32
/// result may have reached the overflow threshold of TOut with that sign (Ref +- acc crosses
/// +-overflow), as round-to-nearest then gives Inf.
/// Non-finite Ref as in check().
template <class TIn, class TOut>
CheckResult check_half(Layout layout, int64_t m, int64_t n, int64_t k, const TOut* C, int64_t ldc,
                       const double* ref, const double* mag);

/// One line: "worst (12, 7): got 3.25 want 3.2500001 err/bound 0.03" ("worst (12, 7) of batch
/// 5: ..." after merge), plus the failure counts when there are failures.
std::string describe(const CheckResult& r);

extern template double error_gamma<float>(int64_t, Precision);
extern template double error_gamma<double>(int64_t, Precision);
extern template CheckResult check<float>(Layout, int64_t, int64_t, int64_t, const float*, int64_t,
                                         const double*, const double*, Precision);
extern template CheckResult check<double>(Layout, int64_t, int64_t, int64_t, const double*, int64_t,
                                          const double*, const double*, Precision);
extern template OutputRounding output_rounding<__nv_bfloat16>();
extern template OutputRounding output_rounding<__half>();
extern template OutputRounding output_rounding<float>();

} // namespace gemmlab::reference
