#pragma once
// Device-side primitives of the probes in this folder, one definition per platform: the clocks,
// the SM id, global loads with a stated cache policy, and shared-memory loads, none of which the
// compiler may drop, merge or hoist. The probes' kernels above them are one source for both.
//
// CUDA: inline PTX (ld.global.ca/.cg, ld.volatile.shared, %clock64, %globaltimer, %smid).
// HIP (AMD GFX9: gfx900-gfx90a): inline AMDGPU assembly for the global loads, whose cache bit has
// no C++ spelling, and volatile pointers into the LDS address space for the shared loads. HIP has
// no timer of known rate in a kernel (clock.cu), so there is no globaltimer_ns; the probes that
// need one stay CUDA-only (cmake/gemmlab_hip.cmake).

#include <cstdint>

#include "common/gpu_runtime.hpp"

namespace gemmlab::probe::kit {

#if defined(GEMMLAB_HIP)

#if defined(__HIP_DEVICE_COMPILE__) && !defined(__GFX9__)
#error "probe_kit.cuh spells GFX9's cache bit (glc); other AMD generations spell it differently"
#endif

/// The compute unit this wavefront runs on (HIP's __smid: CU, shader array and engine bits),
/// distinct per CU.
__device__ __forceinline__ unsigned sm_id() { return __smid(); }

// Global loads. `glc` on a GFX9 load makes it miss in the CU's vector L1 and read L2 (AMDGPUUsage,
// "Memory Model GFX6-GFX9"): ld.global.cg's policy; without it the load goes through L1, as .ca.
// The compiler does not know an inline-asm load is one, so it would use the loaded register before
// the data arrives: each asm waits for its own loads (s_waitcnt vmcnt(0)) before it ends.

/// A 64-bit load through the vector L1 and L2 (NVIDIA's ld.global.ca).
__device__ __forceinline__ uint64_t load_ca(const uint64_t* p) {
    uint64_t v;
    asm volatile("global_load_dwordx2 %0, %1, off\n\ts_waitcnt vmcnt(0)" : "=v"(v) : "v"(p) : "memory");
    return v;
}

/// A 64-bit load from L2, missing the vector L1 (NVIDIA's ld.global.cg).
__device__ __forceinline__ uint64_t load_cg(const uint64_t* p) {
    uint64_t v;
    asm volatile("global_load_dwordx2 %0, %1, off glc\n\ts_waitcnt vmcnt(0)" : "=v"(v) : "v"(p) : "memory");
    return v;
}

/// Asm operands of 16 bytes need the compiler's own vector type (HIP's float4 is a class).
using Float4Bits = float __attribute__((ext_vector_type(4)));

__device__ __forceinline__ float4 to_float4(Float4Bits v) { return make_float4(v.x, v.y, v.z, v.w); }

/// A 16-byte load from L2, missing the vector L1.
__device__ __forceinline__ float4 load_cg(const float4* p) {
    Float4Bits v;
    asm volatile("global_load_dwordx4 %0, %1, off glc\n\ts_waitcnt vmcnt(0)" : "=v"(v) : "v"(p));
    return to_float4(v);
}

/// Four 16-byte loads from L2 (v[i] = *p[i]), all four issued before one wait, so that they are
/// in flight together as four separate loads are on NVIDIA. Early-clobber outputs: a load's
/// destination may not reuse an address the next load still has to read.
__device__ __forceinline__ void load_cg_x4(const float4* p0, const float4* p1, const float4* p2,
                                           const float4* p3, float4 (&v)[4]) {
    Float4Bits a, b, c, d;
    asm volatile("global_load_dwordx4 %0, %4, off glc\n\t"
                 "global_load_dwordx4 %1, %5, off glc\n\t"
                 "global_load_dwordx4 %2, %6, off glc\n\t"
                 "global_load_dwordx4 %3, %7, off glc\n\t"
                 "s_waitcnt vmcnt(0)"
                 : "=&v"(a), "=&v"(b), "=&v"(c), "=&v"(d)
                 : "v"(p0), "v"(p1), "v"(p2), "v"(p3));
    v[0] = to_float4(a);
    v[1] = to_float4(b);
    v[2] = to_float4(c);
    v[3] = to_float4(d);
}

/// clock64() (s_memtime) after the loads before it have returned: every load above waits inside
/// its asm, and the compiler keeps s_memtime, which has side effects, after asm volatile.
__device__ __forceinline__ long long clock_after_memory() { return clock64(); }

// Shared memory (LDS). A generic pointer to LDS holds the LDS address in its low 32 bits; the cast
// below is an address-space cast, which keeps exactly those. Loads through a volatile LDS pointer
// are each one ds_read (LLVM neither deletes nor pairs volatile accesses), and GFX9 waits for a
// volatile LDS load only where its value is used, so loads of one wavefront overlap.

/// Pointer types into the LDS address space.
using LdsU32 = const volatile __attribute__((address_space(3))) uint32_t;
using LdsFloat4 = const volatile __attribute__((address_space(3))) Float4Bits;

/// 32-bit LDS address of a __shared__ object, for lds_u32 and lds_v4.
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return uint32_t(reinterpret_cast<uintptr_t>((const __attribute__((address_space(3))) void*)p));
}

