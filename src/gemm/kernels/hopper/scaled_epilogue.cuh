#pragma once
// The epilogue of the 8-bit rungs 29-30: the scales of a quantized product applied as the
// accumulators leave registers, C(i, j) = alpha * s(i, j) * acc + beta * C(i, j) with
// s(i, j) = row[i] * col[j] (OutputScales: per-tensor or per-channel), rounded once to C's type;
// an int32 C takes the exact INT8 sum as it is. Per-tensor and per-channel scales cost the same
// here: two row factors per thread, two column factors per group of 8 columns. An FP8 C is
// cuBLASLt's D: saturate(out_scale * result), with amax = max |result| reduced per warp and
// joined by one atomicMax per warp.

#include <cstdint>
#include <type_traits>

#include <cuda_fp8.h>

#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/quantized_problem.hpp"

namespace gemmlab::detail::hopper {

template <class T>
inline constexpr bool kIsFp8 = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

#ifdef GEMMLAB_SM90A

/// Factor i of one side of OutputScales (1 where there is no pointer).
__device__ __forceinline__ float scale_at(const float* s, int step, int64_t i) {
    return s ? s[i * step] : 1.0f;
}

/// One FP32 result in C's type: round to nearest; FP8 saturates (a finite or infinite value
/// past the format's largest finite one gives that largest value of its sign; NaN stays NaN),
/// as cuBLASLt's FP8 outputs do.
template <class TOut>
__device__ __forceinline__ TOut to_quantized_out(float v) {
    if constexpr (kIsFp8<TOut>) {
        TOut r;
        r.__x = __nv_cvt_float_to_fp8(v, __NV_SATFINITE,
                                      std::is_same_v<TOut, __nv_fp8_e4m3> ? __NV_E4M3 : __NV_E5M2);
        return r;
    } else {
        return to_out<TOut>(v);
    }
}

/// amax = max(amax, the warp's largest |result|): a butterfly reduction, then one atomicMax on
/// the float's bits (non-negative floats order as their bit patterns do; the launcher zeroed
/// amax). NaN results are not counted (fmaxf drops them).
__device__ __forceinline__ void warp_amax(float* amax, float local) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2)
        local = fmaxf(local, __shfl_xor_sync(0xffffffffu, local, offset));
    if (threadIdx.x % 32 == 0) atomicMax(reinterpret_cast<int*>(amax), __float_as_int(local));
}

/// Consumer warpgroup wg's 64 x BN slice of the tile at (m0, n0), with store_tile's register
/// layout (epilogue.cuh): register i of a thread is row r0 + 8 ((i / 2) % 2), column
/// c0 + 8 (i / 4) + i % 2. The scale factors of a thread's rows are read once, of its columns
/// once per group of 8 columns; alpha joins the row factor, so each element costs two
/// multiplies (and the beta term). C is column-major, or row-major where s.c_row_major says.
template <int BM, int BN, class Acc, class TOut>
__device__ __forceinline__ void store_scaled_tile(const Acc (&acc)[BN / 2], int64_t m, int64_t n,
                                                  TOut* C, int64_t ldc, float alpha, float beta,
                                                  const OutputScales& s, int64_t m0, int64_t n0,
                                                  int wg) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
    const int64_t c0 = n0 + 2 * (lane % 4);
    const bool whole = m0 + BM <= m && n0 + BN <= n;
    const int64_t row_stride = s.c_row_major ? ldc : 1, col_stride = s.c_row_major ? 1 : ldc;
    constexpr bool kExact = std::is_same_v<TOut, int32_t>; // INT8's s32 C: the sum itself
    float row_factor[2] = {alpha, alpha};
    if constexpr (!kExact)
#pragma unroll
        for (int h = 0; h < 2; ++h)
            if (r0 + 8 * h < m) row_factor[h] *= scale_at(s.row, s.row_step, r0 + 8 * h);
    float out_scale = 1.0f, amax = 0.0f;
    if constexpr (kIsFp8<TOut>)
        if (s.out_scale) out_scale = *s.out_scale;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j) {
        float col_factor[2] = {1.0f, 1.0f};
        if constexpr (!kExact)
#pragma unroll
            for (int dc = 0; dc < 2; ++dc)
                if (c0 + 8 * j + dc < n) col_factor[dc] = scale_at(s.col, s.col_step, c0 + 8 * j + dc);
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int i = 4 * j + e;
            const int dr = 8 * (e / 2), dc = e % 2;
            if (!whole && !(r0 + dr < m && c0 + 8 * j + dc < n)) continue;
            TOut* c = C + (r0 + dr) * row_stride + (c0 + 8 * j + dc) * col_stride;
            if constexpr (kExact) {
                *c = acc[i];
            } else {
                float v = row_factor[e / 2] * col_factor[dc] * float(acc[i]);
                if (beta != 0.0f) v += beta * float(*c);
                if constexpr (kIsFp8<TOut>) {
                    amax = fmaxf(amax, fabsf(v));
                    v *= out_scale;
                }
                *c = to_quantized_out<TOut>(v);
            }
        }
    }
    if constexpr (kIsFp8<TOut>)
        if (s.amax) warp_amax(s.amax, amax);
}

#endif // GEMMLAB_SM90A

/// Rungs 29-30: every consumer thread stores its accumulators, scaled, from registers.
struct ScaledEpilogue {
    template <class Cfg, class P, class Acc, int N>
    __device__ __forceinline__ static void store(const P& p, const Acc (&acc)[N], const void*,
                                                 uint32_t, int64_t m0, int64_t n0, int wg,
                                                 int64_t batch) {
#ifdef GEMMLAB_SM90A
        store_scaled_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C + batch * p.stride_c, p.ldc,
                                            p.alpha, p.beta, p.math.output, m0, n0, wg);
#endif
    }
    template <class TOut>
    __device__ __forceinline__ static void drain() {}
};

} // namespace gemmlab::detail::hopper
