// Per-device capabilities, cached (see device_caps.hpp).

#include "gemm/device_caps.hpp"

#include <array>
#include <atomic>
#include <cstdint>

#include "common/cuda_check.hpp"

#ifndef GEMMLAB_HAS_SM90A
#error "GEMMLAB_HAS_SM90A must be defined by the build (CMakeLists.txt: 90a in CMAKE_CUDA_ARCHITECTURES)"
#endif
#ifndef GEMMLAB_CUDA_ARCHITECTURES
#define GEMMLAB_CUDA_ARCHITECTURES "unknown"
#endif

namespace gemmlab::detail {
namespace {

// One word per device: bit 63 = valid, then major (bits 40-47), minor (32-39), DRAM GB/s
// (16-31), SM count (0-15).
// A race only repeats the query; every writer stores the same value.
constexpr int kMaxCachedDevices = 64;
std::array<std::atomic<uint64_t>, kMaxCachedDevices> g_cache{};
constexpr uint64_t kValid = uint64_t(1) << 63;

DeviceCaps unpack(uint64_t w) {
    DeviceCaps c;
    c.cc_major = int((w >> 40) & 0xFF);
    c.cc_minor = int((w >> 32) & 0xFF);
    c.dram_gbps = int((w >> 16) & 0xFFFF);
    c.sm_count = int(w & 0xFFFF);
    c.sm90a = library_has_sm90a() && c.cc_major == 9 && c.cc_minor == 0;
    return c;
}

} // namespace

bool library_has_sm90a() noexcept { return GEMMLAB_HAS_SM90A != 0; }

DeviceCaps device_caps(int device) {
    const bool cacheable = device >= 0 && device < kMaxCachedDevices;
    if (cacheable)
        if (const uint64_t w = g_cache[size_t(device)].load(std::memory_order_relaxed); w & kValid)
            return unpack(w);
    int major = 0, minor = 0, sms = 0;
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
    if (sms < 1) sms = 1;
    if (sms > 0xFFFF) sms = 0xFFFF;
    // Memory clock (kHz) x bus width (bits) x 2 transfers per clock: peak bytes per second.
    int mem_khz = 0, bus_bits = 0;
    if (cudaDeviceGetAttribute(&mem_khz, cudaDevAttrMemoryClockRate, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) != cudaSuccess) {
        cudaGetLastError(); // not every platform reports them: the model then ignores DRAM
        mem_khz = bus_bits = 0;
    }
    const double gbps = double(mem_khz) * 1e3 * 2.0 * bus_bits / 8.0 / 1e9;
    const uint64_t dram = uint64_t(gbps > 65535.0 ? 65535.0 : gbps);
    const uint64_t w = kValid | (uint64_t(major & 0xFF) << 40) | (uint64_t(minor & 0xFF) << 32) |
                       (dram << 16) | uint64_t(uint32_t(sms));
    if (cacheable) g_cache[size_t(device)].store(w, std::memory_order_relaxed);
    return unpack(w);
}

DeviceCaps current_device_caps() {
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    return device_caps(device);
}

std::string device_unsupported_reason(const KernelInfo& info, int device) {
    if (!info.needs_sm90a && info.min_compute_capability == 0) return {};
    const DeviceCaps caps = device_caps(device);
    const int cc_value = 10 * caps.cc_major + caps.cc_minor;
    const bool cc_ok = cc_value >= info.min_compute_capability;
    if (cc_ok && (!info.needs_sm90a || caps.sm90a)) return {};
    // The error path only: the name costs a property query, the caps above are cached.
    cudaDeviceProp prop{};
    const bool named = cudaGetDeviceProperties(&prop, device) == cudaSuccess;
    if (!named) cudaGetLastError();
    const std::string cc = std::to_string(caps.cc_major) + "." + std::to_string(caps.cc_minor);
    const std::string rung = "kernel '" + std::string(info.name) + "' (rung " +
                             std::to_string(info.number) + ")";
    const std::string dev = "device " + std::to_string(device) +
                            (named ? " (" + std::string(prop.name) + ")" : std::string()) +
                            " has compute capability " + cc;
    if (!cc_ok)
        return rung + " needs compute capability " + std::to_string(info.min_compute_capability / 10) +
               "." + std::to_string(info.min_compute_capability % 10) + " or later; " + dev;
    if (caps.cc_major != 9 || caps.cc_minor != 0)
        return rung + " needs sm_90a (Hopper: wgmma, TMA, setmaxnreg), i.e. a compute capability 9.0 GPU; " +
               dev;
    return rung + " needs sm_90a code, but this library was built for CUDA architectures '" +
           GEMMLAB_CUDA_ARCHITECTURES + "' without 90a (configure with -DCMAKE_CUDA_ARCHITECTURES=90a); " +
           dev;
}

} // namespace gemmlab::detail

namespace gemmlab {

bool built_with_sm90a() noexcept { return detail::library_has_sm90a(); }

} // namespace gemmlab
