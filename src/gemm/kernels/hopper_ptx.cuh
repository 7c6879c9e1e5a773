#pragma once
// The Hopper (sm_90a) instructions of rungs 20-26, 29-30 and of the tensor probe's wgmma rows, each
// wrapped once: warpgroup MMA (wgmma), the mbarrier, the tensor memory accelerator
// (cp.async.bulk.tensor), register reallocation (setmaxnreg) and cluster addressing. Sections
// named are those of the PTX ISA.
//
// The device code exists only where the compiler targets sm_90a (__CUDA_ARCH_FEAT_SM90_ALL):
// wgmma and setmaxnreg are not part of sm_90 or of any later architecture. Elsewhere
// GEMMLAB_SM90A is undefined and the kernels that need these compile to an empty body, which
// the host never launches (each launcher checks the device before every launch).

#include <cstdint>

#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "gemm/kernels/ptx.cuh"

#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define GEMMLAB_SM90A 1
#endif

namespace gemmlab::detail::hopper {

/// The shared-memory address (state space .shared::cta) of a generic pointer to shared memory.
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// 32 bits from shared memory at a .shared::cta address (as smem_addr gives). volatile and a
/// memory clobber: the load stays after the mbarrier wait that says the data has landed.
__device__ __forceinline__ uint32_t ld_shared_b32(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.shared.b32 %0, [%1];" : "=r"(v) : "r"(addr) : "memory");
    return v;
}

#ifdef GEMMLAB_SM90A

// ------------------------------------------------------------------------- matrix descriptor
// PTX ISA wgmma "Matrix Descriptor Format": bits 0-13 start address >> 4, 16-29 leading
// dimension byte offset >> 4, 32-45 stride dimension byte offset >> 4, 49-51 base offset (0
// when every 128B-swizzle pattern starts on a 1024-byte boundary, as ours do), 62-63 swizzle
// mode (1 = 128-byte swizzle).
__device__ __forceinline__ uint64_t sw128_descriptor(uint32_t start, uint32_t lbo, uint32_t sbo) {
    return uint64_t((start & 0x3FFFF) >> 4) | (uint64_t((lbo & 0x3FFFF) >> 4) << 16) |
           (uint64_t((sbo & 0x3FFFF) >> 4) << 32) | (uint64_t(1) << 62);
}

// ------------------------------------------------------------------------------------ wgmma
// 9.7.15.5.2 wgmma.mma_async: D (64 x N, f32, N/2 registers per thread of the warpgroup) =
// A (64 x 16) * B (16 x N) + (scale_d ? D : 0), A and B from shared memory through
// descriptors. imm-trans-a / imm-trans-b = 0 read the operand K-major, 1 MN-major (16-bit
// types only). Register i of thread (warp w of the warpgroup, lane l) holds
//   row 16 w + l / 4 + 8 ((i / 2) % 2), column 8 (i / 4) + 2 (l % 4) + i % 2.

#define GEMMLAB_ACC8(d, i)                                                                         \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]), "+f"(d[i + 5]),    \
        "+f"(d[i + 6]), "+f"(d[i + 7])
#define GEMMLAB_ACC32(d, i)                                                                        \
    GEMMLAB_ACC8(d, i), GEMMLAB_ACC8(d, i + 8), GEMMLAB_ACC8(d, i + 16), GEMMLAB_ACC8(d, i + 24)
#define GEMMLAB_R(a, b, c, d, e, f, g, h) "%" #a ", %" #b ", %" #c ", %" #d ", %" #e ", %" #f ", %" #g ", %" #h
#define GEMMLAB_R0_31                                                                              \
    GEMMLAB_R(0, 1, 2, 3, 4, 5, 6, 7) ", " GEMMLAB_R(8, 9, 10, 11, 12, 13, 14, 15) ", "            \
    GEMMLAB_R(16, 17, 18, 19, 20, 21, 22, 23) ", " GEMMLAB_R(24, 25, 26, 27, 28, 29, 30, 31)
#define GEMMLAB_R0_63                                                                              \
    GEMMLAB_R0_31 ", "                                                                             \
    GEMMLAB_R(32, 33, 34, 35, 36, 37, 38, 39) ", " GEMMLAB_R(40, 41, 42, 43, 44, 45, 46, 47) ", "  \
    GEMMLAB_R(48, 49, 50, 51, 52, 53, 54, 55) ", " GEMMLAB_R(56, 57, 58, 59, 60, 61, 62, 63)
#define GEMMLAB_R64_95                                                                             \
    GEMMLAB_R(64, 65, 66, 67, 68, 69, 70, 71) ", " GEMMLAB_R(72, 73, 74, 75, 76, 77, 78, 79) ", "  \
    GEMMLAB_R(80, 81, 82, 83, 84, 85, 86, 87) ", " GEMMLAB_R(88, 89, 90, 91, 92, 93, 94, 95)
#define GEMMLAB_R64_127                                                                            \
    GEMMLAB_R(64, 65, 66, 67, 68, 69, 70, 71) ", " GEMMLAB_R(72, 73, 74, 75, 76, 77, 78, 79) ", "  \
    GEMMLAB_R(80, 81, 82, 83, 84, 85, 86, 87) ", " GEMMLAB_R(88, 89, 90, 91, 92, 93, 94, 95) ", "  \
    GEMMLAB_R(96, 97, 98, 99, 100, 101, 102, 103) ", "                                             \
    GEMMLAB_R(104, 105, 106, 107, 108, 109, 110, 111) ", "                                         \
    GEMMLAB_R(112, 113, 114, 115, 116, 117, 118, 119) ", "                                         \
    GEMMLAB_R(120, 121, 122, 123, 124, 125, 126, 127)

#define GEMMLAB_R32_47                                                                             \
    GEMMLAB_R(32, 33, 34, 35, 36, 37, 38, 39) ", " GEMMLAB_R(40, 41, 42, 43, 44, 45, 46, 47)
#define GEMMLAB_R64_71 GEMMLAB_R(64, 65, 66, 67, 68, 69, 70, 71)

// One asm per (N, input type); the transposes are immediates ("n" operands).
#define GEMMLAB_WGMMA_N16(type)                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n16k16.f32." type "." type                       \
                 " {" GEMMLAB_R(0, 1, 2, 3, 4, 5, 6, 7) "}, %8, %9, p, 1, 1, %11, %12;\n}"         \
                 : GEMMLAB_ACC8(d, 0)                                                              \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N64(type)                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n64k16.f32." type "." type                       \
                 " {" GEMMLAB_R0_31 "}, %32, %33, p, 1, 1, %35, %36;\n}"                           \
                 : GEMMLAB_ACC32(d, 0)                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N96(type)                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %50, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n96k16.f32." type "." type                       \
                 " {" GEMMLAB_R0_31 ", " GEMMLAB_R32_47 "}, %48, %49, p, 1, 1, %51, %52;\n}"       \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC8(d, 32), GEMMLAB_ACC8(d, 40)                   \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N128(type)                                                                   \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n128k16.f32." type "." type                      \
                 " {" GEMMLAB_R0_63 "}, %64, %65, p, 1, 1, %67, %68;\n}"                           \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32)                                       \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N144(type)                                                                   \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %74, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n144k16.f32." type "." type                      \
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_71 "}, %72, %73, p, 1, 1, %75, %76;\n}"       \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32), GEMMLAB_ACC8(d, 64)                  \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N192(type)                                                                   \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %98, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n192k16.f32." type "." type                      \
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_95 "}, %96, %97, p, 1, 1, %99, %100;\n}"     \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32), GEMMLAB_ACC32(d, 64)                 \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))
#define GEMMLAB_WGMMA_N256(type)                                                                   \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                     \
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32." type "." type                      \
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_127 "}, %128, %129, p, 1, 1, %131, %132;\n}"  \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32), GEMMLAB_ACC32(d, 64),                \
                   GEMMLAB_ACC32(d, 96)                                                            \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d), "n"(TransA), "n"(TransB))

