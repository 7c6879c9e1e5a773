#pragma once
// The epilogue of the 8-bit rungs 29-30: the scales of a quantized product applied as the
// accumulators leave registers, C(i, j) = alpha * s(i, j) * acc + beta * C(i, j) with
// s(i, j) = row[i] * col[j] (OutputScales: per-tensor or per-channel), rounded once to C's type;
// an int32 C takes the exact INT8 sum as it is. Per-tensor and per-channel scales cost the same
// here: two row factors per thread, two column factors per group of 8 columns. An FP8 C is
// cuBLASLt's D: saturate(out_scale * result), with amax = max |result| reduced per warp and
// joined by one atomicMax per warp.
// A 16-bit or 32-bit C with beta == 0 goes through shared memory by TMA, as rung 24's 16-bit C
// does: one store instruction per 8 values instead of one per value for 16-bit C, and the
// stores run on while the consumers start the next tile (the 8-bit mainloop is short per tile,
// so a slow epilogue shows). A row-major C (a block-wise call's) is staged without the
// transpose. FP8 C (saturation, amax), a C read back (beta), per-column scale factors, a
// row-major 32-bit C and edges TMA cannot clip exactly take the stores from registers.

#include <cstdint>
#include <cstring>
#include <type_traits>

#include <cuda_fp8.h>

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/kernels/ptx.cuh"
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

/// C = value through shared memory for a 32-bit C (float, int32), value(i) being register i's
/// result in C's type: the warpgroup writes its 64 rows x kCols columns into two buffers of
/// 32 rows (a 128-byte row of a buffer is 32 consecutive rows of one column of C, its 16-byte
/// chunks swizzled by the column, as SWIZZLE_128B lays a box out; a warp's store then hits 32
/// different banks), and one thread stores both by TMA. Buffer reuse as in store_tile_tma.
template <int BN, class TOut, class Value>
__device__ __forceinline__ void store_tile_tma_32bit(Value value, const void* map_c,
                                                     uint32_t buffers, int64_t m0, int64_t n0,
                                                     int wg) {
    static_assert(sizeof(TOut) == 4, "the 32-bit TMA store path");
    constexpr int kCols = kStagedCols<BN, 4>;
    constexpr int kHalfBytes = kCols * 128; // 32 rows of kCols columns
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const bool leader = threadIdx.x % 128 == 0;
    const uint32_t buffer = buffers + wg * 2 * kHalfBytes;
    const int row = 16 * warp + lane / 4; // this thread's first row in the warpgroup's 64
#pragma unroll
    for (int chunk = 0; chunk < BN / kCols; ++chunk) {
        if (leader) bulk_wait_read<0>(); // the previous store has read the buffers
        named_barrier(1 + wg, 128);
#pragma unroll
        for (int g = 0; g < kCols / 8; ++g) { // 8-column groups
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const int i = 4 * (chunk * (kCols / 8) + g) + e;
                const int r = row + 8 * (e / 2), c = 8 * g + 2 * (lane % 4) + e % 2;
                const uint32_t at = buffer + (r / 32) * kHalfBytes + c * 128 +
                                    ((((r % 32) / 4) ^ (c % 8)) * 16) + (r % 4) * 4;
                const TOut v = value(i);
                uint32_t bits;
                memcpy(&bits, &v, 4);
                ptx::st_shared_b32(at, bits);
            }
        }
        fence_proxy_async();
        named_barrier(1 + wg, 128);
        if (leader) {
            const int col = int(n0 + chunk * kCols), row0 = int(m0 + 64 * wg);
            tma_store_3d(map_c, buffer, row0, col, 0);
            tma_store_3d(map_c, buffer + kHalfBytes, row0 + 32, col, 0);
            bulk_commit();
        }
    }
}

/// C = value for a row-major 16-bit C (a block-wise row-major call keeps C(i, j) at
/// C[i ldc + j]) through shared memory: per 64 columns, a buffer of the warpgroup's 64 rows of
/// 128 bytes (SWIZZLE_128B: 16-byte chunk c of row r at c ^ (r % 8), so the eight rows a
/// matrix stores hit eight bank groups), filled by stmatrix without .trans (a lane's register
/// pair is two neighbouring columns of one row: a row of C as the buffer holds it), one TMA
/// store per buffer. The buffers are kTmaStoreBytes of rung 24's staging; reuse as in
/// store_tile_tma.
template <int BN, class TOut, class Value>
__device__ __forceinline__ void store_tile_tma_rows(Value value, const void* map_c,
                                                    uint32_t buffers, int64_t m0, int64_t n0,
                                                    int wg) {
    static_assert(sizeof(TOut) == 2, "the row-major TMA store path is for 16-bit C");
    constexpr int kCols = kStoreCols<BN>;     // columns per pass
    constexpr int kBoxCols = 64;              // 128 bytes: one buffer, one TMA box
    constexpr int kBoxBytes = 64 * 128;
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const bool leader = threadIdx.x % 128 == 0;
    const uint32_t buffer = buffers + wg * (64 * kCols * 2);
    // This lane addresses row lane % 8 of matrix q = lane / 8: rows 0-7 or 8-15 of the warp's
    // 16 (q % 2), the first or second 8-column group of the pair (q / 2).
    const int q = lane / 8;
    const int row = 16 * warp + 8 * (q % 2) + lane % 8;
#pragma unroll
    for (int chunk = 0; chunk < BN / kCols; ++chunk) {
        if (leader) bulk_wait_read<0>(); // the previous store has read the buffers
        named_barrier(1 + wg, 128);
#pragma unroll
        for (int jp = 0; jp < kCols / 16; ++jp) { // pairs of 8-column groups
            const int j = chunk * (kCols / 8) + 2 * jp;
            uint32_t regs[4];
#pragma unroll
            for (int mq = 0; mq < 4; ++mq) { // group j + mq / 2, rows + 8 (mq % 2)
                const int i = 4 * (j + mq / 2) + 2 * (mq % 2);
                if constexpr (std::is_same_v<TOut, __nv_bfloat16>) {
                    const __nv_bfloat162 v = __floats2bfloat162_rn(value(i), value(i + 1));
                    memcpy(&regs[mq], &v, 4);
                } else {
                    const __half2 v = __floats2half2_rn(value(i), value(i + 1));
                    memcpy(&regs[mq], &v, 4);
                }
            }
            const int g = 2 * jp + q / 2; // this lane's 8-column group in the pass
            const uint32_t at = buffer + (g / 8) * kBoxBytes + row * 128 + (((g % 8) ^ (row % 8)) * 16);
            stmatrix_x4(at, regs[0], regs[1], regs[2], regs[3]);
        }
        fence_proxy_async();
        named_barrier(1 + wg, 128);
        if (leader) {
#pragma unroll
            for (int b = 0; b < kCols / kBoxCols; ++b)
                tma_store_3d(map_c, buffer + b * kBoxBytes, int(n0 + chunk * kCols + b * kBoxCols),
                             int(m0 + 64 * wg), 0);
            bulk_commit();
        }
    }
}

