// Probe `padding` (Vega10 microbenchmarks 2.13, padding before a convolution).
//
// Question: how fast can an NCHW tensor be zero-padded (7x7 -> 13x13, pad 3, the source's case),
// and what decides it: how many channels each thread handles, and whether the per-thread
// staging array lives in registers or in local memory ("scratch" in the source)?
//
// Method: N = 512 images of C = 1024 channels, 7x7 -> 13x13 (103 MB read, 354 MB written).
//  - Vega10 microbenchmarks 2.13.1: blocks of 256 threads cover one 13x13 plane (169 threads busy), grid
//    (1, C / k, N); each thread loads its k channels into float staged[16] and then stores them.
//    k is a kernel argument; the source's compiler put staged[] in scratch (local) memory for it.
//    Whether nvcc does is read back with cudaFuncGetAttributes (localSizeBytes); a third
//    version declares staged[] volatile, which forces it into local memory, to show that cost.
//  - Vega10 microbenchmarks 2.13.2: the same kernel with k a template constant: the loops unroll and staged[]
//    stays in registers.
//  - Flat: one thread per output element over the whole tensor, no idle threads.
// Each variant runs once on a NaN-poisoned output that is then compared bit for bit with a host
// padding of the same inputs (regenerated on the host from the fill's seed), then is timed.
// GB/s = (bytes read + bytes written) / median time; % of copy against a device copy of the same
// total size measured here. Keeping the work: the output is the result, checked.
//
// Expected on H100: few channels per thread and the local-memory version fall well short of
// copy bandwidth; compile-time counts of 4-16 and the flat kernel come close to it (~2.5-3 TB/s).
// The source: 144 GB/s with 16 channels through scratch vs 450 GB/s without, on a 480 GB/s Vega10.

#include <algorithm>
#include <atomic>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kN = 512, kC = 1024;
constexpr int kHin = 7, kWin = 7, kPad = 3;
constexpr int kHout = kHin + 2 * kPad, kWout = kWin + 2 * kPad;
constexpr int kBlock = 256;
constexpr int kMaxChannels = 16;
constexpr size_t kInCount = size_t(kN) * kC * kHin * kWin;
constexpr size_t kOutCount = size_t(kN) * kC * kHout * kWout;

static_assert(kHout * kWout <= kBlock, "one block must cover an output plane");
static_assert(kC % kMaxChannels == 0, "channels per thread must divide C");

// Vega10 microbenchmarks 2.13.1: the channel count is a run-time argument. With kForceLocal the staging array is
// volatile, which forces it into local memory: what the source's compiler did on its own.
template <bool kForceLocal>
__global__ void __launch_bounds__(kBlock) pad_runtime_kernel(const float* __restrict__ in, float* __restrict__ out,
                                                             int channels_per_thread, int C, int h_out, int w_out,
                                                             int pad) {
    using Stage = std::conditional_t<kForceLocal, volatile float, float>;
    const int hw = threadIdx.x;
    const int c0 = channels_per_thread * blockIdx.y;
    const int n = blockIdx.z;
    const int plane_out = h_out * w_out;
    if (hw >= plane_out) return;
    const int h_in = h_out - 2 * pad, w_in = w_out - 2 * pad;
    const int y = hw / w_out - pad, x = hw % w_out - pad;
    Stage staged[kMaxChannels];
    for (int i = 0; i < kMaxChannels; ++i) staged[i] = 0.0f;
    if (y >= 0 && y < h_in && x >= 0 && x < w_in) {
        const size_t base = (size_t(n) * C + c0) * (h_in * w_in) + y * w_in + x;
        for (int i = 0; i < channels_per_thread; ++i) staged[i] = in[base + size_t(i) * (h_in * w_in)];
    }
    const size_t obase = (size_t(n) * C + c0) * plane_out + hw;
    for (int i = 0; i < channels_per_thread; ++i) out[obase + size_t(i) * plane_out] = staged[i];
}