template <class TIn, int N, int TransA, int TransB>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                      int scale_d) {
    static_assert(N == 16 || N == 64 || N == 96 || N == 128 || N == 144 || N == 192 || N == 256,
                  "wrapped for N = 16, 64, 96, 128, 144, 192 and 256");
    constexpr bool kBf16 = std::is_same_v<TIn, __nv_bfloat16>;
    static_assert(kBf16 || std::is_same_v<TIn, __half>, "bf16 or f16 inputs");
    if constexpr (N == 16) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N16("bf16");
        else GEMMLAB_WGMMA_N16("f16");
    } else if constexpr (N == 64) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N64("bf16");
        else GEMMLAB_WGMMA_N64("f16");
    } else if constexpr (N == 96) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N96("bf16");
        else GEMMLAB_WGMMA_N96("f16");
    } else if constexpr (N == 128) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N128("bf16");
        else GEMMLAB_WGMMA_N128("f16");
    } else if constexpr (N == 144) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N144("bf16");
        else GEMMLAB_WGMMA_N144("f16");
    } else if constexpr (N == 192) {
        if constexpr (kBf16) GEMMLAB_WGMMA_N192("bf16");
        else GEMMLAB_WGMMA_N192("f16");
    } else {
        if constexpr (kBf16) GEMMLAB_WGMMA_N256("bf16");
        else GEMMLAB_WGMMA_N256("f16");
    }
}

