#pragma once
// Deterministic device-side fills: the same (seed, index) always gives the same value, so a run
// is repeatable from its printed seed without moving gigabytes from the host.

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmlab {

enum class FillKind {
    Uniform, ///< uniform in [-1, 1), never exactly zero
    SmallIntegers, ///< integers in [-4, 4]: products and sums stay exact in float and double
    WideRange,     ///< +-[1, 2) * 2^e, e uniform in [-60, 60]: magnitudes spread over 2^121
    NearFltMin,    ///< +-[1, 2) * 2^e, e uniform in [-126, -115]: just above FLT_MIN (2^-126),
                   ///< where a split into TF32 parts (rung 17) loses its low part
    WithSpecials,  ///< Uniform, with about one element in 256 replaced by +Inf, -Inf or NaN
};

/// Fills count elements of device array x; stream-ordered.
template <class T>
void fill_random(T* x, size_t count, uint64_t seed, FillKind kind, cudaStream_t stream = nullptr);

/// Sets every byte to 0xFF: NaN for float and double, so an unwritten output element is caught.
template <class T>
void poison_nan(T* x, size_t count, cudaStream_t stream = nullptr);

} // namespace gemmlab
