#pragma once
// Device-side helpers shared by the probes of this folder: the two clocks, the SM id, and loads
// with an explicit cache operator that the compiler may neither drop, merge nor hoist.
// In the HIP build only sm_id exists (from HIP's __smid); the rest is PTX, and the probes that
// need it are not part of that build (cmake/gemmlab_hip.cmake).

#include <cstdint>

namespace gemmlab::probe::kit {

#if defined(GEMMLAB_HIP)

/// The compute unit this wavefront runs on (HIP's __smid: CU, shader array and engine bits),
/// distinct per CU.
__device__ __forceinline__ unsigned sm_id() { return __smid(); }

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

/// Load through L1 (kL1) or L2 only.
template <bool kL1, class T>
__device__ __forceinline__ T load(const T* p) {
    if constexpr (kL1)
        return load_ca(p);
    else
        return load_cg(p);
}

#endif // GEMMLAB_HIP

} // namespace gemmlab::probe::kit