// TF32 (m64nNk8): both operands K-major, so the form has no transpose immediates. The inputs
// are 32-bit registers' worth of TF32 (float storage whose low 13 mantissa bits are zero: the
// pack step of rungs 25-26 rounds them with cvt.rna before they reach shared memory).
#define GEMMLAB_WGMMA_TF32_N64                                                                     \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %34, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"                             \
                 " {" GEMMLAB_R0_31 "}, %32, %33, p, 1, 1;\n}"                                     \
                 : GEMMLAB_ACC32(d, 0)                                                             \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define GEMMLAB_WGMMA_TF32_N128                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"                            \
                 " {" GEMMLAB_R0_63 "}, %64, %65, p, 1, 1;\n}"                                     \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32)                                       \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))
#define GEMMLAB_WGMMA_TF32_N256                                                                    \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"                                     \
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"                            \
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_127 "}, %128, %129, p, 1, 1;\n}"              \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32), GEMMLAB_ACC32(d, 64),                \
                   GEMMLAB_ACC32(d, 96)                                                            \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))

/// D (64 x N) = A (64 x 8) * B (8 x N) + (scale_d ? D : 0) in TF32, both from K-major shared
/// tiles; the register layout of D is the 16-bit form's.
template <int N>
__device__ __forceinline__ void wgmma_tf32(float (&d)[N / 2], uint64_t desc_a, uint64_t desc_b,
                                           int scale_d) {
    static_assert(N == 64 || N == 128 || N == 256, "wrapped for N = 64, 128 and 256");
    if constexpr (N == 64) GEMMLAB_WGMMA_TF32_N64;
    else if constexpr (N == 128) GEMMLAB_WGMMA_TF32_N128;
    else GEMMLAB_WGMMA_TF32_N256;
}

// TF32 with A from registers (four per thread: the m64nNk8 A fragment) and B from a K-major
// shared tile.
#define GEMMLAB_WGMMA_TF32_RA_N64                                                                  \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n64k8.f32.tf32.tf32"                             \
                 " {" GEMMLAB_R0_31 "}, {%32, %33, %34, %35}, %36, p, 1, 1;\n}"                   \
                 : GEMMLAB_ACC32(d, 0)                                                             \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))
#define GEMMLAB_WGMMA_TF32_RA_N128                                                                 \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32"                            \
                 " {" GEMMLAB_R0_63 "}, {%64, %65, %66, %67}, %68, p, 1, 1;\n}"                   \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32)                                       \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))
#define GEMMLAB_WGMMA_TF32_RA_N256                                                                 \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"                                     \
                 "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32"                            \
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_127 "}, {%128, %129, %130, %131}, %132, p, 1, 1;\n}" \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32), GEMMLAB_ACC32(d, 64),                \
                   GEMMLAB_ACC32(d, 96)                                                            \
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(desc_b), "r"(scale_d))

/// D (64 x N) = A (64 x 8, this thread's four TF32 values of the register fragment) * B (8 x N,
/// K-major shared tile) + (scale_d ? D : 0). The registers of `a` are read while the group is in
/// flight: they must not be rewritten before wgmma_wait says it is done.
template <int N>
__device__ __forceinline__ void wgmma_tf32_register_a(float (&d)[N / 2], const uint32_t* a,
                                                      uint64_t desc_b, int scale_d) {
    static_assert(N == 64 || N == 128 || N == 256, "wrapped for N = 64, 128 and 256");
    if constexpr (N == 64) GEMMLAB_WGMMA_TF32_RA_N64;
    else if constexpr (N == 128) GEMMLAB_WGMMA_TF32_RA_N128;
    else GEMMLAB_WGMMA_TF32_RA_N256;
}

