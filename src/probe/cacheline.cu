// cacheline: how large are a cache line and a sector (seed 002 §2.6.2, §2.7.1)?
//
// Question: at what granularity do the caches and memory move data: the L1 line a warp request
// is processed in, the 32 B sector L2 hands out, and the amount a miss fetches from DRAM?
//
// Method, three ways:
//  1. by latency (seed 2.6.2): one thread reads 2048 words in a dependent chain, each s bytes past
//     the previous one (s = 4 .. 1024 B), from a region nothing cached ("cold": an L2-sized buffer
//     was just overwritten) or that many threads just read into L2 ("L2-warm"). While s is below
//     the fill granule G, a miss brings in the next G/s - 1 reads too, so the mean latency is a
//     mix of miss and hit; from s = G on every read misses. The knee of the cold curve is what a
//     DRAM miss fetches; the knee of the warm curve is what an L1 miss fills.
//  2. by L1 bandwidth (seed 2.7.1): one block of 8 warps re-reads L1-resident words, lane i at
//     i * s bytes; cycles per warp request grow with the distinct lines (or sectors) a request
//     touches and stop growing once every lane has its own unit. The knee stride is the line.
//  3. by L2 bandwidth: all SMs read one word every s bytes of a 16 MiB L2-resident region with
//     ld.global.cg (2^27 reads per run); bytes moved per read = 4 B x t(s) / t(4 B). It follows s
//     up to the sector size and stays there. The same over a 512 MiB region read once (DRAM) gives
//     the DRAM cost per read (there the row-buffer efficiency of sparse reads also shows).
//
// Keeping the work: asm volatile loads; the chain's last index and the XOR of all reads are stored
// only if they equal values the data never produces.
//
// Expected on H100: L1 line 128 B (a request costs about one cycle per distinct line); sector 32 B;
// an L1 miss fills 32 B sectors; a DRAM miss fetches 32 or 64 B (the L2 fetch granularity,
// cudaLimitMaxL2FetchGranularity, is a hint up to 128 B). The seed's Vega10 showed a 64 B line by
// latency.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.cuh"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr int kChainSteps = 2048;
constexpr int kMaxStride = 1024;                   // bytes
constexpr int kRepeats = 3;
constexpr uint32_t kNever = 0x12345678u;           // data is 0x5a5a5a5a words or chain indices
constexpr size_t kL2Span = size_t(16) << 20;       // L2-resident bandwidth region
constexpr size_t kDramSpan = size_t(512) << 20;    // read once: DRAM
constexpr size_t kL2Reads = size_t(1) << 27;       // per L2 bandwidth run
constexpr int kL1Warps = 8;
constexpr int kL1Iters = 512;
constexpr int kL1Unroll = 8;

// ---------------------------------------------------------------- 1. latency vs stride
// buf[k * stride_words] = (k + 1) * stride_words: the chain walks up the region in steps of s.
__global__ void build_stride_chain(uint32_t* buf, int steps, uint32_t stride_words) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < steps) buf[size_t(k) * stride_words] = uint32_t(k + 1) * stride_words;
}

__global__ void touch_region(const uint32_t* buf, size_t words, uint32_t* sink) {
    uint32_t acc = 0;
    for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < words;
         i += size_t(gridDim.x) * blockDim.x)
        acc ^= kit::load_cg(buf + i);
    if (acc == kNever) sink[0] = acc;
}

__global__ void stride_chain(const uint32_t* buf, int steps, long long* cycles, uint32_t* sink) {
    uint32_t i = 0;
    const long long c0 = clock64();
    for (int k = 0; k < steps; ++k) i = kit::load_ca(buf + i);
    const long long c1 = clock64();
    cycles[0] = c1 - c0;
    if (i == kNever) sink[0] = i;
}

// ---------------------------------------------------------------- 2. L1 bandwidth vs lane stride
__global__ void l1_lane_stride(const uint32_t* buf, uint32_t stride_words, int iters,
                               long long* cycles, uint32_t* sink) {
    const uint32_t* p = buf + (threadIdx.x & 31) * stride_words;
    uint32_t acc = kit::load_ca(p); // fill L1 before the clock starts
    __syncthreads();
    const long long c0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < kL1Unroll; ++u) acc ^= kit::load_ca(p);
    }
    __syncthreads();
    const long long c1 = clock64();
    if (threadIdx.x == 0) cycles[0] = c1 - c0;
    if (acc == kNever) sink[0] = acc;
}

