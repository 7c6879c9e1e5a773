// make_context: what every probe may read about the device, gathered once before the probes run.
// Everything comes from cudaGetDeviceProperties except the FMA lane counts (documented
// architecture facts, src/common/device_info.hpp) and clock_mhz, which the `clock` probe measures.

#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/device_info.hpp"
#include "gemmlab/probe.hpp"

namespace gemmlab::probe {

Context make_context(int device) {
    GEMMLAB_CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp p{};
    GEMMLAB_CUDA_CHECK(cudaGetDeviceProperties(&p, device));

    Context ctx;
    ctx.device = device;
    ctx.name = p.name;
    ctx.sm_count = p.multiProcessorCount;
    ctx.cc_major = p.major;
    ctx.cc_minor = p.minor;
    ctx.max_threads_per_block = p.maxThreadsPerBlock;
    ctx.max_threads_per_sm = p.maxThreadsPerMultiProcessor;
    ctx.regs_per_sm = p.regsPerMultiprocessor;
    ctx.regs_per_block = p.regsPerBlock;
    ctx.smem_per_block_optin = p.sharedMemPerBlockOptin;
    ctx.smem_per_sm = p.sharedMemPerMultiprocessor;
    ctx.l2_bytes = size_t(p.l2CacheSize);
    ctx.mem_bus_width_bits = p.memoryBusWidth;
    ctx.clock_mhz = 0.0; // measured by the clock probe
    ctx.fp32_lanes_per_sm = gemmlab::fp32_lanes_per_sm(p.major, p.minor);
    ctx.fp64_lanes_per_sm = gemmlab::fp64_lanes_per_sm(p.major, p.minor);
    return ctx;
}

} // namespace gemmlab::probe