#endif // GEMMLAB_SM90A

/// Whether the kernel of Params P (C of type TOut) has the TMA store: 16-bit and 32-bit C, not
/// FP8's.
template <class P>
inline constexpr bool kStagesC = false;
template <class Math, class TOut>
inline constexpr bool kStagesC<Params<Math, TOut>> = sizeof(TOut) == 2 || sizeof(TOut) == 4;

/// Rungs 29-30: C through shared memory by TMA where prepare_c allowed it (p.tma_store), else
/// every consumer thread stores its accumulators, scaled, from registers.
struct ScaledEpilogue {
    template <class Cfg, class P, class Acc, int N>
    __device__ __forceinline__ static void store(const P& p, const Acc (&acc)[N], const void* map_c,
                                                 uint32_t buffers, int64_t m0, int64_t n0, int wg,
                                                 int64_t batch) {
#ifdef GEMMLAB_SM90A
        using TOut = std::remove_pointer_t<decltype(p.C)>;
        if constexpr (kStagesC<P>) {
            if (p.tma_store) {
                // The register path's factors and product order (row factor x column factor,
                // then x the sum), so both round the same value. Columns share one factor here
                // (prepare_c), so it joins the row factors: per-column factors loaded in the
                // store loop made ptxas spill.
                const OutputScales& s = p.math.output;
                const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
                const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
                const float col_factor = scale_at(s.col, 0, 0);
                float row_factor[2] = {p.alpha, p.alpha};
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    if (r0 + 8 * h < p.m) row_factor[h] *= scale_at(s.row, s.row_step, r0 + 8 * h);
                    row_factor[h] *= col_factor;
                }
                // Register i's result: the exact sum for an int32 C, else in FP32 (rounded to
                // a 16-bit C by store_tile_tma).
                using Result = std::conditional_t<std::is_same_v<TOut, int32_t>, int32_t, float>;
                const auto value = [&](int i) -> Result {
                    if constexpr (std::is_same_v<TOut, int32_t>) return acc[i];
                    else return row_factor[(i / 2) % 2] * float(acc[i]);
                };
                if constexpr (sizeof(TOut) == 2) {
                    if (s.c_row_major)
                        store_tile_tma_rows<Cfg::BN, TOut>(value, map_c, buffers, m0, n0, wg);
                    else
                        store_tile_tma<Cfg::BN, TOut>(value, map_c, buffers, m0, n0, wg, 0);
                } else {
                    store_tile_tma_32bit<Cfg::BN, TOut>(value, map_c, buffers, m0, n0, wg);
                }
                return;
            }
        }
        store_scaled_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C + batch * p.stride_c, p.ldc,
                                            p.alpha, p.beta, p.math.output, m0, n0, wg);
#endif
    }
    /// The last TMA stores must have read their buffers before the block's shared memory goes.
    template <class TOut>
    __device__ __forceinline__ static void drain() {
#ifdef GEMMLAB_SM90A
        if constexpr (sizeof(TOut) == 2 || sizeof(TOut) == 4)
            if (threadIdx.x % 128 == 0) bulk_wait<0>(); // nothing in flight: returns at once
#endif
    }

    /// Host: the TMA store needs beta == 0, one scale factor for every column (per-tensor or
    /// none), a C that TMA can address, and C's contiguous rows (or, row-major, its columns)
    /// ending on a 16-byte boundary: TMA clips at the tensor's edge in 16-byte steps along the
    /// contiguous dimension (docs/ladder.md, rung 24). A row-major C only in 16 bits.
    template <class Cfg, class TOut, class P>
    static void prepare_c(const QuantArgs& g, P& p, CUtensorMap& map_c) {
        if constexpr (kStagesC<P>) {
            const auto* C = static_cast<const TOut*>(g.C);
            const bool rows = g.scales.c_row_major;
            const int64_t contiguous = rows ? g.n : g.m;
            p.tma_store = g.beta == 0.0f && (!g.scales.col || g.scales.col_step == 0) &&
                          (!rows || sizeof(TOut) == 2) && operand_feedable(C, g.ldc) &&
                          (contiguous * int64_t(sizeof(TOut))) % 16 == 0;
            if (p.tma_store)
                map_c = rows ? make_operand_map(C, g.n, g.m, g.ldc, 64)
                             : make_operand_map(C, g.m, g.n, g.ldc, kStagedCols<Cfg::BN, sizeof(TOut)>);
        }
    }
};

} // namespace gemmlab::detail::hopper
