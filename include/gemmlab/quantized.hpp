#pragma once
// Quantized GEMM on Hopper's 8-bit tensor cores: FP8 (E4M3, E5M2) and INT8 inputs, with the
// scales that define what the stored values mean.

#include <cstdint>
#include <span>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/status.hpp"

namespace gemmlab {

/// How many factors one operand's scale has.
enum class Scaling : uint8_t {
    /// One float for the whole operand.
    PerTensor,
    /// One float per row of op(A) (m values) or per column of op(B) (n values): the output
    /// channels. Stored contiguously, whatever the layout and ops of the call.
    PerChannel,
    /// FP8 only, on both operands (DeepSeek-V3's recipe; cuBLASLt's VEC128_32F scale mode for A
    /// and BLK128x128_32F for B, the same layouts), whatever the layout and ops of the call:
    /// - scale_a: one float per row of op(A) and 128 values of k, an m x ceil(k / 128)
    ///   column-major array, ld m: s_a(i, kb) = values[i + kb * m];
    /// - scale_b: one float per 128 x 128 block of op(B) (k x n), a ceil(k / 128) x
    ///   ceil(n / 128) column-major array whose ld is ceil(k / 128) rounded up to a multiple
    ///   of 4: s_b(kb, jb) = values[kb + jb * ld].
    BlockWise,
};

/// One operand's scale factors: device memory (read by the kernel on the call's stream, so the
/// values may be computed on the GPU just before the call, and a captured graph reads them at
/// replay). `values == nullptr` with PerTensor means 1; PerChannel and BlockWise need values.
struct Scale {
    const float* values = nullptr;
    Scaling scaling = Scaling::PerTensor;
};

/// The output side of an FP8 C (cuBLASLt's D scale and amax): C = saturate(scale * result),
/// where result is what gemm_fp8 says C is. Both device floats, read or written on the call's
/// stream.
struct Fp8Output {
    /// The output scale; nullptr means 1. Saturation: a result whose scaled value passes the
    /// format's largest finite value (448 for E4M3, 57344 for E5M2), Inf included, gives that
    /// value of its sign; NaN gives NaN.
    const float* scale = nullptr;
    /// Where max |result| over C (before `scale`; NaN results not counted) is written; nullptr:
    /// not computed.
    float* amax = nullptr;
};

/// FP8 GEMM: C = alpha * diag(s_a) * (op(A) op(B)) * diag(s_b) + beta * C, that is
/// C(i, j) = alpha * s_a(i) * s_b(j) * sum_p op(A)(i, p) op(B)(p, j) + beta * C(i, j), where
/// s_a(i) is scale_a's factor of row i (the one value for PerTensor) and s_b(j) scale_b's of
/// column j. With Scaling::BlockWise (both operands) the scales change along k:
/// C(i, j) = alpha * sum_kb s_a(i, kb) s_b(kb, j / 128) sum_{p in block kb} op(A)(i, p)
/// op(B)(p, j) + beta * C(i, j), each block's sum scaled as wgmma's 128-value sum is promoted
/// into FP32.
///
/// - TA, TB: `__nv_fp8_e4m3` or `__nv_fp8_e5m2`, the pairs cuBLASLt accepts (E4M3 x E4M3,
///   E4M3 x E5M2, E5M2 x E4M3); TOut: `__nv_bfloat16`, `__half` or `float`. Products are
///   exact in FP32; wgmma sums 128 values of k at a time, and each such sum is added into FP32
///   registers (docs/precision.md, "FP8", derives the bound); per-tensor and per-channel scales
///   and alpha are applied once at the end (block-wise scales at each promotion, one FMA), and
///   C is rounded once to TOut. Scaling::BlockWise is rejected with UnsupportedType on one
///   operand only, NullPointer without values.
/// - Layout, ops, sizes, leading dimensions, BLAS semantics (beta == 0 never reads C; k == 0
///   or alpha == 0 gives C = beta * C) and Status values are gemm's. FP8 tensor cores read both
///   operands K-major: row-major A with op N and B with op T (column-major: A op T, B op N;
///   cuBLASLt's "TN") with 16-byte-aligned base and leading dimension are read in place; any
///   other layout, op or alignment is correct too, after a copy of the operand into a K-major
///   workspace (about 2 bytes of traffic per element of the operand).
/// - Needs sm_90a (an H100 / H200, and a library built with 90a): Status::UnsupportedDevice
///   elsewhere. `options.kernel`: "auto" or the FP8 rung ("wgmma_fp8" or its number, see
///   quantized_kernels()); `options.precision` is ignored.
/// - A failure's message: last_error().
template <class TA, class TB, class TOut>
Status gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                const TA* A, int64_t lda, Scale scale_a, const TB* B, int64_t ldb, Scale scale_b,
                float beta, TOut* C, int64_t ldc, const GemmOptions& options = {});

/// FP8 GEMM with an FP8 C (TC: `__nv_fp8_e4m3` or `__nv_fp8_e5m2`): C = saturate(output.scale *
/// result), result = alpha * (the scaled sum above); no beta (C is not read), and output.amax,
/// if given, receives max |result|. Otherwise as the gemm_fp8 above.
template <class TA, class TB, class TC>
Status gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                const TA* A, int64_t lda, Scale scale_a, const TB* B, int64_t ldb, Scale scale_b,
                TC* C, int64_t ldc, Fp8Output output, const GemmOptions& options = {});

