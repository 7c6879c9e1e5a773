// fma: FMA throughput per SM, and the SM count read off a time step (Vega10 microbenchmarks 2.2.1-2.2.5).
//
// Question: how many fused multiply-adds per cycle does one SM retire, in float and double, and
// what does it take to get there (threads per block, independent chains, loop unrolling)? How many
// SMs are there, judged only by when the run time steps up as blocks are added?
//
// Method: every thread runs `sum = fma(sum, mul, add)` chains. Single-SM sweeps (one block, timed
// in-kernel with clock64() between two __syncthreads, median of 3 launches): threads per block
// 32..1024 with one chain (Vega10 microbenchmarks 2.2.4), 1/2/4/8 independent chains at 128 threads, i.e. one warp
// per scheduler (latency hiding by ILP), and inner-loop unroll factors 1..128 at 1024 threads
// (Vega10 microbenchmarks 2.2.1-2.2.3: loop overhead competes with FMAs for issue slots). Every variant does 65536
// FMA per thread. Then (Vega10 microbenchmarks 2.2.5) 1 .. 3 x SMs + 3 blocks of 1024 threads, float, timed with
// events, each block holding more than half an SM's shared memory so that no two share an SM:
// a block of 1024 threads fills an SM's FMA pipes, so the time holds flat while every block has
// an SM to itself and doubles at SMs + 1 blocks (the source's 64 vs 65 on Vega10).
//
// Keeping the work: mul = x/(x+1) and add = 1/(x+1e8) come from the thread index, so nothing folds
// at compile time; chains stay positive and finite; their sum is stored only when it is < -1,
// which never happens but the compiler cannot prove.
//
// Expected on H100 (128 FP32 and 64 FP64 lanes per SM; FFMA latency ~4 cycles): float reaches
// ~120-128 FMA/cycle/SM with >= 512 threads or enough ILP; 128 threads with one chain reach about
// a quarter of that; unroll 1 is issue-bound near 32-40/cycle. Double reaches ~60-64. The block
// sweep is flat to 132 blocks and doubles at 133 (H100 SXM; 114 on PCIe).

#include <algorithm>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

constexpr int kFmaPerThread = 1 << 16;      // single-SM sweeps
constexpr int kFmaPerThreadBlocks = 1 << 15; // block sweep (one wave ~ 0.15 ms)
constexpr int kRepeats = 3;

template <class T, int ILP, int UNROLL>
__global__ void fma_kernel(int outer, T* sink, long long* block_cycles) {
    const unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
    const T mul = T(x) / T(x + 1u);          // in [0, 1): chains converge
    const T add = T(1) / T(x + 100000000u);  // small and positive
    T acc[ILP];
#pragma unroll
    for (int k = 0; k < ILP; ++k) acc[k] = add * T(k + 1);

    __syncthreads();
    const long long c0 = clock64();
#pragma unroll 1
    for (int o = 0; o < outer; ++o) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
#pragma unroll
            for (int k = 0; k < ILP; ++k) acc[k] = fma(acc[k], mul, add);
    }
    __syncthreads();
    const long long c1 = clock64();

    T sum = 0;
#pragma unroll
    for (int k = 0; k < ILP; ++k) sum += acc[k];
    if (sum < T(-1)) sink[x] = sum; // never true; keeps every chain alive
    if (threadIdx.x == 0) block_cycles[blockIdx.x] = c1 - c0;
}

/// FMA per cycle of one block of `threads` on one SM (cycles from the SM's own clock64).
template <class T, int ILP, int UNROLL>
double single_sm_rate(int threads) {
    static_assert(kFmaPerThread % (ILP * UNROLL) == 0, "FMA per thread must split into loops");
    const int outer = kFmaPerThread / (ILP * UNROLL);
    DeviceBuffer<T> sink(threads);
    DeviceBuffer<long long> cycles(1);
    std::vector<double> c;
    for (int rep = 0; rep < kRepeats + 1; ++rep) { // first launch is the warm-up
        fma_kernel<T, ILP, UNROLL><<<1, threads>>>(outer, sink.get(), cycles.get());
        GEMMLAB_CHECK_LAUNCH();
        long long h = 0;
        cycles.copy_to_host(&h, 1);
        if (rep > 0) c.push_back(double(h));
    }
    return double(threads) * kFmaPerThread / kit::median(c);
}

