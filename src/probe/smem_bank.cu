// Probe `smem-bank` (Vega10 microbenchmarks 2.9.2, LDS bank conflicts).
//
// Question: how many cycles does a warp-wide shared-memory load cost when its 32 lanes touch
// addresses `stride` words apart, for stride 1...64, and does padding a [32][32] tile to
// [32][33] remove the conflict of a column read?
//
// Method: one block of 1024 threads (32 warps) on one SM. Lane l of every warp reads the 4-byte word at index
// l * stride, 1024 times, with independent loads (results XOR-folded), so the shared-memory
// pipe, not latency, limits the rate. Each warp reads clock64() (an SM-wide counter) before and
// after; the SM's cycles for the block are max(end) - min(start), and cycles per access are
// those over (warps x loads): the cost of one warp-wide load at full occupancy of the pipe.
// ns come from the clock measured by the `clock` probe. The source used one wave and a dependent
// chain (latency plus conflicts); latency is `smem-latency`'s business, this is the throughput.
// The padding test reads column c of a float tile[32][P] (lane l reads tile[l][c], c = 0..31):
// P = 32 puts the whole column in one bank, P = 33 spreads it over all 32.
// Keeping the work: the loads are kit::lds_u32 (probe_kit.cuh): `asm volatile` PTX
// ld.volatile.shared, which neither nvcc nor ptxas may delete or merge (with a plain ld.shared the
// kernel compiled to 14 registers instead of 29: ptxas was evidently folding the 16 loads of one
// address); their XOR is stored only if it equals a value passed in that it never takes.
//
// Expected on H100 (32 banks of 4 bytes): the lanes of stride s fall on 32 / gcd(s, 32) banks,
// so the conflict is gcd(s, 32)-way and a load costs ~gcd(s, 32) times the stride-1 cost (about
// one cycle): odd strides cost 1, stride 2 costs 2, ... stride 32 and 64 cost ~32. Same for the
// tile: [32][32] column ~32 cycles, [32][33] ~1 cycle. bank_model.hpp computes the ways.
//
// On AMD (HIP build): the same kernels with 64-lane wavefronts, so 16 of them per block, tiles of
// [64][P] (lane l still reads row l), and LDS loads that are volatile ds_read_b32. GCN's LDS has
// 32 banks of 4 bytes and serves a wavefront 32 lanes at a time (bank_model.hpp), so the model
// expects gcd(s, 32)-way conflicts within each half and a load to cost about twice the NVIDIA
// figure in cycles: ~2 at odd strides, ~64 at stride 32, ~2 for the [64][33] column. The cycles
// are clock64 (s_memtime) ticks at the rate the clock probe measures. Not run on AMD yet
// (docs/hip.md).

#include <algorithm>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/gpu_runtime.hpp"
#include "probe/bank_model.hpp"
#include "probe/membw_common.cuh"
#include "probe/probe_kit.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;
using kit::lds_u32;
using kit::smem_addr;

constexpr int kThreads = 1024;
constexpr int kWarps = kThreads / kWarpSize;  // 32 warps, or 16 wavefronts
constexpr int kMaxStride = 64;
constexpr int kWords = kWarpSize * kMaxStride; // the last lane at stride 64 reads word (kWarpSize - 1) * 64
constexpr int kLoads = 1024;               // per warp
constexpr int kUnroll = 16;
constexpr uint32_t kNever = 0xFFFFFFFFu;   // passed at run time: the compiler cannot fold the test
static_assert(kLoads % kUnroll == 0, "kLoads must be a multiple of the unroll factor");

// Each warp writes its start and end clock64 to clocks[2 * warp + {0, 1}].
__global__ void __launch_bounds__(kThreads) stride_kernel(int stride, uint32_t never,
                                                          long long* clocks, uint32_t* sink) {
    __shared__ uint32_t words[kWords];
    for (int i = threadIdx.x; i < kWords; i += blockDim.x) words[i] = mix32(uint32_t(i)) | 1u;
    __syncthreads();
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const uint32_t addr = smem_addr(&words[lane * stride]);
    uint32_t acc = 0;
    const long long t0 = clock64();
    for (int i = 0; i < kLoads; i += kUnroll) {
        uint32_t v[kUnroll]; // all loads issued before any result is used: many in flight per warp
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) v[k] = lds_u32(addr);
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) acc ^= v[k];
    }
    const long long t1 = clock64();
    if (lane == 0) {
        clocks[2 * warp] = t0;
        clocks[2 * warp + 1] = t1;
    }
    if (acc == never) *sink = acc;
}

// Column reads of a float tile[kWarpSize][kPitch]: lane l reads tile[l][c] for c = 0..31, repeatedly.
template <int kPitch>
__global__ void __launch_bounds__(kThreads) tile_column_kernel(uint32_t never, long long* clocks,
                                                               uint32_t* sink) {
    __shared__ float tile[kWarpSize][kPitch];
    for (int i = threadIdx.x; i < kWarpSize * kPitch; i += blockDim.x) tile[i / kPitch][i % kPitch] = float(i) + 0.5f;
    __syncthreads();
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const uint32_t row = smem_addr(&tile[lane][0]);
    uint32_t acc = 0;
    const long long t0 = clock64();
    for (int i = 0; i < kLoads; i += 32) {
        uint32_t v[32];
#pragma unroll
        for (int c = 0; c < 32; ++c) v[c] = lds_u32(row + uint32_t(c * sizeof(float)));
#pragma unroll
        for (int c = 0; c < 32; ++c) acc ^= v[c];
    }
    const long long t1 = clock64();
    if (lane == 0) {
        clocks[2 * warp] = t0;
        clocks[2 * warp + 1] = t1;
    }
    if (acc == never) *sink = acc;
}

