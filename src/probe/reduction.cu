// Probe `reduction` (Vega10 microbenchmarks 2.12, reduction).
//
// Question: summing a large array is a read at memory speed plus a tree of partial sums. When
// each block first stores one element per thread in shared memory, how much does the tree's
// shape cost: halving the active threads per step (2 elements per step, 8 steps with a barrier
// each), quartering them (4 per step, 4 steps; the source saw 1.7x), or warp shuffles (no shared
// memory inside a warp)? And how close does a sum get to DRAM read bandwidth when each thread
// first accumulates many elements with 16-byte loads?
//
// Method: 1 GiB of random uint32 values (below 2^16), summed modulo 2^32, so every variant's
// result must equal the host's exactly, whatever its order. Each variant writes one partial sum
// per block; a second small kernel adds the partials into the result, one atomic per block;
// both kernels and the zeroing of the result are timed.
//  1. tree, 2 per step: 256 threads, one element each, s[t] += s[t + half], 8 barriers
//  2. tree, 4 per step: s[t] += s[t + q] + s[t + 2q] + s[t + 3q], 4 barriers
//     (the source's version omits the barrier between steps, a race; here every step has one)
//  3. warp shuffles: __shfl_down_sync inside each warp, then the 8 warp sums once more
//  4. shuffles after a grid-stride loop of 16-byte loads: 2048 threads per SM, each summing
//     ~120 elements first (what a production reduction does)
// GB/s = bytes read / median time. A reduction only reads, so its ceiling is the read-only
// bandwidth measured in this probe (membw::measure_read: a grid-stride sum of 1 GiB with 16-byte
// loads, four in flight per thread); % of copy (a device copy measured here too, bytes read +
// written) stays in the table for comparison with the other probes, but a read-only kernel can
// beat it (H200: 113%), since a copy also pays for its writes. Keeping the work: the sum is the
// output, checked.
//
// Expected on H100: variants 1-3 pay a block launch and a barrier tree per 1 KiB, so they stay
// well under memory speed, 3 > 2 > 1; variant 4 reads at ~90-100% of DRAM read bandwidth
// (~3 TB/s on H100, ~4.3 TB/s on H200).

#include <algorithm>
#include <atomic>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "probe/membw_common.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;

constexpr int kBlock = 256;
constexpr size_t kCount = size_t(1) << 28; // 1 GiB of uint32
constexpr uint32_t kValueMask = 0xFFFF;
constexpr int kFinalThreads = 1024;

static_assert(kCount % kBlock == 0, "one element per thread needs whole blocks");
static_assert(kBlock == 4 * 4 * 4 * 4, "the 4-per-step tree needs a power-of-four block");

