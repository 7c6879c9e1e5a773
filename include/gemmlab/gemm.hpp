#pragma once
// The public GEMM entry point: C = alpha * op(A) * op(B) + beta * C.

#include <cstdint>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include "gemmlab/status.hpp"

namespace gemmlab {

/// Storage order of all three matrices of one call.
enum class Layout { RowMajor, ColMajor };

/// op(X) = X (N) or X^T (T).
enum class Op { N, T };

/// Which arithmetic a float or double call may use, in the spirit of cuBLAS compute types and PyTorch's
/// `float32_matmul_precision`. The default never gives less than the input type's own accuracy;
/// a faster, less accurate mode is only ever the caller's explicit choice.
enum class Precision {
    /// Results within the input type's own error bound (unit roundoff 2^-24 for float, 2^-53 for
    /// double): CUDA-core FP32/FP64 or a tensor-core method that meets the same bound (FP64 DMMA,
    /// error-compensated 3xTF32).
    Default,
    /// Float only (no effect on double or the half types): allows TF32 tensor-core math, inputs rounded to 10
    /// explicit mantissa bits (unit roundoff 2^-11) and FP32 accumulation. Faster, less accurate.
    Tf32,
    /// Float and double (no effect on the half types): `auto` runs every product on rung 31,
    /// the Ozaki scheme on INT8 tensor cores, with GemmOptions::emulation_moduli moduli. With
    /// the automatic count (0) the result keeps Default's bound: elements the emulation cannot
    /// promise it for (Inf/NaN, exponent spreads too wide) are computed with FMAs. A device
    /// without sm_90a runs the Default path. docs/precision.md, "Rung 31", derives the bound.
    Int8Emulation,
};

/// The most moduli (INT8 GEMMs per product) GemmOptions::emulation_moduli may ask for.
inline constexpr int kMaxEmulationModuli = 20;

/// Per-call options.
struct GemmOptions {
    /// Which rung computes the product: "auto" (the default: the fastest rung that fits the
    /// shape), a rung's name ("smem_tile") or its number ("5"). `gemmlab list` shows them all.
    std::string kernel = "auto";
    /// Stream the work is enqueued on; the call does not synchronize it.
    cudaStream_t stream = nullptr;
    /// The arithmetic `auto` may pick. A rung named in `kernel` keeps its own math whatever this
    /// says (naming "tf32" means TF32), and cuBLAS (rung 0) follows it (TF32 allows
    /// CUBLAS_COMPUTE_32F_FAST_TF32).
    Precision precision = Precision::Default;
    /// The most SMs the call plans for; 0 (the default) means all of them. The persistent rungs
    /// launch at most this many blocks and auto's model counts waves over this many SMs, so the
    /// other SMs stay free for kernels that run beside the call (NCCL's collectives, another
    /// stream's work); the rungs with one block per tile still spread over every free SM. A
    /// target above the device's SM count means all of them. As cuBLAS's
    /// cublasSetSmCountTarget.
    int sm_count_target = 0;
    /// Rung 31's modulus count (its slices: one exact INT8 GEMM each), read wherever rung 31
    /// runs (named, or under Precision::Int8Emulation). 0 (the default): the fewest that give
    /// the type's bound for the call's k. 1..kMaxEmulationModuli: that many, the caller's own
    /// accuracy: each operand keeps about 4 bits per modulus, less log2(k) / 2
    /// (docs/precision.md gives the table), and only rows and columns holding Inf or NaN still
    /// go to FMAs. Fewer moduli are faster and less accurate.
    int emulation_moduli = 0;
};

/// BLAS-style GEMM on device memory: C = alpha * op(A) * op(B) + beta * C, where op(A) is m x k,
/// op(B) is k x n and C is m x n, all stored in `layout`.
///
/// - m, n, k >= 0. m == 0 or n == 0 returns Success and touches nothing.
/// - k == 0 or alpha == 0 gives C = beta * C; beta == 0 never reads C (NaN in C does not leak).
/// - Leading dimensions are at least max(1, stored rows) for column-major and
///   max(1, stored columns) for row-major storage of each matrix as op stores it.
/// - Every argument is validated before any CUDA call; a failure returns its own Status and
///   leaves a message in `last_error()`.
/// - The call is asynchronous on `options.stream` and safe to make from several threads at once.
template <class T>
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
            int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
            const GemmOptions& options = {});

extern template Status gemm<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*,
                                   int64_t, const float*, int64_t, float, float*, int64_t,
                                   const GemmOptions&);
extern template Status gemm<double>(Layout, Op, Op, int64_t, int64_t, int64_t, double,
                                    const double*, int64_t, const double*, int64_t, double,
                                    double*, int64_t, const GemmOptions&);

