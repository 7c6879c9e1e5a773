// Probe `math` (Vega10 microbenchmarks 2.11, math functions).
//
// Question: what do sin, cos, tan, exp, log, sqrt, rsqrt and asin cost, in float and in double,
// and what do the fast hardware approximations (__sinf, __cosf, __tanf, __expf, __logf and the
// PTX sqrt.approx / rsqrt.approx) save?
//
// Method: every step is x = fma(f(x), k, c) with k = 1e-3 and c = 0.5 given at run time, so the
// argument stays near 0.5, inside every function's ordinary path, whatever f returns.
//  - Throughput: a full grid (as many 256-thread blocks as fit on every SM at once), each
//    thread running 8 independent chains; iterations calibrated so a launch takes ~1 ms.
//    Operations per cycle per SM = f evaluations / (event time x SM clock x SMs).
//  - Latency: one thread, one chain of 256 steps between two clock64() reads; the same chain
//    with f(x) = x (the FMA alone) is subtracted, so the figure is f's own latency.
// Keeping the work: the chains' final values are stored only if their sum equals -1, which it
// never does (every x stays near 0.5).
//
// Expected on H100 (per SM per cycle: 128 FP32 FMA, 64 FP64 FMA, 16 special-function (MUFU)
// results): __sinf/__cosf/__expf/__logf near 16/cycle and ~20-40 cycles of latency (one MUFU
// plus a multiply or two); sinf/expf several times slower (range reduction and a polynomial
// on the FMA pipes, or MUFU plus fix-ups); double functions are polynomials on the FP64 pipe,
// ~1-3/cycle and hundreds of cycles of latency. The source measured double sin at 2339 cycles on
// Vega10 (FP64 at 1/16 rate there).

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kBlock = 256;
constexpr int kChains = 8;
constexpr int kLatencySteps = 256;
static_assert(kLatencySteps % 8 == 0, "the latency loop is unrolled by 8");

