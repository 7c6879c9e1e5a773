// Probe `index-nchw` (Vega10 microbenchmarks 2.8, NCHW 4-D index generation).
//
// Question: what does it cost to turn a flat NCHW element index into (n, c, h, w), and from
// there into another layout's offset, when the sizes are run-time values: hardware-less integer
// division (`/` and `%`, which the compiler expands into a dozen-odd instructions each) against a
// division by a precomputed multiply-shift ("magic number") pair?
//
// Method:
//  - Cost: each of 8 x 256 threads per SM decodes 4096 flat indices i (3 divisions each:
//    by W, H and C) and sums the NHWC offset ((n*H + h)*W + w)*C + c of each, in registers; no
//    memory traffic. SM cycles per element = event time x SM clock x SMs / elements. Both
//    methods must give the same per-warp sums (checked: the multiply-shift is exact for every
//    i < 2^31).
//  - In context (the source's kernel): one thread per element writes that offset to a 256 MiB
//    array (more than the L2), against the same store with no index arithmetic. Every written
//    element is checked on the host.
// Keeping the work: the cost kernel's sums are reduced and added into a checksum the host reads.
//
// Expected on H100: div/mod around 1-2 elements per SM cycle (integer divide is ~20 instructions
// on the 64-lane INT32 path), multiply-shift ~3x faster. Writing to DRAM hides both: the
// index-writing kernels run at about the plain-store bandwidth (~2.5-3 TB/s).

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kBlock = 256;
constexpr uint32_t kPerThread = 4096;
constexpr uint32_t kC = 64;

/// Division by a run-time constant d >= 1 as a multiply and a shift, exact for n < 2^31:
/// with k = ceil(log2 d) and m = ceil(2^(31+k) / d) (< 2^32), n / d = (n * m) >> (31 + k),
/// because the rounding error of m, e = m*d - 2^(31+k) < d <= 2^k, adds n*e / (d*2^(31+k)) < 1/d
/// to n / d, too little to reach the next integer. On the device: one shift, one high multiply
/// and one more shift, (2n * m) >> 32 >> k, with 2n < 2^32.
struct FastDiv {
    uint32_t d = 1, m = 0, k = 0;

    static FastDiv make(uint32_t d) {
        FastDiv f;
        f.d = d;
        while ((uint64_t(1) << f.k) < d) ++f.k;
        f.m = uint32_t(((uint64_t(1) << (31 + f.k)) + d - 1) / d);
        return f;
    }
    __device__ __forceinline__ uint32_t div(uint32_t n) const { return __umulhi(n << 1, m) >> k; }
};

struct DivModDecode {
    uint32_t C, H, W;
    __device__ uint32_t nhwc_offset(uint32_t i) const {
        const uint32_t w = i % W, t0 = i / W;
        const uint32_t h = t0 % H, t1 = t0 / H;
        const uint32_t c = t1 % C, n = t1 / C;
        return ((n * H + h) * W + w) * C + c;
    }
};

struct MagicDecode {
    FastDiv C, H, W;
    __device__ uint32_t nhwc_offset(uint32_t i) const {
        const uint32_t t0 = W.div(i), w = i - t0 * W.d;
        const uint32_t t1 = H.div(t0), h = t0 - t1 * H.d;
        const uint32_t n = C.div(t1), c = t1 - n * C.d;
        return ((n * H.d + h) * W.d + w) * C.d + c;
    }
};

// Decodes kPerThread indices per thread; the per-warp sums are added into *checksum.
template <class Decode>
__global__ void __launch_bounds__(kBlock) index_cost_kernel(Decode dec, unsigned long long* checksum) {
    const uint32_t threads = gridDim.x * blockDim.x;
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t acc = 0;
    for (uint32_t k = 0; k < kPerThread; ++k, i += threads) acc += dec.nhwc_offset(i);
    unsigned long long v = acc;
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(checksum, v);
}

// The source's kernel, generalised: out[i] = the NHWC offset of NCHW element i.
template <class Decode>
__global__ void index_write_kernel(Decode dec, uint32_t* __restrict__ out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = dec.nhwc_offset(i);
}

__global__ void plain_write_kernel(uint32_t* __restrict__ out, uint32_t count) {
    const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) out[i] = i;
}

uint32_t host_nhwc_offset(uint32_t i, uint32_t C, uint32_t H, uint32_t W) {
    const uint32_t w = i % W, h = i / W % H, c = i / (W * H) % C, n = i / (W * H * C);
    return ((n * H + h) * W + w) * C + c;
}

} // namespace