/// Checks the arguments of a gemm call without touching the GPU (no CUDA call is made): sizes,
/// leading dimensions, null pointers, int64 overflow and the kernel choice. Takes the same
/// arguments as `gemm`, which runs the same checks and then also rejects host pointers.
template <class T>
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
                     const T* A, int64_t lda, const T* B, int64_t ldb, T beta, const T* C,
                     int64_t ldc, const GemmOptions& options = {});

extern template Status validate_gemm<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float,
                                            const float*, int64_t, const float*, int64_t, float,
                                            const float*, int64_t, const GemmOptions&);
extern template Status validate_gemm<double>(Layout, Op, Op, int64_t, int64_t, int64_t, double,
                                             const double*, int64_t, const double*, int64_t,
                                             double, const double*, int64_t, const GemmOptions&);

/// Half-precision GEMM: A and B in BF16 (`__nv_bfloat16`) or FP16 (`__half`), C in the same type
/// or in float; products and sums in FP32, alpha and beta in float. The result is rounded once
/// to C's type (to nearest); docs/precision.md ("BF16 and FP16 inputs") gives its error bound.
/// Same arguments, rules and Status values as the template above: BLAS semantics (beta == 0
/// never reads C; k == 0 or alpha == 0 gives C = beta * C), every argument validated before any
/// CUDA call. Any pointer alignment and leading dimension is accepted (rungs that need 16-byte
/// rows take a slower correct path otherwise). A rung that needs Hopper features (see
/// KernelInfo::needs_sm90a) returns Status::UnsupportedDevice on any other GPU; `auto` never
/// picks one there.
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
            const __nv_bfloat16* A, int64_t lda, const __nv_bfloat16* B, int64_t ldb, float beta,
            __nv_bfloat16* C, int64_t ldc, const GemmOptions& options = {});
/// BF16 inputs, float C.
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
            const __nv_bfloat16* A, int64_t lda, const __nv_bfloat16* B, int64_t ldb, float beta,
            float* C, int64_t ldc, const GemmOptions& options = {});
/// FP16 inputs, FP16 C.
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
            const __half* A, int64_t lda, const __half* B, int64_t ldb, float beta, __half* C,
            int64_t ldc, const GemmOptions& options = {});
/// FP16 inputs, float C.
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
            const __half* A, int64_t lda, const __half* B, int64_t ldb, float beta, float* C,
            int64_t ldc, const GemmOptions& options = {});

/// validate_gemm for the half-precision overloads of gemm: the same checks, no CUDA call.
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                     float alpha, const __nv_bfloat16* A, int64_t lda, const __nv_bfloat16* B,
                     int64_t ldb, float beta, const __nv_bfloat16* C, int64_t ldc,
                     const GemmOptions& options = {});
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                     float alpha, const __nv_bfloat16* A, int64_t lda, const __nv_bfloat16* B,
                     int64_t ldb, float beta, const float* C, int64_t ldc,
                     const GemmOptions& options = {});
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                     float alpha, const __half* A, int64_t lda, const __half* B, int64_t ldb,
                     float beta, const __half* C, int64_t ldc, const GemmOptions& options = {});
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                     float alpha, const __half* A, int64_t lda, const __half* B, int64_t ldb,
                     float beta, const float* C, int64_t ldc, const GemmOptions& options = {});

/// Strided batched GEMM: batch_count independent products of one shape,
/// C_b = alpha * op(A_b) * op(B_b) + beta * C_b for b = 0 .. batch_count - 1, where
/// A_b = A + b * stride_a, B_b = B + b * stride_b and C_b = C + b * stride_c (strides in elements,
/// the argument order of cublas<t>gemmStridedBatched).
///
/// - Each batch follows gemm's rules and BLAS semantics (sizes, leading dimensions, beta == 0
///   never reads C, k == 0 or alpha == 0 gives C_b = beta * C_b); all batches share layout, ops,
///   alpha and beta.
/// - batch_count >= 0; 0 returns Success and touches nothing (pointers may then be null).
/// - stride_a, stride_b >= 0; 0 broadcasts one A (or B) to every batch. stride_c >= 0, and with
///   two batches or more at least the span of one C (its last element's offset + 1:
///   (m - 1) * ldc + n row-major, (n - 1) * ldc + m column-major), so that no element of C
///   belongs to two batches; a smaller one returns Status::InvalidStride. Batches may run in
///   any order or at once.
/// - The last batch's last element of every operand the call reads or writes must have an
///   int64 offset (else Status::SizeOverflow).
/// - Every argument is validated before any CUDA call, as gemm's. A rung that batches natively
///   (KernelInfo::native_batch: cuBLAS, 13-19, 22-24, 27, 28) covers the batch in one launch;
///   any other rung named in `options.kernel` is run once per batch. `auto` picks among the
///   native ones.
template <class T>
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            T alpha, const T* A, int64_t lda, int64_t stride_a, const T* B,
                            int64_t ldb, int64_t stride_b, T beta, T* C, int64_t ldc,
                            int64_t stride_c, int64_t batch_count, const GemmOptions& options = {});

