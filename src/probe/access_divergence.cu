// access-divergence: bandwidth vs the number of distinct lines one warp's load touches
// (Vega10 microbenchmarks 2.7.2).
//
// Question: a warp's 32 lanes each load 4 bytes. Coalesced, that is one 128 B line; scattered, it
// is up to 32 lines, each needing its own tag lookup and at least one 32 B sector. How does the
// useful bandwidth fall as the same 128 useful bytes per request spread over D = 1, 2, 4 ... 32
// lines? (The source asks the compile-time side of this: does a divergent address make HIPCC emit
// two store instructions? CUDA always emits one instruction per warp; the cost is in the memory
// system, which is what this probe measures.)
//
// Method: request r of a warp reads, for lane i, word i / D of line r * D + i % D: D distinct
// lines, 32 / D consecutive words in each, no line shared between requests. Loads are
// ld.global.cg (L2 only, so re-reads never hit L1), four in flight per warp. L2: 2^26 warp
// requests per run (8 GiB useful, 512 passes at D = 1) that wrap around a 16 MiB region, so even
// the coalesced run lasts over 1 ms and the event timer's ~0.5 us resolution cannot set the
// figure (with 2^22 requests, 80 us, the coalesced rate came out as exactly 512 MiB / 81.92 us);
// DRAM: a 512 MiB region read once, after overwriting an L2-sized buffer (>= ~120 us even at the
// coalesced rate; more passes would let L2 keep part of the region between them). All SMs,
// 256-thread blocks, event-timed, median of 5 after a warm-up; the time of an empty launch of the
// same kernel is subtracted. Useful bandwidth = 128 B x requests / time. The L2 runs total
// ~30 ms per sample, the whole probe well under a second.
//
// Keeping the work: asm volatile loads; the XOR of all loaded words is stored only if it equals a
// value the fill pattern (0x5a5a5a5a words) never produces.
//
// Expected on H100: from L2, D = 1, 2, 4 cost about the same sectors (4) and run near the L2
// bandwidth (several TB/s); beyond 4 lines every lane needs its own sector, so useful bandwidth
// falls about as 4/D (~1/8 at 32 lines) or faster when tag lookups (one per line) limit. From DRAM
// the fall is similar (each 32 B sector fetched for 4 useful bytes at D = 32).

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.cuh"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr size_t kLineWords = 32; // 128 B lines of 4 B words
constexpr size_t kL2Span = size_t(16) << 20;
constexpr size_t kDramSpan = size_t(512) << 20;
constexpr size_t kL2Requests = size_t(1) << 26; // warp requests per L2 run: > 1 ms at any D
constexpr uint32_t kNever = 0x12345678u;

// Warp request v (of `requests`) reads region request v & (region_requests - 1), so an L2 run can
// re-read a small region many times with every SM busy; region_requests is a power of two.
__global__ void lines_kernel(const uint32_t* buf, int lines, size_t requests,
                             size_t region_requests, uint32_t* sink) {
    const unsigned lane = threadIdx.x & 31;
    const size_t warp = (blockIdx.x * size_t(blockDim.x) + threadIdx.x) / 32;
    const size_t warps = size_t(gridDim.x) * blockDim.x / 32;
    const size_t mask = region_requests - 1;
    // (lane % D)-th line of the request, word lane / D in it.
    const size_t lane_word = size_t(lane % unsigned(lines)) * kLineWords + lane / unsigned(lines);
    const size_t request_words = size_t(lines) * kLineWords;
    const uint32_t* base = buf + lane_word;
    auto at = [&](size_t v) { return base + (v & mask) * request_words; };
    uint32_t acc = 0;
    size_t v = warp;
    // Four independent loads in flight per warp before any result is used.
    for (; v + 3 * warps < requests; v += 4 * warps) {
        const uint32_t a = kit::load_cg(at(v));
        const uint32_t b = kit::load_cg(at(v + warps));
        const uint32_t c = kit::load_cg(at(v + 2 * warps));
        const uint32_t d = kit::load_cg(at(v + 3 * warps));
        acc ^= a ^ b ^ c ^ d;
    }
    for (; v < requests; v += warps) acc ^= kit::load_cg(at(v));
    if (acc == kNever) sink[0] = acc;
}

} // namespace