struct TypeRates {
    Table threads, ilp, unroll;
    double best = 0;
    std::string best_where;
};

template <class T>
TypeRates single_sm_sweeps(const Context& ctx, const char* type_name) {
    TypeRates out;
    auto note = [&](double rate, std::string where) {
        if (rate > out.best) {
            out.best = rate;
            out.best_where = std::move(where);
        }
    };
    const std::string ty = type_name;

    out.threads.title = ty + " FMA per cycle on one SM vs threads per block (1 chain, unroll 64)";
    out.threads.columns = {"threads per block", "FMA per cycle per SM"};
    out.threads.units = {"threads", "FMA/cycle/SM"};
    for (int t : {32, 64, 128, 256, 384, 512, 768, 1024}) {
        if (t > ctx.max_threads_per_block) continue;
        kit::progress(ctx, "fma " + ty + " threads " + std::to_string(t));
        const double r = single_sm_rate<T, 1, 64>(t);
        out.threads.rows.push_back({double(t), r});
        note(r, std::to_string(t) + " threads, 1 chain, unroll 64");
    }

    out.ilp.title = ty + " FMA per cycle on one SM vs independent chains (128 threads, unroll 32)";
    out.ilp.columns = {"chains per thread", "FMA per cycle per SM"};
    out.ilp.units = {"chains", "FMA/cycle/SM"};
    auto ilp_point = [&](int ilp, double r) {
        out.ilp.rows.push_back({double(ilp), r});
        note(r, "128 threads, " + std::to_string(ilp) + " chains, unroll 32");
    };
    kit::progress(ctx, "fma " + ty + " ILP");
    ilp_point(1, single_sm_rate<T, 1, 32>(128));
    ilp_point(2, single_sm_rate<T, 2, 32>(128));
    ilp_point(4, single_sm_rate<T, 4, 32>(128));
    ilp_point(8, single_sm_rate<T, 8, 32>(128));

    out.unroll.title = ty + " FMA per cycle on one SM vs inner-loop unroll (1024 threads, 1 chain)";
    out.unroll.columns = {"unroll", "FMA per cycle per SM"};
    out.unroll.units = {"FMA per loop trip", "FMA/cycle/SM"};
    const int threads = std::min(1024, ctx.max_threads_per_block);
    auto unroll_point = [&](int u, double r) {
        out.unroll.rows.push_back({double(u), r});
        note(r, std::to_string(threads) + " threads, 1 chain, unroll " + std::to_string(u));
    };
    kit::progress(ctx, "fma " + ty + " unroll");
    unroll_point(1, single_sm_rate<T, 1, 1>(threads));
    unroll_point(2, single_sm_rate<T, 1, 2>(threads));
    unroll_point(4, single_sm_rate<T, 1, 4>(threads));
    unroll_point(8, single_sm_rate<T, 1, 8>(threads));
    unroll_point(16, single_sm_rate<T, 1, 16>(threads));
    unroll_point(32, single_sm_rate<T, 1, 32>(threads));
    unroll_point(64, single_sm_rate<T, 1, 64>(threads));
    unroll_point(128, single_sm_rate<T, 1, 128>(threads));
    return out;
}

} // namespace

