// Per-device capabilities, cached (see device_caps.hpp).

#include "gemm/device_caps.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <mutex>

#include "common/cuda_check.hpp"

#ifndef GEMMLAB_HAS_SM90A
#error "GEMMLAB_HAS_SM90A must be defined by the build (CMakeLists.txt: 90a in CMAKE_CUDA_ARCHITECTURES)"
#endif
#ifndef GEMMLAB_CUDA_ARCHITECTURES
#define GEMMLAB_CUDA_ARCHITECTURES "unknown"
#endif

namespace gemmlab::detail {
namespace {

/// One device's caps, written once under the mutex; readers that see `ready` (acquire) read
/// `caps` without locking, since nothing writes it afterwards.
struct CapsSlot {
    std::mutex writing;
    std::atomic<bool> ready{false};
    DeviceCaps caps;
};
constexpr int kMaxCachedDevices = 64;
std::array<CapsSlot, kMaxCachedDevices> g_slots;

/// An attribute the model can do without: 0 (and the error cleared) where the platform does
/// not report it.
int optional_attribute(cudaDeviceAttr attr, int device) {
    int value = 0;
    if (cudaDeviceGetAttribute(&value, attr, device) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return value;
}

/// Stands in for a block that fills an SM in the cluster-capacity query; never launched.
__global__ void one_block_per_sm_kernel() {}

/// cudaOccupancyMaxActiveClusters for clusters of `size` blocks of 128 threads, each with the
/// most dynamic shared memory a block may opt in to (one block per SM, as the Hopper rungs'
/// blocks); 0 (the error cleared) where the query fails or clusters are not supported.
int clusters_at_once(int size, int smem_per_block, int cc_major) {
    if (cc_major < 9 || smem_per_block <= 0) return 0;
    const auto kernel = &one_block_per_sm_kernel;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem_per_block) !=
        cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(size));
    cfg.blockDim = dim3(128);
    cfg.dynamicSmemBytes = size_t(smem_per_block);
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(size);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int clusters = 0;
    if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &cfg) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return clusters;
}

DeviceCaps query(int device) {
    DeviceCaps c;
    const auto attribute = [device](int* value, cudaDeviceAttr attr) {
        GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(value, attr, device));
    };
    attribute(&c.cc_major, cudaDevAttrComputeCapabilityMajor);
    attribute(&c.cc_minor, cudaDevAttrComputeCapabilityMinor);
    attribute(&c.sm_count, cudaDevAttrMultiProcessorCount);
    if (c.sm_count < 1) c.sm_count = 1;
    c.sm_clock_mhz = optional_attribute(cudaDevAttrClockRate, device) / 1000; // kHz
    c.smem_per_sm = optional_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, device);
    c.smem_per_block_optin = optional_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    c.smem_reserved_per_block = optional_attribute(cudaDevAttrReservedSharedMemoryPerBlock, device);
    // Memory clock (kHz) x bus width (bits) x 2 transfers per clock: peak bytes per second.
    const int mem_khz = optional_attribute(cudaDevAttrMemoryClockRate, device);
    const int bus_bits = optional_attribute(cudaDevAttrGlobalMemoryBusWidth, device);
    c.dram_gbps = int(double(mem_khz) * 1e3 * 2.0 * bus_bits / 8.0 / 1e9);
    c.sm90a = library_has_sm90a() && c.cc_major == 9 && c.cc_minor == 0;
    // The occupancy query is for the current device: ask it of `device`, then restore.
    int current = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&current));
    if (current != device) GEMMLAB_CUDA_CHECK(cudaSetDevice(device));
    for (int i = 0; i < 3; ++i)
        c.clusters_of[i] = clusters_at_once(2 << i, c.smem_per_block_optin, c.cc_major);
    size_t available = 0;
    if (cudaMemGetInfo(&available, &c.memory_bytes) != cudaSuccess) {
        cudaGetLastError(); // not sticky: the size stays unknown
        c.memory_bytes = 0;
    }
    if (current != device) GEMMLAB_CUDA_CHECK(cudaSetDevice(current));
    return c;
}

} // namespace

bool library_has_sm90a() noexcept { return GEMMLAB_HAS_SM90A != 0; }

namespace {

thread_local int t_sm_count_target = 0;

DeviceCaps cached_caps(int device) {
    if (device < 0 || device >= kMaxCachedDevices) return query(device);
    CapsSlot& slot = g_slots[size_t(device)];
    if (slot.ready.load(std::memory_order_acquire)) return slot.caps;
    std::lock_guard<std::mutex> lock(slot.writing);
    if (!slot.ready.load(std::memory_order_relaxed)) {
        slot.caps = query(device); // throws before `ready` is set: the next call asks again
        slot.ready.store(true, std::memory_order_release);
    }
    return slot.caps;
}

} // namespace

DeviceCaps limit_sms(DeviceCaps caps, int target) {
    if (target <= 0 || target >= caps.sm_count) return caps;
    const int all = caps.sm_count;
    caps.sm_count = target;
    for (int i = 0; i < 3; ++i) { // clusters of 2, 4, 8 blocks
        const int size = 2 << i;
        caps.clusters_of[i] = std::min(caps.clusters_of[i] * target / all, target / size);
    }
    return caps;
}

SmCountTarget::SmCountTarget(int target) noexcept : previous_(t_sm_count_target) {
    t_sm_count_target = target;
}
SmCountTarget::~SmCountTarget() { t_sm_count_target = previous_; }
int SmCountTarget::current() noexcept { return t_sm_count_target; }

DeviceCaps device_caps(int device) { return limit_sms(cached_caps(device), t_sm_count_target); }

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
