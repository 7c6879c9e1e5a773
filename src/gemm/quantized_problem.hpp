#pragma once
// The one internal form of a quantized GEMM (FP8 or INT8 inputs, include/gemmlab/quantized.hpp)
// that the 8-bit rungs receive: column-major, normalized as problem.hpp says (a row-major call
// is C^T = op(B)^T op(A)^T, so A and B, m and n, and the row and column scales swap).

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

namespace gemmlab::detail {

/// The scale factor of output (i, j): row[i * row_step] * col[j * col_step], a null pointer
/// counting as 1 and a step of 0 giving one value for every row (column): per-tensor scales
/// are step 0, per-channel ones step 1.
struct OutputScales {
    const float* row = nullptr;
    int row_step = 0;
    const float* col = nullptr;
    int col_step = 0;
};

/// Column-major C (m x n) = alpha * s(i, j) * sum_p op(A)(i, p) op(B)(p, j) + beta * C, with
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
};

/// Rung 29 (29_wgmma_fp8.cu): TA, TB in {__nv_fp8_e4m3, __nv_fp8_e5m2}, TOut in {__nv_bfloat16,
/// __half, float}. Throws CudaFailure when a launch (or the workspace a pack needs) fails.
template <class TA, class TB, class TOut>
void launch_wgmma_fp8(const QuantArgs& g, cudaStream_t stream);

/// Rung 30 (30_wgmma_int8.cu): int8 x int8, TOut int32_t (exact) or float (scaled).
template <class TOut>
void launch_wgmma_int8(const QuantArgs& g, cudaStream_t stream);

/// Sets the calling thread's gemmlab::last_error() message (api.cu keeps the one store; empty
/// after a success).
void set_last_error(std::string message);

} // namespace gemmlab::detail
