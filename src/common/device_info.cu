// Device facts and the measured SM clock.

#include <chrono>
#include <ctime>

#include <cublas_v2.h>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"

namespace gemmlab {

int visible_device_count() noexcept {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        cudaGetLastError(); // clear the sticky "no device" error so later calls start clean
        return 0;
    }
    return n;
}

int fp32_lanes_per_sm(int major, int minor) noexcept {
    if (major == 9 || major == 10 || major == 12) return 128;
    if (major == 8) return minor == 0 ? 64 : 128;
    if (major == 7) return 64;
    return 0;
}

int fp64_lanes_per_sm(int major, int minor) noexcept {
    if (major == 9 || (major == 10 && minor == 0)) return 64;
    if ((major == 8 && minor == 0) || (major == 7 && minor == 0)) return 32; // A100, V100: half of FP32
    if (major >= 7) return 2; // consumer parts: 1/64 of the FP32 rate
    return 0;
}

DeviceInfo query_device(int device) {
    cudaDeviceProp p{};
    GEMMLAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));
    DeviceInfo d;
    d.device = device;
    d.name = p.name;
    d.sm_count = p.multiProcessorCount;
    d.cc_major = p.major;
    d.cc_minor = p.minor;
    d.l2_bytes = size_t(p.l2CacheSize);
    d.global_mem_bytes = p.totalGlobalMem;
    GEMMLAB_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
    GEMMLAB_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
    int major = 0, minor = 0, patch = 0;
    if (cublasGetProperty(MAJOR_VERSION, &major) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(MINOR_VERSION, &minor) == CUBLAS_STATUS_SUCCESS &&
        cublasGetProperty(PATCH_LEVEL, &patch) == CUBLAS_STATUS_SUCCESS)
        d.cublas_version = major * 10000 + minor * 100 + patch;
    d.fp32_lanes_per_sm = fp32_lanes_per_sm(p.major, p.minor);
    d.fp64_lanes_per_sm = fp64_lanes_per_sm(p.major, p.minor);
    return d;
}

namespace {

__device__ __forceinline__ uint64_t global_timer_ns() {
    uint64_t t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// One thread spins until spin_ns of wall time have passed, then reports the cycles and the ns
// that elapsed. %globaltimer ticks in ns (updated every ~1 us), clock64 in SM cycles.
__global__ void clock_spin_kernel(uint64_t spin_ns, unsigned long long* out) {
    const uint64_t t0 = global_timer_ns();
    const long long c0 = clock64();
    uint64_t t1 = t0;
    while (t1 - t0 < spin_ns) t1 = global_timer_ns();
    const long long c1 = clock64();
    out[0] = static_cast<unsigned long long>(c1 - c0);
    out[1] = t1 - t0;
}

} // namespace

double measure_sm_clock_mhz(int device, double spin_us) {
    GEMMLAB_CUDA_CHECK(cudaSetDevice(device));
    DeviceBuffer<unsigned long long> out(2);
    unsigned long long h[2] = {0, 0};
    // A first short spin wakes the clocks up from idle; the second is the measurement.
    for (double us : {spin_us / 4, spin_us}) {
        clock_spin_kernel<<<1, 1>>>(uint64_t(us * 1000), out.get());
        GEMMLAB_CHECK_LAUNCH();
        GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
        out.copy_to_host(h, 2);
    }
    return h[1] ? double(h[0]) / double(h[1]) * 1e3 : 0.0;
}

std::string utc_timestamp() {
    const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S UTC", &tm);
    return buf;
}

} // namespace gemmlab
