// latency: how long a dependent load takes from L1, L2 and DRAM (Vega10 microbenchmarks 2.6.1, 2.6.3).
//
// Question: what is the load-to-use latency of a global load that hits L1, hits L2, or goes to
// DRAM, and at which footprints does each level stop holding the data?
//
// Method: a pointer chase by one thread: every load's address is the value the previous load
// returned, so loads cannot overlap and time / loads = latency. Nodes sit 128 B apart (one per
// cache line) and are linked in one random cycle through the whole footprint (chase.hpp: defeats
// prefetching and never loops in a short sub-cycle). Footprints 1 KiB .. 256 MiB in steps of
// sqrt(2). Before each timed chase: overwrite an L2-sized buffer twice over (forget the previous
// point), read the whole footprint with many threads (into L2, as far as it fits), and when the
// footprint has at most 4096 nodes run one untimed lap so the chasing SM's L1 holds what fits.
// Then 4096 timed steps, cycles from the SM's clock64(), median of 3. Two load flavours:
// ld.global.ca (what a plain load does on sm_90: L1 then L2) and ld.global.cg (L2 only).
// DRAM latency: a 16 MiB chase right after the L2 overwrite with no warm-up: every one of the 4096
// steps visits a new line that is in neither cache, but the pages are TLB-warm: 16 MiB is a few
// large (2 MiB) pages, all touched by the linking kernel, and the chase revisits each page hundreds
// of times, so at most a handful of steps pay a TLB miss (the 256 MiB end of the sweep shows DRAM
// plus TLB misses). H100's L2 is two partitions; a line
// homed in the far one costs more, so L2 hits are a mix: a traced chase at 4 MiB records every
// step's latency, and its 10th/90th percentiles show the near and far costs.
//
// Keeping the work: the loads are asm volatile and form one dependency chain; the final pointer
// is stored back as the next run's starting point. Successive runs continue along the cycle, so a
// footprint larger than L1 never meets lines an earlier run left there.
//
// Expected on H100: L1 hit ~30-40 cycles up to ~200 KiB (256 KiB L1 minus what shared memory
// takes); L2 hit ~250-350 cycles (near vs far partition). L2 has no sharp edge for one SM: H100/H200
// L2 is two partitions, and a line an SM reads from the far partition can be duplicated into its
// near one, so a single SM effectively sees about half the reported L2 (H200: ~32 of 60 MiB at
// L2 latency, within a quarter of the way to DRAM's); past that latency climbs gradually towards
// DRAM's (H200: 377 cycles at 32 MiB, 476 at 64, 607 at 256 MiB). DRAM ~450-650 cycles
// (~300-400 ns) with TLB-warm pages. The Vega10 microbenchmarks, on Vega10: L1 ~120, L2 ~300, DRAM ~610 cycles.
//
// On AMD (HIP build): the same chase, with probe_kit.cuh's loads: global_load_dwordx2 through the
// CU's 16 KiB vector L1 for .ca, the same with glc (misses L1, reads L2) for .cg, each followed by
// s_waitcnt vmcnt(0) inside its asm, and clock64 (s_memtime) ticks at the rate the clock probe
// measures for cycles. A GCN L2 is one cache of 4-8 MiB, not two partitions: the L2 level is read
// from footprints of 1 MiB up to a quarter of the L2 (4 MiB where the L2 is 16 MiB or more, as on
// NVIDIA), the traced chase runs over the same quarter (at most 4 MiB), and its percentile spread
// is reported without the near/far reading. Whether 16 MiB is TLB-warm there is not checked.
// Not run on AMD yet (docs/hip.md).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/gpu_runtime.hpp"
#include "probe/chase.hpp"
#include "probe/probe_kit.cuh"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr size_t kNodeBytes = 128;                       // one node per cache line
constexpr size_t kNodeWords = kNodeBytes / sizeof(uint64_t);
constexpr size_t kMinFootprint = size_t(1) << 10;        // 1 KiB
constexpr size_t kMaxFootprint = size_t(256) << 20;      // 256 MiB
constexpr size_t kDramFootprint = size_t(16) << 20;      // cold chase for the DRAM latency
constexpr size_t kL2LevelMinFootprint = size_t(1) << 20; // past any L1, in L2 ...
constexpr size_t kL2LevelMaxFootprint = size_t(4) << 20; // ... and well inside it (at most L2 / 4)
constexpr int kTimedSteps = 4096;
constexpr int kTraceSteps = 2048;
constexpr size_t kWarmLapMaxNodes = 4096;  // chases this small get one untimed lap (fills L1)
constexpr int kRepeats = 3;
constexpr uint64_t kSeed = 0x9E3779B97F4A7C15ull;

