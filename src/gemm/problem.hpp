#pragma once
// The one internal form of a GEMM that every rung receives.
//
// The API normalizes every call to column-major: a row-major C = op(A) op(B) is the column-major
// C^T = op(B)^T op(A)^T, so a row-major call becomes a column-major call with A and B swapped,
// m and n swapped, and the same op flags. Rungs therefore see one layout only.

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmlab::detail {

/// Column-major C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C.
/// Element (i, j) of a column-major matrix X sits at X[i + j * ldx] (64-bit offsets).
/// op(A) = A when !trans_a (A stored m x k), else A^T (A stored k x m); same for B.
/// The API guarantees m, n, k >= 1 and alpha != 0 when a rung is called, and that C is never
/// read when beta == 0.
template <class T>
struct GemmArgs {
    int64_t m, n, k;
    T alpha;
    const T* A;
    int64_t lda;
    bool trans_a;
    const T* B;
    int64_t ldb;
    bool trans_b;
    T beta;
    T* C;
    int64_t ldc;
};

/// Enqueues one GEMM on `stream`. Throws CudaFailure if a launch is rejected.
template <class T>
using Launcher = void (*)(const GemmArgs<T>& args, cudaStream_t stream);

} // namespace gemmlab::detail