// 8-bit inputs (m64nNk32; 9.7.15.5.2, the .e4m3/.e5m2 and .s8 forms): 32 bytes of k per
// instruction, both operands K-major (no transpose immediates for 8-bit types), the register
// layout of D that of the 16-bit form. FP8 (E4M3 or E5M2 for either operand) accumulates in f32
// (imm-scale-a and imm-scale-b are +1: they negate, they do not scale); INT8 in s32, exactly,
// wrapping modulo 2^32 as integer adds do (no .satfinite: docs/precision.md, "INT8").
#define GEMMLAB_WGMMA_FP8_N128(ta, tb)                                                             \
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %66, 0;\n"                                      \
                 "wgmma.mma_async.sync.aligned.m64n128k32.f32." ta "." tb                          \
                 " {" GEMMLAB_R0_63 "}, %64, %65, p, 1, 1;\n}"                                     \
                 : GEMMLAB_ACC32(d, 0), GEMMLAB_ACC32(d, 32)                                       \
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d))

/// D (64 x 128, f32) = A (64 x 32) * B (32 x 128) + (scale_d ? D : 0) with A in FP8 type TA
/// and B in TB (__nv_fp8_e4m3 or __nv_fp8_e5m2), both from K-major shared tiles.
template <class TA, class TB>
__device__ __forceinline__ void wgmma_fp8_n128(float (&d)[64], uint64_t desc_a, uint64_t desc_b,
                                               int scale_d) {
    constexpr bool a4 = std::is_same_v<TA, __nv_fp8_e4m3>, b4 = std::is_same_v<TB, __nv_fp8_e4m3>;
    static_assert((a4 || std::is_same_v<TA, __nv_fp8_e5m2>) &&
                      (b4 || std::is_same_v<TB, __nv_fp8_e5m2>),
                  "FP8 operands are __nv_fp8_e4m3 or __nv_fp8_e5m2");
    if constexpr (a4 && b4) GEMMLAB_WGMMA_FP8_N128("e4m3", "e4m3");
    else if constexpr (a4) GEMMLAB_WGMMA_FP8_N128("e4m3", "e5m2");
    else if constexpr (b4) GEMMLAB_WGMMA_FP8_N128("e5m2", "e4m3");
    else GEMMLAB_WGMMA_FP8_N128("e5m2", "e5m2");
}

#define GEMMLAB_IACC8(d, i)                                                                        \
    "+r"(d[i]), "+r"(d[i + 1]), "+r"(d[i + 2]), "+r"(d[i + 3]), "+r"(d[i + 4]), "+r"(d[i + 5]),    \
        "+r"(d[i + 6]), "+r"(d[i + 7])
#define GEMMLAB_IACC32(d, i)                                                                       \
    GEMMLAB_IACC8(d, i), GEMMLAB_IACC8(d, i + 8), GEMMLAB_IACC8(d, i + 16), GEMMLAB_IACC8(d, i + 24)

/// D (64 x 256, s32) = A (64 x 32, s8) * B (32 x 256, s8) + (scale_d ? D : 0), both from K-major
/// shared tiles.
__device__ __forceinline__ void wgmma_s8_n256(int32_t (&d)[128], uint64_t desc_a, uint64_t desc_b,
                                              int scale_d) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8"
                 " {" GEMMLAB_R0_63 ", " GEMMLAB_R64_127 "}, %128, %129, p;\n}"
                 : GEMMLAB_IACC32(d, 0), GEMMLAB_IACC32(d, 32), GEMMLAB_IACC32(d, 64),
                   GEMMLAB_IACC32(d, 96)
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}

