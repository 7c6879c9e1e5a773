#pragma once
// The one internal form of a GEMM that every rung receives.
//
// The API normalizes every call to column-major: a row-major C = op(A) op(B) is the column-major
// C^T = op(B)^T op(A)^T, so a row-major call becomes a column-major call with A and B swapped,
// m and n swapped, and the same op flags. Rungs therefore see one layout only.

#include <cstdint>
#include <initializer_list>

#include <cuda_runtime_api.h>

#include "gemm/element.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::detail {

/// The batch strides of a strided batched call, in elements: batch b reads A + b * a and
/// B + b * b and writes C + b * c. What a natively batched kernel takes beside its operands
/// (gridDim.z gives the batch).
struct BatchStrides {
    int64_t a = 0, b = 0, c = 0;
};

/// A strided batch of products with one shape. A plain gemm call is one batch. When a rung is
/// called the API guarantees count >= 1, strides >= 0 (0 shares one A or B across the batch),
/// C's batches disjoint, and every batch's offsets inside int64.
struct Batch {
    int64_t count = 1;
    BatchStrides strides{};
};

/// Column-major C (m x n) = alpha * op(A) (m x k) * op(B) (k x n) + beta * C.
/// Element (i, j) of a column-major matrix X sits at X[i + j * ldx] (64-bit offsets).
/// op(A) = A when !trans_a (A stored m x k), else A^T (A stored k x m); same for B.
/// The API guarantees m, n, k >= 1 and alpha != 0 when a rung is called, and that C is never
/// read when beta == 0. One product: what a kernel computes (GemmArgs adds the batch).
template <class T>
struct GemmOperands {
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

/// GemmOperands and a strided batch: what a launcher receives. `batch` is one batch unless the
/// rung batches natively (KernelInfo::native_batch): the API runs any other rung once per batch.
/// Natively batched kernels take the operands and the strides as separate parameters, not this
/// struct: ptxas spilled registers in tight configurations (double 128x64 tiles) once the
/// kernel's by-value struct parameter grew past 128 bytes with the batch in it.
template <class T>
struct GemmArgs : GemmOperands<T> {
    Batch batch{};
};

/// Enqueues one GEMM on `stream`. Throws CudaFailure if a launch is rejected.
template <class T>
using Launcher = void (*)(const GemmArgs<T>& args, cudaStream_t stream);

/// The half-precision problem: A and B in TIn (__nv_bfloat16 or __half), C in TOut (TIn or
/// float), FP32 accumulation, alpha and beta in float. Column-major and normalized exactly like
/// GemmOperands, with the same guarantees (m, n, k >= 1, alpha != 0, C not read when beta == 0).
/// Pointers and leading dimensions may have any alignment the element type allows (2 bytes).
template <class TIn, class TOut>
struct HalfOperands {
    int64_t m, n, k;
    float alpha;
    const TIn* A; int64_t lda; bool trans_a;
    const TIn* B; int64_t ldb; bool trans_b;
    float beta;
    TOut* C; int64_t ldc;
};

/// HalfOperands and a strided batch, as GemmArgs.
template <class TIn, class TOut>
struct HalfArgs : HalfOperands<TIn, TOut> {
    Batch batch{};
};

/// The transposed product of g (GemmArgs or HalfArgs): C^T (n x m) = op(B)^T op(A)^T, the
/// operands, their op flags and batch strides swapped, C's pointer and ldc as they are. For a
/// kernel that stores its result into C transposed (rung 25 swapped, rung 24's transposed tiles).
template <class Args>
Args transposed_product(const Args& g) {
    Args t = g;
    t.m = g.n, t.n = g.m;
    t.A = g.B, t.lda = g.ldb, t.trans_a = !g.trans_b;
    t.B = g.A, t.ldb = g.lda, t.trans_b = !g.trans_a;
    t.batch.strides.a = g.batch.strides.b, t.batch.strides.b = g.batch.strides.a;
    return t;
}

/// Enqueues one half-precision GEMM on `stream`. Throws CudaFailure if a launch is rejected.
template <class TIn, class TOut>
using HalfLauncher = void (*)(const HalfArgs<TIn, TOut>& args, cudaStream_t stream);

/// The same normalized problem with its element types as values: the one launcher signature of
/// the registry, whatever types a rung implements. alpha and beta are held as double, which is
/// exact for every scalar type the library has (float for the half types).
struct Problem {
    DataType type;   ///< A and B
    DataType c_type; ///< C: == type, or F32 for BF16/F16 inputs
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
    Batch batch{}; ///< as GemmArgs::batch
    int emulation_moduli = 0; ///< the call's GemmOptions::emulation_moduli (read by rung 31 only)

