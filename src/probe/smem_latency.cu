// Probe `smem-latency` (Vega10 microbenchmarks 2.9.1, LDS latency).
//
// Question: how many cycles pass between issuing a shared-memory load and being able to use
// its value?
//
// Method: a dependent chain in shared memory, timed with clock64() around 4096 loads.
//  - Address chain: each word holds the shared-window address of the next, and the chain is
//    `p = ld.shared [p]` in inline PTX: nothing but the load sits on the critical path.
//  - Index chain (the source's form, `temp = lds[temp]`): each word holds the index of the next,
//    so every step adds the index-to-address arithmetic the compiler emits.
// Lane l of a warp walks the words of bank l mod 32 (row r -> row r + 1 of a [64][32] array), so a
// warp-wide step is one conflict-free access; a sweep over 1...32 warps, each chasing, shows
// when the shared-memory pipe, rather than latency, starts to set the pace.
// Keeping the work: the chain's last value is stored only if it equals a value passed in at run
// time that it never takes; the address loads are kit::lds_u32 and the index chain reads through
// kit::volatile_shared (probe_kit.cuh), neither of which the compiler may drop or merge.
//
// Expected on H100: ~30 cycles (about 16 ns at 1.9 GHz) per dependent load with one warp, a few
// cycles more for the index chain; flat until enough warps share the pipe. The source measured
// 63 cycles on Vega10 (44 after its two address instructions).
//
// On AMD (HIP build): the chain is a dependent ds_read_b32 (address chain), or the index's
// address arithmetic and a ds_read_b32 (index chain). Lanes l and l + 32 of a 64-lane wavefront
// walk the same words, one in each half of the wavefront, which the LDS serves one after the
// other (bank_model.hpp), so a step is conflict-free there too. The sweep stops at 16
// wavefronts (1024 threads, a block's limit). Cycles are clock64 (s_memtime) ticks at the rate
// the clock probe measures. Not run on AMD yet (docs/hip.md).

#include <algorithm>
#include <string>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/gpu_runtime.hpp"
#include "probe/membw_common.cuh"
#include "probe/probe_kit.cuh"
#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

using namespace membw;
using kit::lds_u32;
using kit::smem_addr;

constexpr int kRows = 64;                 // chain length per lane; 64 x 32 words = 8 KiB
constexpr int kMaxThreads = 1024;         // a block's limit: 32 warps, or 16 wavefronts
constexpr int kUnroll = 64;
constexpr int kRounds = 64;               // 64 x 64 = 4096 timed loads per chain
constexpr uint32_t kNever = 0xFFFFFFFFu;  // never a valid address or index

// Per warp: cycles for kRounds * kUnroll dependent loads, to cycles[warp].
template <bool kAddressChain>
__global__ void chain_kernel(uint32_t never, long long* cycles, uint32_t* sink) {
    __shared__ uint32_t chain[kRows * 32];
    const int bank = threadIdx.x % 32, lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    for (int i = threadIdx.x; i < kRows * 32; i += blockDim.x) {
        const int next = ((i / 32 + 1) % kRows) * 32 + i % 32; // next row, same bank
        chain[i] = kAddressChain ? smem_addr(&chain[next]) : uint32_t(next);
    }
    __syncthreads();

    uint32_t p = kAddressChain ? smem_addr(&chain[bank]) : uint32_t(bank);
    const auto vchain = kit::volatile_shared(chain); // index chain: the compiler must reload every step
    for (int k = 0; k < kRows; ++k) p = kAddressChain ? lds_u32(p) : vchain[p]; // warm-up pass

    const long long t0 = clock64();
    for (int r = 0; r < kRounds; ++r) {
#pragma unroll
        for (int k = 0; k < kUnroll; ++k) p = kAddressChain ? lds_u32(p) : vchain[p];
    }
    const long long t1 = clock64();
    if (lane == 0) cycles[warp] = t1 - t0;
    if (p == never) *sink = p;
}

// Median over launches of the median warp's cycles per dependent load.
double chain_cycles(bool address_chain, int warps, DeviceBuffer<long long>& cycles,
                    DeviceBuffer<uint32_t>& sink, cudaStream_t s) {
    constexpr int kReps = 5;
    std::vector<long long> h(warps);
    std::vector<double> samples;
    for (int r = 0; r < kReps + 1; ++r) { // the first launch is a warm-up
        if (address_chain)
            chain_kernel<true><<<1, warps * kWarpSize, 0, s>>>(kNever, cycles.get(), sink.get());
        else
            chain_kernel<false><<<1, warps * kWarpSize, 0, s>>>(kNever, cycles.get(), sink.get());
        GEMMLAB_CHECK_LAUNCH();
        GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(h.data(), cycles.get(), warps * sizeof(long long),
                                           cudaMemcpyDeviceToHost, s));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        if (r == 0) continue;
        std::sort(h.begin(), h.end());
        samples.push_back(double(h[warps / 2]) / (kRounds * kUnroll));
    }
    std::sort(samples.begin(), samples.end());
    return samples[samples.size() / 2];
}

} // namespace

Result run_smem_latency(Context& ctx) {
    ensure_clock(ctx);
    Stream stream;
    DeviceBuffer<long long> cycles(kMaxThreads / kWarpSize);
    DeviceBuffer<uint32_t> sink(1);

    // The words of the output: warps, SMs and ld.shared on NVIDIA; wavefronts, CUs, ds_read_b32 on AMD.
    const char* warps_word = kHipBuild ? "wavefronts" : "warps";
    const char* load_word = kHipBuild ? "ds_read_b32" : "ld.shared";
    Table t{strf("dependent shared-memory load latency vs %s chasing at once on one %s (address "
                 "chain: p = %s [p]; index chain: i = lds[i], the seed's form)",
                 warps_word, kHipBuild ? "CU" : "SM", load_word),
            {warps_word, "address chain", "address chain", "index chain", "index chain"},
            {"", "cycles", "ns", "cycles", "ns"},
            {}};
    double addr1 = 0, index1 = 0;
    for (int warps : {1, 2, 4, 8, 16, 32}) {
        if (warps * kWarpSize > kMaxThreads) break;
        progress(ctx, strf("smem-latency: %d warps", warps));
        const double a = chain_cycles(true, warps, cycles, sink, stream.get());
        const double i = chain_cycles(false, warps, cycles, sink, stream.get());
        if (warps == 1) {
            addr1 = a;
            index1 = i;
        }
        t.rows.push_back({double(warps), a, ctx.cycles_to_ns(a), i, ctx.cycles_to_ns(i)});
    }

    Result r;
    r.tables.push_back(std::move(t));
    r.headlines.push_back({"smem_load_latency_cycles", addr1, "cycles",
                           "shared-memory load latency: " + cycles_text(ctx, addr1) +
                               strf(" per dependent %s (one %s)", load_word, kHipBuild ? "wavefront" : "warp")});
    r.headlines.push_back({"smem_index_chain_cycles", index1, "cycles",
                           "seed-style index chain i = lds[i]: " + cycles_text(ctx, index1) +
                               strf(" per step, %.3g cycles of it index-to-address arithmetic", index1 - addr1)});
    return r;
}

} // namespace gemmlab::probe