// Vega10 microbenchmarks 2.13.2: every size a compile-time constant.
template <int kChannels>
__global__ void __launch_bounds__(kBlock) pad_const_kernel(const float* __restrict__ in, float* __restrict__ out) {
    const int hw = threadIdx.x;
    const int c0 = kChannels * blockIdx.y;
    const int n = blockIdx.z;
    if (hw >= kHout * kWout) return;
    const int y = hw / kWout - kPad, x = hw % kWout - kPad;
    float staged[kChannels];
#pragma unroll
    for (int i = 0; i < kChannels; ++i) staged[i] = 0.0f;
    if (y >= 0 && y < kHin && x >= 0 && x < kWin) {
        const size_t base = (size_t(n) * kC + c0) * (kHin * kWin) + y * kWin + x;
#pragma unroll
        for (int i = 0; i < kChannels; ++i) staged[i] = in[base + size_t(i) * (kHin * kWin)];
    }
    const size_t obase = (size_t(n) * kC + c0) * (kHout * kWout) + hw;
#pragma unroll
    for (int i = 0; i < kChannels; ++i) out[obase + size_t(i) * (kHout * kWout)] = staged[i];
}

// One thread per output element.
__global__ void __launch_bounds__(kBlock) pad_flat_kernel(const float* __restrict__ in, float* __restrict__ out) {
    const size_t o = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (o >= kOutCount) return;
    const uint32_t plane = uint32_t(o / (kHout * kWout)); // n * C + c
    const int hw = int(o - size_t(plane) * (kHout * kWout));
    const int y = hw / kWout - kPad, x = hw % kWout - kPad;
    const bool inside = y >= 0 && y < kHin && x >= 0 && x < kWin;
    out[o] = inside ? in[size_t(plane) * (kHin * kWin) + y * kWin + x] : 0.0f;
}

} // namespace