    /// The typed view; T must be the type named by `type`.
    template <class T>
    GemmArgs<T> as() const {
        return {{m, n, k, T(alpha), static_cast<const T*>(A), lda, trans_a,
                 static_cast<const T*>(B), ldb, trans_b, T(beta), static_cast<T*>(C), ldc},
                batch};
    }

    /// The typed half-precision view; TIn must be the type named by `type`, TOut by `c_type`.
    template <class TIn, class TOut>
    HalfArgs<TIn, TOut> as_half() const {
        return {{m, n, k, float(alpha), static_cast<const TIn*>(A), lda, trans_a,
                 static_cast<const TIn*>(B), ldb, trans_b, float(beta), static_cast<TOut*>(C), ldc},
                batch};
    }

    /// Batch b alone: its pointers moved b strides on, one batch. What a rung that does not
    /// batch natively receives, once per batch.
    Problem one_batch(int64_t b) const {
        Problem p = *this;
        p.A = static_cast<const char*>(A) + b * batch.strides.a * element_bytes(type);
        p.B = static_cast<const char*>(B) + b * batch.strides.b * element_bytes(type);
        p.C = static_cast<char*>(C) + b * batch.strides.c * element_bytes(c_type);
        p.batch = {};
        return p;
    }

    /// Bytes of one element of `t`.
    static constexpr int64_t element_bytes(DataType t) {
        return t == DataType::F64 ? 8 : t == DataType::F32 ? 4 : 2;
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

/// Adapts a half-precision rung's four typed launchers to RungLauncher, dispatching on
/// (type, c_type): L1 = BF16 -> BF16, L2 = BF16 -> float, L3 = FP16 -> FP16, L4 = FP16 -> float.
template <HalfLauncher<__nv_bfloat16, __nv_bfloat16> L1, HalfLauncher<__nv_bfloat16, float> L2,
          HalfLauncher<__half, __half> L3, HalfLauncher<__half, float> L4>
void launch_half(const Problem& p, cudaStream_t stream) {
    const bool float_c = p.c_type == DataType::F32;
    if (p.type == DataType::BF16) {
        if (float_c) return L2(p.as_half<__nv_bfloat16, float>(), stream);
        return L1(p.as_half<__nv_bfloat16, __nv_bfloat16>(), stream);
    }
    if (p.type == DataType::F16) {
        if (float_c) return L4(p.as_half<__half, float>(), stream);
        return L3(p.as_half<__half, __half>(), stream);
    }
}

/// Adapts a rung with launchers for every type (float, double and the four half pairs, as
/// launch_typed and launch_half) to RungLauncher.
template <Launcher<float> F32, Launcher<double> F64, HalfLauncher<__nv_bfloat16, __nv_bfloat16> L1,
          HalfLauncher<__nv_bfloat16, float> L2, HalfLauncher<__half, __half> L3,
          HalfLauncher<__half, float> L4>
void launch_every_type(const Problem& p, cudaStream_t stream) {
    if (p.type == DataType::BF16 || p.type == DataType::F16) return launch_half<L1, L2, L3, L4>(p, stream);
    launch_typed<F32, F64>(p, stream);
}

/// A TypeSet from a list of types.
constexpr TypeSet type_set(std::initializer_list<DataType> types) {
    TypeSet t;
    for (DataType d : types) t = t.with(d);
    return t;
}

/// The types of every half-precision rung (each with C in the type itself or in float).
inline constexpr TypeSet kHalfTypes = type_set({DataType::BF16, DataType::F16});

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
