// uniform: warp-uniform values and control flow, NVIDIA's counterpart of scalar registers
// (Vega10 microbenchmarks 2.4).
//
// Question: GCN keeps values shared by a whole wave in scalar registers (SGPRs) and runs loop
// control on a scalar unit. Since Turing, NVIDIA SMs have a uniform datapath: 63 uniform
// registers per warp (UR0..UR62, URZ) and uniform instructions (UIADD3, UISETP, ULDC, UMOV, ...)
// that run once per warp. The compiler uses them for values it can prove equal across the warp:
// kernel parameters, blockIdx, loop counters whose bounds are such values. What does a loop cost
// when its bounds and operands are provably uniform, compared with the same loop over per-thread
// values?
//
// Method: one loop, 4096 trips, 4 independent FMA chains per trip whose multiplier is read from a
// 64-entry __constant__ table. Three variants, same arithmetic:
//   0 uniform:           trip count is a kernel parameter, table index = trip & 63
//   1 per-thread bounds: trip count loaded per thread from global memory (equal in every thread at
//                        run time, but the compiler cannot know), so the counter and the table
//                        index live in vector registers
//   2 per-lane operand:  uniform loop, but table index = (trip + lane) & 63: 32 different constant
//                        addresses per warp, which the constant cache serves one at a time
// Each runs as one block of 128 threads (one warp per scheduler: latency shows) and 1024 threads
// (eight warps per scheduler: issue throughput shows), timed in-kernel with clock64(), median of 3.
// Reported as cycles per trip for one warp: block cycles x 4 schedulers / (warps x trips).
//
// SASS evidence (`cuobjdump -sass` on the object holding this file, kernel uniform_loop<0> vs <1>;
// sm_90 spellings, to be confirmed against the actual dump): in variant 0 the loop counter and
// table address are uniform, e.g. `UIADD3 UR4, UR4, 0x1, URZ`, `ULOP3.LUT`/`ULEA` for the index,
// a constant-bank read `ULDC UR5, c[0x3][UR6]` (or `LDC R, c[0x3][UR6]`), and the exit test
// `UISETP.NE.AND UP0, ...` / `ISETP ... UR`; in variant 1 the same work appears as vector
// `IADD3 R..`, `LOP3.LUT R..`, `LDC R.., c[0x3][R..]`, `ISETP.GE.AND P0, PT, R.., R..`.
//
// Keeping the work: the multipliers come from the constant table, the addend from the thread
// index; the chains' sum is stored only when < -1, which never happens but cannot be proven.
//
// Expected on H100: variants 0 and 1 within a few cycles per trip of each other (the uniform
// datapath saves vector issue slots and registers rather than latency), variant 1 a little slower
// at eight warps per scheduler; variant 2 several times slower (constant-cache serialization:
// roughly one lane address per cycle or two).

#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr int kTableSize = 64;
constexpr int kTrips = 4096;
constexpr int kRepeats = 3;
constexpr int kSchedulersPerSm = 4; // sm_70 and later

__constant__ float c_multiplier[kTableSize];

template <int kVariant>
__global__ void uniform_loop(int trips, const int* per_thread_trips, float* sink,
                             long long* cycles) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = int(threadIdx.x & 31);
    const float add = __fdividef(1.0f, float(x + 1000u));
    float a0 = add, a1 = 2 * add, a2 = 3 * add, a3 = 4 * add;
    int n = trips;
    if constexpr (kVariant == 1) n = per_thread_trips[x]; // same value, not provably uniform

    __syncthreads();
    const long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < n; ++i) {
        int idx = i & (kTableSize - 1);
        if constexpr (kVariant == 2) idx = (i + lane) & (kTableSize - 1);
        const float c = c_multiplier[idx];
        a0 = fmaf(a0, c, add);
        a1 = fmaf(a1, c, add);
        a2 = fmaf(a2, c, add);
        a3 = fmaf(a3, c, add);
    }
    __syncthreads();
    const long long c1 = clock64();

    const float s = a0 + a1 + a2 + a3;
    if (s < -1.0f) sink[x] = s; // never true
    if (threadIdx.x == 0) cycles[0] = c1 - c0;
}

