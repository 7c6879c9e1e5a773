#pragma once
// The rungs of the HIP build and one call that runs any of them. The HIP build has the CUDA-core
// rungs 1-12 in float and double (cmake/gemmlab_hip.cmake says why the others stay out), and no
// cuBLAS, auto or tuner: a caller names the rung. The kernels and their launchers are the very
// files of the CUDA build (src/gemm/kernels/01-12), compiled by hipcc.

#include <cstdint>
#include <span>
#include <string_view>

#include "gemm/problem.hpp"
#include "gemmlab/gemm.hpp"

namespace gemmlab::hip {

/// One rung of the HIP build: its number and name as in the CUDA build's registry
/// (`gemmlab list`), and its launchers.
struct HipRung {
    int number;
    std::string_view name;
    detail::Launcher<float> f32;
    detail::Launcher<double> f64;
};

/// Rungs 1-12, in ladder order.
std::span<const HipRung> rungs() noexcept;

/// The rung named `key` (its name or its number); nullptr when the HIP build has none.
const HipRung* find_rung(std::string_view key) noexcept;

/// C = alpha * op(A) * op(B) + beta * C on device memory, through `rung`, enqueued on `stream`;
/// BLAS semantics as gemmlab::gemm (C is not read when beta == 0). Needs m, n, k >= 1 and valid
/// leading dimensions (std::invalid_argument otherwise); throws CudaFailure when the launch is
/// rejected.
template <class T>
void gemm(const HipRung& rung, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
          T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
          cudaStream_t stream = nullptr);

} // namespace gemmlab::hip
