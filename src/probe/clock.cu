// clock: the SM clock while the probes run (Vega10 microbenchmarks 1.3).
//
// Question: at what clock does an SM run while it is busy? The source hard-codes MI25's 1.536 GHz
// and divides by it; on a boosting GPU the clock moves with load, power and temperature, so we
// measure it and every other probe converts cycles <-> ns with this number (ctx.clock_mhz).
//
// Method: one block per SM spins for a fixed wall time. Lane 0 reads %globaltimer (a chip-wide
// nanosecond timer) and clock64() (this SM's cycle counter) before and after the spin;
// MHz = cycles / ns * 1000. A 30 ms spin on every SM first lets the clocks ramp up from idle, then
// 5 samples of 10 ms each; the clock is the median over all SMs and samples. The spin is long
// enough that the timer's granularity (32 ns to 1 us depending on the driver) is below 0.01%.
//
// Keeping the work: the spin loop reads %globaltimer through asm volatile and its exit depends on
// it; the results are always stored.
//
// Expected on H100/H200 SXM: near the boost clock, 1.6-1.98 GHz (rated maximum 1980 MHz), every
// SM within a fraction of a percent of the others (one clock domain). Much lower means the card is
// power- or temperature-capped, or its clocks were locked low.

#include <set>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.cuh"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr double kRampMs = 30;    // untimed spin that brings the clocks up from idle
constexpr double kSampleMs = 10;  // one sample
constexpr int kSamples = 5;

struct ClockSample {
    long long cycles;
    unsigned long long ns;
    unsigned sm;
};

#if defined(GEMMLAB_HIP)
// HIP 5.2 gives a kernel no timer of known rate (wall_clock64's frequency cannot be queried
// before ROCm 5.x's hipDeviceAttributeWallClockRate), so the HIP build turns the method around:
// lane 0 of each block spins for a fixed number of clock64 cycles, and the kernel's wall time
// comes from events around the launch. A block's MHz is its cycles over the kernel's time,
// which includes the launch (~10 us of 10 ms): the clock reads at most ~0.1% low.
__global__ void spin_cycles_kernel(long long spin_cycles, ClockSample* out) {
    if (threadIdx.x != 0) return;
    const long long c0 = clock64();
    long long c1;
    do {
        c1 = clock64();
    } while (c1 - c0 < spin_cycles);
    out[blockIdx.x] = ClockSample{c1 - c0, 0, kit::sm_id()};
}

/// Runs the spin on `blocks` blocks for about `ms` at a clock of `guess_mhz`; returns the samples
/// with each block's ns set to the kernel's event-timed duration.
std::vector<ClockSample> spin(int blocks, double ms, double guess_mhz, DeviceBuffer<ClockSample>& d_out) {
    const long long cycles = static_cast<long long>(ms * 1e3 * guess_mhz);
    Event start, stop;
    start.record();
    spin_cycles_kernel<<<blocks, kWarpSize>>>(cycles, d_out.get()); // one wavefront per CU
    GEMMLAB_CHECK_LAUNCH();
    stop.record();
    const double kernel_ns = double(stop.ms_since(start)) * 1e6;
    auto h = kit::to_host(d_out, blocks);
    for (auto& x : h) x.ns = static_cast<unsigned long long>(kernel_ns);
    return h;
}
#else
__global__ void spin_kernel(unsigned long long spin_ns, ClockSample* out) {
    if (threadIdx.x != 0) return;
    const unsigned long long t0 = kit::globaltimer_ns();
    const long long c0 = clock64();
    unsigned long long t1;
    do {
        t1 = kit::globaltimer_ns();
    } while (t1 - t0 < spin_ns);
    const long long c1 = clock64();
    out[blockIdx.x] = ClockSample{c1 - c0, t1 - t0, kit::sm_id()};
}
#endif

} // namespace

Result run_clock(Context& ctx) {
    const int blocks = ctx.sm_count;
    DeviceBuffer<ClockSample> d_out(blocks);

#if defined(GEMMLAB_HIP)
    int guess_khz = 0; // the spin's cycle count aims at about the sample's time at this clock
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&guess_khz, cudaDevAttrClockRate, ctx.device));
    const double guess_mhz = guess_khz > 0 ? guess_khz / 1e3 : 1500.0;
    (void)spin(blocks, kRampMs, guess_mhz, d_out);
#else
    spin_kernel<<<blocks, 32>>>(static_cast<unsigned long long>(kRampMs * 1e6), d_out.get());
    GEMMLAB_CHECK_LAUNCH();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
#endif

    Table table;
    table.title = kHipBuild ? "CU clock per sample (clock64 cycles / event-timed kernel ns, one block per CU)"
                            : "SM clock per sample (clock64 cycles / %globaltimer ns, one block per SM)";
    table.columns = {"sample", "spin time", "median SM clock", "slowest SM", "fastest SM",
                     "SMs seen"};
    table.units = {"index", "ms", "MHz", "MHz", "MHz", "count"};

    std::vector<double> all_mhz;
    for (int s = 0; s < kSamples; ++s) {
#if defined(GEMMLAB_HIP)
        const auto h = spin(blocks, kSampleMs, guess_mhz, d_out);
#else
        spin_kernel<<<blocks, 32>>>(static_cast<unsigned long long>(kSampleMs * 1e6),
                                    d_out.get());
        GEMMLAB_CHECK_LAUNCH();
        GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
        const auto h = kit::to_host(d_out, blocks);
#endif
        std::vector<double> mhz;
        std::set<unsigned> sms;
        double spin_ns = 0;
        for (const auto& x : h) {
            mhz.push_back(double(x.cycles) / double(x.ns) * 1e3);
            sms.insert(x.sm);
            spin_ns = std::max(spin_ns, double(x.ns));
        }
        all_mhz.insert(all_mhz.end(), mhz.begin(), mhz.end());
        table.rows.push_back({double(s), spin_ns * 1e-6, kit::median(mhz),
                              *std::min_element(mhz.begin(), mhz.end()),
                              *std::max_element(mhz.begin(), mhz.end()), double(sms.size())});
    }
    ctx.clock_mhz = kit::median(all_mhz);

    int rated_khz = 0;
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&rated_khz, cudaDevAttrClockRate, ctx.device));
    const double rated_mhz = rated_khz / 1e3;
    const double lo = *std::min_element(all_mhz.begin(), all_mhz.end());
    const double hi = *std::max_element(all_mhz.begin(), all_mhz.end());

    Result r;
    r.tables.push_back(std::move(table));
    r.headlines.push_back(
        {"sm_clock_mhz", ctx.clock_mhz, "MHz",
         "SM clock while busy: " + kit::num(ctx.clock_mhz) + " MHz (median of " +
             std::to_string(kSamples) + " x " + kit::num(kSampleMs) + " ms on " +
             std::to_string(blocks) + " blocks; SMs " + kit::num(lo) + "-" + kit::num(hi) +
             " MHz; rated maximum " + kit::num(rated_mhz) + " MHz)"});
    r.headlines.push_back({"rated_max_clock_mhz", rated_mhz, "MHz",
                           "Rated maximum SM clock (cudaDevAttrClockRate): " +
                               kit::num(rated_mhz) + " MHz" +
                               (rated_mhz > 0 ? "; measured is " +
                                                    kit::num(100.0 * ctx.clock_mhz / rated_mhz, 1) +
                                                    "% of it"
                                              : std::string())});
    return r;
}

} // namespace gemmlab::probe