__device__ __forceinline__ float sqrt_approx(float x) {
    float y;
    asm("sqrt.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ float rsqrt_approx(float x) {
    float y;
    asm("rsqrt.approx.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

#define GEMMLAB_MATH_OP(NAME, TYPE, EXPR)                                                          \
    struct NAME {                                                                                  \
        using T = TYPE;                                                                            \
        __device__ __forceinline__ static T f(T x) { return EXPR; }                                \
    }

GEMMLAB_MATH_OP(IdF, float, x);
GEMMLAB_MATH_OP(SinF, float, sinf(x));
GEMMLAB_MATH_OP(CosF, float, cosf(x));
GEMMLAB_MATH_OP(TanF, float, tanf(x));
GEMMLAB_MATH_OP(ExpF, float, expf(x));
GEMMLAB_MATH_OP(LogF, float, logf(x));
GEMMLAB_MATH_OP(SqrtF, float, sqrtf(x));
GEMMLAB_MATH_OP(RsqrtF, float, rsqrtf(x));
GEMMLAB_MATH_OP(AsinF, float, asinf(x));
GEMMLAB_MATH_OP(IdD, double, x);
GEMMLAB_MATH_OP(SinD, double, sin(x));
GEMMLAB_MATH_OP(CosD, double, cos(x));
GEMMLAB_MATH_OP(TanD, double, tan(x));
GEMMLAB_MATH_OP(ExpD, double, exp(x));
GEMMLAB_MATH_OP(LogD, double, log(x));
GEMMLAB_MATH_OP(SqrtD, double, sqrt(x));
GEMMLAB_MATH_OP(RsqrtD, double, rsqrt(x));
GEMMLAB_MATH_OP(AsinD, double, asin(x));
GEMMLAB_MATH_OP(FastSin, float, __sinf(x));
GEMMLAB_MATH_OP(FastCos, float, __cosf(x));
GEMMLAB_MATH_OP(FastTan, float, __tanf(x));
GEMMLAB_MATH_OP(FastExp, float, __expf(x));
GEMMLAB_MATH_OP(FastLog, float, __logf(x));
GEMMLAB_MATH_OP(FastSqrt, float, sqrt_approx(x));
GEMMLAB_MATH_OP(FastRsqrt, float, rsqrt_approx(x));

#undef GEMMLAB_MATH_OP

template <class Op>
__global__ void __launch_bounds__(kBlock) throughput_kernel(typename Op::T c, typename Op::T k, int iters,
                                                            typename Op::T* sink) {
    using T = typename Op::T;
    T x[kChains];
#pragma unroll
    for (int j = 0; j < kChains; ++j) x[j] = c + T(threadIdx.x) * T(1e-7) + T(j) * T(1e-4);
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int j = 0; j < kChains; ++j) x[j] = fma(Op::f(x[j]), k, c);
    }
    T s = 0;
#pragma unroll
    for (int j = 0; j < kChains; ++j) s += x[j];
    if (s == T(-1)) *sink = s;
}

template <class Op>
__global__ void latency_kernel(typename Op::T c, typename Op::T k, long long* cycles, typename Op::T* sink) {
    using T = typename Op::T;
    T x = c + T(threadIdx.x);
    const long long t0 = clock64();
#pragma unroll 8 // amortizes the loop's own instructions; the chain sets the pace
    for (int i = 0; i < kLatencySteps; ++i) x = fma(Op::f(x), k, c);
    const long long t1 = clock64();
    *cycles = t1 - t0;
    if (x == T(-1)) *sink = x;
}

struct Cost {
    double per_cycle_sm = std::numeric_limits<double>::quiet_NaN(); ///< results per cycle per SM
    double chain_cycles = std::numeric_limits<double>::quiet_NaN(); ///< per step, FMA included
};

class Harness {
public:
    explicit Harness(const Context& ctx) : ctx_(ctx), sink_(1), cycles_(1) {}

    template <class Op>
    Cost measure() {
        using T = typename Op::T;
        const T c = T(0.5), k = T(1e-3);
        T* sink = reinterpret_cast<T*>(sink_.get());
        const cudaStream_t s = stream_.get();
        Cost out;

        int blocks_per_sm = 0;
        GEMMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, throughput_kernel<Op>,
                                                                         kBlock, 0));
        const int grid = std::max(1, blocks_per_sm) * ctx_.sm_count;
        int iters = 16;
        auto launch = [&](cudaStream_t st) {
            throughput_kernel<Op><<<grid, kBlock, 0, st>>>(c, k, iters, sink);
            GEMMLAB_CHECK_LAUNCH();
        };
        // Calibrate: scale the iteration count so that one launch takes about 1 ms.
        TimingPolicy calib;
        calib.warmup = 1;
        calib.min_samples = 1;
        calib.max_samples = 1;
        calib.min_total_ms = 0;
        const double ms16 = time_device_work(launch, s, calib).median_ms;
        iters = int(std::clamp(16.0 * 1.0 / std::max(ms16, 1e-3), 16.0, double(1 << 20)));
        TimingPolicy p;
        p.warmup = 1;
        p.min_samples = 5;
        p.max_samples = 50;
        p.min_total_ms = 8;
        const double ms = time_device_work(launch, s, p).median_ms;
        const double ops = double(grid) * kBlock * kChains * iters;
        out.per_cycle_sm = ops / (ms * 1e-3 * ctx_.clock_mhz * 1e6 * ctx_.sm_count);

        std::vector<double> samples;
        for (int r = 0; r < 4; ++r) { // the first launch is a warm-up
            latency_kernel<Op><<<1, 1, 0, s>>>(c, k, cycles_.get(), sink);
            GEMMLAB_CHECK_LAUNCH();
            long long cyc = 0;
            GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(&cyc, cycles_.get(), sizeof cyc, cudaMemcpyDeviceToHost, s));
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            if (r > 0) samples.push_back(double(cyc) / kLatencySteps);
        }
        std::sort(samples.begin(), samples.end());
        out.chain_cycles = samples[samples.size() / 2];
        return out;
    }

private:
    const Context& ctx_;
    Stream stream_;
    DeviceBuffer<double> sink_;
    DeviceBuffer<long long> cycles_;
};

constexpr int kFunctions = 8;
const char* const kNames[kFunctions] = {"sin", "cos", "tan", "exp", "log", "sqrt", "rsqrt", "asin"};

} // namespace