// node i (at base + i * kNodeWords) holds the address of node next[i].
__global__ void link_nodes(uint64_t* base, const uint32_t* next, size_t n) {
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        base[i * kNodeWords] = reinterpret_cast<uint64_t>(base + size_t(next[i]) * kNodeWords);
}

// Many threads read every node once, so the footprint sits in L2 as far as it fits.
__global__ void touch_nodes(const uint64_t* base, size_t n, uint64_t* sink) {
    uint64_t acc = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
         i += size_t(gridDim.x) * blockDim.x)
        acc ^= kit::load_cg(base + i * kNodeWords);
    if (acc == 1) sink[0] = acc; // XOR of 8-byte-aligned addresses: never 1
}

// The chase starts where the previous one stopped (*cursor) and leaves its end there, so repeated
// runs over a large footprint visit new nodes instead of ones an earlier run may have left in L1.
template <bool kL1>
__global__ void chase_kernel(uint64_t* cursor, int warm_steps, int steps, long long* cycles) {
    auto p = reinterpret_cast<const uint64_t*>(cursor[0]);
    for (int i = 0; i < warm_steps; ++i) p = reinterpret_cast<const uint64_t*>(kit::load<kL1>(p));
    const long long c0 = clock64();
    for (int i = 0; i < steps; ++i) p = reinterpret_cast<const uint64_t*>(kit::load<kL1>(p));
    const long long c1 = clock64();
    cycles[0] = c1 - c0;
    cursor[0] = reinterpret_cast<uint64_t>(p);
}

// Every step's latency: the shared-memory store consumes the loaded pointer, so it (and the clock
// read after it) cannot issue before the load returns.
__global__ void chase_trace_kernel(uint64_t* cursor, int warm_steps, int steps,
                                   long long* deltas) {
    volatile __shared__ uint32_t consume[32]; // volatile: the stores may not be dropped
    auto p = reinterpret_cast<const uint64_t*>(cursor[0]);
    for (int i = 0; i < warm_steps; ++i) p = reinterpret_cast<const uint64_t*>(kit::load_ca(p));
    consume[0] = uint32_t(reinterpret_cast<uint64_t>(p));
    long long prev = kit::clock_after_memory();
    for (int i = 0; i < steps; ++i) {
        p = reinterpret_cast<const uint64_t*>(kit::load_ca(p));
        consume[i & 31] = uint32_t(reinterpret_cast<uint64_t>(p));
        const long long now = kit::clock_after_memory();
        deltas[i] = now - prev;
        prev = now;
    }
    cursor[0] = reinterpret_cast<uint64_t>(p);
}

/// The chase buffer, its links for the current footprint, and the helpers to measure it.
class Chaser {
public:
    explicit Chaser(const Context& ctx)
        : ctx_(ctx), nodes_(kMaxFootprint / sizeof(uint64_t)), next_(kMaxFootprint / kNodeBytes),
          cycles_(1), cursor_(1), sink_(1), trace_(kTraceSteps), flush_(ctx) {}

    /// Links a random single cycle through footprint / 128 nodes.
    void link(size_t footprint) {
        n_ = footprint / kNodeBytes;
        const std::vector<uint32_t> next = random_cycle(n_, kSeed ^ n_);
        next_.copy_from_host(next.data(), n_);
        const int blocks = int(std::min<size_t>((n_ + 255) / 256, size_t(ctx_.sm_count) * 8));
        link_nodes<<<blocks, 256>>>(nodes_.get(), next_.get(), n_);
        GEMMLAB_CHECK_LAUNCH();
        const uint64_t start = reinterpret_cast<uint64_t>(nodes_.get());
        cursor_.copy_from_host(&start, 1);
    }

    /// Median cycles per dependent load. warm_l2: read the footprint into L2 first.
    double cycles_per_load(bool through_l1, bool warm_l2) {
        std::vector<double> c;
        for (int rep = 0; rep < kRepeats; ++rep) {
            prepare(warm_l2);
            const int warm = warm_l2 && n_ <= kWarmLapMaxNodes ? int(n_) : 0;
            if (through_l1)
                chase_kernel<true><<<1, 1>>>(cursor_.get(), warm, kTimedSteps, cycles_.get());
            else
                chase_kernel<false><<<1, 1>>>(cursor_.get(), warm, kTimedSteps, cycles_.get());
            GEMMLAB_CHECK_LAUNCH();
            long long h = 0;
            cycles_.copy_to_host(&h, 1);
            c.push_back(double(h) / kTimedSteps);
        }
        return kit::median(std::move(c));
    }