// ---------------------------------------------------------------- 3. bytes moved vs stride
// Read v (of `reads`) loads word (v & (region_elems - 1)) * stride_words: an L2 run wraps around
// a small region with every SM busy; region_elems is a power of two.
__global__ void strided_read(const uint32_t* buf, size_t reads, size_t region_elems,
                             uint32_t stride_words, uint32_t* sink) {
    const size_t step = size_t(gridDim.x) * blockDim.x;
    const size_t mask = region_elems - 1;
    auto at = [&](size_t v) { return buf + (v & mask) * stride_words; };
    uint32_t acc = 0;
    size_t v = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
    // Four independent loads in flight per thread before any result is used.
    for (; v + 3 * step < reads; v += 4 * step) {
        const uint32_t a = kit::load_cg(at(v));
        const uint32_t b = kit::load_cg(at(v + step));
        const uint32_t c = kit::load_cg(at(v + 2 * step));
        const uint32_t d = kit::load_cg(at(v + 3 * step));
        acc ^= a ^ b ^ c ^ d;
    }
    for (; v < reads; v += step) acc ^= kit::load_cg(at(v));
    if (acc == kNever) sink[0] = acc;
}

/// Smallest x whose y reaches `frac` of the largest y (the knee of a rising-then-flat curve).
double knee(const std::vector<double>& x, const std::vector<double>& y, double frac) {
    const double top = *std::max_element(y.begin(), y.end());
    for (size_t i = 0; i < x.size(); ++i)
        if (y[i] >= frac * top) return x[i];
    return x.back();
}

} // namespace