Result run_math(Context& ctx) {
    ensure_clock(ctx);
    Harness h(ctx);
    progress(ctx, "math: FMA chains (baseline)");
    const double fma_f = h.measure<IdF>().chain_cycles;
    const double fma_d = h.measure<IdD>().chain_cycles;

    // [function][0 float, 1 double, 2 fast float]
    Cost cost[kFunctions][3];
    auto row = [&](int i, auto f, auto d, auto fast) {
        progress(ctx, strf("math: %s", kNames[i]));
        cost[i][0] = h.measure<decltype(f)>();
        cost[i][1] = h.measure<decltype(d)>();
        if constexpr (!std::is_same_v<decltype(fast), std::nullptr_t>) cost[i][2] = h.measure<decltype(fast)>();
    };
    row(0, SinF{}, SinD{}, FastSin{});
    row(1, CosF{}, CosD{}, FastCos{});
    row(2, TanF{}, TanD{}, FastTan{});
    row(3, ExpF{}, ExpD{}, FastExp{});
    row(4, LogF{}, LogD{}, FastLog{});
    row(5, SqrtF{}, SqrtD{}, FastSqrt{});
    row(6, RsqrtF{}, RsqrtD{}, FastRsqrt{});
    row(7, AsinF{}, AsinD{}, nullptr);

    // Latency of f alone: the chain step minus the FMA that keeps the argument in range.
    auto latency = [&](int i, int v) { return cost[i][v].chain_cycles - (v == 1 ? fma_d : fma_f); };

    Table std_t{strf("math functions in float and double: throughput (results per cycle per SM, full grid) and "
                     "latency of f alone (one dependent chain; the step's FMA, %.3g cycles float, %.3g double, "
                     "subtracted); function: 1 sin, 2 cos, 3 tan, 4 exp, 5 log, 6 sqrt, 7 rsqrt, 8 asin",
                     fma_f, fma_d),
                {"function", "float", "double", "float", "float", "double", "double"},
                {"#", "1/cycle/SM", "1/cycle/SM", "cycles", "ns", "cycles", "ns"},
                {}};
    Table fast_t{"fast float approximations vs the float functions (function: 1 __sinf, 2 __cosf, 3 __tanf, "
                 "4 __expf, 5 __logf, 6 sqrt.approx, 7 rsqrt.approx; asin has none)",
                 {"function", "throughput", "latency", "latency", "speed-up over float"},
                 {"#", "1/cycle/SM", "cycles", "ns", "x"},
                 {}};
    for (int i = 0; i < kFunctions; ++i) {
        std_t.rows.push_back({double(i + 1), cost[i][0].per_cycle_sm, cost[i][1].per_cycle_sm, latency(i, 0),
                              ctx.cycles_to_ns(latency(i, 0)), latency(i, 1), ctx.cycles_to_ns(latency(i, 1))});
        if (std::isfinite(cost[i][2].per_cycle_sm))
            fast_t.rows.push_back({double(i + 1), cost[i][2].per_cycle_sm, latency(i, 2), ctx.cycles_to_ns(latency(i, 2)),
                                   cost[i][2].per_cycle_sm / cost[i][0].per_cycle_sm});
    }

    Result r;
    r.tables.push_back(std::move(std_t));
    r.tables.push_back(std::move(fast_t));
    const Cost& sinf_c = cost[0][0];
    const Cost& fast_c = cost[0][2];
    r.headlines.push_back({"math_sinf_per_cycle_sm", sinf_c.per_cycle_sm, "1/cycle/SM",
                           strf("sinf: %.3g results per cycle per SM, latency ", sinf_c.per_cycle_sm) +
                               cycles_text(ctx, latency(0, 0))});
    r.headlines.push_back({"math_fast_sinf_per_cycle_sm", fast_c.per_cycle_sm, "1/cycle/SM",
                           strf("__sinf: %.3g results per cycle per SM (%.1fx sinf), latency ", fast_c.per_cycle_sm,
                                fast_c.per_cycle_sm / sinf_c.per_cycle_sm) +
                               cycles_text(ctx, latency(0, 2))});
    r.headlines.push_back({"math_sin_double_latency_cycles", latency(0, 1), "cycles",
                           "double sin: latency " + cycles_text(ctx, latency(0, 1)) +
                               strf(", %.3g results per cycle per SM (Vega10 in the seed: 2339 cycles)",
                                    cost[0][1].per_cycle_sm)});
    return r;
}

} // namespace gemmlab::probe
