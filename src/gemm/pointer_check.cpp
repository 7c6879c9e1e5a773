// pointer_place: the driver's answer where it says "usable", the runtime's everywhere else
// (pointer_check.hpp says why the driver first).

#include "gemm/pointer_check.hpp"

#include <cstdint>
#include <string>

#include <cuda.h>
#include <cuda_runtime_api.h>

namespace gemmlab::detail {
namespace {

using PointerGetAttributes = CUresult (*)(unsigned, CUpointer_attribute*, void**, CUdeviceptr);

/// cuPointerGetAttributes, looked up once; nullptr where the driver does not offer it (then
/// every query takes the runtime's path).
PointerGetAttributes driver_entry() {
    static const PointerGetAttributes fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        // 7000: the ABI of cuPointerGetAttributes since CUDA 7.0.
        if (cudaGetDriverEntryPointByVersion("cuPointerGetAttributes", &p, 7000, cudaEnableDefault,
                                             &found) != cudaSuccess ||
            found != cudaDriverEntryPointSuccess) {
            cudaGetLastError();
            p = nullptr;
        }
        return reinterpret_cast<PointerGetAttributes>(p);
    }();
    return fn;
}

/// The driver's answer when it is a positive one: Usable, or QueryFailed for "ask the
/// runtime". Only acceptance is taken from here: a thread without a current context, say, may
/// see valid memory reported as unknown, and the runtime (which makes the primary context
/// current) then settles it on the rare path that refuses a call.
PointerPlace::Kind driver_verdict(const void* p, int device) {
    const PointerGetAttributes query = driver_entry();
    if (!query) return PointerPlace::QueryFailed;
    // Zeroed 8-byte slots: the driver writes 4 bytes (enum, int) or a boolean into the low end.
    uint64_t memory_type = 0, device_pointer = 0, managed = 0, ordinal = 0;
    CUpointer_attribute attributes[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                        CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
                                        CU_POINTER_ATTRIBUTE_IS_MANAGED,
                                        CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void* data[] = {&memory_type, &device_pointer, &managed, &ordinal};
    if (query(4, attributes, data, CUdeviceptr(reinterpret_cast<uintptr_t>(p))) != CUDA_SUCCESS)
        return PointerPlace::QueryFailed;
    const auto type = CUmemorytype(uint32_t(memory_type));
    if (managed != 0) return PointerPlace::Usable;
    if (type == CU_MEMORYTYPE_DEVICE && int(uint32_t(ordinal)) == device) return PointerPlace::Usable;
    if (type == CU_MEMORYTYPE_HOST && device_pointer != 0) return PointerPlace::Usable;
    return PointerPlace::QueryFailed;
}

} // namespace

PointerPlace pointer_place_runtime(const void* p, int device) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError(); // not the caller's error: clear it
        return {PointerPlace::QueryFailed, -1};
    }
    if (attr.type == cudaMemoryTypeUnregistered || attr.devicePointer == nullptr)
        return {PointerPlace::Host, -1};
    if (attr.type == cudaMemoryTypeDevice && attr.device != device)
        return {PointerPlace::OtherDevice, attr.device};
    return {PointerPlace::Usable, attr.device};
}

PointerPlace pointer_place(const void* p, int device) {
    if (driver_verdict(p, device) == PointerPlace::Usable) return {PointerPlace::Usable, device};
    return pointer_place_runtime(p, device);
}

std::string pointer_problem(const char* name, const void* p, int device) {
    const PointerPlace place = pointer_place(p, device);
    switch (place.kind) {
    case PointerPlace::Usable: return {};
    case PointerPlace::Host:
        return std::string(name) + " is a host pointer; gemm needs device memory (cudaMalloc)";
    case PointerPlace::OtherDevice:
        return std::string(name) + " lives on device " + std::to_string(place.owner) +
               " but the current device is " + std::to_string(device);
    case PointerPlace::QueryFailed: break;
    }
    return std::string(name) + " is not a pointer CUDA knows";
}

} // namespace gemmlab::detail
