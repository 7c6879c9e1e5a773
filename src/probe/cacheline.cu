// cacheline: how large are a cache line and a sector (Vega10 microbenchmarks 2.6.2, 2.7.1)?
//
// Question: at what granularity do the caches and memory move data: the L1 line (the unit one tag
// covers), the 32 B sector L2 hands out, and the amount an L1 or a DRAM miss fetches?
//
// Method, four ways:
//  1. by latency (Vega10 microbenchmarks 2.6.2): one thread reads 2048 words in a dependent chain, each s bytes past
//     the previous one (s = 4 .. 1024 B), from a region nothing cached ("cold": an L2-sized buffer
//     was just overwritten) or that many threads just read into L2 ("L2-warm"). While s is below
//     the fill granule G, a miss brings in the next G/s - 1 reads too, so the mean latency is a
//     mix of miss and hit; from s = G on every read misses. The knee of the cold curve is what a
//     DRAM miss fetches; the knee of the warm curve is what an L1 miss fills. On a sectored cache
//     that is the sector, not the line: the line does not show in this curve.
//  2. the line and the L1 sector, by L1 tags: one thread chases a cycle of N blocks, two reads
//     per block g bytes apart (g = 16 .. 512 B), once to warm L1 and once timed. Blocks start 10
//     or 11 lines apart (128 B * floor(41 k / 4)), never a power of two, so every set of L1 is
//     used alike for every g. Two granules show (cacheline_analysis.hpp): once every block's
//     first read misses, the second read still hits while g is below the sector (the curve
//     levels off halfway between hit and miss) and misses from g = sector on; and the N at which
//     a gap's curve is halfway to its own plateau (the blocks L1 holds) stays put while both
//     reads share a line (one tag) and halves at g = line (two tags). Comparing each gap with its
//     own plateau matters: against one fixed threshold the sector's lower plateau reads as a
//     capacity change, and the line comes out as the sector (an earlier version of this probe
//     did that and reported the 32 B sector as the line).
//  3. by L1 bandwidth (Vega10 microbenchmarks 2.7.1): one block of 8 warps re-reads L1-resident words, lane i at
//     i * s bytes; cycles per warp request grow with the distinct lines a request touches and stop
//     growing once every lane has its own line. Each load's address adds (trip & zero), zero a
//     kernel argument, so ptxas cannot fold the repeated loads of one address into one (it did:
//     0.1 cycles per request), and the reads are consumed before the closing clock.
//  4. by L2 bandwidth: all SMs read one word every s bytes of a 16 MiB L2-resident region with
//     ld.global.cg (2^27 reads per run); bytes moved per read = 4 B x t(s) / t(4 B), a cost in
//     time scaled to bytes, not a count of bytes. The sector is the largest stride up to which it
//     still follows s (within 25%). The same over a 512 MiB region read once (DRAM) gives the DRAM
//     cost per read, s x t(s) / t(4 B) (there the row-buffer efficiency of sparse reads also
//     shows). The headlines quote both curves past the knee as measured.
//
// Keeping the work: asm volatile loads; the chains' last index and the XOR of all reads are stored
// only if they equal values the data never produces; method 3's addresses are opaque to ptxas.
//
// Expected on H100/H200: L1 line 128 B by tags and sector 32 B (H100, docs/results/probe-h100.log:
// curves halfway to their plateau at about 1660 blocks for g = 16, 32 and 64 B, at about 950
// for 128 B and 830 for 256 B; plateaus 163 cycles at g = 16 B, 287 from 32 B; hits 40); L2 sector
// 32 B; an L1 miss fills one 32 B sector; a DRAM miss fetches 64 B (two sectors; the L2 fetch
// granularity, cudaLimitMaxL2FetchGranularity, is a hint up to 128 B). Measured on H200, method 4
// does not stay flat past the sector: L2 cost per read 26 B at 32 and 64 B strides, then ~47 B
// from 128 B on; DRAM cost per read equals the stride up to 64 B, then 74, 112, 123 B at 128,
// 256, 512 B (sparse reads use DRAM less efficiently than 64 B per read). The Vega10 microbenchmarks showed a
// 64 B line by latency (its L1 fills whole lines).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/cacheline_analysis.hpp"
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
constexpr int kTagGapMax = 512;                    // bytes, largest read gap within a block
constexpr int kTagSweepSteps = 21;                 // blocks 256 * 2^(j/4), j < 21: 256 .. 8192

