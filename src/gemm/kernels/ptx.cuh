#pragma once
// The PTX instructions the rungs use, each wrapped once (STYLE.md item 12): operand registers as
// arrays, the inline asm in one place, the PTX ISA section it follows named beside it. Rungs
// call these; none writes raw asm for an instruction listed here.

#include <cstdint>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gemmlab::detail::ptx {

// ------------------------------------------------------------------------------- cp.async
// PTX ISA "Data Movement and Conversion Instructions: cp.async" (sm_80+).

/// Copies `Bytes` (4, 8 or 16) from global `src` to shared address `dst`, of which only the
/// first `src_bytes` are read; the rest of the destination is zero-filled. src_bytes = 0 reads
/// nothing (src need only be a valid address). 16-byte copies bypass L1 (.cg), smaller ones
/// cannot (.ca is the only form for them).
template <int Bytes>
__device__ __forceinline__ void cp_async_zfill(uint32_t dst, const void* src, int src_bytes) {
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
    if constexpr (Bytes == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes)
                     : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src),
                     "n"(Bytes), "r"(src_bytes)
                     : "memory");
}

/// Two 16-byte runs, at p and 64 bytes on, evict-first (.cs: every byte is read once), in one
/// asm statement. Rung 28's decode loop measured 5% faster with these than with the same two
/// loads written as __ldcs (docs/ladder.md, rung 28); an .L2::256B prefetch hint on them was
/// slower with a cold L2, and .L2::128B no faster.
__device__ __forceinline__ void ld_stream_pair(uint4& lo, uint4& hi, const void* p) {
    asm("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%8];\n"
        "ld.global.cs.v4.u32 {%4, %5, %6, %7}, [%8+64];\n"
        : "=r"(lo.x), "=r"(lo.y), "=r"(lo.z), "=r"(lo.w), "=r"(hi.x), "=r"(hi.y), "=r"(hi.z), "=r"(hi.w)
        : "l"(p));
}

/// Copies `Bytes` (4, 8 or 16) from global `src` to shared address `dst`, all of them read.
template <int Bytes>
__device__ __forceinline__ void cp_async(uint32_t dst, const void* src) {
    static_assert(Bytes == 4 || Bytes == 8 || Bytes == 16, "cp.async copies 4, 8 or 16 bytes");
    if constexpr (Bytes == 16)
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
    else
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2;\n" ::"r"(dst), "l"(src), "n"(Bytes) : "memory");
}

/// Closes the group of cp.async copies this thread issued since the last commit.
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

/// Arrives on the shared mbarrier `bar` once every cp.async this thread issued before it has
/// landed; .noinc: the barrier's expected count already includes this arrival.
__device__ __forceinline__ void cp_async_mbar_arrive(uint32_t bar) {
    asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/// Waits until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

// ------------------------------------------------------------------------------- mbarrier
// PTX ISA "mbarrier" (sm_90 for try_wait): a 64-bit shared-memory object counting arrivals
// (and, for TMA, transaction bytes); a phase completes when both reach zero, and waiters test
// the phase's parity. The TMA forms are in hopper_ptx.cuh.

__device__ __forceinline__ void mbar_init(uint32_t bar, int arrivals) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(arrivals) : "memory");
}

/// Makes initialized barriers visible to the async proxy and to the cluster.
__device__ __forceinline__ void fence_barrier_init() {
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

/// Blocks until the phase with parity `parity` has completed.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    asm volatile("{\n.reg .pred done;\nwait_%=:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra wait_%=;\n}" ::"r"(bar),
                 "r"(parity)
                 : "memory");
}

// ------------------------------------------------------------------------------- st.shared
// PTX ISA "Data Movement and Conversion Instructions: st" (.shared, .b32, .v4): plain 4- and
// 16-byte stores to a shared-memory address, for tiles filled through registers instead of
// cp.async or TMA.

