#pragma once
// Conversions between the element types and float, on the host and the device alike: the one
// place that says how a BF16 or FP16 value becomes a float (exactly) and how a float becomes one
// (rounded to nearest, ties to even; overflow gives Inf, as IEEE round-to-nearest does).

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#if defined(__CUDACC__)
#define GEMMLAB_HOST_DEVICE __host__ __device__
#else
#define GEMMLAB_HOST_DEVICE
#endif

namespace gemmlab::detail {

/// True for the 16-bit input types of the half-precision API.
template <class T>
inline constexpr bool is_half_v = false;
template <> inline constexpr bool is_half_v<__nv_bfloat16> = true;
template <> inline constexpr bool is_half_v<__half> = true;

/// The value as a float: exact for BF16 and FP16 (their values are a subset of float's).
GEMMLAB_HOST_DEVICE inline float to_float(float x) { return x; }
GEMMLAB_HOST_DEVICE inline float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
GEMMLAB_HOST_DEVICE inline float to_float(__half x) { return __half2float(x); }

/// A float as T, rounded to nearest even (identity for float).
template <class T>
GEMMLAB_HOST_DEVICE T from_float(float x);
template <> GEMMLAB_HOST_DEVICE inline float from_float<float>(float x) { return x; }
template <> GEMMLAB_HOST_DEVICE inline __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
    return __float2bfloat16_rn(x);
}
template <> GEMMLAB_HOST_DEVICE inline __half from_float<__half>(float x) { return __float2half_rn(x); }

/// An input element in a kernel's accumulator type TAcc: itself, or a BF16/FP16 value as a float
/// (exact).
template <class TAcc, class TIn>
GEMMLAB_HOST_DEVICE inline TAcc widen(TIn x) {
    if constexpr (std::is_same_v<TAcc, TIn>) return x;
    else return to_float(x);
}

/// A result in C's type: itself, or rounded once from float to BF16/FP16 (to nearest even).
template <class TOut, class TAcc>
GEMMLAB_HOST_DEVICE inline TOut narrow(TAcc v) {
    if constexpr (std::is_same_v<TOut, TAcc>) return v;
    else return from_float<TOut>(v);
}

/// The value as a double (exact for every element type).
GEMMLAB_HOST_DEVICE inline double to_double(double x) { return x; }
GEMMLAB_HOST_DEVICE inline double to_double(float x) { return x; }
GEMMLAB_HOST_DEVICE inline double to_double(__nv_bfloat16 x) { return __bfloat162float(x); }
GEMMLAB_HOST_DEVICE inline double to_double(__half x) { return __half2float(x); }

} // namespace gemmlab::detail
