#pragma once
// The one internal form of a quantized GEMM (FP8 or INT8 inputs, include/gemmlab/quantized.hpp)
// that the 8-bit rungs receive: column-major, normalized as problem.hpp says (a row-major call
// is C^T = op(B)^T op(A)^T, so A and B, m and n, and the row and column scales swap), except
// block-wise FP8: a row-major call keeps A and B and writes C row-major (OutputScales).

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

namespace gemmlab::detail {

/// What the 8-bit epilogue applies as C leaves registers. The scale factor of output (i, j) is
/// row[i * row_step] * col[j * col_step], a null pointer counting as 1 and a step of 0 giving one
/// value for every row (column): per-tensor scales are step 0, per-channel ones step 1.
struct OutputScales {
    const float* row = nullptr;
    int row_step = 0;
    const float* col = nullptr;
    int col_step = 0;
    /// FP8 C only: C = saturate(out_scale * result) (null: 1), and amax = max |result| over C
    /// (null: not computed; the launcher zeroes it first).
    const float* out_scale = nullptr;
    float* amax = nullptr;
    /// C(i, j) at C[i * ldc + j] instead of C[i + j * ldc]: a block-wise row-major call keeps its
    /// orientation (its A and B scales differ in shape, so they cannot swap).
    bool c_row_major = false;
};

/// Block-wise scales (the DeepSeek-V3 recipe, Scaling::BlockWise), in the kernel's terms: op(A)
/// has one factor per row and 128 values of k, a(i, kb) = a[i + kb * lda]; op(B) one per 128 x
/// 128 block, b(kb, jb) = b[kb + jb * ldb]. The interval sum of k block kb is multiplied by
/// a(i, kb) * b(kb, j / 128) as it is promoted. Null `a`: no block scales.
struct BlockScales {
    const float* a = nullptr;
    int64_t lda = 0;
    const float* b = nullptr;
    int64_t ldb = 0;
};

/// Column-major C (m x n; row-major where scales.c_row_major says so) =
/// alpha * s(i, j) * sum_p op(A)(i, p) op(B)(p, j) + beta * C (block-wise: the sum of each k
/// block's sum times its block scales), with
/// A and B one byte per element (FP8 or INT8: the launcher's template types say which) and C of
/// the launcher's output type (int32_t: exactly the sum, alpha 1, beta 0, no scales). The API
/// guarantees m, n, k >= 1 and alpha != 0 when a rung is called, and never reads C when
/// beta == 0. Any alignment and leading dimension: the launchers pack what TMA cannot read.
struct QuantArgs {
    int64_t m, n, k;
    float alpha, beta;
    const void* A;
    int64_t lda;
    bool trans_a;
    const void* B;
    int64_t ldb;
    bool trans_b;
    void* C;
    int64_t ldc;
    OutputScales scales;
    BlockScales blocks = {}; // FP8 only
};

/// Rung 29 (29_wgmma_fp8.cu): TA, TB in {__nv_fp8_e4m3, __nv_fp8_e5m2}, TOut in {__nv_bfloat16,
/// __half, float, __nv_fp8_e4m3, __nv_fp8_e5m2} (FP8 C: beta 0). Throws CudaFailure when a launch (or the workspace a pack needs) fails.
template <class TA, class TB, class TOut>
void launch_wgmma_fp8(const QuantArgs& g, cudaStream_t stream);

/// Rung 30 (30_wgmma_int8.cu): int8 x int8, TOut int32_t (exact) or float (scaled).
template <class TOut>
void launch_wgmma_int8(const QuantArgs& g, cudaStream_t stream);

/// Sets the calling thread's gemmlab::last_error() message (api.cu keeps the one store; empty
/// after a success).
void set_last_error(std::string message);

} // namespace gemmlab::detail