/// Stores one 32-bit word to the 4-byte aligned shared address `dst`.
__device__ __forceinline__ void st_shared_b32(uint32_t dst, uint32_t x) {
    asm volatile("st.shared.b32 [%0], %1;\n" ::"r"(dst), "r"(x) : "memory");
}

/// Stores four 32-bit words to the 16-byte aligned shared address `dst`.
__device__ __forceinline__ void st_shared_v4(uint32_t dst, uint32_t x, uint32_t y, uint32_t z, uint32_t w) {
    asm volatile("st.shared.v4.b32 [%0], {%1, %2, %3, %4};\n" ::"r"(dst), "r"(x), "r"(y), "r"(z), "r"(w)
                 : "memory");
}

// ------------------------------------------------------------------------------- ldmatrix
// PTX ISA "Warp-level Matrix Load Instruction: ldmatrix" (sm_75+). .m8n8.x4.b16 loads four 8x8
// matrices of 16-bit elements for the whole warp: lane 8 q + r gives the shared address of row
// r of matrix q (16 contiguous, 16-byte aligned bytes), and register q of lane 4 g + t receives
// elements (g, 2t) and (g, 2t + 1) of matrix q, the lower column in the lower half. With .trans
// each matrix is delivered transposed: register q of lane 4 g + t holds elements (2t, g) and
// (2t + 1, g) of the stored matrix, i.e. rows 2t and 2t + 1 of column g.

/// Four 8x8 b16 matrices, rows addressed per lane as above.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

/// As ldmatrix_x4, each matrix transposed on the way to the registers.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

// ------------------------------------------------------------------------------- mma.sync
// PTX ISA "Warp-level Matrix Multiply-Accumulate Instructions: mma", section "Matrix fragments
// for mma.m16n8k*". Every shape below is row.col: A is (16, K) row-major, B is (K, 8)
// column-major, C/D (16, 8). With g = lane / 4 and t = lane % 4, the fragments hold
//   A: a[i] = A(g + 8 * (i % 2), t + 4 * (i / 2))          i < K / 2 (K / 4 per k-column pair)
//   B: b[i] = B(t + 4 * i, g)                               i < K / 4
//   C: c[i] = C(g + 8 * (i / 2), 2 * t + i % 2)             i < 4
// for f64 m16n8k4/k8/k16 (sm_90) and tf32 m16n8k8 (sm_80) alike, which is what lets one warp
// tile type (mma_tile.cuh) serve all three tensor-core rungs.

/// The fragment sizes of an m16n8kK shape with 4-byte or 8-byte elements, one per lane.
template <int K>
struct Mma16x8Fragments {
    static_assert(K == 4 || K == 8 || K == 16, "m16n8k4, k8 and k16 only");
    static constexpr int kA = K / 2; // elements of A per lane
    static constexpr int kB = K / 4; // elements of B per lane
    static constexpr int kC = 4;     // accumulators per lane
};

// The FP64 shapes m16n8k8 and m16n8k16 exist from sm_90 on (sm_80 has m8n8k4 only). Compiled for
// an older GPU they trap: rung 15 declares compute capability 9.0 (KernelInfo::
// min_compute_capability), so neither a call naming it nor `auto` reaches them there.
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#define GEMMLAB_HAS_F64_M16N8 1
#endif

/// D = A * B + C, FP64, m16n8k8 (DMMA, sm_90).
__device__ __forceinline__ void mma_m16n8k8_f64(double (&d)[4], const double (&a)[4], const double (&b)[2]) {
    static_assert(Mma16x8Fragments<8>::kA == 4 && Mma16x8Fragments<8>::kB == 2, "fragment sizes");
#ifndef GEMMLAB_HAS_F64_M16N8
    __trap();
#else
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
}

