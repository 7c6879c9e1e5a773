// make_context: what every probe may read about the device, gathered once before the probes run.
// Everything comes from cudaGetDeviceProperties except the FMA lane counts (documented
// architecture facts, src/common/device_info.hpp) and clock_mhz, which the `clock` probe measures.

#include "common/gpu_runtime.hpp"

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
#if defined(GEMMLAB_HIP)
    // hipDeviceProp_t (HIP 5.2) has no per-CU register count and no opt-in shared memory: a
    // CU's register file is not one number on GCN (per SIMD), and LDS per block is its total.
    ctx.regs_per_sm = 0;
    ctx.regs_per_block = p.regsPerBlock;
    ctx.smem_per_block_optin = p.sharedMemPerBlock;
    ctx.smem_per_sm = p.maxSharedMemoryPerMultiProcessor;
#else
    ctx.regs_per_sm = p.regsPerMultiprocessor;
    ctx.regs_per_block = p.regsPerBlock;
    ctx.smem_per_block_optin = p.sharedMemPerBlockOptin;
    ctx.smem_per_sm = p.sharedMemPerMultiprocessor;
#endif
    ctx.l2_bytes = size_t(p.l2CacheSize);
    ctx.mem_bus_width_bits = p.memoryBusWidth;
    ctx.clock_mhz = 0.0; // measured by the clock probe
#if defined(GEMMLAB_HIP)
    // A GCN/CDNA compute unit has 4 SIMD16 units: 64 FP32 lanes. Its FP64 rate is not a fact
    // of the architecture number (gfx906 is 1/2 on MI50/MI60, 1/4 on Radeon VII): 0, unknown.
    // (major, minor) is the gfx number here, which device_info's NVIDIA table would misread.
    ctx.fp32_lanes_per_sm = 64;
    ctx.fp64_lanes_per_sm = 0;
#else
    ctx.fp32_lanes_per_sm = gemmlab::fp32_lanes_per_sm(p.major, p.minor);
    ctx.fp64_lanes_per_sm = gemmlab::fp64_lanes_per_sm(p.major, p.minor);
#endif
    return ctx;
}

} // namespace gemmlab::probe
