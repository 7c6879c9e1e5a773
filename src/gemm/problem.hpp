#pragma once
// The one internal form of a GEMM that every rung receives.
//
// The API normalizes every call to column-major: a row-major C = op(A) op(B) is the column-major
// C^T = op(B)^T op(A)^T, so a row-major call becomes a column-major call with A and B swapped,
// m and n swapped, and the same op flags. Rungs therefore see one layout only.

#include <cstdint>

#include <cuda_runtime_api.h>

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

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

template <class TIn, class TOut>
struct HalfArgs {              // column-major, normalized exactly like GemmArgs (see problem.hpp)
    int64_t m, n, k;
    float alpha;
    const TIn* A; int64_t lda; bool trans_a;
    const TIn* B; int64_t ldb; bool trans_b;
    float beta;
    TOut* C; int64_t ldc;
};

/// Enqueues one GEMM on `stream`. Throws CudaFailure if a launch is rejected.
template <class T>
using Launcher = void (*)(const GemmArgs<T>& args, cudaStream_t stream);

/// The same normalized problem with its element type as a value: the one launcher signature of
/// the registry, whatever types a rung implements. alpha and beta are held as double, which is
/// exact for every element type the library has.
struct Problem {
    DataType type;
    Precision precision; ///< the call's GemmOptions::precision (read by cuBLAS and auto only)
    int64_t m, n, k;
    double alpha;
    const void* A;
    int64_t lda;
    bool trans_a;
    const void* B;
    int64_t ldb;
    bool trans_b;
    double beta;
    void* C;
    int64_t ldc;

    /// The typed view; T must be the type named by `type`.
    template <class T>
    GemmArgs<T> as() const {
        return {m,     n,   k,       T(alpha),   static_cast<const T*>(A), lda,
                trans_a, static_cast<const T*>(B), ldb, trans_b, T(beta), static_cast<T*>(C), ldc};
    }
};

/// A registry row's launcher.
using RungLauncher = void (*)(const Problem& problem, cudaStream_t stream);

/// Adapts a rung's typed launchers to RungLauncher: one per type the rung has, nullptr for a
/// type it lacks (the API rejects such calls before any launch, see KernelInfo::types).
template <Launcher<float> F32, Launcher<double> F64>
void launch_typed(const Problem& p, cudaStream_t stream) {
    if constexpr (F32 != nullptr)
        if (p.type == DataType::F32) return F32(p.as<float>(), stream);
    if constexpr (F64 != nullptr)
        if (p.type == DataType::F64) return F64(p.as<double>(), stream);
}

/// A TypeSet from one flag per type.
constexpr TypeSet types_of(bool has_f32, bool has_f64) {
    TypeSet t;
    if (has_f32) t = t.with(DataType::F32);
    if (has_f64) t = t.with(DataType::F64);
    return t;
}

/// The types for which launch_typed<F32, F64> has a launcher.
template <Launcher<float> F32, Launcher<double> F64>
constexpr TypeSet typed_types() {
    return types_of(F32 != nullptr, F64 != nullptr);
}

} // namespace gemmlab::detail
