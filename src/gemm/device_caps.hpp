#pragma once
// What the library needs to know about a device before it launches a rung on it: compute
// capability, SM count and clock, shared memory and DRAM bandwidth, queried once per device and
// cached (thread-safe), so that a gemm call pays no device query. auto's model takes its inputs
// from here (src/gemm/auto_select.cu), so it scales with the device it runs on.

#include <string>

#include "gemmlab/kernels.hpp"

namespace gemmlab::detail {

struct DeviceCaps {
    int cc_major = 0, cc_minor = 0;
    int sm_count = 1;
    /// Peak SM clock in MHz (cudaDevAttrClockRate); 0 when the device does not say.
    int sm_clock_mhz = 0;
    /// Shared memory per SM and the most one block may opt in to, in bytes, and what the driver
    /// reserves per resident block (cudaDevAttrMaxSharedMemoryPerMultiprocessor,
    /// ...PerBlockOptin, cudaDevAttrReservedSharedMemoryPerBlock); 0 when unknown.
    int smem_per_sm = 0;
    int smem_per_block_optin = 0;
    int smem_reserved_per_block = 0;
    /// Peak DRAM bandwidth in GB/s from the memory clock and bus width (double data rate); 0
    /// when the device does not say.
    int dram_gbps = 0;
    /// Device memory in bytes (cudaMemGetInfo's total); 0 when unknown.
    size_t memory_bytes = 0;
    /// Compute capability 9.0 and this library has sm_90a code: the Hopper-only rungs
    /// (KernelInfo::needs_sm90a) can run.
    bool sm90a = false;
    /// Clusters of 2, 4 and 8 blocks that the device runs at once when each block fills an SM
    /// (cudaOccupancyMaxActiveClusters; a GPC holds whole clusters, so fewer than SMs / size);
    /// 0 where clusters are not supported or the query failed.
    int clusters_of[3] = {0, 0, 0};

    /// Clusters of `size` (2, 4 or 8) one-block-per-SM blocks that run at once; 0 otherwise.
    int clusters_at_once(int size) const {
        return size == 2 ? clusters_of[0] : size == 4 ? clusters_of[1] : size == 8 ? clusters_of[2] : 0;
    }
};

/// The caps of `device`, cached after the first query, with at most the calling thread's SM
/// count target of SMs (SmCountTarget). Throws CudaFailure if the query fails.
DeviceCaps device_caps(int device);

/// `caps` as a call limited to `target` SMs plans with them: sm_count at most `target`, and
/// the clusters that run at once cut to the share of SMs left (a GPC holds whole clusters).
/// target <= 0 leaves `caps` as it is.
DeviceCaps limit_sms(DeviceCaps caps, int target);

/// GemmOptions::sm_count_target for the calling thread while one call is enqueued: every caps
/// query of that call (auto's model, the persistent grids) sees at most this many SMs. Scoped,
/// so a call that fails or throws leaves the thread as it found it.
class SmCountTarget {
public:
    explicit SmCountTarget(int target) noexcept;
    ~SmCountTarget();
    SmCountTarget(const SmCountTarget&) = delete;
    SmCountTarget& operator=(const SmCountTarget&) = delete;
    /// The calling thread's target; 0 when none is set.
    static int current() noexcept;

private:
    int previous_;
};

/// The caps of the calling thread's current device.
DeviceCaps current_device_caps();

/// True when 90a was among CMAKE_CUDA_ARCHITECTURES at configure time.
bool library_has_sm90a() noexcept;

/// Empty when `info` can run on `device`; else the reason, naming the rung, its requirement and
/// the device's compute capability (the UnsupportedDevice message). Throws CudaFailure.
std::string device_unsupported_reason(const KernelInfo& info, int device);

} // namespace gemmlab::detail