    /// Per-step cycles of one traced chase (L2 warmed; through L1).
    std::vector<double> trace() {
        prepare(true);
        const int warm = n_ <= kWarmLapMaxNodes ? int(n_) : 0;
        chase_trace_kernel<<<1, 1>>>(cursor_.get(), warm, kTraceSteps, trace_.get());
        GEMMLAB_CHECK_LAUNCH();
        const auto h = kit::to_host(trace_, kTraceSteps);
        std::vector<double> d(h.begin() + 1, h.end()); // the first step includes the setup
        std::sort(d.begin(), d.end());
        return d;
    }

private:
    void prepare(bool warm_l2) {
        flush_.run();
        if (warm_l2) {
            const int blocks = int(std::min<size_t>((n_ + 255) / 256, size_t(ctx_.sm_count) * 8));
            touch_nodes<<<blocks, 256>>>(nodes_.get(), n_, sink_.get());
            GEMMLAB_CHECK_LAUNCH();
        }
    }

    const Context& ctx_;
    DeviceBuffer<uint64_t> nodes_;
    DeviceBuffer<uint32_t> next_;
    DeviceBuffer<long long> cycles_;
    DeviceBuffer<uint64_t> cursor_; // where the next chase starts
    DeviceBuffer<uint64_t> sink_;
    DeviceBuffer<long long> trace_;
    kit::L2Flush flush_;
    size_t n_ = 0;
};

double percentile(const std::vector<double>& sorted, double q) {
    const size_t i = std::min(sorted.size() - 1, size_t(q * double(sorted.size() - 1) + 0.5));
    return sorted[i];
}

} // namespace

