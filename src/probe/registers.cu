// registers: the per-thread register limit, and what spilling past it costs (Vega10 microbenchmarks 2.3).
//
// Question: how many registers may one thread hold, and what happens to speed when a kernel
// needs more live values than it gets registers?
//
// Method: the source finds Vega's VGPR limit by writing v255 / v256 in inline assembly. PTX has
// unlimited virtual registers, so on NVIDIA the limit shows up in ptxas' allocation instead: a
// kernel keeps R floats live across a loop (R independent FMA chains, fully unrolled, so every
// value must sit in a register or in local memory), instantiated for R = 16 .. 320. For each
// instantiation cudaFuncGetAttributes reports the registers allocated and the local memory per
// thread (the spill area); the largest register count the compiler ever allocates is the limit.
// Second sweep: R = 96 live values compiled with __maxnreg__(cap) (the per-kernel form of
// -maxrregcount) for caps from 128 down to 32, forcing more and more spills. Each variant runs as
// one block of 256 threads (256 x 255 registers still fit the 64K register file) on one SM, timed
// in-kernel with clock64() (median of 3); every variant does about 32768 FMA per thread.
//
// Keeping the work: mul and add come from the thread index; the sum of all R chains is stored
// only when < -1, which never happens but the compiler cannot prove, so no chain can be dropped.
//
// Expected on H100: at most 255 registers per thread (R0..R254; RZ is the 256th encoding), reached
// near R = 240; from R ~ 248 the compiler spills and the rate, ~120+ FMA/cycle/SM before, falls;
// with a 32-register cap each FMA drags local loads/stores through L1 and runs several times
// slower. Note: the build's -Xptxas=-warn-spills prints warnings for the spilling variants; they
// are the point of this probe.

#include <algorithm>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr int kThreads = 256;
constexpr int kFmaPerThread = 1 << 15;
constexpr int kRepeats = 3;

// R live floats, updated in place every trip: the body that both sweeps share.
template <int R>
__device__ __forceinline__ void live_values_body(int iters, float* sink, long long* cycles) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    // Fast division: no slow-path subroutine whose own spills would muddy the capped variants.
    const float mul = __fdividef(float(x), float(x + 1u));
    const float add = __fdividef(1.0f, float(x + 100000000u));
    float v[R]; // (R) one register each, or local memory once they no longer fit
#pragma unroll
    for (int k = 0; k < R; ++k) v[k] = add * float(k + 1);

    __syncthreads();
    const long long c0 = clock64();
#pragma unroll 1
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < R; ++k) v[k] = fmaf(v[k], mul, add);
    }
    __syncthreads();
    const long long c1 = clock64();

    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < R; ++k) s += v[k];
    if (s < -1.0f) sink[x] = s; // never true
    if (threadIdx.x == 0) cycles[blockIdx.x] = c1 - c0;
}

template <int R>
__global__ void live_kernel(int iters, float* sink, long long* cycles) {
    live_values_body<R>(iters, sink, cycles);
}

template <int R, int kMaxRegs>
__global__ void __maxnreg__(kMaxRegs) capped_kernel(int iters, float* sink, long long* cycles) {
    live_values_body<R>(iters, sink, cycles);
}

using RegKernel = void (*)(int, float*, long long*);
struct Variant {
    int live;  // R
    int cap;   // __maxnreg__, 0 = none
    RegKernel fn;
};

const Variant kNatural[] = {
    {16, 0, live_kernel<16>},   {32, 0, live_kernel<32>},   {64, 0, live_kernel<64>},
    {96, 0, live_kernel<96>},   {128, 0, live_kernel<128>}, {160, 0, live_kernel<160>},
    {192, 0, live_kernel<192>}, {224, 0, live_kernel<224>}, {240, 0, live_kernel<240>},
    {248, 0, live_kernel<248>}, {256, 0, live_kernel<256>}, {288, 0, live_kernel<288>},
    {320, 0, live_kernel<320>},
};

constexpr int kCappedLive = 96;
const Variant kCapped[] = {
    {kCappedLive, 0, live_kernel<kCappedLive>},
    {kCappedLive, 128, capped_kernel<kCappedLive, 128>},
    {kCappedLive, 112, capped_kernel<kCappedLive, 112>},
    {kCappedLive, 104, capped_kernel<kCappedLive, 104>},
    {kCappedLive, 96, capped_kernel<kCappedLive, 96>},
    {kCappedLive, 88, capped_kernel<kCappedLive, 88>},
    {kCappedLive, 80, capped_kernel<kCappedLive, 80>},
    {kCappedLive, 64, capped_kernel<kCappedLive, 64>},
    {kCappedLive, 48, capped_kernel<kCappedLive, 48>},
    {kCappedLive, 32, capped_kernel<kCappedLive, 32>},
};

struct Measured {
    int regs;
    size_t local_bytes;
    double fma_per_cycle; // per SM; 0 when the variant cannot launch
};