Result run_cacheline(Context& ctx) {
    kit::ensure_clock(ctx);
    DeviceBuffer<uint32_t> sink(1);
    DeviceBuffer<long long> cycles(1);
    kit::L2Flush flush(ctx);
    std::vector<double> strides;
    for (int s = 4; s <= kMaxStride; s *= 2) strides.push_back(s);

    // 1. latency vs stride. Every run chases its own region, so nothing an earlier run left in
    // L1 or L2 can serve it; regions hold relative indices, so one build serves all of them.
    const size_t region_words = size_t(kChainSteps) * kMaxStride / 4 + 1;
    constexpr int kRegions = 2 * kRepeats; // cold and L2-warm runs
    DeviceBuffer<uint32_t> chain(region_words * kRegions);
    Table ta;
    ta.title = "dependent-read latency vs stride (one thread, 2048 reads up a region)";
    ta.columns = {"stride", "cold (from DRAM)", "cold (from DRAM)", "L2-warm", "L2-warm"};
    ta.units = {"B", "cycles", "ns", "cycles", "ns"};
    std::vector<double> cold, warm;
    for (double sd : strides) {
        const uint32_t sw = uint32_t(sd) / 4;
        kit::progress(ctx, "cacheline latency stride " + kit::num(sd) + " B");
        GEMMLAB_CUDA_CHECK(cudaMemset(chain.get(), 0, chain.bytes()));
        for (int g = 0; g < kRegions; ++g) {
            build_stride_chain<<<(kChainSteps + 255) / 256, 256>>>(
                chain.get() + size_t(g) * region_words, kChainSteps, sw);
            GEMMLAB_CHECK_LAUNCH();
        }
        double lat[2];
        for (int w = 0; w < 2; ++w) {
            std::vector<double> c;
            for (int rep = 0; rep < kRepeats; ++rep) {
                const uint32_t* region = chain.get() + size_t(w * kRepeats + rep) * region_words;
                flush.run();
                if (w == 1) {
                    touch_region<<<ctx.sm_count * 4, 256>>>(region, size_t(kChainSteps) * sw + 1,
                                                            sink.get());
                    GEMMLAB_CHECK_LAUNCH();
                }
                stride_chain<<<1, 1>>>(region, kChainSteps, cycles.get(), sink.get());
                GEMMLAB_CHECK_LAUNCH();
                long long h = 0;
                cycles.copy_to_host(&h, 1);
                c.push_back(double(h) / kChainSteps);
            }
            lat[w] = kit::median(std::move(c));
        }
        cold.push_back(lat[0]);
        warm.push_back(lat[1]);
        ta.rows.push_back({sd, lat[0], ctx.cycles_to_ns(lat[0]), lat[1], ctx.cycles_to_ns(lat[1])});
    }
    const double dram_fetch = knee(strides, cold, 0.85);
    const double l1_fill = knee(strides, warm, 0.85);

    // 2. L1 cycles per warp request vs lane stride (data resident in L1).
    Table tc;
    tc.title = "L1-hit cycles per warp request vs lane stride (8 warps on one SM)";
    tc.columns = {"stride", "cycles per warp request", "distinct 128 B lines",
                  "distinct 32 B sectors"};
    tc.units = {"B", "cycles", "lines", "sectors"};
    DeviceBuffer<uint32_t> l1buf(32 * kMaxStride / 4);
    GEMMLAB_CUDA_CHECK(cudaMemset(l1buf.get(), 0x5a, l1buf.bytes()));
    std::vector<double> per_request;
    for (double sd : strides) {
        kit::progress(ctx, "cacheline L1 stride " + kit::num(sd) + " B");
        std::vector<double> c;
        for (int rep = 0; rep <= kRepeats; ++rep) {
            l1_lane_stride<<<1, kL1Warps * 32>>>(l1buf.get(), uint32_t(sd) / 4, kL1Iters,
                                                 cycles.get(), sink.get());
            GEMMLAB_CHECK_LAUNCH();
            long long h = 0;
            cycles.copy_to_host(&h, 1);
            if (rep > 0) c.push_back(double(h));
        }
        const double cyc = kit::median(c) / (double(kL1Warps) * kL1Iters * kL1Unroll);
        per_request.push_back(cyc);
        tc.rows.push_back({sd, cyc, std::min(32.0, std::ceil(32 * sd / 128)),
                           std::min(32.0, std::ceil(32 * sd / 32))});
    }
    const double line = knee(strides, per_request, 0.85);

    // 3. bytes moved per read vs stride, from L2 (16 MiB, many passes) and DRAM (512 MiB, once).
    Table tb;
    tb.title = "bytes moved per 4 B read vs stride (all SMs): L2-resident and DRAM";
    tb.columns = {"stride", "L2: time", "L2: bytes per read", "DRAM: time", "DRAM: bytes per read"};
    tb.units = {"B", "us", "B", "us", "B"};
    DeviceBuffer<uint32_t> big(kDramSpan / 4);
    GEMMLAB_CUDA_CHECK(cudaMemset(big.get(), 0x5a, big.bytes()));
    const int grid = ctx.sm_count * (std::max(ctx.max_threads_per_sm, 256) / 256);
    auto launch = [&](size_t reads, size_t region_elems, uint32_t sw) {
        return [&, reads, region_elems, sw](cudaStream_t s) {
            // At least four reads per thread, so that four loads are in flight.
            const int blocks = int(std::min<size_t>(grid, (reads / 4 + 255) / 256));
            strided_read<<<std::max(blocks, 1), 256, 0, s>>>(big.get(), reads, region_elems, sw,
                                                             sink.get());
            GEMMLAB_CHECK_LAUNCH();
        };
    };
    // Launch overhead, subtracted from every time: the same kernel with nothing to read.
    const double empty_ms = kit::median_ms(launch(0, 1, 1), 2, 5);
    auto flush_fn = [&](cudaStream_t s) { flush.run(s); };
    std::vector<double> l2_bytes, dram_bytes;
    double l2_t4 = 0, dram_t4 = 0;
    for (double sd : strides) {
        if (sd > 512) break;
        kit::progress(ctx, "cacheline bandwidth stride " + kit::num(sd) + " B");
        const uint32_t sw = uint32_t(sd) / 4;
        const size_t l2_elems = kL2Span / size_t(sd);
        const double l2_ms =
            std::max(1e-6, kit::median_ms(launch(kL2Reads, l2_elems, sw), 1, 5) - empty_ms);
        const size_t dram_elems = kDramSpan / size_t(sd);
        const double dram_ms = std::max(
            1e-6,
            kit::median_ms(launch(dram_elems, dram_elems, sw), 1, 5, nullptr, flush_fn) - empty_ms);
        if (sd == 4) {
            l2_t4 = l2_ms;
            dram_t4 = dram_ms;
        }
        // L2: same read count at every stride -> bytes per read scale with time.
        const double l2_b = 4.0 * l2_ms / l2_t4;
        // DRAM: same span at every stride, span/s reads -> bytes per read = s * t(s) / t(4).
        const double dram_b = sd * dram_ms / dram_t4;
        l2_bytes.push_back(l2_b);
        dram_bytes.push_back(dram_b);
        tb.rows.push_back({sd, l2_ms * 1e3, l2_b, dram_ms * 1e3, dram_b});
    }
    // Sector: the largest stride up to which the bytes moved still follow the stride.
    double sector = 4;
    for (size_t i = 0; i < l2_bytes.size(); ++i) {
        if (l2_bytes[i] < 0.75 * strides[i]) break;
        sector = strides[i];
    }

    Result r;
    r.tables = {std::move(ta), std::move(tc), std::move(tb)};
    r.headlines.push_back(
        {"line_bytes", line, "B",
         "L1 line: " + kit::num(line) + " B (warp-request cost stops growing once every lane has "
         "its own " + kit::num(line) + " B; " + kit::num(per_request.back(), 1) +
             " cycles per fully scattered request vs " + kit::num(per_request.front(), 1) +
             " coalesced)"});
    r.headlines.push_back({"sector_bytes", sector, "B",
                           "Sector: " + kit::num(sector) + " B (bytes moved from L2 per read "
                           "follow the stride up to " + kit::num(sector) + " B, then stay)"});
    r.headlines.push_back(
        {"dram_fetch_bytes", dram_fetch, "B",
         "A DRAM miss fetches " + kit::num(dram_fetch) + " B (cold dependent reads " +
             kit::num(dram_fetch) + " B apart all miss: " +
             kit::cycles_and_ns(ctx, cold[std::find(strides.begin(), strides.end(), dram_fetch) -
                                          strides.begin()]) +
             " each)"});
    r.headlines.push_back({"l1_fill_bytes", l1_fill, "B",
                           "An L1 miss fills " + kit::num(l1_fill) + " B (L2-warm reads " +
                               kit::num(l1_fill) + " B apart all miss L1)"});
    return r;
}

} // namespace gemmlab::probe