Result run_latency(Context& ctx) {
    kit::ensure_clock(ctx);
    Chaser chaser(ctx);
    // The L2 level's footprints end at 4 MiB or a quarter of the L2, whichever is smaller.
    const size_t l2_level_max = std::max(kL2LevelMinFootprint, std::min(kL2LevelMaxFootprint, ctx.l2_bytes / 4));
    // The words of the output: NVIDIA's loads and L2 partitions, or AMD's loads and single L2.
    const std::string via_l1 = kHipBuild ? "latency via L1 (global_load)" : "latency via L1 (ld.ca)";
    const std::string l2_only = kHipBuild ? "latency L2 only (global_load glc)" : "latency L2 only (ld.cg)";

    Table t;
    t.title = "pointer chase latency vs footprint (one thread, random cycle, 128 B per node)";
    t.columns = {"footprint", via_l1, via_l1, l2_only, l2_only};
    t.units = {"KiB", "cycles", "ns", "cycles", "ns"};
    std::vector<double> fp_kib, lat_ca;
    for (int k = 0;; ++k) {
        const double exact = double(kMinFootprint) * std::pow(2.0, 0.5 * k);
        if (exact > double(kMaxFootprint) * 1.001) break;
        const size_t footprint =
            std::max(kMinFootprint, size_t(exact) / kNodeBytes * kNodeBytes);
        kit::progress(ctx, "latency footprint " + kit::num(footprint / 1024.0) + " KiB");
        chaser.link(footprint);
        const double ca = chaser.cycles_per_load(true, true);
        const double cg = chaser.cycles_per_load(false, true);
        t.rows.push_back({footprint / 1024.0, ca, ctx.cycles_to_ns(ca), cg, ctx.cycles_to_ns(cg)});
        fp_kib.push_back(footprint / 1024.0);
        lat_ca.push_back(ca);
    }

    // DRAM: cold chase over a footprint small enough for the TLBs, large enough never to repeat.
    kit::progress(ctx, "latency DRAM (cold)");
    chaser.link(kDramFootprint);
    const double dram = chaser.cycles_per_load(true, false);

    // Near/far L2: per-step latencies of a traced chase that misses L1 and hits L2. The trace's
    // fixed overhead (store + clock read) is the traced minus the plain latency at 8 KiB (L1 hits).
    kit::progress(ctx, "latency L2 trace");
    chaser.link(8 << 10);
    const double l1_plain = chaser.cycles_per_load(true, true);
    const double overhead = percentile(chaser.trace(), 0.5) - l1_plain;
    chaser.link(l2_level_max);
    std::vector<double> trace = chaser.trace();
    for (double& d : trace) d -= overhead;

    Table tt;
    tt.title = "per-load L2 hit latency distribution (" + kit::num(l2_level_max / 1048576.0) +
               " MiB footprint, traced chase)";
    tt.columns = {"percentile", "latency", "latency"};
    tt.units = {"%", "cycles", "ns"};
    for (double q : {1.0, 5.0, 10.0, 25.0, 50.0, 75.0, 90.0, 95.0, 99.0}) {
        const double v = percentile(trace, q / 100.0);
        tt.rows.push_back({q, v, ctx.cycles_to_ns(v)});
    }

    // Levels: L1 from the smallest footprints, L2 where L1 cannot hold the data but L2 easily can.
    std::vector<double> l1_pts, l2_pts;
    for (size_t i = 0; i < fp_kib.size(); ++i) {
        if (fp_kib[i] <= 16) l1_pts.push_back(lat_ca[i]);
        if (fp_kib[i] >= kL2LevelMinFootprint / 1024.0 && fp_kib[i] <= l2_level_max / 1024.0)
            l2_pts.push_back(lat_ca[i]);
    }
    const double l1 = kit::median(l1_pts);
    const double l2 = kit::median(l2_pts);
    // A level "ends" at the last footprint whose latency is still within a quarter of the way from
    // that level to the next (>= ~75% hits). Halfway would overstate L2: after the parallel
    // warm-up L2 keeps the last C bytes read, so a random chase over F > C still hits C / F of the
    // time and crosses halfway only near F = 2C.
    auto reach = [&](double level, double next) {
        const double limit = level + 0.25 * (next - level);
        double last = 0;
        for (size_t i = 0; i < fp_kib.size(); ++i) {
            if (lat_ca[i] > limit) break;
            last = fp_kib[i];
        }
        return last;
    };
    const double l1_reach_kib = reach(l1, l2);
    const double l2_reach_mib = reach(l2, dram) / 1024.0;
    const double near = percentile(trace, 0.10), far = percentile(trace, 0.90);
    // Chase latency at the sweep point nearest a footprint (for the L2 headline's tail).
    auto latency_at = [&](double kib) {
        size_t best = 0;
        for (size_t i = 1; i < fp_kib.size(); ++i)
            if (std::abs(std::log(fp_kib[i] / kib)) < std::abs(std::log(fp_kib[best] / kib)))
                best = i;
        return lat_ca[best];
    };

    Result r;
    r.tables = {std::move(t), std::move(tt)};
    r.headlines.push_back({"l1_hit_latency_cycles", l1, "cycles",
                           "L1 hit latency: " + kit::cycles_and_ns(ctx, l1)});
    r.headlines.push_back({"l2_hit_latency_cycles", l2, "cycles",
                           "L2 hit latency: " + kit::cycles_and_ns(ctx, l2) +
                               "; per load 10th-90th percentile " + kit::num(near) + "-" +
                               kit::num(far) + (kHipBuild ? " cycles" : " cycles (near vs far L2 partition)")});
    r.headlines.push_back({"dram_latency_cycles", dram, "cycles",
                           "DRAM latency: " + kit::cycles_and_ns(ctx, dram) +
                               (kHipBuild ? " (cold 16 MiB chase: every line a cache miss; TLB reach not checked)"
                                          : " (cold 16 MiB chase: every line a cache miss, pages TLB-warm)")});
    r.headlines.push_back({"l1_reach_kib", l1_reach_kib, "KiB",
                           "L1 holds a chase of up to " + kit::num(l1_reach_kib) + " KiB"});
    const double l2_mib = ctx.l2_bytes / 1048576.0;
    r.headlines.push_back(
        {"l2_reach_mib", l2_reach_mib, "MiB",
         std::string(kHipBuild ? "One CU's" : "One SM's") +
             " chase stays at L2 latency (within a quarter of the way to DRAM's) up to " +
             kit::num(l2_reach_mib, 1) + " MiB, " + kit::num(l2_reach_mib / l2_mib, 2) +
             " of the " + kit::num(l2_mib) + " MiB reported L2" +
             (kHipBuild ? "" : " (two partitions; lines read from the far one can be duplicated "
                               "into the SM's near one, so one SM effectively sees about half)") +
             "; past that latency climbs gradually to DRAM's: " +
             kit::num(latency_at(2 * l2_reach_mib * 1024)) + " cycles at " +
             kit::num(2 * l2_reach_mib, 1) + " MiB, " + kit::num(lat_ca.back()) + " at " +
             kit::num(fp_kib.back() / 1024.0, 1) + " MiB vs DRAM " + kit::num(dram)});
    return r;
}

} // namespace gemmlab::probe