Result run_access_divergence(Context& ctx) {
    kit::ensure_clock(ctx);
    DeviceBuffer<uint32_t> buf(kDramSpan / 4);
    GEMMLAB_CUDA_CHECK(cudaMemset(buf.get(), 0x5a, buf.bytes()));
    DeviceBuffer<uint32_t> sink(1);
    kit::L2Flush flush(ctx);
    const int max_blocks = ctx.sm_count * (std::max(ctx.max_threads_per_sm, 256) / 256);

    auto launch = [&](int lines, size_t requests, size_t region_requests) {
        return [&, lines, requests, region_requests](cudaStream_t s) {
            // At least four requests per warp, so that four loads are in flight.
            const int blocks =
                std::max(1, int(std::min<size_t>(max_blocks, (requests * 32 / 4 + 255) / 256)));
            lines_kernel<<<blocks, 256, 0, s>>>(buf.get(), lines, requests, region_requests,
                                                sink.get());
            GEMMLAB_CHECK_LAUNCH();
        };
    };
    const double empty_ms = kit::median_ms(launch(1, 0, 1), 2, 5);
    auto flush_fn = [&](cudaStream_t s) { flush.run(s); };

    Table t;
    t.title = "useful bandwidth vs distinct 128 B lines per warp request (4 B per lane, ld.cg)";
    t.columns = {"lines per request", "sectors per request", "L2 useful bandwidth", "L2 relative",
                 "DRAM useful bandwidth", "DRAM relative"};
    t.units = {"lines", "sectors", "GB/s", "x", "GB/s", "x"};
    double l2_base = 0, dram_base = 0, l2_last = 0, dram_last = 0;
    int last_lines = 1;
    for (int d = 1; d <= 32; d *= 2) {
        kit::progress(ctx, "access-divergence " + std::to_string(d) + " lines");
        const size_t l2_region = kL2Span / (size_t(d) * kLineWords * 4);
        const double l2_ms =
            std::max(1e-6, kit::median_ms(launch(d, kL2Requests, l2_region), 1, 5) - empty_ms);
        const double l2_gbs = 128.0 * double(kL2Requests) / (l2_ms * 1e6);

        const size_t dram_req = kDramSpan / (size_t(d) * kLineWords * 4);
        const double dram_ms = std::max(
            1e-6,
            kit::median_ms(launch(d, dram_req, dram_req), 1, 5, nullptr, flush_fn) - empty_ms);
        const double dram_gbs = 128.0 * double(dram_req) / (dram_ms * 1e6);

        if (d == 1) {
            l2_base = l2_gbs;
            dram_base = dram_gbs;
        }
        // 32 / D words of 4 B per line: sectors per line = ceil(128 / D / 32).
        const double sectors = double(d) * std::max(1, 4 / d);
        t.rows.push_back(
            {double(d), sectors, l2_gbs, l2_gbs / l2_base, dram_gbs, dram_gbs / dram_base});
        l2_last = l2_gbs;
        dram_last = dram_gbs;
        last_lines = d;
    }

    Result r;
    r.tables.push_back(std::move(t));
    const std::string d = std::to_string(last_lines);
    r.headlines.push_back({"l2_bw_ratio_32_lines", l2_last / l2_base, "x",
                           "A warp load spread over " + d + " lines gets " +
                               kit::num(100 * l2_last / l2_base) +
                               "% of the coalesced useful L2 bandwidth (" + kit::num(l2_last) +
                               " vs " + kit::num(l2_base) + " GB/s)"});
    r.headlines.push_back({"dram_bw_ratio_32_lines", dram_last / dram_base, "x",
                           "From DRAM the same spread gets " +
                               kit::num(100 * dram_last / dram_base) + "% (" +
                               kit::num(dram_last) + " vs " + kit::num(dram_base) + " GB/s)"});
    return r;
}

} // namespace gemmlab::probe
