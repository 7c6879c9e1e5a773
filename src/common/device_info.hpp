#pragma once
// Facts about the device and the software stack, recorded with every result.

#include <string>

namespace gemmlab {

struct DeviceInfo {
    int device = 0;
    std::string name;
    int sm_count = 0;
    int cc_major = 0, cc_minor = 0;
    size_t l2_bytes = 0;
    size_t global_mem_bytes = 0;
    int driver_version = 0;  ///< e.g. 13000
    int runtime_version = 0; ///< e.g. 13000
    int cublas_version = 0;  ///< e.g. 130100
    int fp32_lanes_per_sm = 0;
    int fp64_lanes_per_sm = 0;
};

/// Number of visible CUDA devices; 0 (never an exception) when there is no GPU or driver.
int visible_device_count() noexcept;

/// Reads the properties of `device`; throws CudaFailure on error.
DeviceInfo query_device(int device);

/// FP32 / FP64 FMA lanes per SM of a compute capability (documented architecture facts);
/// 0 when unknown.
int fp32_lanes_per_sm(int cc_major, int cc_minor) noexcept;
int fp64_lanes_per_sm(int cc_major, int cc_minor) noexcept;

/// Measures the SM clock in MHz: a kernel spins on one SM for `spin_us` microseconds and
/// compares clock64() cycles against %globaltimer nanoseconds.
double measure_sm_clock_mhz(int device, double spin_us = 20000);

/// "YYYY-MM-DD HH:MM:SS UTC" now.
std::string utc_timestamp();

} // namespace gemmlab