/// First word of tag-chase block k: 128 B * floor(41 k / 4), i.e. 10 or 11 lines past block k-1.
__host__ __device__ inline uint32_t tag_block_word(uint32_t k) { return 32u * ((41u * k) / 4u); }

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

// ---------------------------------------------------------------- 2. L1 tags vs read gap
// Block k holds two nodes: word a = tag_block_word(k) -> a + gap, and a + gap -> next block.
__global__ void build_pair_chain(uint32_t* buf, int blocks, uint32_t gap_words) {
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= blocks) return;
    const uint32_t a = tag_block_word(uint32_t(k));
    buf[a] = a + gap_words;
    buf[a + gap_words] = tag_block_word(uint32_t((k + 1) % blocks));
}

// One pass to fill L1 (and L2), one timed pass; every read depends on the one before.
__global__ void pair_chase(const uint32_t* buf, int reads, long long* cycles, uint32_t* sink) {
    uint32_t i = 0;
    for (int k = 0; k < reads; ++k) i = kit::load_ca(buf + i);
    const long long c0 = clock64();
    for (int k = 0; k < reads; ++k) i = kit::load_ca(buf + i);
    const long long c1 = clock64();
    cycles[0] = c1 - c0;
    if (i == kNever) sink[0] = i;
}

// ---------------------------------------------------------------- 3. L1 bandwidth vs lane stride
// `zero` is 0 at run time; ptxas cannot know it, so each load has its own address expression and
// none is folded into another (with one fixed address ptxas kept a single load per thread).
__global__ void l1_lane_stride(const uint32_t* buf, uint32_t stride_words, int iters,
                               uint32_t zero, long long* cycles, uint32_t* sink) {
    const uint32_t* p = buf + (threadIdx.x & 31) * stride_words;
    uint32_t acc = kit::load_ca(p); // fill L1 before the clock starts
    if (acc == kNever) sink[1] = acc; // waits for the fill
    __syncthreads();
    const long long c0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int u = 0; u < kL1Unroll; ++u)
            acc ^= kit::load_ca(p + ((uint32_t(i) * kL1Unroll + u) & zero));
    }
    if (acc == kNever) sink[0] = acc; // every read has arrived before the closing clock
    __syncthreads();
    const long long c1 = clock64();
    if (threadIdx.x == 0) cycles[0] = c1 - c0;
}

