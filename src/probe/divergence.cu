// divergence: what a warp pays for taking several paths (Vega10 microbenchmarks 2.5).
//
// Question: when the 32 lanes of one warp take P different branches, the warp runs the branches
// one after the other with the other lanes masked off. What does that cost for P = 1, 2, 4 ... 32,
// compared with the same P branches taken by whole warps? And does the source's fix, selecting the
// operands per lane and running one common path, remove the cost?
//
// Method: one block of 1024 threads (8 warps per scheduler: the FMA pipes are saturated, so time
// counts issued warp-instructions). Every thread runs exactly one FMA chain of 4096 steps, inside
//     for (p = 0; p < P; ++p) if (p == my_path) chain();
// so each thread does the same work whatever P is. my_path = lane % P (paths within a warp: the
// warp runs the chain P times) or warp % P (paths across warps: each warp runs it once). The third
// variant computes the chain's multiplier from the path id and runs one loop (no branch). Timed
// in-kernel with clock64(), median of 3.
//
// Keeping the work: the loop over p has a run-time trip count and the branch compares with a
// run-time path id, so the compiler can neither merge the copies nor run the chain once; the
// chain's result is stored only when < -1, which never happens but cannot be proven.
//
// Expected on H100 (and any SIMT GPU): within a warp the time grows as P (32 paths ~32x); across
// warps and with selected operands it stays ~1x. The Vega10 microbenchmarks showed 2x for 2 paths and
// ~1x after its operand swap.

#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr int kSteps = 4096;
constexpr int kRepeats = 3;

enum Mode : int { kWithinWarp = 0, kAcrossWarps = 1, kSelectedOperands = 2 };

__device__ __forceinline__ float chain(float v, float mul, float add, int steps) {
#pragma unroll 16
    for (int i = 0; i < steps; ++i) v = fmaf(v, mul, add);
    return v;
}

template <int kMode>
__global__ void paths_kernel(int paths, int steps, float* sink, long long* cycles) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = int(threadIdx.x & 31), warp = int(threadIdx.x >> 5);
    const int my_path = (kMode == kAcrossWarps ? warp : lane) % paths;
    const float add = __fdividef(1.0f, float(x + 1000u));
    float v = add;

    __syncthreads();
    const long long c0 = clock64();
    if constexpr (kMode == kSelectedOperands) {
        v = chain(v, 0.5f + 0.01f * float(my_path), add, steps);
    } else {
        for (int p = 0; p < paths; ++p)
            if (p == my_path) v = chain(v, 0.5f + 0.01f * float(p), add, steps);
    }
    __syncthreads();
    const long long c1 = clock64();

    if (v < -1.0f) sink[x] = v; // never true
    if (threadIdx.x == 0) cycles[0] = c1 - c0;
}

using PathsKernel = void (*)(int, int, float*, long long*);

double block_cycles(PathsKernel k, int threads, int paths, float* sink, long long* cycles) {
    std::vector<double> c;
    for (int rep = 0; rep <= kRepeats; ++rep) { // first launch warms up
        k<<<1, threads>>>(paths, kSteps, sink, cycles);
        GEMMLAB_CHECK_LAUNCH();
        long long h = 0;
        GEMMLAB_CUDA_CHECK(cudaMemcpy(&h, cycles, sizeof h, cudaMemcpyDeviceToHost));
        if (rep > 0) c.push_back(double(h));
    }
    return kit::median(c);
}

} // namespace

Result run_divergence(Context& ctx) {
    kit::ensure_clock(ctx);
    const int threads = std::min(1024, ctx.max_threads_per_block);
    DeviceBuffer<float> sink(threads);
    DeviceBuffer<long long> cycles(1);

    Table t;
    t.title = "time of 1024 threads x one 4096-step FMA chain vs distinct paths (one block)";
    t.columns = {"paths",        "within a warp", "within a warp",          "across warps",
                 "across warps", "selected operands", "slowdown within a warp",
                 "slowdown across warps"};
    t.units = {"count", "cycles", "ns", "cycles", "ns", "cycles", "x", "x"};
    double base_within = 0, base_across = 0, within32 = 0, across32 = 0, last_paths = 0;
    for (int paths = 1; paths <= 32; paths *= 2) {
        kit::progress(ctx, "divergence paths " + std::to_string(paths));
        const double w = block_cycles(paths_kernel<kWithinWarp>, threads, paths, sink.get(),
                                      cycles.get());
        const double a = block_cycles(paths_kernel<kAcrossWarps>, threads, paths, sink.get(),
                                      cycles.get());
        const double s = block_cycles(paths_kernel<kSelectedOperands>, threads, paths,
                                      sink.get(), cycles.get());
        if (paths == 1) {
            base_within = w;
            base_across = a;
        }
        t.rows.push_back({double(paths), w, ctx.cycles_to_ns(w), a, ctx.cycles_to_ns(a), s,
                          w / base_within, a / base_across});
        within32 = w;
        across32 = a;
        last_paths = paths;
    }

    Result r;
    r.tables.push_back(std::move(t));
    const std::string p = kit::num(last_paths);
    r.headlines.push_back({"within_warp_32_paths_slowdown", within32 / base_within, "x",
                           p + " paths within each warp: " + kit::num(within32 / base_within, 1) +
                               "x the time of one path (" + kit::cycles_and_ns(ctx, within32) +
                               " vs " + kit::cycles_and_ns(ctx, base_within) + ")"});
    r.headlines.push_back({"across_warps_32_paths_slowdown", across32 / base_across, "x",
                           "The same " + p + " paths taken by whole warps: " +
                               kit::num(across32 / base_across, 2) + "x (" +
                               kit::cycles_and_ns(ctx, across32) + ")"});
    return r;
}

} // namespace gemmlab::probe
