#include "common/cuda_check.hpp"
#include "common/fill.hpp"
#include "gemm/element.hpp"

namespace gemmlab {
namespace {

// splitmix64: a good 64-bit mix of (seed, index), cheap enough to run per element.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/// v as a T: a plain conversion for float and double, float then round to nearest for the half
/// types (a double-to-float-to-half double rounding is harmless in a fill).
template <class T>
__device__ inline T element(double v) {
    if constexpr (detail::is_half_v<T>) return detail::from_float<T>(float(v));
    else return T(v);
}

/// The exponent range [e0, e0 + span) of FillKind::WideRange and NearFltMin for T. float and
/// double (and BF16, float's exponent range): WideRange 2^-60..2^60, NearFltMin just above
/// FLT_MIN = 2^-126. FP16 (normal range 2^-14..2^15): WideRange 2^-12..2^3, so products stay
/// above FP16's subnormals in FP32 and sums of a few hundred stay below 65504; NearFltMin just
/// above FP16's smallest normal, 2^-14.
template <class T>
struct FillRange {
    static constexpr int kWideE0 = -60, kWideSpan = 121, kMinE0 = -126, kMinSpan = 12;
};
template <>
struct FillRange<__half> {
    static constexpr int kWideE0 = -12, kWideSpan = 16, kMinE0 = -14, kMinSpan = 12;
};

template <class T>
__global__ void fill_kernel(T* x, size_t count, uint64_t seed, FillKind kind) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += size_t(gridDim.x) * blockDim.x) {
        const uint64_t r = mix64(seed * 0x2545F4914F6CDD1Dull + i);
        if (kind == FillKind::SmallIntegers) {
            x[i] = element<T>(double(int(r % 9) - 4));
        } else if (kind == FillKind::WideRange || kind == FillKind::NearFltMin) {
            // Significand from 52 random bits, exponent and sign from the rest: exact in float
            // after rounding the significand, and never zero.
            const double sig = 1.0 + double(r >> 12) * 0x1.0p-52;
            const bool wide = kind == FillKind::WideRange;
            const int span = wide ? FillRange<T>::kWideSpan : FillRange<T>::kMinSpan;
            const int e0 = wide ? FillRange<T>::kWideE0 : FillRange<T>::kMinE0;
            const int e = e0 + int((r & 0x7FF) % unsigned(span));
            const double v = ldexp(sig, e);
            x[i] = element<T>((r >> 11) & 1 ? -v : v);
        } else if (kind == FillKind::WithSpecials && (r >> 56) == 0) {
            // One element in 256: +Inf, -Inf or NaN, in equal shares.
            const unsigned which = unsigned(r % 3);
            x[i] = element<T>(which == 2 ? double(NAN) : (which ? -double(INFINITY) : double(INFINITY)));
        } else {
            // 53 random bits -> [0, 1), mapped to [-1, 1); a zero draw (or one that rounds to
            // zero in T) becomes 2^-20, a subnormal in FP16.
            const double u = double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
            x[i] = element<T>(u == 0.0 ? 0x1.0p-20 : u);
            if (detail::to_double(x[i]) == 0.0) x[i] = element<T>(0x1.0p-20);
        }
    }
}

} // namespace

template <class T>
void fill_random(T* x, size_t count, uint64_t seed, FillKind kind, cudaStream_t stream) {
    if (count == 0) return;
    fill_kernel<T><<<1024, 256, 0, stream>>>(x, count, seed, kind);
    GEMMLAB_CHECK_LAUNCH();
}

template <class T>
void poison_nan(T* x, size_t count, cudaStream_t stream) {
    if (count) GEMMLAB_CUDA_CHECK(cudaMemsetAsync(x, 0xFF, count * sizeof(T), stream));
}

template void fill_random<float>(float*, size_t, uint64_t, FillKind, cudaStream_t);
template void fill_random<double>(double*, size_t, uint64_t, FillKind, cudaStream_t);
template void fill_random<__nv_bfloat16>(__nv_bfloat16*, size_t, uint64_t, FillKind, cudaStream_t);
template void fill_random<__half>(__half*, size_t, uint64_t, FillKind, cudaStream_t);
template void poison_nan<float>(float*, size_t, cudaStream_t);
template void poison_nan<double>(double*, size_t, cudaStream_t);
template void poison_nan<__nv_bfloat16>(__nv_bfloat16*, size_t, cudaStream_t);
template void poison_nan<__half>(__half*, size_t, cudaStream_t);

} // namespace gemmlab