// ---------------------------------------------------------------- 4. bytes moved vs stride
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
    DeviceBuffer<uint32_t> sink(2);
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

    // 2. L1 line by tags: the largest chase of N two-read blocks that still hits L1, vs the gap g
    // between the two reads of a block. Most L1 the carveout allows, the same for every run.
    GEMMLAB_CUDA_CHECK(
        cudaFuncSetAttribute(pair_chase, cudaFuncAttributePreferredSharedMemoryCarveout, 0));
    std::vector<int> gaps;
    for (int g = 16; g <= kTagGapMax; g *= 2) gaps.push_back(g);
    std::vector<int> sweep;
    for (int j = 0; j < kTagSweepSteps; ++j)
        sweep.push_back(int(std::lround(256.0 * std::pow(2.0, j / 4.0))));
    DeviceBuffer<uint32_t> tagbuf(tag_block_word(uint32_t(sweep.back())) + kTagGapMax / 4 + 1);
    // lat[j][gi]: cycles per read at sweep[j] blocks, gap gaps[gi]
    std::vector<std::vector<double>> tag_lat(sweep.size(), std::vector<double>(gaps.size()));
    for (size_t gi = 0; gi < gaps.size(); ++gi) {
        kit::progress(ctx, "cacheline L1 tags, reads " + kit::num(gaps[gi]) + " B apart");
        for (size_t j = 0; j < sweep.size(); ++j) {
            const int n = sweep[j];
            build_pair_chain<<<(n + 255) / 256, 256>>>(tagbuf.get(), n, uint32_t(gaps[gi] / 4));
            GEMMLAB_CHECK_LAUNCH();
            std::vector<double> c;
            for (int rep = 0; rep < kRepeats; ++rep) {
                pair_chase<<<1, 1>>>(tagbuf.get(), 2 * n, cycles.get(), sink.get());
                GEMMLAB_CHECK_LAUNCH();
                long long h = 0;
                cycles.copy_to_host(&h, 1);
                c.push_back(double(h) / (2.0 * n));
            }
            tag_lat[j][gi] = kit::median(std::move(c));
        }
    }
    // The sector (what a miss fills) and the line (what a tag covers), from each gap's curve
    // measured against its own plateau (cacheline_analysis.hpp).
    const L1TagAnalysis tags = analyze_l1_tags(std::vector<double>(gaps.begin(), gaps.end()),
                                               std::vector<double>(sweep.begin(), sweep.end()), tag_lat);
    // "Not found" fails the GPU test's 32..256 B check on purpose.
    const double line = tags.line > 0 ? tags.line : 2.0 * kTagGapMax;
    const double l1_sector = tags.sector > 0 ? tags.sector : 2.0 * kTagGapMax;
    Table tt;
    tt.title = "L1 tags: cycles per dependent read, chase of N blocks x 2 reads g bytes apart "
               "(one thread, L1-warm; line = smallest g at which fewer blocks fit)";
    tt.columns = {"blocks N"};
    tt.units = {"blocks"};
    for (int g : gaps) {
        tt.columns.push_back("g = " + kit::num(g) + " B");
        tt.units.push_back("cycles");
    }
    for (size_t j = 0; j < sweep.size(); ++j) {
        std::vector<double> row{double(sweep[j])};
        row.insert(row.end(), tag_lat[j].begin(), tag_lat[j].end());
        tt.rows.push_back(std::move(row));
    }
    Table tg;
    tg.title = "L1 tags per gap g: the plateau (every block's first read misses), the share of "
               "second reads that miss too (0: same sector as the first), and the N at which "
               "the curve is halfway to its plateau (blocks L1 holds)";
    tg.columns = {"gap g", "plateau", "second reads missing", "half-miss N"};
    tg.units = {"B", "cycles", "fraction", "blocks"};
    for (size_t gi = 0; gi < gaps.size(); ++gi)
        tg.rows.push_back({double(gaps[gi]), tags.plateau[gi], tags.second_read_misses[gi],
                           tags.half_miss_blocks[gi]});

    // 3. L1 cycles per warp request vs lane stride (data resident in L1).
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
            l1_lane_stride<<<1, kL1Warps * 32>>>(l1buf.get(), uint32_t(sd) / 4, kL1Iters, 0u,
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
    const double request_knee = knee(strides, per_request, 0.85);

    // 4. bytes moved per read vs stride, from L2 (16 MiB, many passes) and DRAM (512 MiB, once).
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
    r.tables = {std::move(ta), std::move(tt), std::move(tg), std::move(tc), std::move(tb)};
    // Index of a gap in `gaps` (gaps.size() when absent).
    const auto gap_index = [&](double g) {
        return size_t(std::find(gaps.begin(), gaps.end(), int(g)) - gaps.begin());
    };
    const std::string hit_miss = "an L1 hit takes " + kit::cycles_and_ns(ctx, tags.hit) +
                                 ", a miss to L2 " + kit::cycles_and_ns(ctx, tags.miss);
    {
        const size_t li = gap_index(tags.line);
        std::string text = "L1 line: " + kit::num(line) + " B (one thread chasing N blocks of two reads g B apart; ";
        if (li < gaps.size() && li > 0)
            text += "L1 holds about " + kit::num(tags.half_miss_blocks[li - 1]) +
                    " blocks while g < " + kit::num(line) + " B (one line each), about " +
                    kit::num(tags.half_miss_blocks[li]) + " at g = " + kit::num(line) +
                    " B (two lines each), counted where misses are halfway to the gap's plateau; ";
        else
            text += "no gap up to " + kit::num(kTagGapMax) +
                    " B cut the blocks L1 holds to 3/4, so no line was found; ";
        r.headlines.push_back({"line_bytes", line, "B", text + hit_miss + ")"});
    }
    {
        const size_t si = gap_index(tags.sector);
        std::string text = "L1 sector: " + kit::num(l1_sector) + " B (same chase, every block missing: ";
        if (si < gaps.size() && si > 0)
            text += "the second read still hits when " + kit::num(gaps[si - 1]) + " B after the first (" +
                    kit::num(tags.plateau[si - 1]) + " cycles per read: half the reads miss), misses from " +
                    kit::num(l1_sector) + " B (" + kit::num(tags.plateau[si]) +
                    " cycles): a miss fills one sector of the line, not the line";
        else if (si == 0)
            text += "even reads " + kit::num(gaps[0]) + " B apart miss separately; the sector is at most " +
                    kit::num(gaps[0]) + " B";
        else
            text += "no gap made the second read miss on its own, so no sector was found";
        r.headlines.push_back({"l1_sector_bytes", l1_sector, "B", text + ")"});
    }
    r.headlines.push_back(
        {"l1_request_knee_bytes", request_knee, "B",
         "L1-hit warp request: " + kit::num(per_request.front(), 1) + " cycles coalesced, " +
             kit::num(per_request.back(), 1) + " cycles with every lane in its own line (" +
             kit::num(ctx.cycles_to_ns(per_request.back()), 1) +
             " ns); the cost stops growing at a lane stride of " + kit::num(request_knee) + " B"});
    // "a, b, c B at x, y, z B": a curve's values at the strides above `from`.
    auto curve_after = [&](const std::vector<double>& v, double from) {
        std::string vals, at;
        for (size_t i = 0; i < v.size() && i < strides.size(); ++i) {
            if (strides[i] <= from) continue;
            vals += (vals.empty() ? "" : ", ") + kit::num(v[i]);
            at += (at.empty() ? "" : ", ") + kit::num(strides[i]);
        }
        return vals.empty() ? std::string("no larger stride measured")
                            : vals + " B at strides of " + at + " B";
    };
    const size_t sector_i = size_t(std::find(strides.begin(), strides.end(), sector) - strides.begin());
    r.headlines.push_back(
        {"sector_bytes", sector, "B",
         "L2 sector: " + kit::num(sector) + " B (L2-resident reads, cost per read as bytes = 4 B x " +
             "time / time at a 4 B stride: it follows the stride up to " + kit::num(sector) +
             " B (" + kit::num(l2_bytes[sector_i]) + " B there), then no longer: " +
             curve_after(l2_bytes, sector) + ")"});
    const size_t fetch_i = size_t(std::find(strides.begin(), strides.end(), dram_fetch) - strides.begin());
    const bool fetch_in_bw = fetch_i < dram_bytes.size();
    r.headlines.push_back(
        {"dram_fetch_bytes", dram_fetch, "B",
         "A DRAM miss brings " + kit::num(dram_fetch) + " B on chip, by latency (cold dependent "
             "reads " + kit::num(dram_fetch) + " B or more apart all miss: " +
             kit::cycles_and_ns(ctx, cold[fetch_i]) +
             " each; closer ones partly hit). DRAM cost per read by bandwidth (stride x time / "
             "time at 4 B) is " +
             (fetch_in_bw ? kit::num(dram_bytes[fetch_i]) + " B at a " + kit::num(dram_fetch) +
                                " B stride, then " + curve_after(dram_bytes, dram_fetch)
                          : std::string("not measured at that stride")) +
             (fetch_in_bw && dram_bytes.back() > 1.25 * dram_fetch
                  ? ": sparser reads cost more DRAM time than " + kit::num(dram_fetch) + " B each"
                  : std::string())});
    r.headlines.push_back({"l1_fill_bytes", l1_fill, "B",
                           "An L1 miss fills " + kit::num(l1_fill) + " B (L2-warm reads " +
                               kit::num(l1_fill) + " B apart all miss L1)"});
    return r;
}

} // namespace gemmlab::probe
