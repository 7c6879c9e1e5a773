#pragma once
// The GPU reference used by `gemmlab bench` at sizes where the CPU reference would take minutes:
// every product and sum in double-double (about 106 bits), so its own error is far below the
// bound it checks against, for float, double, BF16 and FP16 inputs alike.

#include <cuda_runtime_api.h>

#include "gemm/problem.hpp"

namespace gemmlab::reference {

/// For the normalized column-major problem `g` (g.C is ignored; C0 holds the original C, read
/// only when g.beta != 0): ref = alpha*op(A)*op(B) + beta*C0 and
/// mag = |alpha| * sum |op(A)||op(B)| + |beta| |C0|, both dense column-major m x n (ld = m) device
/// arrays. Because the normalization maps a row-major call to its transpose, the same arrays are
/// the dense result in the caller's own layout.
template <class T>
void gpu_reference(const detail::GemmArgs<T>& g, const T* C0, int64_t ldc0, double* ref, double* mag,
                   cudaStream_t stream);

/// The same for the half-precision problem: A and B in TIn, C0 in TOut (g.C is ignored).
template <class TIn, class TOut>
void gpu_reference_half(const detail::HalfArgs<TIn, TOut>& g, const TOut* C0, int64_t ldc0,
                        double* ref, double* mag, cudaStream_t stream);

} // namespace gemmlab::reference