Result run_fma(Context& ctx) {
    kit::ensure_clock(ctx);
    Result r;

    TypeRates f32 = single_sm_sweeps<float>(ctx, "float");
    TypeRates f64 = single_sm_sweeps<double>(ctx, "double");

    // Blocks 1 .. 3 x SMs + 3 of 1024 threads (Vega10 microbenchmarks 2.2.5), timed with events.
    const int threads = std::min(1024, ctx.max_threads_per_block);
    const int max_blocks = 3 * ctx.sm_count + 3;
    const int outer = kFmaPerThreadBlocks / 64;
    DeviceBuffer<float> sink(size_t(max_blocks) * threads);
    DeviceBuffer<long long> cycles(max_blocks);
    Table tb;
    tb.title = "float FMA rate vs blocks of 1024 threads (whole GPU, events)";
    tb.columns = {"blocks", "time", "time", "FMA per cycle", "FMA per cycle per busy SM"};
    tb.units = {"blocks", "us", "cycles", "FMA/cycle", "FMA/cycle/SM"};
    // Dynamic shared memory (unused) of more than half an SM's: at most one block per SM, so
    // blocks 1..SMs each get an SM of their own whatever order the scheduler fills SMs in.
    const size_t one_per_sm = std::min(ctx.smem_per_sm / 2 + 1024, ctx.smem_per_block_optin);
    GEMMLAB_CUDA_CHECK(cudaFuncSetAttribute(fma_kernel<float, 1, 64>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            int(one_per_sm)));
    auto launch = [&](int blocks) {
        return [&, blocks](cudaStream_t s) {
            fma_kernel<float, 1, 64><<<blocks, threads, one_per_sm, s>>>(outer, sink.get(),
                                                                         cycles.get());
            GEMMLAB_CHECK_LAUNCH();
        };
    };
    (void)kit::median_ms(launch(ctx.sm_count), 3, 1); // warm-up: clocks, module load
    std::vector<double> ms(max_blocks + 1, 0.0);
    for (int b = 1; b <= max_blocks; ++b) {
        if (b % 16 == 1) kit::progress(ctx, "fma blocks " + std::to_string(b));
        ms[b] = kit::median_ms(launch(b), 0, kRepeats);
        const double cyc = kit::ms_to_cycles(ctx, ms[b]);
        const double fmas = double(b) * threads * kFmaPerThreadBlocks;
        tb.rows.push_back({double(b), ms[b] * 1e3, cyc, fmas / cyc,
                           fmas / cyc / std::min(b, ctx.sm_count)});
    }
    // The SM count is one less than the first block count whose time jumps by half over the
    // single-block time; with one block per SM the time stays flat up to there.
    int sm_from_fma = -1;
    for (int b = 2; b <= max_blocks; ++b)
        if (ms[b] > 1.5 * ms[1]) {
            sm_from_fma = b - 1;
            break;
        }

    r.tables = {std::move(f32.threads), std::move(f32.ilp), std::move(f32.unroll),
                std::move(f64.threads), std::move(f64.ilp), std::move(f64.unroll), std::move(tb)};
    auto rate_text = [&](const char* ty, const TypeRates& t, int lanes) {
        return std::string(ty) + " FMA per cycle per SM: " + kit::num(t.best, 1) + " (" +
               (lanes > 0 ? kit::num(100.0 * t.best / lanes) + "% of " + std::to_string(lanes) +
                                " documented lanes"
                          : std::string("lanes unknown")) +
               ") at " + t.best_where;
    };
    r.headlines.push_back({"fma_f32_per_cycle_per_sm", f32.best, "FMA/cycle/SM",
                           rate_text("FP32", f32, ctx.fp32_lanes_per_sm)});
    r.headlines.push_back({"fma_f64_per_cycle_per_sm", f64.best, "FMA/cycle/SM",
                           rate_text("FP64", f64, ctx.fp64_lanes_per_sm)});
    std::string sm_text = "SM count from the FMA time step: ";
    if (sm_from_fma > 0) {
        sm_text += std::to_string(sm_from_fma) + " (" + std::to_string(sm_from_fma) +
                   " blocks take " +
                   kit::cycles_and_ns(ctx, kit::ms_to_cycles(ctx, ms[sm_from_fma])) + ", " +
                   std::to_string(sm_from_fma + 1) + " take " +
                   kit::cycles_and_ns(ctx, kit::ms_to_cycles(ctx, ms[sm_from_fma + 1])) +
                   "; the device reports " + std::to_string(ctx.sm_count) + ")";
    } else {
        sm_text += "no step found up to " + std::to_string(max_blocks) + " blocks";
    }
    r.headlines.push_back({"sm_count_from_fma", double(sm_from_fma), "SMs", sm_text});
    return r;
}

} // namespace gemmlab::probe
