#pragma once
// The CPU reference of the quantized GEMMs (include/gemmlab/quantized.hpp) and the check of a
// result against it.
//
// Every FP8 and INT8 value, every product of two of them and every scale factor is exact in
// double; the k-term sum is a double sum (relative 2^-53 per term, far below any bound here), so
// Ref is the dequantized product to within double's rounding: alpha * s_a(i) * s_b(j) *
// sum_p a(i, p) b(p, j) + beta * C0(i, j). Inf and NaN propagate as IEEE double arithmetic says.
// For INT8 the sum is also returned as an exact int64 (sum_int64), for the exact check.

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemmlab/gemm.hpp"

namespace gemmlab::reference {

/// One operand's scale factors as the quantized API takes them (host copies here): nullptr is 1;
/// per_channel: factor i of row i of op(A) / column j of op(B), else one value; block_wise
/// (Scaling::BlockWise): the factor of row (column) i and k block kb is
/// values[(i / group) * outer_step + kb * k_step], made by block_a and block_b.
struct HostScale {
    const float* values = nullptr;
    bool per_channel = false;
    bool block_wise = false;
    int64_t group = 1, outer_step = 0, k_step = 0;
    double at(int64_t i) const { return values ? double(values[per_channel ? i : 0]) : 1.0; }
    double at(int64_t i, int64_t kb) const {
        return double(values[(i / group) * outer_step + kb * k_step]);
    }
    /// scale_a of Scaling::BlockWise: m x ceil(k / 128), column-major, ld m.
    static HostScale block_a(const float* values, int64_t m) { return {values, false, true, 1, 1, m}; }
    /// scale_b of Scaling::BlockWise: ceil(k / 128) x ceil(n / 128), column-major, ld
    /// block_b_ld(k).
    static HostScale block_b(const float* values, int64_t k) {
        return {values, false, true, 128, block_b_ld(k), 1};
    }
    static int64_t block_b_ld(int64_t k) { return ((k + 127) / 128 + 3) / 4 * 4; }
};

/// Ref and Mag (dense m x n in `layout`, as reference::gemm writes them) of a quantized GEMM:
/// Ref = alpha * s_a(i) * s_b(j) * sum_p op(A)(i, p) op(B)(p, j) + beta * C0(i, j) and
/// Mag = |alpha s_a(i) s_b(j)| * sum_p |op(A)(i, p)| |op(B)(p, j)| + |beta C0(i, j)|; with
/// block-wise scales (both operands) each k block's sum (and |sum|) is dequantized by its own
/// s_a(i, kb) s_b(kb, j / 128) and the blocks are summed in double. From host
/// arrays stored as the API takes them. TA, TB: __nv_fp8_e4m3, __nv_fp8_e5m2 or int8_t; TOut:
/// C0's type (read only when beta != 0). `sum_int64` (may be null; INT8 only): the exact sums.
template <class TA, class TB, class TOut>
void quantized_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const TA* A, int64_t lda, HostScale scale_a, const TB* B, int64_t ldb,
                    HostScale scale_b, double beta, const TOut* C0, int64_t ldc, double* ref,
                    double* mag, int64_t* sum_int64 = nullptr, int threads = 0);

/// The result of checking a quantized GEMM's C against Ref and Mag.
struct QuantCheck {
    int64_t failures = 0;
    /// The element with the largest |C - Ref| / bound (or the first failure of a special
    /// value): its position, what came out, what was wanted, and its bound.
    int64_t row = -1, col = -1;
    double got = 0, want = 0, bound = 0, worst_ratio = 0;
    bool pass() const { return failures == 0; }
    std::string describe() const;
};

/// Checks C (stored in `layout`, ldc) element by element: |C - Ref| <= gamma * Mag +
/// u_out * |Ref| + eta_out, where gamma is the accumulation's coefficient (docs/precision.md,
/// "FP8": fp8_gamma), u_out the unit roundoff of C's type and eta_out half its smallest
/// subnormal; a Ref past C's largest finite value must come out as the Inf of its sign, a NaN
/// Ref as NaN, an infinite Ref as the same Inf. An FP8 C saturates instead: a Ref (already
/// multiplied by the output scale) more than its bound past the largest finite value, or
/// infinite, must come out as that largest value of its sign.
template <class TOut>
QuantCheck check_quantized(Layout layout, int64_t m, int64_t n, const TOut* C, int64_t ldc,
                           const double* ref, const double* mag, double gamma);

/// The accumulation coefficient of rung 29's FP8 bound (docs/precision.md, "FP8"): wgmma sums
/// `promote_k` products in an accumulator of unit roundoff u_tc = 2^-13 (about 14 significant
/// bits, truncating), ceil(k / promote_k) interval sums are added in FP32, and the epilogue's
/// scaling rounds three times more: gamma = promote_k u_tc + (ceil(k / promote_k) + 4) 2^-24.
double fp8_gamma(int64_t k, int64_t promote_k = 128);

/// The accumulation coefficient with block-wise scales (docs/precision.md, "FP8",
/// "Block-wise"): fp8_gamma plus the rounding of each block's factor product s_a s_b, 2^-24
/// (the promotion's FMA replaces the add, so no other rounding is added).
double fp8_block_gamma(int64_t k);

/// The coefficient of rung 30's bound for float C (docs/precision.md, "INT8"): the sum is exact;
/// its conversion to float and the epilogue's three scaling multiplies and beta term round at
/// most six times: gamma = 6 * 2^-24.
inline constexpr double kInt8FloatGamma = 6 * 0x1p-24;

} // namespace gemmlab::reference