/// A 4-byte LDS load (ds_read_b32) that the compiler keeps.
__device__ __forceinline__ uint32_t lds_u32(uint32_t addr) { return *reinterpret_cast<LdsU32*>(addr); }

/// A 16-byte LDS load (ds_read_b128) that the compiler keeps.
__device__ __forceinline__ float4 lds_v4(uint32_t addr) { return to_float4(*reinterpret_cast<LdsFloat4*>(addr)); }

/// `p` (a __shared__ array) as a volatile array for C++ indexing, every access one LDS load. A
/// volatile generic pointer would not do: LLVM does not narrow it to LDS (flat_load ... glc).
__device__ __forceinline__ LdsU32* volatile_shared(const uint32_t* p) { return (LdsU32*)p; }

#else

/// %globaltimer: nanoseconds of a chip-wide timer (the same on every SM).
__device__ __forceinline__ uint64_t globaltimer_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/// The SM this thread runs on.
__device__ __forceinline__ unsigned sm_id() {
    unsigned id;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(id));
    return id;
}

/// ld.global.ca: cache in L1 and L2 (what a plain load does on sm_90).
__device__ __forceinline__ uint64_t load_ca(const uint64_t* p) {
    uint64_t v;
    asm volatile("ld.global.ca.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ uint32_t load_ca(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.global.ca.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/// ld.global.cg: cache in L2 only; every load travels to L2.
__device__ __forceinline__ uint64_t load_cg(const uint64_t* p) {
    uint64_t v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ uint32_t load_cg(const uint32_t* p) {
    uint32_t v;
    asm volatile("ld.global.cg.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ __forceinline__ float4 load_cg(const float4* p) {
    float4 v;
    asm volatile("ld.global.cg.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "l"(p));
    return v;
}

/// Four 16-byte ld.global.cg (v[i] = *p[i]), issued in order; independent, so all in flight.
__device__ __forceinline__ void load_cg_x4(const float4* p0, const float4* p1, const float4* p2,
                                           const float4* p3, float4 (&v)[4]) {
    v[0] = load_cg(p0);
    v[1] = load_cg(p1);
    v[2] = load_cg(p2);
    v[3] = load_cg(p3);
}

/// clock64 that the compiler may not move above earlier memory operations.
__device__ __forceinline__ long long clock_after_memory() {
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

/// 32-bit shared-window address of a __shared__ object, for ld.shared in inline PTX.
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// A shared-memory load that neither compiler may delete, merge, or hoist out of a loop: `asm
/// volatile` binds the front end, and PTX `ld.volatile` binds ptxas, which would otherwise fold
/// repeated loads of one address into one. It is the same LDS instruction in SASS.
__device__ __forceinline__ uint32_t lds_u32(uint32_t addr) {
    uint32_t v;
    asm volatile("ld.volatile.shared.u32 %0, [%1];" : "=r"(v) : "r"(addr));
    return v;
}

/// The same for 16 bytes: ld.volatile.shared.v4.f32.
__device__ __forceinline__ float4 lds_v4(uint32_t addr) {
    float4 v;
    asm volatile("ld.volatile.shared.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
                 : "r"(addr));
    return v;
}

/// `p` (a __shared__ array) as a volatile array for C++ indexing: every access one shared load.
__device__ __forceinline__ const volatile uint32_t* volatile_shared(const uint32_t* p) { return p; }

#endif // GEMMLAB_HIP

/// Load through L1 (kL1) or L2 only.
template <bool kL1, class T>
__device__ __forceinline__ T load(const T* p) {
    if constexpr (kL1)
        return load_ca(p);
    else
        return load_cg(p);
}

} // namespace gemmlab::probe::kit