/// Checks the arguments of a gemm_fp8 call without touching the GPU: gemm's checks, the scales
/// (PerChannel and BlockWise need values; BlockWise on both operands or neither) and the
/// kernel name.
template <class TA, class TB, class TOut>
Status validate_gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                         float alpha, const TA* A, int64_t lda, Scale scale_a, const TB* B,
                         int64_t ldb, Scale scale_b, float beta, const TOut* C, int64_t ldc,
                         const GemmOptions& options = {});
/// validate for the FP8-C gemm_fp8.
template <class TA, class TB, class TC>
Status validate_gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                         float alpha, const TA* A, int64_t lda, Scale scale_a, const TB* B,
                         int64_t ldb, Scale scale_b, const TC* C, int64_t ldc, Fp8Output output,
                         const GemmOptions& options = {});

#define GEMMLAB_FP8_DECLARE(TA, TB, TOut)                                                          \
    extern template Status gemm_fp8<TA, TB, TOut>(Layout, Op, Op, int64_t, int64_t, int64_t,       \
                                                  float, const TA*, int64_t, Scale, const TB*,     \
                                                  int64_t, Scale, float, TOut*, int64_t,           \
                                                  const GemmOptions&);                             \
    extern template Status validate_gemm_fp8<TA, TB, TOut>(                                        \
        Layout, Op, Op, int64_t, int64_t, int64_t, float, const TA*, int64_t, Scale, const TB*,   \
        int64_t, Scale, float, const TOut*, int64_t, const GemmOptions&);
#define GEMMLAB_FP8_DECLARE_FP8_C(TA, TB, TC)                                                      \
    extern template Status gemm_fp8<TA, TB, TC>(Layout, Op, Op, int64_t, int64_t, int64_t, float,  \
                                                const TA*, int64_t, Scale, const TB*, int64_t,     \
                                                Scale, TC*, int64_t, Fp8Output,                    \
                                                const GemmOptions&);                               \
    extern template Status validate_gemm_fp8<TA, TB, TC>(                                          \
        Layout, Op, Op, int64_t, int64_t, int64_t, float, const TA*, int64_t, Scale, const TB*,   \
        int64_t, Scale, const TC*, int64_t, Fp8Output, const GemmOptions&);
#define GEMMLAB_FP8_DECLARE_OUTPUTS(TA, TB)                                                        \
    GEMMLAB_FP8_DECLARE(TA, TB, __nv_bfloat16)                                                     \
    GEMMLAB_FP8_DECLARE(TA, TB, __half)                                                            \
    GEMMLAB_FP8_DECLARE(TA, TB, float)                                                             \
    GEMMLAB_FP8_DECLARE_FP8_C(TA, TB, __nv_fp8_e4m3)                                               \
    GEMMLAB_FP8_DECLARE_FP8_C(TA, TB, __nv_fp8_e5m2)
GEMMLAB_FP8_DECLARE_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e4m3)
GEMMLAB_FP8_DECLARE_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e5m2)
GEMMLAB_FP8_DECLARE_OUTPUTS(__nv_fp8_e5m2, __nv_fp8_e4m3)
#undef GEMMLAB_FP8_DECLARE_OUTPUTS
#undef GEMMLAB_FP8_DECLARE_FP8_C
#undef GEMMLAB_FP8_DECLARE

/// INT8 GEMM, exact: C = op(A) op(B) in int32 (no alpha, beta or scales). The sum is exact
/// whenever it fits in int32, which every k < 2^17 guarantees (|a b| <= 2^14); past that the
/// s32 accumulators wrap (docs/precision.md, "INT8"). Layouts, ops and alignment as gemm_fp8
/// (INT8 tensor cores also read K-major only); the rung is "wgmma_int8".
Status gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                 const int8_t* A, int64_t lda, const int8_t* B, int64_t ldb, int32_t* C,
                 int64_t ldc, const GemmOptions& options = {});

/// INT8 GEMM with float C: C(i, j) = alpha * s_a(i) * s_b(j) * sum_p op(A)(i, p) op(B)(p, j)
/// + beta * C(i, j), the exact int32 sum converted to float once (round to nearest), then
/// scaled as gemm_fp8 says (PerTensor or PerChannel; BlockWise is FP8's: UnsupportedType).
Status gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const int8_t* A, int64_t lda, Scale scale_a, const int8_t* B, int64_t ldb,
                 Scale scale_b, float beta, float* C, int64_t ldc, const GemmOptions& options = {});

/// validate for the two gemm_int8 overloads: the same checks, no CUDA call.
Status validate_gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                          const int8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                          const int32_t* C, int64_t ldc, const GemmOptions& options = {});
Status validate_gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                          float alpha, const int8_t* A, int64_t lda, Scale scale_a,
                          const int8_t* B, int64_t ldb, Scale scale_b, float beta, const float* C,
                          int64_t ldc, const GemmOptions& options = {});

/// The quantized rungs (FP8, INT8), in ladder order: the ladder's numbers continue past the
/// rungs of gpu_kernels(). Their `types` is empty (DataType names the float types only); the
/// name says which inputs a rung takes. `gemmlab list` shows them after the others.
std::span<const KernelInfo> quantized_kernels() noexcept;

} // namespace gemmlab
