#pragma once
// Host-side helpers shared by the probes of this folder: wording a time as cycles and ns, medians,
// event timing of one launch, an L2 flush, progress lines. Header-only; used from .cu files.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gemmlab/probe.hpp"
#include "probe/probes.hpp"

namespace gemmlab::probe::kit {

/// Median of `v` (not empty); the mean of the two middle values for an even count.
inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// `v` with `decimals` digits after the point ("%.*f").
inline std::string num(double v, int decimals = 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// "262 cycles (139 ns at 1880 MHz)": every time a headline states, in both units.
inline std::string cycles_and_ns(const Context& ctx, double cycles, int decimals = 0) {
    return num(cycles, decimals) + " cycles (" + num(ctx.cycles_to_ns(cycles), decimals) +
           " ns at " + num(ctx.clock_mhz) + " MHz)";
}

/// Same, starting from nanoseconds: "2100 ns (3948 cycles at 1880 MHz)".
inline std::string ns_and_cycles(const Context& ctx, double ns, int decimals = 0) {
    return num(ns, decimals) + " ns (" + num(ctx.ns_to_cycles(ns), decimals) + " cycles at " +
           num(ctx.clock_mhz) + " MHz)";
}

/// Milliseconds -> SM cycles at the measured clock.
inline double ms_to_cycles(const Context& ctx, double ms) { return ctx.ns_to_cycles(ms * 1e6); }

/// A number with three significant digits, never in exponent form: 0.547, 17.1, 2339.
inline std::string num3(double v) {
    const double a = v < 0 ? -v : v;
    return num(v, a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3);
}

/// "64.1 cycles (34.2 ns at 1875 MHz)": cycles_and_ns with three significant digits.
inline std::string cycles_text(const Context& ctx, double cycles) {
    return num3(cycles) + " cycles (" + num3(ctx.cycles_to_ns(cycles)) + " ns at " +
           num(ctx.clock_mhz) + " MHz)";
}

/// Calls ctx.progress when the caller installed one.
inline void progress(const Context& ctx, const std::string& what) {
    if (ctx.progress) ctx.progress(what);
}

/// Every probe converts with ctx.clock_mhz; when a probe runs alone, measure the clock first.
inline void ensure_clock(Context& ctx) {
    if (ctx.clock_mhz <= 0) (void)run_clock(ctx);
}

/// True when x is a power of two.
inline bool is_pow2(long long x) { return x > 0 && (x & (x - 1)) == 0; }

/// The power of two nearest to x on a log scale (x > 0).
inline long long nearest_pow2(double x) {
    return 1LL << std::max(0, int(std::lround(std::log2(std::max(x, 1.0)))));
}

/// Overwrites a buffer twice the size of L2 so that whatever a probe touched before is evicted
/// (and left dirty lines are those of this buffer, not of the probe's data).
class L2Flush {
public:
    explicit L2Flush(const Context& ctx) : buf_(std::max<size_t>(2 * ctx.l2_bytes, 8u << 20)) {}
    void run(cudaStream_t s = nullptr) {
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(buf_.get(), ++value_ & 0xff, buf_.bytes(), s));
    }

private:
    DeviceBuffer<unsigned char> buf_;
    int value_ = 0;
};

/// Median over `samples` event-timed runs of `launch` (which enqueues on `stream`), after `warmup`
/// untimed runs; `before` (an L2 flush, a reset) runs outside the timed region before each run.
inline double median_ms(const std::function<void(cudaStream_t)>& launch, int warmup, int samples,
                        cudaStream_t stream = nullptr,
                        const std::function<void(cudaStream_t)>& before = {}) {
    Event start, stop;
    for (int i = 0; i < warmup; ++i) {
        if (before) before(stream);
        launch(stream);
    }
    std::vector<double> ms;
    ms.reserve(samples);
    for (int i = 0; i < samples; ++i) {
        if (before) before(stream);
        start.record(stream);
        launch(stream);
        stop.record(stream);
        ms.push_back(stop.ms_since(start));
    }
    return median(std::move(ms));
}

/// Copies `n` values back from the device.
template <class T>
std::vector<T> to_host(const DeviceBuffer<T>& d, size_t n) {
    std::vector<T> h(n);
    d.copy_to_host(h.data(), n);
    return h;
}

} // namespace gemmlab::probe::kit