#undef GEMMLAB_IACC32
#undef GEMMLAB_IACC8
#undef GEMMLAB_WGMMA_FP8_N128
#undef GEMMLAB_WGMMA_TF32_RA_N256
#undef GEMMLAB_WGMMA_TF32_RA_N128
#undef GEMMLAB_WGMMA_TF32_N256
#undef GEMMLAB_WGMMA_TF32_N128
#undef GEMMLAB_WGMMA_TF32_N64
#undef GEMMLAB_WGMMA_TF32_RA_N64
#undef GEMMLAB_WGMMA_N256
#undef GEMMLAB_WGMMA_N192
#undef GEMMLAB_WGMMA_N144
#undef GEMMLAB_WGMMA_N128
#undef GEMMLAB_WGMMA_N96
#undef GEMMLAB_WGMMA_N64
#undef GEMMLAB_WGMMA_N16
#undef GEMMLAB_R64_127
#undef GEMMLAB_R64_95
#undef GEMMLAB_R64_71
#undef GEMMLAB_R32_47
#undef GEMMLAB_R0_63
#undef GEMMLAB_R0_31
#undef GEMMLAB_R
#undef GEMMLAB_ACC32
#undef GEMMLAB_ACC8

/// 9.7.15.7.1: orders this warpgroup's register accesses before the wgmma that follow.
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }

/// 9.7.15.7.2: closes the group of wgmma issued since the last commit.
__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

/// 9.7.15.7.3: waits until at most `Pending` committed groups are still running.
template <int Pending>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(Pending) : "memory");
}

/// The accumulators change behind the compiler's back until wgmma_wait: this empty asm
/// "writes" them after the wait so that no read of them is scheduled before it.
template <int R>
__device__ __forceinline__ void pin_accumulators(float (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+f"(d[i])::"memory");
}
/// The same for integer (INT8 wgmma's s32) accumulators.
template <int R>
__device__ __forceinline__ void pin_accumulators(int32_t (&d)[R]) {
#pragma unroll
    for (int i = 0; i < R; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

/// 9.7.13.4 (membar/fence): shared memory written by ordinary stores or non-bulk cp.async is
/// made visible to the async proxy through which wgmma and TMA access it.
__device__ __forceinline__ void fence_proxy_async() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}

// ---------------------------------------------------------------------------------- mbarrier
// PTX ISA "mbarrier": a 64-bit shared-memory object counting arrivals and transaction bytes;
// a phase completes when both reach zero, and waiters test the phase's parity. Initializing,
// arriving and waiting are not Hopper-only (rung 15's cp.async ring uses them): they are
// wrapped in ptx.cuh; the transaction and cluster forms are here.

using ptx::fence_barrier_init;
using ptx::mbar_init;

/// Arrives once and announces `bytes` of transactions (the TMA loads that follow).
__device__ __forceinline__ void mbar_arrive_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
                 : "memory");
}

using ptx::mbar_arrive;

/// Arrives on the barrier at the same offset in the shared memory of cluster block `cta`. The
/// default .release.cta semantics suffice: what the arrival announces is that this block's
/// wgmma finished reading a stage (wgmma.wait_group), not data for the other block to read; a
/// .release.cluster arrival fences at cluster scope on every call, which cost rung 23 most of its
/// speed (docs/ladder.md).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "mbarrier.arrive.shared::cluster.b64 _, [remote];\n}" ::"r"(bar),
                 "r"(cta)
                 : "memory");
}

using ptx::mbar_wait;

// --------------------------------------------------------------------------------------- TMA
// PTX ISA "cp.async.bulk.tensor": a box of the tensor `map` describes (built on the host, passed
// as a __grid_constant__ parameter) lands at `dst`, swizzled as the map says, and completes
// `bytes` of transactions on barrier `bar`; elements outside the tensor are zeros. The Hopper
// rungs' maps are 3-D: (x, y) inside one matrix, z the product of a strided batch (0 for a
// single product).

__device__ __forceinline__ void tma_load_3d(uint32_t dst, const void* map, uint32_t bar, int x,
                                            int y, int z) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes "
                 "[%0], [%1, {%3, %4, %5}], [%2];" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(x), "r"(y), "r"(z)
                 : "memory");
}

/// As tma_load_3d, and the box also lands at the same offset in every block of the cluster
/// whose bit is set in `cta_mask`, completing bytes on each one's barrier at `bar`'s offset.
__device__ __forceinline__ void tma_load_3d_multicast(uint32_t dst, const void* map, uint32_t bar,
                                                      int x, int y, int z, uint16_t cta_mask) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%3, %4, %5}], [%2], %6;" ::"r"(dst),
                 "l"(map), "r"(bar), "r"(x), "r"(y), "r"(z), "h"(cta_mask)
                 : "memory");
}

