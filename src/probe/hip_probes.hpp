#pragma once
// The probes of the HIP build: those whose source compiles for AMD GPUs and means there what it
// means on NVIDIA (cmake/gemmlab_hip.cmake lists the others and why they stay out).

#include <cstdio>
#include <span>
#include <string>
#include <vector>

#include "gemmlab/probe.hpp"

namespace gemmlab::probe {

/// clock, launch-rate, fma, latency, smem-latency, smem-bank and bandwidth, in that order (the
/// others convert with the clock), as the CUDA build's table orders them.
std::span<const ProbeInfo> hip_probes() noexcept;

/// Runs the named probes (all when `names` is empty) on device 0, `clock` first, and prints
/// every headline to `out`. False when a name is not a probe of the HIP build.
bool run_hip_probes(const std::vector<std::string>& names, std::FILE* out);

} // namespace gemmlab::probe
