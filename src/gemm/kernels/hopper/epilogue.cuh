#pragma once
// The consumers' last step: C = alpha * acc + beta * C from the wgmma accumulators, stored from
// registers. Rung 24 adds a TMA store for 16-bit C (24_persistent.cuh).

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/kernels/hopper_ptx.cuh"

namespace gemmlab::detail::hopper {

#ifdef GEMMLAB_SM90A

/// Rounds one FP32 result to the output type (round to nearest even).
template <class TOut>
__device__ __forceinline__ TOut to_out(float v) {
    if constexpr (std::is_same_v<TOut, float>) return v;
    else if constexpr (std::is_same_v<TOut, __nv_bfloat16>) return __float2bfloat16_rn(v);
    else return __float2half_rn(v);
}

/// C = alpha * acc + beta * C for consumer warpgroup `wg`'s 64 x BN slice of the BM x BN tile at
/// (m0, n0) of an m x n column-major C (a split-K partial: alpha 1, beta 0, C the slice's FP32
/// buffer). Register i of a thread is row r0 + 8 ((i / 2) % 2), column c0 + 8 (i / 4) + i % 2
/// (see wgmma in hopper_ptx.cuh): per group of 8 columns the thread writes two rows of two
/// neighbouring columns, so two pointers one column apart serve all four. Whole tiles skip the
/// bounds checks; beta == 0 never reads C. Only the 8-column groups [first_group, first_group +
/// groups) are stored (the cluster split's share of a tile; the default: all).
/// TransposedC: the kernel computed C^T (rung 25 with its operands swapped, tf32_pack.cuh; rung
/// 24's transposed tiles), so element (r, c) goes to C[c + r ldc]; a thread's two neighbouring
/// columns are then neighbours in memory, one store of both where C allows.
template <int BM, int BN, bool TransposedC = false, class TOut>
__device__ __forceinline__ void store_tile(const float (&acc)[BN / 2], int64_t m, int64_t n,
                                           TOut* C, int64_t ldc, float alpha, float beta,
                                           int64_t m0, int64_t n0, int wg, int first_group = 0,
                                           int groups = BN / 8) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
    const int64_t c0 = n0 + 2 * (lane % 4);
    const bool whole = m0 + BM <= m && n0 + BN <= n;
    const bool read_c = beta != 0.0f;
    if constexpr (TransposedC) {
        // c0 is even: with C aligned to two elements and ldc even, every pair is aligned.
        constexpr bool kPairable = std::is_same_v<TOut, float> ||
                                   std::is_same_v<TOut, __nv_bfloat16> ||
                                   std::is_same_v<TOut, __half>;
        const bool pairs = kPairable && reinterpret_cast<uintptr_t>(C) % (2 * sizeof(TOut)) == 0 &&
                           ldc % 2 == 0;
        TOut* row = C + c0 + r0 * ldc;
#pragma unroll
        for (int j = 0; j < BN / 8; ++j) {
            if (j < first_group || j >= first_group + groups) continue;
#pragma unroll
            for (int h = 0; h < 2; ++h) { // rows r0 and r0 + 8
                TOut* c = row + 8 * j + 8 * h * ldc;
                const bool row_in = whole || r0 + 8 * h < m;
                const bool in0 = whole || (row_in && c0 + 8 * j < n);
                const bool in1 = whole || (row_in && c0 + 8 * j + 1 < n);
                float v0 = alpha * acc[4 * j + 2 * h], v1 = alpha * acc[4 * j + 2 * h + 1];
                if (pairs && in1) { // in1 implies in0
                    if constexpr (std::is_same_v<TOut, float>) {
                        float2* c2 = reinterpret_cast<float2*>(c);
                        if (read_c) {
                            const float2 old = *c2;
                            v0 += beta * old.x, v1 += beta * old.y;
                        }
                        *c2 = make_float2(v0, v1);
                    } else if constexpr (std::is_same_v<TOut, __nv_bfloat16>) {
                        auto* c2 = reinterpret_cast<__nv_bfloat162*>(c);
                        if (read_c) {
                            const float2 old = __bfloat1622float2(*c2);
                            v0 += beta * old.x, v1 += beta * old.y;
                        }
                        *c2 = __floats2bfloat162_rn(v0, v1);
                    } else if constexpr (std::is_same_v<TOut, __half>) {
                        auto* c2 = reinterpret_cast<__half2*>(c);
                        if (read_c) {
                            const float2 old = __half22float2(*c2);
                            v0 += beta * old.x, v1 += beta * old.y;
                        }
                        *c2 = __floats2half2_rn(v0, v1);
                    }
                    continue;
                }
                if (in0) {
                    if (read_c) v0 += beta * float(c[0]);
                    c[0] = to_out<TOut>(v0);
                }
                if (in1) {
                    if (read_c) v1 += beta * float(c[1]);
                    c[1] = to_out<TOut>(v1);
                }
            }
        }
        return;
    }
    TOut* col = C + r0 + c0 * ldc;
    const int64_t col_step = 8 * ldc;
#pragma unroll
    for (int j = 0; j < BN / 8; ++j, col += col_step) {
        if (j < first_group || j >= first_group + groups) continue;
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int i = 4 * j + e;
            const int dr = 8 * (e / 2), dc = e % 2;
            TOut* c = col + dr + dc * ldc;
            if (!whole && !(r0 + dr < m && c0 + 8 * j + dc < n)) continue;
            float v = alpha * acc[i];
            if (read_c) v += beta * float(*c);
            *c = to_out<TOut>(v);
        }
    }
}

#endif // GEMMLAB_SM90A

/// The epilogue of rungs 20-23, 25 and 26 (and of rung 24's transposed tiles): every consumer
/// thread stores its accumulators.
/// TransposedC: into C^T (store_tile), for a kernel that computed the transposed product.
template <bool TransposedC>
struct RegisterEpilogueOf {
    static constexpr bool kTransposesC = TransposedC;
    template <class Cfg, class P, int N>
    __device__ __forceinline__ static void store(const P& p, const float (&acc)[N], const void*,
                                                 uint32_t, int64_t m0, int64_t n0, int wg,
                                                 int64_t batch) {
#ifdef GEMMLAB_SM90A
        store_tile<Cfg::BM, Cfg::BN, TransposedC>(acc, p.m, p.n, p.C + batch * p.stride_c, p.ldc,
                                                  p.alpha, p.beta, m0, n0, wg);
#endif
    }
    /// Nothing left in flight when the consumers finish.
    template <class TOut>
    __device__ __forceinline__ static void drain() {}
    /// Host: nothing to set up for C.
    template <class Cfg, class Args, class P, class Map>
    static void prepare_c(const Args&, P&, Map&) {}
};
using RegisterEpilogue = RegisterEpilogueOf<false>;

/// True for an epilogue that stores the kernel's m x n result as C^T (RegisterEpilogueOf<true>);
/// the kernel's split-K partials then take that orientation too (launch_tiles sums them).
template <class Epilogue>
concept TransposesC = requires { requires Epilogue::kTransposesC; };

} // namespace gemmlab::detail::hopper