/// The other direction: the box at `src` (laid out as the map's swizzle says) is written to the
/// tensor at (x, y, z), clipped to the tensor's bounds; tracked by this thread's bulk groups.
__device__ __forceinline__ void tma_store_3d(const void* map, uint32_t src, int x, int y, int z) {
    asm volatile("cp.async.bulk.tensor.3d.global.shared::cta.bulk_group [%0, {%2, %3, %4}], [%1];" ::"l"(map),
                 "r"(src), "r"(x), "r"(y), "r"(z)
                 : "memory");
}

/// Closes this thread's group of bulk stores issued since the last commit.
__device__ __forceinline__ void bulk_commit() { asm volatile("cp.async.bulk.commit_group;" ::: "memory"); }

/// Waits until at most N of this thread's bulk groups still read their shared-memory source.
template <int N>
__device__ __forceinline__ void bulk_wait_read() {
    asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(N) : "memory");
}

/// Waits until at most N of this thread's bulk groups are incomplete (writes done).
template <int N>
__device__ __forceinline__ void bulk_wait() {
    asm volatile("cp.async.bulk.wait_group %0;" ::"n"(N) : "memory");
}

/// Fetches the tensor map into the constant cache ahead of its first use.
__device__ __forceinline__ void tma_prefetch_map(const void* map) {
    asm volatile("prefetch.tensormap [%0];" ::"l"(map) : "memory");
}

// ------------------------------------------------------------------------------- stmatrix
/// PTX ISA "stmatrix" (sm_90): the warp stores four 8x8 matrices of 16-bit elements held in the
/// mma accumulator layout (register q of lane l: row l / 4, columns 2 (l % 4) and + 1, low half
/// first), transposed: lane 8 q + r gives the address of stored row r of matrix q, which
/// receives column r of matrix q (8 elements, 16 bytes).
__device__ __forceinline__ void stmatrix_x4_trans(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                                  uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/// The same without .trans: lane 8 q + r gives the address of stored row r of matrix q, which
/// receives row r of matrix q as the registers hold it (8 elements, 16 bytes).
__device__ __forceinline__ void stmatrix_x4(uint32_t addr, uint32_t r0, uint32_t r1, uint32_t r2,
                                            uint32_t r3) {
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(addr),
                 "r"(r0), "r"(r1), "r"(r2), "r"(r3)
                 : "memory");
}

/// Barrier `id` (1-15; 0 is __syncthreads) over `threads` threads (a multiple of 32).
__device__ __forceinline__ void named_barrier(int id, int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

// ------------------------------------------------------------------------- registers, cluster
/// PTX ISA "setmaxnreg": a warpgroup gives registers back (producer) or takes more (consumers).
template <int Regs>
__device__ __forceinline__ void setmaxnreg_dec() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <int Regs>
__device__ __forceinline__ void setmaxnreg_inc() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

__device__ __forceinline__ uint32_t cluster_rank() {
    uint32_t r;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    return r;
}

/// Every thread of every block of the cluster arrives and waits (barrier.cluster).
__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::
                     : "memory");
}

/// 16 bytes to the shared memory of cluster block `cta`, at the .shared::cta address `addr` of
/// its window (mapa). Visible there after the next cluster_sync (its arrive releases, its wait
/// acquires at cluster scope).
__device__ __forceinline__ void st_cluster_v4(uint32_t addr, uint32_t cta, float x, float y,
                                              float z, float w) {
    asm volatile("{\n.reg .b32 remote;\nmapa.shared::cluster.u32 remote, %0, %1;\n"
                 "st.shared::cluster.v4.f32 [remote], {%2, %3, %4, %5};\n}" ::"r"(addr),
                 "r"(cta), "f"(x), "f"(y), "f"(z), "f"(w)
                 : "memory");
}

/// 16 bytes of this block's shared memory as four floats.
__device__ __forceinline__ float4 ld_shared_v4f(uint32_t addr) {
    float4 v;
    asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr)
                 : "memory");
    return v;
}

#endif // GEMMLAB_SM90A

} // namespace gemmlab::detail::hopper
