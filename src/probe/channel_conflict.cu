// Probe `channel-conflict` (Vega10 microbenchmarks 2.10, memory channel conflicts).
//
// Question: DRAM is split into channels, each serving a fixed slice of the address space. When
// all concurrently running warps read addresses that agree in their low bits (they stride by a
// large power of two), do they crowd onto a few channels and lose bandwidth, as the source saw on
// Vega10 (down to 25%)? Does padding the stride (4096 + 16 floats, in the source's SGEMM advice)
// restore it?
//
// Method: 1 GiB is read as rows of `stride` bytes. 4096 warps run at once (512 blocks of 256
// threads, all resident); warp w reads rows w, w + 4096, ... and walks each row front to back,
// 2 KiB per step (4 x 512-byte warp loads in flight). At any moment every warp is at about the
// same offset within its row, so all addresses in flight are equal modulo `stride`.
//  - stride 2 KiB is an ordinary grid-stride sweep: concurrent warps read adjacent 2 KiB, the
//    "spread" baseline.
//  - strides 4 KiB ... 256 KiB (the largest that still gives every warp a row of its own).
//  - each stride again with rows placed `stride + 512` bytes apart (the padding fix).
// Bandwidth = 1 GiB / median event time. Keeping the work: the loaded values feed a sum stored
// only if it equals a value it never takes (inputs are positive).
//
// Expected on H100 (HBM3, ~3.35 TB/s peak): NVIDIA hashes many address bits into the channel
// and partition choice, so power-of-two strides should cost little; a worst/best ratio near 1
// says the hardware already does what the source did by hand with padding. A clear drop at some
// stride would be a real channel (or bank) conflict to avoid in layouts.

#include <algorithm>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kBlock = 256;
constexpr int kBlocks = 512;
constexpr size_t kWarps = size_t(kBlocks) * kBlock / 32; // 4096
constexpr int kUnroll = 4;                                // 512-byte loads in flight per warp
constexpr size_t kStep = size_t(32) * 16 * kUnroll;       // bytes a warp covers per step: 2 KiB
constexpr size_t kTotal = size_t(1) << 30;                // bytes read per launch
constexpr size_t kPad = 512;
constexpr size_t kMinStride = kStep;
constexpr size_t kMaxStride = kTotal / kWarps;            // 256 KiB: one row per warp
constexpr float kNever = -1.0f;

static_assert(kTotal % kMaxStride == 0 && kMaxStride % kStep == 0, "rows must tile the buffer");

// Warp w reads rows w, w + warps, ... of `row_bytes` each, placed `pitch` bytes apart.
__global__ void __launch_bounds__(kBlock) strided_rows_kernel(const char* __restrict__ base, size_t rows,
                                                              size_t row_bytes, size_t pitch, float* sink) {
    const int lane = threadIdx.x & 31;
    const size_t warp = (size_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
    const size_t warps = (size_t(gridDim.x) * blockDim.x) >> 5;
    float acc = 0;
    for (size_t r = warp; r < rows; r += warps) {
        const float4* row = reinterpret_cast<const float4*>(base + r * pitch);
        const size_t n4 = row_bytes / sizeof(float4);
        for (size_t c = lane; c < n4; c += 32 * kUnroll) {
            float4 v[kUnroll];
#pragma unroll
            for (int k = 0; k < kUnroll; ++k) v[k] = row[c + 32 * k];
#pragma unroll
            for (int k = 0; k < kUnroll; ++k) acc += (v[k].x + v[k].y) + (v[k].z + v[k].w);
        }
    }
    if (acc == kNever) *sink = acc;
}

} // namespace

Result run_channel_conflict(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();
    DeviceBuffer<float> sink(1);

    // Padded rows need (rows x pad) bytes more than kTotal: most at the smallest stride.
    const size_t extra = (kTotal / kMinStride) * kPad;
    DeviceBuffer<float> buf((kTotal + extra) / sizeof(float));
    fill_uniform(buf.get(), buf.size(), fresh_seed(), 0.5f, 1.0f, s);
    const char* base = reinterpret_cast<const char*>(buf.get());

    auto measure = [&](size_t stride, size_t pitch) {
        const size_t rows = kTotal / stride;
        const double ms = median_ms(
            [&](cudaStream_t st) {
                strided_rows_kernel<<<kBlocks, kBlock, 0, st>>>(base, rows, stride, pitch, sink.get());
                GEMMLAB_CHECK_LAUNCH();
            },
            s);
        return double(kTotal) / (ms * 1e6);
    };

    Table t{"DRAM read bandwidth when 4096 concurrent warps read addresses `stride` apart (2 KiB = "
            "ordinary spread sweep; padded: rows stride + 512 B apart)",
            {"stride", "bandwidth", "padded", "vs spread", "padded vs spread"},
            {"KiB", "GB/s", "GB/s", "x", "x"},
            {}};
    double spread = 0, worst = 1e300, best = 0;
    size_t worst_stride = 0;
    double worst_padded = 0;
    for (size_t stride = kMinStride; stride <= kMaxStride; stride *= 2) {
        progress(ctx, strf("channel-conflict: stride %zu KiB", stride >> 10));
        const double plain = measure(stride, stride);
        const double padded = measure(stride, stride + kPad);
        if (stride == kMinStride) spread = plain;
        t.rows.push_back({double(stride) / 1024, plain, padded, plain / spread, padded / spread});
        best = std::max({best, plain, padded});
        if (plain < worst) {
            worst = plain;
            worst_stride = stride;
            worst_padded = padded;
        }
    }

    Result r;
    r.tables.push_back(std::move(t));
    r.headlines.push_back({"channel_spread_gbps", spread, "GB/s",
                           strf("DRAM read with concurrent warps on adjacent addresses: %.0f GB/s", spread)});
    r.headlines.push_back({"channel_worst_over_best", worst / best, "ratio",
                           strf("worst power-of-two stride %zu KiB: %.0f GB/s, %.2f of the best (%.0f GB/s); "
                                "padded by 512 B: %.0f GB/s (Vega10 in the seed: 0.25)",
                                worst_stride >> 10, worst, worst / best, best, worst_padded)});
    return r;
}

} // namespace gemmlab::probe
