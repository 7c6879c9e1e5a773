#include "common/cuda_check.hpp"
#include "common/fill.hpp"

namespace gemmlab {
namespace {

// splitmix64: a good 64-bit mix of (seed, index), cheap enough to run per element.
__host__ __device__ inline uint64_t mix64(uint64_t z) {
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

template <class T>
__global__ void fill_kernel(T* x, size_t count, uint64_t seed, FillKind kind) {
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
         i += size_t(gridDim.x) * blockDim.x) {
        const uint64_t r = mix64(seed * 0x2545F4914F6CDD1Dull + i);
        if (kind == FillKind::SmallIntegers) {
            x[i] = T(int(r % 9) - 4);
        } else if (kind == FillKind::WideRange || kind == FillKind::NearFltMin) {
            // Significand from 52 random bits, exponent and sign from the rest: exact in float
            // after rounding the significand, and never zero.
            const double sig = 1.0 + double(r >> 12) * 0x1.0p-52;
            const int span = kind == FillKind::WideRange ? 121 : 12;
            const int e0 = kind == FillKind::WideRange ? -60 : -126;
            const int e = e0 + int((r & 0x7FF) % unsigned(span));
            const double v = ldexp(sig, e);
            x[i] = T((r >> 11) & 1 ? -v : v);
        } else if (kind == FillKind::WithSpecials && (r >> 56) == 0) {
            // One element in 256: +Inf, -Inf or NaN, in equal shares.
            const unsigned which = unsigned(r % 3);
            x[i] = which == 2 ? T(NAN) : T(which ? -INFINITY : INFINITY);
        } else {
            // 53 random bits -> [0, 1), mapped to [-1, 1); a zero draw becomes 2^-20.
            const double u = double(r >> 11) * 0x1.0p-53 * 2.0 - 1.0;
            x[i] = T(u == 0.0 ? 0x1.0p-20 : u);
            if (x[i] == T(0)) x[i] = T(0x1.0p-20);
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
template void poison_nan<float>(float*, size_t, cudaStream_t);
template void poison_nan<double>(double*, size_t, cudaStream_t);

} // namespace gemmlab