Result run_padding(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();

    const uint32_t seed = fresh_seed();
    constexpr float kOffset = 0.5f, kWidth = 1.0f; // inputs in [0.5, 1.5): never the pad value 0
    DeviceBuffer<float> in(kInCount), out(kOutCount);
    fill_uniform(in.get(), kInCount, seed, kOffset, kWidth, s);
    PinnedBuffer<float> host(kOutCount);

    progress(ctx, "padding: copy ceiling");
    const size_t moved = (kInCount + kOutCount) * sizeof(float);
    const CopyCeiling copy = measure_copy(ctx, moved / 2, s);

    cudaFuncAttributes attr{};
    GEMMLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, pad_runtime_kernel<false>));
    const size_t runtime_local_bytes = attr.localSizeBytes;
    GEMMLAB_CUDA_CHECK(cudaFuncGetAttributes(&attr, pad_runtime_kernel<true>));
    const size_t forced_local_bytes = attr.localSizeBytes;

    bool verified = true;
    std::string first_error;
    // Poison, run once, compare every element with the host padding; then time.
    auto check_and_time = [&](const std::string& name, const std::function<void(cudaStream_t)>& launch) {
        progress(ctx, "padding: " + name);
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(out.get(), 0xFF, kOutCount * sizeof(float), s));
        launch(s);
        GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(host.get(), out.get(), kOutCount * sizeof(float), cudaMemcpyDeviceToHost, s));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        std::atomic<size_t> bad{SIZE_MAX};
        parallel_chunks(kOutCount, [&](size_t b, size_t e) {
            for (size_t o = b; o < e; ++o) {
                const size_t plane = o / (kHout * kWout);
                const int hw = int(o % (kHout * kWout));
                const int y = hw / kWout - kPad, x = hw % kWout - kPad;
                const bool inside = y >= 0 && y < kHin && x >= 0 && x < kWin;
                const float want = inside ? uniform_value(plane * (kHin * kWin) + y * kWin + x, seed, kOffset, kWidth) : 0.0f;
                if (std::memcmp(&host[o], &want, sizeof want) != 0) {
                    size_t cur = bad.load();
                    while (o < cur && !bad.compare_exchange_weak(cur, o)) {}
                    return;
                }
            }
        });
        if (bad.load() != SIZE_MAX) {
            verified = false;
            if (first_error.empty()) {
                const size_t o = bad.load();
                const size_t plane = o / (kHout * kWout);
                first_error = strf("%s: out[n=%zu][c=%zu][%zu][%zu] = %g", name.c_str(), plane / kC, plane % kC,
                                   o % (kHout * kWout) / kWout, o % kWout, double(host[o]));
            }
        }
        const double ms = median_ms(launch, s);
        return double(moved) / (ms * 1e6);
    };

    Table t{strf("pad N=%d C=%d 7x7 -> 13x13 (pad 3), 256 threads per plane: channel count per thread as a "
                 "kernel argument (seed 2.13.1, staged in local memory) vs a compile-time constant "
                 "(seed 2.13.2); data seed %u",
                 kN, kC, seed),
            {"channels per thread", "run-time count", "run-time count", "compile-time count", "compile-time count",
             "forced local", "forced local"},
            {"", "GB/s", "% of copy", "GB/s", "% of copy", "GB/s", "% of copy"},
            {}};
    double runtime16 = 0, const16 = 0, local16 = 0, best = 0;
    std::string best_name;
    auto note_best = [&](double g, const std::string& name) {
        if (g > best) {
            best = g;
            best_name = name;
        }
    };
    for (int k : {1, 2, 4, 8, 16}) {
        const dim3 grid(1, kC / k, kN);
        const double g_rt = check_and_time(strf("%d channels, run-time count", k), [&, k, grid](cudaStream_t st) {
            pad_runtime_kernel<false><<<grid, kBlock, 0, st>>>(in.get(), out.get(), k, kC, kHout, kWout, kPad);
            GEMMLAB_CHECK_LAUNCH();
        });
        const double g_lm = check_and_time(strf("%d channels, forced local memory", k), [&, k, grid](cudaStream_t st) {
            pad_runtime_kernel<true><<<grid, kBlock, 0, st>>>(in.get(), out.get(), k, kC, kHout, kWout, kPad);
            GEMMLAB_CHECK_LAUNCH();
        });
        const double g_ct = check_and_time(strf("%d channels, compile-time count", k), [&, k, grid](cudaStream_t st) {
            switch (k) {
            case 1: pad_const_kernel<1><<<grid, kBlock, 0, st>>>(in.get(), out.get()); break;
            case 2: pad_const_kernel<2><<<grid, kBlock, 0, st>>>(in.get(), out.get()); break;
            case 4: pad_const_kernel<4><<<grid, kBlock, 0, st>>>(in.get(), out.get()); break;
            case 8: pad_const_kernel<8><<<grid, kBlock, 0, st>>>(in.get(), out.get()); break;
            default: pad_const_kernel<16><<<grid, kBlock, 0, st>>>(in.get(), out.get()); break;
            }
            GEMMLAB_CHECK_LAUNCH();
        });
        t.rows.push_back({double(k), g_rt, 100 * g_rt / copy.gbps, g_ct, 100 * g_ct / copy.gbps, g_lm,
                          100 * g_lm / copy.gbps});
        note_best(g_rt, strf("%d channels per thread, run-time count", k));
        note_best(g_ct, strf("%d channels per thread, compile-time count", k));
        if (k == 16) {
            runtime16 = g_rt;
            const16 = g_ct;
            local16 = g_lm;
        }
    }
    const unsigned flat_blocks = unsigned((kOutCount + kBlock - 1) / kBlock);
    const double g_flat = check_and_time("one thread per output element", [&](cudaStream_t st) {
        pad_flat_kernel<<<flat_blocks, kBlock, 0, st>>>(in.get(), out.get());
        GEMMLAB_CHECK_LAUNCH();
    });
    note_best(g_flat, "one thread per output element");

    Result r;
    r.tables.push_back(std::move(t));
    r.tables.push_back(Table{"pad with one thread per output element (flat grid, no idle threads)",
                             {"bandwidth", "of copy"},
                             {"GB/s", "%"},
                             {{g_flat, 100 * g_flat / copy.gbps}}});
    r.headlines.push_back({"padding_best_gbps", best, "GB/s",
                           strf("padding 7x7 -> 13x13: best %.0f GB/s (%.0f%% of copy %.0f GB/s), %s", best,
                                100 * best / copy.gbps, copy.gbps, best_name.c_str())});
    r.headlines.push_back({"padding_const_over_runtime_16ch", const16 / runtime16, "x",
                           strf("16 channels per thread: compile-time count %.0f GB/s vs run-time count %.0f GB/s "
                                "(%.2fx; nvcc gives the run-time version %zu B of local memory per thread); "
                                "staged through local memory (%zu B, forced): %.0f GB/s",
                                const16, runtime16, const16 / runtime16, runtime_local_bytes, forced_local_bytes,
                                local16)});
    r.headlines.push_back({"padding_verified", verified ? 1.0 : 0.0, "bool",
                           verified ? std::string("padding: all 16 variants match the host padding bit for bit")
                                    : "padding: WRONG OUTPUT, " + first_error});
    return r;
}

} // namespace gemmlab::probe
