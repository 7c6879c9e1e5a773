// Probe `bandwidth` (no source section): the ceilings the other probes are read against.
//
// Question: how many bytes per second can the SMs read from DRAM, write to it, and copy within
// it; how fast do they read from L2; how many bytes per cycle does one SM read from shared memory?
//
// Method:
//  - DRAM: 1 GiB buffers (20x the 50 MB L2 of an H100), one pass per launch, grid-stride with four
//    16-byte accesses in flight per thread, 2048 threads per SM. Read, write, and copy (bytes read
//    plus bytes written counted), and cudaMemcpyAsync device-to-device for comparison.
//  - L2: a footprint from 4 MiB to 512 MiB read again and again within one launch with
//    ld.global.cg (cached in L2, not in L1): 8 GiB per launch, so each timed launch lasts >= ~1 ms
//    even at L2 speed and the event timer's resolution cannot set the figure. The passes are one
//    stream of 8 GiB / 16 B indices taken modulo the footprint (a power of two), so every thread
//    keeps four loads in flight at every footprint: with a grid-stride loop restarted per pass,
//    a 4 MiB footprint gave each thread one load per pass and read slower than 64 MiB did.
//    Footprints well under the L2 give its bandwidth; large ones fall to DRAM (in between, L2
//    hits and DRAM reads add up and can beat either). The L2 headline is the best plateau of
//    footprints up to half the reported L2: half, to be safe, since H100/H200 L2 is two partitions
//    and lines can be duplicated into the reading SM's near one, so not all of it holds distinct
//    data.
//  - Shared memory: every thread reads 16 bytes per ld.shared.v4, the warp's 512 bytes contiguous
//    (conflict-free), from a 32 KiB array per block, 4096 x 8 loads each; bytes per SM per cycle
//    from event time and the measured SM clock.
// Keeping the work: every load feeds a sum that is stored only if it equals a value it can never
// take (all inputs are positive); L2 and shared-memory loads are probe_kit.cuh's kit::load_cg_x4
// and kit::lds_v4 (asm volatile; PTX ld.volatile for shared, so that ptxas too keeps every one),
// so they can be neither hoisted out of the repeat loop nor merged.
//
// Expected on H100 SXM (HBM3, 3.35 TB/s peak): read ~3.0 TB/s, copy ~2.6-3.0 TB/s; L2 roughly
// 2-4x DRAM (H200, 4.8 TB/s peak: read ~4.4 TB/s, L2 ~8 TB/s); shared memory close to 128 B per cycle per SM (32 banks x 4 B), ~30 TB/s in all.
//
// On AMD (HIP build): the same kernels. L2 reads are global_load_dwordx4 with glc (misses the
// CU's vector L1), four issued before one s_waitcnt; the L2 sweep starts below 4 MiB where a
// quarter of the L2 is smaller (4 MiB on MI50 and Vega 10), so that two footprints fit in half of
// it; shared memory is LDS read with ds_read_b128, a wavefront reading 1024 contiguous bytes
// (GCN's LDS also moves 128 B per cycle per CU). Bytes per cycle use clock64 (s_memtime) ticks at
// the rate the clock probe measures. Not run on AMD yet (docs/hip.md).

#include <algorithm>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/gpu_runtime.hpp"
#include "probe/membw_common.cuh"
#include "probe/probe_kit.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kBlock = 256;
constexpr float kNever = -1.0f; // sums of positive values never equal it

__device__ __forceinline__ float sum4(float4 v) { return (v.x + v.y) + (v.z + v.w); }

// One pass over in[0, n4): four independent loads in flight per thread.
__global__ void dram_read_kernel(const float4* __restrict__ in, size_t n4, float* sink) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    for (; i + 3 * stride < n4; i += 4 * stride) {
        const float4 a = in[i], b = in[i + stride], c = in[i + 2 * stride], d = in[i + 3 * stride];
        acc0 += sum4(a);
        acc1 += sum4(b);
        acc2 += sum4(c);
        acc3 += sum4(d);
    }
    for (; i < n4; i += stride) acc0 += sum4(in[i]);
    const float acc = (acc0 + acc1) + (acc2 + acc3);
    if (acc == kNever) *sink = acc;
}