/// D = A * B + C, FP64, m16n8k16 (DMMA, sm_90).
__device__ __forceinline__ void mma_m16n8k16_f64(double (&d)[4], const double (&a)[8], const double (&b)[4]) {
    static_assert(Mma16x8Fragments<16>::kA == 8 && Mma16x8Fragments<16>::kB == 4, "fragment sizes");
#ifndef GEMMLAB_HAS_F64_M16N8
    __trap();
#else
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
                 : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                 : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                   "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
}
#undef GEMMLAB_HAS_F64_M16N8

/// D = A * B + C with TF32 inputs (bit patterns from cvt_rna_tf32) and FP32 accumulators,
/// m16n8k8 (HMMA, sm_80).
__device__ __forceinline__ void mma_m16n8k8_tf32(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    static_assert(Mma16x8Fragments<8>::kA == 4 && Mma16x8Fragments<8>::kB == 2, "fragment sizes");
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// 16-bit inputs (bf16, f16), m16n8k16 with FP32 accumulators (HMMA.16816.F32, sm_80): two
// elements share each 32-bit register, the lower k (or lower column) in the lower half:
//   A: a[i] = A(g + 8 * (i % 2), 2t + 8 * (i / 2) + {0, 1})       i < 4
//   B: b[i] = B(2t + 8 * i + {0, 1}, g)                             i < 2
//   C: c[i] = C(g + 8 * (i / 2), 2 * t + i % 2)                     i < 4
// so one ldmatrix.x4 fills an A fragment, or the B fragments of two n8 tiles (rung 19).

/// The m16n8k16 fragment sizes with 16-bit inputs, in 32-bit registers per lane.
struct Mma16x8x16Half {
    static constexpr int kA = 4; // 8 elements of A
    static constexpr int kB = 2; // 4 elements of B
    static constexpr int kC = 4; // 4 FP32 accumulators
    static_assert(2 * kA * 32 == 16 * 16 && 2 * kB * 32 == 16 * 8 && kC * 32 == 16 * 8,
                  "a warp's 32 lanes hold the (16, 16) A, (16, 8) B and (16, 8) C tiles exactly once");
};

/// D = A * B + C with BF16 inputs and FP32 accumulators, m16n8k16 (HMMA, sm_80).
__device__ __forceinline__ void mma_m16n8k16_bf16(float (&d)[Mma16x8x16Half::kC],
                                                  const uint32_t (&a)[Mma16x8x16Half::kA],
                                                  const uint32_t (&b)[Mma16x8x16Half::kB]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// D = A * B + C with FP16 inputs and FP32 accumulators, m16n8k16 (HMMA, sm_80).
__device__ __forceinline__ void mma_m16n8k16_f16(float (&d)[Mma16x8x16Half::kC],
                                                  const uint32_t (&a)[Mma16x8x16Half::kA],
                                                  const uint32_t (&b)[Mma16x8x16Half::kB]) {
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

/// The m16n8k16 MMA of a 16-bit input type (__nv_bfloat16 or __half), for rungs templated on it.
template <class TIn>
__device__ __forceinline__ void mma_m16n8k16_half(float (&d)[Mma16x8x16Half::kC],
                                                  const uint32_t (&a)[Mma16x8x16Half::kA],
                                                  const uint32_t (&b)[Mma16x8x16Half::kB]) {
    static_assert(std::is_same_v<TIn, __nv_bfloat16> || std::is_same_v<TIn, __half>, "a 16-bit input type");
    if constexpr (std::is_same_v<TIn, __nv_bfloat16>) mma_m16n8k16_bf16(d, a, b);
    else mma_m16n8k16_f16(d, a, b);
}

// ------------------------------------------------------------------------------- cvt
// PTX ISA "cvt": .rna rounds to nearest, ties away from zero, into TF32 (sm_80). The result is
// an FP32 bit pattern whose low 13 mantissa bits are zero.

/// x rounded to TF32 (10 explicit mantissa bits), as the FP32 bit pattern mma.sync expects.
__device__ __forceinline__ uint32_t cvt_rna_tf32(float x) {
    uint32_t r;
    asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(r) : "f"(x));
    return r;
}

} // namespace gemmlab::detail::ptx
