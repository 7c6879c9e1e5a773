#pragma once
// Deterministic device-side fills: the same (seed, index) always gives the same value, so a run
// is repeatable from its printed seed without moving gigabytes from the host.

#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

namespace gemmlab {

/// How fill_random draws. Every kind is defined for float, double, __nv_bfloat16 and __half;
/// values are drawn in double and rounded to the element type (to nearest).
enum class FillKind {
    Uniform, ///< uniform in [-1, 1), never exactly zero
    SmallIntegers, ///< integers in [-4, 4]: products and sums stay exact in every type
    WideRange,     ///< +-[1, 2) * 2^e, e uniform in [-60, 60]: magnitudes spread over 2^121
                   ///< (FP16: e in [-12, 3], what its range allows)
    NearFltMin,    ///< +-[1, 2) * 2^e, e uniform in [-126, -115]: just above FLT_MIN (2^-126),
                   ///< where a split into TF32 parts (rung 17) loses its low part, and products
                   ///< fall below FLT_MIN (FP16: e in [-14, -3], above its smallest normal)
    WithSpecials,  ///< Uniform, with about one element in 256 replaced by +Inf, -Inf or NaN
};

/// Fills count elements of device array x; stream-ordered.
template <class T>
void fill_random(T* x, size_t count, uint64_t seed, FillKind kind, cudaStream_t stream = nullptr);

/// Sets every byte to 0xFF: NaN for float, double, BF16 and FP16, so an unwritten output element
/// is caught.
template <class T>
void poison_nan(T* x, size_t count, cudaStream_t stream = nullptr);

} // namespace gemmlab