__global__ void dram_write_kernel(float4* __restrict__ out, size_t n4, float base) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n4; i += stride) {
        const float v = base + float(i & 1023);
        out[i] = make_float4(v, v + 1, v + 2, v + 3);
    }
}

// `total` reads of in[j & mask] through L2 (kit::load_cg skips L1): total / (mask + 1) passes
// over a power-of-two footprint, as one grid-stride stream so that four loads stay in flight per
// thread however small the footprint.
__global__ void l2_read_kernel(const float4* __restrict__ in, size_t mask, size_t total, float* sink) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t j = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    float acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
    for (; j + 3 * stride < total; j += 4 * stride) {
        float4 v[4];
        kit::load_cg_x4(in + (j & mask), in + ((j + stride) & mask), in + ((j + 2 * stride) & mask),
                        in + ((j + 3 * stride) & mask), v);
        acc0 += sum4(v[0]);
        acc1 += sum4(v[1]);
        acc2 += sum4(v[2]);
        acc3 += sum4(v[3]);
    }
    for (; j < total; j += stride) acc0 += sum4(kit::load_cg(in + (j & mask)));
    const float acc = (acc0 + acc1) + (acc2 + acc3);
    if (acc == kNever) *sink = acc;
}

constexpr int kSmemLoadsPerIter = 8;
constexpr int kSmemElems = kBlock * kSmemLoadsPerIter; // float4s per block: 32 KiB

// Thread t reads buf[t + k * kBlock], k = 0..7: each warp-wide load is kWarpSize x 16 contiguous
// bytes.
__global__ void __launch_bounds__(kBlock) smem_read_kernel(int iters, float* sink) {
    __shared__ float4 buf[kSmemElems];
    for (int i = threadIdx.x; i < kSmemElems; i += blockDim.x)
        buf[i] = make_float4(float(i) + 1, float(i) + 2, float(i) + 3, float(i) + 4);
    __syncthreads();
    const uint32_t base = kit::smem_addr(&buf[threadIdx.x]);
    float4 acc = make_float4(0, 0, 0, 0);
    for (int it = 0; it < iters; ++it) {
        float4 v[kSmemLoadsPerIter]; // all loads issued before any result is used
#pragma unroll
        for (int k = 0; k < kSmemLoadsPerIter; ++k) v[k] = kit::lds_v4(base + uint32_t(k * kBlock * sizeof(float4)));
#pragma unroll
        for (int k = 0; k < kSmemLoadsPerIter; ++k) {
            acc.x += v[k].x;
            acc.y += v[k].y;
            acc.z += v[k].z;
            acc.w += v[k].w;
        }
    }
    const float s = sum4(acc);
    if (s == kNever) *sink = s;
}

} // namespace