__device__ __forceinline__ uint32_t warp_sum(uint32_t v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

// Sum of v over a block of kThreads (valid in thread 0).
template <int kThreads>
__device__ __forceinline__ uint32_t block_sum_shfl(uint32_t v) {
    __shared__ uint32_t warp_sums[kThreads / 32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < kThreads / 32 ? warp_sums[lane] : 0u;
        v = warp_sum(v);
    }
    return v;
}

__global__ void __launch_bounds__(kBlock) tree2_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ partial) {
    __shared__ uint32_t s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[size_t(blockIdx.x) * kBlock + t];
    __syncthreads();
    for (int half = kBlock / 2; half > 0; half >>= 1) {
        if (t < half) s[t] += s[t + half];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(kBlock) tree4_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ partial) {
    __shared__ uint32_t s[kBlock];
    const int t = threadIdx.x;
    s[t] = in[size_t(blockIdx.x) * kBlock + t];
    __syncthreads();
    for (int q = kBlock / 4; q > 0; q >>= 2) {
        if (t < q) s[t] = s[t] + s[t + q] + s[t + 2 * q] + s[t + 3 * q];
        __syncthreads();
    }
    if (t == 0) partial[blockIdx.x] = s[0];
}

__global__ void __launch_bounds__(kBlock) shuffle_kernel(const uint32_t* __restrict__ in, uint32_t* __restrict__ partial) {
    const uint32_t v = block_sum_shfl<kBlock>(in[size_t(blockIdx.x) * kBlock + threadIdx.x]);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

__global__ void __launch_bounds__(kBlock) vector_kernel(const uint4* __restrict__ in, size_t n4, uint32_t* __restrict__ partial) {
    const size_t stride = size_t(gridDim.x) * blockDim.x;
    size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
    uint32_t a0 = 0, a1 = 0;
    for (; i + stride < n4; i += 2 * stride) { // two 16-byte loads in flight per thread
        const uint4 u = in[i], w = in[i + stride];
        a0 += (u.x + u.y) + (u.z + u.w);
        a1 += (w.x + w.y) + (w.z + w.w);
    }
    if (i < n4) {
        const uint4 u = in[i];
        a0 += (u.x + u.y) + (u.z + u.w);
    }
    const uint32_t v = block_sum_shfl<kBlock>(a0 + a1);
    if (threadIdx.x == 0) partial[blockIdx.x] = v;
}

// Second pass: each block sums a stretch of the partials and adds it into *out (zeroed first).
__global__ void __launch_bounds__(kFinalThreads) final_kernel(const uint32_t* __restrict__ partial, size_t n,
                                                              uint32_t* __restrict__ out) {
    uint32_t v = 0;
    for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        v += partial[i];
    v = block_sum_shfl<kFinalThreads>(v);
    if (threadIdx.x == 0) atomicAdd(out, v);
}

} // namespace

Result run_reduction(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    const cudaStream_t s = stream.get();

    const uint32_t seed = fresh_seed();
    DeviceBuffer<uint32_t> data(kCount);
    fill_hash_u32(data.get(), kCount, seed, kValueMask, s);
    const size_t one_per_thread_blocks = kCount / kBlock;
    const int vector_blocks = stream_grid(ctx);
    DeviceBuffer<uint32_t> partial(one_per_thread_blocks);
    DeviceBuffer<uint32_t> result(1);

    progress(ctx, "reduction: host sum");
    std::atomic<uint32_t> host_sum{0};
    parallel_chunks(kCount, [&](size_t b, size_t e) {
        uint32_t acc = 0;
        for (size_t i = b; i < e; ++i) acc += hash_index(i, seed) & kValueMask;
        host_sum.fetch_add(acc);
    });
    const uint32_t want = host_sum.load();

    progress(ctx, "reduction: read and copy ceilings");
    const ReadCeiling read = measure_read(ctx, kCount * sizeof(uint32_t), s);
    const CopyCeiling copy = measure_copy(ctx, kCount * sizeof(uint32_t) / 2, s);

    struct Variant {
        const char* name;
        double elements_per_thread;
    };
    const Variant variants[] = {
        {"tree, 2 per step", 1},
        {"tree, 4 per step", 1},
        {"warp shuffles", 1},
        {"shuffles + 16-byte loads", double(kCount) / (double(vector_blocks) * kBlock)},
    };
    auto launch = [&](int v, cudaStream_t st) {
        size_t blocks = one_per_thread_blocks;
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(result.get(), 0, sizeof(uint32_t), st));
        switch (v) {
        case 0: tree2_kernel<<<unsigned(blocks), kBlock, 0, st>>>(data.get(), partial.get()); break;
        case 1: tree4_kernel<<<unsigned(blocks), kBlock, 0, st>>>(data.get(), partial.get()); break;
        case 2: shuffle_kernel<<<unsigned(blocks), kBlock, 0, st>>>(data.get(), partial.get()); break;
        default:
            blocks = size_t(vector_blocks);
            vector_kernel<<<vector_blocks, kBlock, 0, st>>>(reinterpret_cast<const uint4*>(data.get()), kCount / 4,
                                                            partial.get());
        }
        GEMMLAB_CHECK_LAUNCH();
        const unsigned final_blocks = unsigned(std::min<size_t>(ctx.sm_count, (blocks + kFinalThreads - 1) / kFinalThreads));
        final_kernel<<<final_blocks, kFinalThreads, 0, st>>>(partial.get(), blocks, result.get());
        GEMMLAB_CHECK_LAUNCH();
    };

    Table t{strf("sum of 1 GiB of uint32 (variant: 1 tree 2 per step, 2 tree 4 per step, 3 warp shuffles, "
                 "4 shuffles after 16-byte grid-stride loads; data seed %u)",
                 seed),
            {"variant", "elements per thread", "time", "bandwidth", "of DRAM read", "of copy", "sum correct"},
            {"#", "", "ms", "GB/s", "%", "%", "0/1"},
            {}};
    double gbps[4] = {};
    bool all_correct = true;
    std::string wrong;
    for (int v = 0; v < 4; ++v) {
        progress(ctx, strf("reduction: %s", variants[v].name));
        launch(v, s);
        uint32_t got = 0;
        GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(&got, result.get(), sizeof got, cudaMemcpyDeviceToHost, s));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        const bool ok = got == want;
        if (!ok) {
            all_correct = false;
            if (wrong.empty()) wrong = strf("%s: got %u, want %u", variants[v].name, got, want);
        }
        const double ms = median_ms([&](cudaStream_t st) { launch(v, st); }, s);
        gbps[v] = double(kCount) * sizeof(uint32_t) / (ms * 1e6);
        t.rows.push_back({double(v + 1), variants[v].elements_per_thread, ms, gbps[v], 100 * gbps[v] / read.gbps,
                          100 * gbps[v] / copy.gbps, ok ? 1.0 : 0.0});
    }

    Result r;
    r.tables.push_back(std::move(t));
    r.headlines.push_back(
        {"reduction_best_gbps", gbps[3], "GB/s",
         strf("sum of 1 GiB: shuffles after 16-byte loads %.0f GB/s (%.0f%% of DRAM read bandwidth, %.0f GB/s "
              "measured here); one element per thread: tree 2/step %.0f, tree 4/step %.0f, shuffles %.0f GB/s",
              gbps[3], 100 * gbps[3] / read.gbps, read.gbps, gbps[0], gbps[1], gbps[2])});
    r.headlines.push_back({"reduction_tree4_over_tree2", gbps[1] / gbps[0], "x",
                           strf("4 elements per tree step vs 2: %.2fx (Vega10 in the seed: 1.70x)", gbps[1] / gbps[0])});
    r.headlines.push_back({"reduction_verified", all_correct ? 1.0 : 0.0, "bool",
                           all_correct ? strf("reduction: all 4 sums equal the host sum (%u, modulo 2^32)", want)
                                       : "reduction: WRONG SUM, " + wrong});
    return r;
}

} // namespace gemmlab::probe