extern template Status gemm_strided_batched<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float,
                                                   const float*, int64_t, int64_t, const float*,
                                                   int64_t, int64_t, float, float*, int64_t,
                                                   int64_t, int64_t, const GemmOptions&);
extern template Status gemm_strided_batched<double>(Layout, Op, Op, int64_t, int64_t, int64_t,
                                                    double, const double*, int64_t, int64_t,
                                                    const double*, int64_t, int64_t, double,
                                                    double*, int64_t, int64_t, int64_t,
                                                    const GemmOptions&);

/// Checks the arguments of a gemm_strided_batched call without touching the GPU (no CUDA
/// call): validate_gemm's checks plus batch_count, the strides and the last batch's offsets.
template <class T>
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, T alpha, const T* A, int64_t lda, int64_t stride_a,
                                     const T* B, int64_t ldb, int64_t stride_b, T beta,
                                     const T* C, int64_t ldc, int64_t stride_c,
                                     int64_t batch_count, const GemmOptions& options = {});

extern template Status validate_gemm_strided_batched<float>(
    Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t, int64_t, const float*,
    int64_t, int64_t, float, const float*, int64_t, int64_t, int64_t, const GemmOptions&);
extern template Status validate_gemm_strided_batched<double>(
    Layout, Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t, int64_t,
    const double*, int64_t, int64_t, double, const double*, int64_t, int64_t, int64_t,
    const GemmOptions&);

/// Half-precision strided batched GEMM: the half overloads of gemm (A and B in BF16 or FP16,
/// C in the same type or float, FP32 accumulation, alpha and beta in float), batched as the
/// template above. BF16 inputs, BF16 C.
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            float alpha, const __nv_bfloat16* A, int64_t lda, int64_t stride_a,
                            const __nv_bfloat16* B, int64_t ldb, int64_t stride_b, float beta,
                            __nv_bfloat16* C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                            const GemmOptions& options = {});
/// BF16 inputs, float C.
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            float alpha, const __nv_bfloat16* A, int64_t lda, int64_t stride_a,
                            const __nv_bfloat16* B, int64_t ldb, int64_t stride_b, float beta,
                            float* C, int64_t ldc, int64_t stride_c, int64_t batch_count,
                            const GemmOptions& options = {});
/// FP16 inputs, FP16 C.
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            float alpha, const __half* A, int64_t lda, int64_t stride_a,
                            const __half* B, int64_t ldb, int64_t stride_b, float beta, __half* C,
                            int64_t ldc, int64_t stride_c, int64_t batch_count,
                            const GemmOptions& options = {});
/// FP16 inputs, float C.
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            float alpha, const __half* A, int64_t lda, int64_t stride_a,
                            const __half* B, int64_t ldb, int64_t stride_b, float beta, float* C,
                            int64_t ldc, int64_t stride_c, int64_t batch_count,
                            const GemmOptions& options = {});

/// validate_gemm_strided_batched for the half-precision overloads: the same checks, no CUDA call.
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, float alpha, const __nv_bfloat16* A, int64_t lda,
                                     int64_t stride_a, const __nv_bfloat16* B, int64_t ldb,
                                     int64_t stride_b, float beta, const __nv_bfloat16* C,
                                     int64_t ldc, int64_t stride_c, int64_t batch_count,
                                     const GemmOptions& options = {});
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, float alpha, const __nv_bfloat16* A, int64_t lda,
                                     int64_t stride_a, const __nv_bfloat16* B, int64_t ldb,
                                     int64_t stride_b, float beta, const float* C, int64_t ldc,
                                     int64_t stride_c, int64_t batch_count,
                                     const GemmOptions& options = {});
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, float alpha, const __half* A, int64_t lda,
                                     int64_t stride_a, const __half* B, int64_t ldb,
                                     int64_t stride_b, float beta, const __half* C, int64_t ldc,
                                     int64_t stride_c, int64_t batch_count,
                                     const GemmOptions& options = {});
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, float alpha, const __half* A, int64_t lda,
                                     int64_t stride_a, const __half* B, int64_t ldb,
                                     int64_t stride_b, float beta, const float* C, int64_t ldc,
                                     int64_t stride_c, int64_t batch_count,
                                     const GemmOptions& options = {});

constexpr const char* to_string(Precision p) noexcept {
    switch (p) {
    case Precision::Default: return "default";
    case Precision::Tf32: return "tf32";
    case Precision::Int8Emulation: return "int8_emulation";
    }
    return "default";
}
constexpr const char* to_string(Layout l) noexcept { return l == Layout::RowMajor ? "row" : "col"; }
constexpr char to_char(Op o) noexcept { return o == Op::N ? 'n' : 't'; }

} // namespace gemmlab