Result run_bandwidth(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();
    const int grid = stream_grid(ctx);
    DeviceBuffer<float> sink(1);
    Result r;
    // The words of the output: NVIDIA's instructions and API, or AMD's.
    const char* memcpy_name = kHipBuild ? "hipMemcpyAsync" : "cudaMemcpyAsync";
    const char* l2_load = kHipBuild ? "global_load_dwordx4 glc" : "ld.global.cg";
    const char* smem_load = kHipBuild ? "ds_read_b128" : "ld.shared.v4";
    const char* warp_word = kHipBuild ? "wavefront" : "warp";

    // ---------------------------------------------------------------- DRAM
    constexpr size_t kDramBytes = size_t(1) << 30;
    const size_t n4 = kDramBytes / sizeof(float4);
    DeviceBuffer<float4> a(n4), b(n4);
    fill_uniform(reinterpret_cast<float*>(a.get()), n4 * 4, fresh_seed(), 0.5f, 1.0f, s);
    fill_uniform(reinterpret_cast<float*>(b.get()), n4 * 4, fresh_seed(), 0.5f, 1.0f, s);
    const double gb = double(kDramBytes) * 1e-9;

    progress(ctx, "bandwidth: DRAM read");
    const double read_ms = median_ms(
        [&](cudaStream_t st) {
            dram_read_kernel<<<grid, kBlock, 0, st>>>(a.get(), n4, sink.get());
            GEMMLAB_CHECK_LAUNCH();
        },
        s);
    progress(ctx, "bandwidth: DRAM write");
    const double write_ms = median_ms(
        [&](cudaStream_t st) {
            dram_write_kernel<<<grid, kBlock, 0, st>>>(b.get(), n4, 1.5f);
            GEMMLAB_CHECK_LAUNCH();
        },
        s);
    progress(ctx, "bandwidth: DRAM copy");
    const double copy_ms = median_ms([&](cudaStream_t st) { launch_copy(a.get(), b.get(), n4, grid, st); }, s);
    const double memcpy_ms = median_ms(
        [&](cudaStream_t st) {
            GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(b.get(), a.get(), kDramBytes, cudaMemcpyDeviceToDevice, st));
        },
        s);
    const double read_gbps = gb / (read_ms * 1e-3);
    const double write_gbps = gb / (write_ms * 1e-3);
    const double copy_gbps = 2 * gb / (copy_ms * 1e-3);
    const double memcpy_gbps = 2 * gb / (memcpy_ms * 1e-3);
    r.tables.push_back(Table{
        strf("DRAM bandwidth over 1 GiB buffers (rows: 1 read, 2 write, 3 copy kernel, 4 %s "
             "device to device; copies count bytes read + bytes written)",
             memcpy_name),
        {"test", "bytes moved", "time", "bandwidth"},
        {"#", "GiB", "ms", "GB/s"},
        {{1, 1, read_ms, read_gbps}, {2, 1, write_ms, write_gbps}, {3, 2, copy_ms, copy_gbps},
         {4, 2, memcpy_ms, memcpy_gbps}}});

    // ---------------------------------------------------------------- L2 (and beyond) by footprint
    Table l2t{strf("read bandwidth vs footprint, 8 GiB per launch in repeated passes with %s (L2 up "
                   "to its size, then DRAM)",
                   l2_load),
              {"footprint", "bandwidth"},
              {"MiB", "GB/s"},
              {}};
    // 8 GiB read per launch: >= ~1 ms even at L2 speed, so event resolution does not matter.
    constexpr size_t kL2ReadBytes = size_t(8) << 30;
    const size_t total4 = kL2ReadBytes / sizeof(float4);
    double l2_gbps = 0, l2_footprint_mib = 0, l2_low_gbps = 0, l2_low_mib = 0, l2_high_mib = 0;
    // From 4 MiB, or lower where a quarter of the L2 is smaller (AMD's 4-8 MiB), so that at least
    // two footprints fit in half of it.
    size_t first_mib = 4;
    while (first_mib > 1 && double(first_mib << 20) > 0.25 * double(ctx.l2_bytes)) first_mib /= 2;
    for (size_t mib = first_mib; mib <= 512; mib *= 2) {
        progress(ctx, strf("bandwidth: L2 read, %zu MiB footprint", mib));
        const size_t fp4 = (mib << 20) / sizeof(float4); // a power of two: j & (fp4 - 1) wraps
        const double ms = median_ms(
            [&](cudaStream_t st) {
                l2_read_kernel<<<grid, kBlock, 0, st>>>(a.get(), fp4 - 1, total4, sink.get());
                GEMMLAB_CHECK_LAUNCH();
            },
            s);
        const double gbps = double(kL2ReadBytes) / (ms * 1e6);
        l2t.rows.push_back({double(mib), gbps});
        // The plateau: footprints up to half the L2, which fit however lines are duplicated.
        if (double(mib << 20) <= 0.5 * double(ctx.l2_bytes)) {
            if (l2_low_mib == 0) l2_low_mib = double(mib);
            l2_high_mib = double(mib);
            l2_low_gbps = l2_low_gbps == 0 ? gbps : std::min(l2_low_gbps, gbps);
            if (gbps > l2_gbps) {
                l2_gbps = gbps;
                l2_footprint_mib = double(mib);
            }
        }
    }
    r.tables.push_back(std::move(l2t));

    // ---------------------------------------------------------------- shared memory
    Table smt{strf("shared-memory read bandwidth: %s, each %s reading %d contiguous bytes", smem_load,
                   warp_word, int(kWarpSize * sizeof(float4))),
              {"blocks per SM", strf("%ss per SM", warp_word), "bytes per cycle per SM", "bandwidth"},
              {"", "", "B/cycle/SM", "GB/s"},
              {}};
    constexpr int kIters = 4096;
    double smem_bpc = 0, smem_gbps = 0;
    for (int blocks_per_sm : {1, 2, 4}) {
        progress(ctx, strf("bandwidth: shared memory, %d blocks per SM", blocks_per_sm));
        const int g = ctx.sm_count * blocks_per_sm;
        const double ms = median_ms(
            [&](cudaStream_t st) {
                smem_read_kernel<<<g, kBlock, 0, st>>>(kIters, sink.get());
                GEMMLAB_CHECK_LAUNCH();
            },
            s);
        const double bytes = double(g) * kBlock * kIters * kSmemLoadsPerIter * sizeof(float4);
        const double bpc = bytes / (ms * 1e-3 * ctx.clock_mhz * 1e6 * ctx.sm_count);
        const double gbps = bytes / (ms * 1e6);
        smt.rows.push_back({double(blocks_per_sm), double(blocks_per_sm * kBlock / kWarpSize), bpc, gbps});
        if (bpc > smem_bpc) {
            smem_bpc = bpc;
            smem_gbps = gbps;
        }
    }
    r.tables.push_back(std::move(smt));

    r.headlines.push_back({"dram_copy_gbps", copy_gbps, "GB/s",
                           strf("DRAM copy: %.0f GB/s (bytes read + written, 1 GiB buffers; %s "
                                "%.0f GB/s); read alone %.0f GB/s, write alone %.0f GB/s",
                                copy_gbps, kHipBuild ? "hipMemcpy" : "cudaMemcpy", memcpy_gbps, read_gbps,
                                write_gbps)});
    r.headlines.push_back({"dram_read_gbps", read_gbps, "GB/s", strf("DRAM read: %.0f GB/s over 1 GiB", read_gbps)});
    r.headlines.push_back({"l2_read_gbps", l2_gbps, "GB/s",
                           strf("L2 read: %.0f GB/s (best of footprints %.0f-%.0f MiB, all within half the "
                                "%.0f MiB L2 so that they surely fit; at %.0f MiB; slowest of them %.0f GB/s; "
                                "%s), %.1fx DRAM read",
                                l2_gbps, l2_low_mib, l2_high_mib, double(ctx.l2_bytes) / 1048576.0,
                                l2_footprint_mib, l2_low_gbps, l2_load, l2_gbps / read_gbps)});
    r.headlines.push_back({"smem_read_bytes_per_cycle_sm", smem_bpc, "B/cycle/SM",
                           strf("shared-memory read: %.1f B per cycle per SM (%.1f TB/s over %d SMs at "
                                "%.0f MHz; 32 banks x 4 B = 128 B/cycle)",
                                smem_bpc, smem_gbps * 1e-3, ctx.sm_count, ctx.clock_mhz)});
    return r;
}

} // namespace gemmlab::probe