Result run_index_nchw(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();
    DeviceBuffer<unsigned long long> checksum(1);

    const int grid = stream_grid(ctx);
    const double elements = double(grid) * kBlock * kPerThread;
    if (elements >= double(1u << 31)) throw std::logic_error("index-nchw: too many elements for FastDiv");

    // Writing: about 64 Mi elements (256 MiB) per shape, N chosen to fit.
    constexpr uint32_t kWriteTarget = 64u << 20;
    DeviceBuffer<uint32_t> out(kWriteTarget + (kC * 56 * 56));
    PinnedBuffer<uint32_t> host(out.size());

    Table cost{"NCHW -> NHWC offset from a flat index, C = 64, in registers (3 divisions per "
               "element; cost in SM cycles per element)",
               {"H=W", "div/mod", "div/mod", "multiply-shift", "multiply-shift", "speed-up"},
               {"", "cycles/elem/SM", "ns/elem/SM", "cycles/elem/SM", "ns/elem/SM", "x"},
               {}};
    Table write{"the seed's kernel: out[i] = NHWC offset of element i, ~256 MiB written",
                {"H=W", "div/mod", "multiply-shift", "plain store"},
                {"", "GB/s", "GB/s", "GB/s"},
                {}};
    bool verified = true;
    std::string first_error;
    double divmod56 = 0, magic56 = 0, wdiv56 = 0, wmagic56 = 0, wplain56 = 0;

    for (uint32_t hw : {7u, 14u, 28u, 56u}) {
        progress(ctx, strf("index-nchw: H = W = %u", hw));
        const DivModDecode dd{kC, hw, hw};
        const MagicDecode md{FastDiv::make(kC), FastDiv::make(hw), FastDiv::make(hw)};

        // ---- cost in registers
        unsigned long long sums[2] = {0, 0};
        double cyc[2] = {0, 0};
        for (int method = 0; method < 2; ++method) {
            auto launch = [&](cudaStream_t st) {
                if (method == 0)
                    index_cost_kernel<<<grid, kBlock, 0, st>>>(dd, checksum.get());
                else
                    index_cost_kernel<<<grid, kBlock, 0, st>>>(md, checksum.get());
                GEMMLAB_CHECK_LAUNCH();
            };
            GEMMLAB_CUDA_CHECK(cudaMemsetAsync(checksum.get(), 0, sizeof(unsigned long long), s));
            launch(s);
            GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(&sums[method], checksum.get(), sizeof(unsigned long long),
                                               cudaMemcpyDeviceToHost, s));
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            const double ms = median_ms(launch, s);
            cyc[method] = ms * 1e-3 * ctx.clock_mhz * 1e6 * ctx.sm_count / elements;
        }
        if (sums[0] != sums[1]) {
            verified = false;
            if (first_error.empty())
                first_error = strf("H=W=%u: checksum div/mod %llu != multiply-shift %llu", hw, sums[0], sums[1]);
        }
        cost.rows.push_back({double(hw), cyc[0], ctx.cycles_to_ns(cyc[0]), cyc[1], ctx.cycles_to_ns(cyc[1]),
                             cyc[0] / cyc[1]});

        // ---- in context: write the offsets
        const uint32_t chw = kC * hw * hw;
        const uint32_t count = (kWriteTarget / chw) * chw;
        const unsigned blocks = (count + kBlock - 1) / kBlock;
        double gbps[3] = {0, 0, 0};
        for (int method = 0; method < 3; ++method) {
            auto launch = [&](cudaStream_t st) {
                if (method == 0)
                    index_write_kernel<<<blocks, kBlock, 0, st>>>(dd, out.get(), count);
                else if (method == 1)
                    index_write_kernel<<<blocks, kBlock, 0, st>>>(md, out.get(), count);
                else
                    plain_write_kernel<<<blocks, kBlock, 0, st>>>(out.get(), count);
                GEMMLAB_CHECK_LAUNCH();
            };
            if (method < 2) { // poison, run once, check every element on the host
                GEMMLAB_CUDA_CHECK(cudaMemsetAsync(out.get(), 0xFF, size_t(count) * sizeof(uint32_t), s));
                launch(s);
                GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(host.get(), out.get(), size_t(count) * sizeof(uint32_t),
                                                   cudaMemcpyDeviceToHost, s));
                GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
                std::vector<size_t> bad_at(64, SIZE_MAX);
                std::atomic<size_t> chunk_id{0};
                parallel_chunks(count, [&](size_t b, size_t e) {
                    const size_t id = chunk_id.fetch_add(1);
                    for (size_t i = b; i < e; ++i)
                        if (host[i] != host_nhwc_offset(uint32_t(i), kC, hw, hw)) {
                            if (id < bad_at.size()) bad_at[id] = i;
                            break;
                        }
                });
                for (size_t i : bad_at)
                    if (i != SIZE_MAX) {
                        verified = false;
                        if (first_error.empty())
                            first_error = strf("H=W=%u %s: out[%zu] = %u, want %u", hw,
                                               method == 0 ? "div/mod" : "multiply-shift", i, host[i],
                                               host_nhwc_offset(uint32_t(i), kC, hw, hw));
                        break;
                    }
            }
            const double ms = median_ms(launch, s);
            gbps[method] = double(count) * sizeof(uint32_t) / (ms * 1e6);
        }
        write.rows.push_back({double(hw), gbps[0], gbps[1], gbps[2]});
        if (hw == 56) {
            divmod56 = cyc[0];
            magic56 = cyc[1];
            wdiv56 = gbps[0];
            wmagic56 = gbps[1];
            wplain56 = gbps[2];
        }
    }

    Result r;
    r.tables.push_back(std::move(cost));
    r.tables.push_back(std::move(write));
    r.headlines.push_back(
        {"index_divmod_cycles_per_elem", divmod56, "cycles/elem/SM",
         strf("NCHW index decode with div/mod (C=64, H=W=56): %.3g SM cycles (%.3g ns) per element vs "
              "%.3g (%.3g ns) with multiply-shift, %.1fx",
              divmod56, ctx.cycles_to_ns(divmod56), magic56, ctx.cycles_to_ns(magic56), divmod56 / magic56)});
    r.headlines.push_back(
        {"index_magic_cycles_per_elem", magic56, "cycles/elem/SM",
         strf("multiply-shift decode: %.3g SM cycles (%.3g ns) per element; writing the offsets to DRAM "
              "hides the difference: %.0f GB/s with div/mod, %.0f with multiply-shift, %.0f for a plain store",
              magic56, ctx.cycles_to_ns(magic56), wdiv56, wmagic56, wplain56)});
    r.headlines.push_back({"index_verified", verified ? 1.0 : 0.0, "bool",
                           verified ? std::string("index-nchw: every written offset matches the host; "
                                                  "div/mod and multiply-shift checksums agree")
                                    : "index-nchw: WRONG RESULT, " + first_error});
    return r;
}

} // namespace gemmlab::probe