// Median over `reps` launches of SM cycles per warp-wide access.
template <class Launch>
double cycles_per_access(Launch&& launch, DeviceBuffer<long long>& clocks, cudaStream_t s, int reps) {
    std::vector<long long> h(2 * kWarps);
    std::vector<double> samples;
    for (int r = 0; r < reps + 1; ++r) { // the first launch is a warm-up
        launch();
        GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(h.data(), clocks.get(), h.size() * sizeof(long long),
                                           cudaMemcpyDeviceToHost, s));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        if (r == 0) continue;
        long long start = h[0], end = h[1];
        for (int w = 0; w < kWarps; ++w) {
            start = std::min(start, h[2 * w]);
            end = std::max(end, h[2 * w + 1]);
        }
        samples.push_back(double(end - start) / (double(kWarps) * kLoads));
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

} // namespace

Result run_smem_bank(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();
    DeviceBuffer<long long> clocks(2 * kWarps);
    DeviceBuffer<uint32_t> sink(1);
    constexpr int kReps = 3;
    // The expected conflicts, at this build's warp width (bank_model.hpp).
    auto ways = [](int stride) { return strided_load_cost(stride, kWarpSize).ways; };
    const int passes1 = strided_load_cost(1, kWarpSize).passes; // a conflict-free load: 1 or 2

    Table t{kHipBuild ? strf("LDS load cost vs stride between lanes (%d wavefronts on one CU, independent "
                             "4-byte loads; conflict ways = gcd(stride, 32) within each 32-lane half, "
                             "the halves served one after the other: %d x ways bank passes per load)",
                             kWarps, passes1)
                      : strf("shared-memory load cost vs stride between lanes (%d warps on one SM, "
                             "independent 4-byte loads; conflict ways = gcd(stride, 32))",
                             kWarps),
            {"stride", "cycles per access", "ns per access", "conflict ways"},
            {"words", "cycles", "ns", ""},
            {}};
    std::vector<double> cyc(kMaxStride + 1, 0);
    for (int stride = 1; stride <= kMaxStride; ++stride) {
        if (stride % 8 == 1) progress(ctx, strf("smem-bank: stride %d of %d", stride, kMaxStride));
        cyc[stride] = cycles_per_access(
            [&] {
                stride_kernel<<<1, kThreads, 0, s>>>(stride, kNever, clocks.get(), sink.get());
                GEMMLAB_CHECK_LAUNCH();
            },
            clocks, s, kReps);
        t.rows.push_back({double(stride), cyc[stride], ctx.cycles_to_ns(cyc[stride]), double(ways(stride))});
    }

    const double col32 = cycles_per_access(
        [&] {
            tile_column_kernel<32><<<1, kThreads, 0, s>>>(kNever, clocks.get(), sink.get());
            GEMMLAB_CHECK_LAUNCH();
        },
        clocks, s, kReps);
    const double col33 = cycles_per_access(
        [&] {
            tile_column_kernel<33><<<1, kThreads, 0, s>>>(kNever, clocks.get(), sink.get());
            GEMMLAB_CHECK_LAUNCH();
        },
        clocks, s, kReps);

    // The words of the output: "shared" and "warp" on NVIDIA, "LDS" and "wavefront" on AMD.
    const char* memory = kHipBuild ? "LDS" : "shared";
    const std::string warp_wide = kHipBuild ? strf("wavefront-wide access (%d passes of 32 lanes)", passes1)
                                            : std::string("warp-wide access");
    const std::string conflict = kHipBuild ? strf("%d-way conflict in each 32-lane half", ways(32))
                                           : strf("%d-way conflict", ways(32));
    const std::string tile32 = strf("tile[%d][32]", kWarpSize), tile33 = strf("tile[%d][33]", kWarpSize);

    Result r;
    r.tables.push_back(std::move(t));
    r.tables.push_back(Table{strf("column read of a float tile[%d][row length]: the padding fix", kWarpSize),
                             {"row length", "cycles per access", "ns per access", "conflict ways"},
                             {"floats", "cycles", "ns", ""},
                             {{32, col32, ctx.cycles_to_ns(col32), double(ways(32))},
                              {33, col33, ctx.cycles_to_ns(col33), double(ways(33))}}});

    r.headlines.push_back({"smem_stride1_cycles_per_access", cyc[1], "cycles",
                           strf("stride-1 %s load (no conflict): ", memory) + cycles_text(ctx, cyc[1]) +
                               " per " + warp_wide});
    r.headlines.push_back({"smem_stride32_cycles_per_access", cyc[32], "cycles",
                           strf("stride-32 %s load: ", memory) + conflict + ", " + cycles_text(ctx, cyc[32]) +
                               strf(" per access vs %.3g at stride 1 (%.1fx)", cyc[1], cyc[32] / cyc[1])});
    r.headlines.push_back({"smem_tile32x32_column_cycles_per_access", col32, "cycles",
                           "column read of " + tile32 + ": " + cycles_text(ctx, col32) + " per access"});
    r.headlines.push_back({"smem_tile32x33_column_cycles_per_access", col33, "cycles",
                           "padded " + tile33 + " column read: " + cycles_text(ctx, col33) +
                               strf(" per access, %.1fx faster than [%d][32]", col32 / col33, kWarpSize)});
    return r;
}

} // namespace gemmlab::probe