using LoopKernel = void (*)(int, const int*, float*, long long*);

/// Cycles per trip for one warp with `threads` threads in the block.
double cycles_per_trip(LoopKernel k, int threads, const int* per_thread, float* sink,
                       long long* cycles) {
    std::vector<double> c;
    for (int rep = 0; rep <= kRepeats; ++rep) { // first launch warms up
        k<<<1, threads>>>(kTrips, per_thread, sink, cycles);
        GEMMLAB_CHECK_LAUNCH();
        long long h = 0;
        GEMMLAB_CUDA_CHECK(cudaMemcpy(&h, cycles, sizeof h, cudaMemcpyDeviceToHost));
        if (rep > 0) c.push_back(double(h));
    }
    const int warps = threads / 32;
    return kit::median(c) * kSchedulersPerSm / (double(warps) * kTrips);
}

} // namespace

Result run_uniform(Context& ctx) {
    kit::ensure_clock(ctx);
    std::vector<float> table(kTableSize);
    for (int i = 0; i < kTableSize; ++i) table[i] = 0.5f + 0.4f * float(i) / kTableSize;
    GEMMLAB_CUDA_CHECK(cudaMemcpyToSymbol(c_multiplier, table.data(), sizeof(float) * kTableSize));

    const int max_threads = std::min(1024, ctx.max_threads_per_block);
    std::vector<int> trips(max_threads, kTrips);
    DeviceBuffer<int> d_trips(max_threads);
    d_trips.copy_from_host(trips.data(), trips.size());
    DeviceBuffer<float> sink(max_threads);
    DeviceBuffer<long long> cycles(1);

    const LoopKernel kernels[] = {uniform_loop<0>, uniform_loop<1>, uniform_loop<2>};
    Table t;
    t.title = "cycles per loop trip per warp: 0 uniform bounds+operand, 1 per-thread bounds, "
              "2 per-lane constant index";
    t.columns = {"variant", "1 warp per scheduler", "1 warp per scheduler", "8 warps per scheduler",
                 "8 warps per scheduler"};
    t.units = {"index", "cycles", "ns", "cycles", "ns"};
    double one[3] = {}, eight[3] = {};
    for (int v = 0; v < 3; ++v) {
        kit::progress(ctx, "uniform variant " + std::to_string(v));
        one[v] = cycles_per_trip(kernels[v], 128, d_trips.get(), sink.get(), cycles.get());
        eight[v] = cycles_per_trip(kernels[v], max_threads, d_trips.get(), sink.get(),
                                   cycles.get());
        t.rows.push_back({double(v), one[v], ctx.cycles_to_ns(one[v]), eight[v],
                          ctx.cycles_to_ns(eight[v])});
    }

    Result r;
    r.tables.push_back(std::move(t));
    r.headlines.push_back({"uniform_loop_cycles", one[0], "cycles",
                           "Loop trip with warp-uniform bounds and operand: " +
                               kit::cycles_and_ns(ctx, one[0], 1) + " (" +
                               kit::num(eight[0], 1) + " cycles at 8 warps/scheduler)"});
    r.headlines.push_back({"per_thread_loop_cycles", one[1], "cycles",
                           "Same loop with per-thread bounds: " +
                               kit::cycles_and_ns(ctx, one[1], 1) + ", " +
                               kit::num(one[1] / one[0], 2) + "x the uniform loop (" +
                               kit::num(eight[1] / eight[0], 2) + "x at 8 warps/scheduler)"});
    r.headlines.push_back({"per_lane_constant_cycles", one[2], "cycles",
                           "Constant operand indexed per lane (32 addresses per warp): " +
                               kit::cycles_and_ns(ctx, one[2], 1) + " per trip, " +
                               kit::num(one[2] / one[0], 1) + "x the uniform loop"});
    return r;
}

} // namespace gemmlab::probe