Measured measure(const Variant& v, float* sink, long long* cycles) {
    cudaFuncAttributes attr{};
    GEMMLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, v.fn));
    Measured m{attr.numRegs, attr.localSizeBytes, 0.0};
    if (attr.maxThreadsPerBlock < kThreads) return m;
    const int iters = std::max(1, kFmaPerThread / v.live);
    std::vector<double> c;
    for (int rep = 0; rep <= kRepeats; ++rep) { // the first launch warms up
        v.fn<<<1, kThreads>>>(iters, sink, cycles);
        GEMMLAB_CHECK_LAUNCH();
        long long h = 0;
        GEMMLAB_CUDA_CHECK(cudaMemcpy(&h, cycles, sizeof h, cudaMemcpyDeviceToHost));
        if (rep > 0) c.push_back(double(h));
    }
    m.fma_per_cycle = double(kThreads) * iters * v.live / kit::median(c);
    return m;
}

} // namespace

Result run_registers(Context& ctx) {
    kit::ensure_clock(ctx);
    DeviceBuffer<float> sink(kThreads);
    DeviceBuffer<long long> cycles(1);

    Table natural;
    natural.title = "registers and FMA rate vs live floats per thread (no cap; 1 block x 256)";
    natural.columns = {"live values", "registers", "local memory", "FMA per cycle per SM",
                       "time per FMA per warp"};
    natural.units = {"floats", "registers/thread", "B/thread", "FMA/cycle/SM", "cycles"};
    int max_regs = 0, first_spill = 0;
    size_t first_spill_bytes = 0;
    for (const Variant& v : kNatural) {
        kit::progress(ctx, "registers live " + std::to_string(v.live));
        const Measured m = measure(v, sink.get(), cycles.get());
        max_regs = std::max(max_regs, m.regs);
        if (m.local_bytes > 0 && first_spill == 0) {
            first_spill = v.live;
            first_spill_bytes = m.local_bytes;
        }
        // A warp issues 32 FMA per instruction; per SM there are kThreads/32 warps.
        const double warp_cycles =
            m.fma_per_cycle > 0 ? double(kThreads) / m.fma_per_cycle : 0.0;
        natural.rows.push_back(
            {double(v.live), double(m.regs), double(m.local_bytes), m.fma_per_cycle, warp_cycles});
    }

    Table capped;
    capped.title = "FMA rate vs register cap (__maxnreg__) for " + std::to_string(kCappedLive) +
                   " live floats (0 = no cap; 1 block x 256)";
    capped.columns = {"register cap", "registers", "local memory", "FMA per cycle per SM",
                      "slowdown"};
    capped.units = {"registers/thread", "registers/thread", "B/thread", "FMA/cycle/SM", "x"};
    double base_rate = 0, worst_rate = 0;
    int worst_cap = 0;
    size_t worst_bytes = 0;
    for (const Variant& v : kCapped) {
        kit::progress(ctx, "registers cap " + std::to_string(v.cap));
        const Measured m = measure(v, sink.get(), cycles.get());
        max_regs = std::max(max_regs, m.regs);
        if (v.cap == 0) base_rate = m.fma_per_cycle;
        if (m.fma_per_cycle > 0) { // the table ends with the tightest cap
            worst_rate = m.fma_per_cycle;
            worst_cap = v.cap;
            worst_bytes = m.local_bytes;
        }
        capped.rows.push_back({double(v.cap), double(m.regs), double(m.local_bytes),
                               m.fma_per_cycle,
                               m.fma_per_cycle > 0 ? base_rate / m.fma_per_cycle : 0.0});
    }
    const double slowdown = worst_rate > 0 ? base_rate / worst_rate : 0.0;

    Result r;
    r.tables = {std::move(natural), std::move(capped)};
    r.headlines.push_back(
        {"max_registers_per_thread", double(max_regs), "registers",
         "Registers per thread: the compiler allocates at most " + std::to_string(max_regs) +
             (first_spill > 0
                  ? "; " + std::to_string(first_spill) + " live floats already spill (" +
                        std::to_string(first_spill_bytes) + " B of local memory per thread)"
                  : std::string("; no variant spilled"))});
    r.headlines.push_back(
        {"spill_slowdown_x", slowdown, "x",
         "Spilling: " + std::to_string(kCappedLive) + " live floats capped at " +
             std::to_string(worst_cap) + " registers (" + std::to_string(worst_bytes) +
             " B local per thread) run " + kit::num(slowdown, 1) + "x slower per FMA (" +
             kit::num(base_rate, 1) + " -> " + kit::num(worst_rate, 1) + " FMA/cycle/SM; " +
             kit::cycles_and_ns(ctx, double(kThreads) / std::max(worst_rate, 1e-9), 1) +
             " per warp FMA instead of " +
             kit::cycles_and_ns(ctx, double(kThreads) / std::max(base_rate, 1e-9), 1) + ")"});
    return r;
}

} // namespace gemmlab::probe
