// launch-rate: how fast the GPU creates threads, and what one launch costs
// (Vega10 microbenchmarks 2.1.1-2.1.3).
//
// Question: how many threads per cycle can the GPU create for an empty kernel, and how does that
// depend on the block's size and shape (1D 1..1024, 2D n x n, 3D n x n x n)? And what does a kernel
// launch cost back to back on a stream, and inside a CUDA graph?
//
// Method: an empty kernel launched over enough blocks to run about 2 ms (the block count is
// calibrated per shape from one short launch), timed with CUDA events, median of 5 after a
// warm-up; threads per cycle = blocks x threads per block / (time x SM clock). Tiny blocks are
// limited by how many *blocks* per cycle the front end dispatches, big ones by thread (warp)
// creation. Launch overhead: K empty 1-block launches back to back on one stream, events around
// them (time per launch once the queue is full), and the same K launches captured once into a
// CUDA graph and replayed; the host's enqueue time per cudaLaunchKernel is also recorded. When
// the host needs about as long to enqueue a launch as the stream takes per kernel, the stream
// figure measures the host (the GPU drains the queue faster than the host fills it), and the
// headline says so; the graph replay, enqueued once, shows the GPU-side cost per kernel.
//
// Keeping the work: there is none to delete; the runtime launches an empty kernel in full (every
// block is dispatched and retired), which is exactly what we time.
//
// Expected on H100: threads per cycle grow in proportion to block size for small blocks (a fixed
// number of blocks per cycle), then flatten at a plateau in the hundreds of threads per cycle;
// the Vega10 microbenchmarks plateaued at 64 threads/cycle from 256 threads per block. 2D and 3D blocks
// follow their thread count, not their shape. Back-to-back stream launches cost about 2-4 us each,
// set by the host's enqueue cost (H200 host: ~4.0 us per call, ~3.9 us per kernel on the
// stream); graph replays about 1 us or less per kernel.

#include <algorithm>
#include <chrono>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe {
namespace {

__global__ void empty_kernel() {}

constexpr double kTargetMs = 2.0; // per timed launch: launch overhead is ~0.2% of it
constexpr int kSamples = 5;
constexpr long long kCalibrationBlocks = 1 << 15;
constexpr long long kMaxBlocks = 1LL << 28; // well inside gridDim.x < 2^31

double time_empty_ms(dim3 block, long long blocks, int warmup, int samples) {
    return kit::median_ms(
        [&](cudaStream_t s) {
            empty_kernel<<<dim3(unsigned(blocks)), block, 0, s>>>();
            GEMMLAB_CHECK_LAUNCH();
        },
        warmup, samples);
}

/// Threads per cycle of the empty kernel with blocks of shape `block`.
struct RatePoint {
    double threads_per_cycle;
    double blocks_per_cycle;
};

RatePoint measure_rate(const Context& ctx, dim3 block) {
    const double t0 = time_empty_ms(block, kCalibrationBlocks, 1, 1);
    const long long blocks = std::clamp<long long>(
        (long long)(kCalibrationBlocks * kTargetMs / std::max(t0, 1e-3)), kCalibrationBlocks,
        kMaxBlocks);
    const double ms = time_empty_ms(block, blocks, 1, kSamples);
    const double cycles = kit::ms_to_cycles(ctx, ms);
    const double threads = double(blocks) * block.x * block.y * block.z;
    return {threads / cycles, double(blocks) / cycles};
}

/// Per-launch cost of `k` empty single-block launches: back to back on a stream, in a graph, and
/// the host's enqueue time per launch call. All in ns.
struct LaunchCost {
    double stream_ns, graph_ns, host_ns;
};

LaunchCost measure_launch_cost(int k) {
    Stream stream;
    const cudaStream_t s = stream.get();
    auto launch_k = [&](cudaStream_t st) {
        for (int i = 0; i < k; ++i) {
            empty_kernel<<<1, 32, 0, st>>>();
            GEMMLAB_CHECK_LAUNCH();
        }
    };

    const double stream_ms = kit::median_ms(launch_k, 2, kSamples, s);

    std::vector<double> host_ns;
    for (int rep = 0; rep < kSamples; ++rep) {
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
        const auto t0 = std::chrono::steady_clock::now();
        launch_k(s);
        const auto t1 = std::chrono::steady_clock::now();
        host_ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / k);
    }
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));

    cudaGraph_t graph = nullptr;
    cudaGraphExec_t exec = nullptr;
    GEMMLAB_CUDA_CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    launch_k(s);
    GEMMLAB_CUDA_CHECK(cudaStreamEndCapture(s, &graph));
    double graph_ms = 0;
    try {
        GEMMLAB_CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
        graph_ms = kit::median_ms(
            [&](cudaStream_t st) { GEMMLAB_CUDA_CHECK(cudaGraphLaunch(exec, st)); }, 2, kSamples,
            s);
    } catch (...) {
        if (exec) (void)cudaGraphExecDestroy(exec);
        (void)cudaGraphDestroy(graph);
        throw;
    }
    GEMMLAB_CUDA_CHECK(cudaGraphExecDestroy(exec));
    GEMMLAB_CUDA_CHECK(cudaGraphDestroy(graph));
    return {stream_ms * 1e6 / k, graph_ms * 1e6 / k, kit::median(host_ns)};
}

} // namespace

Result run_launch_rate(Context& ctx) {
    kit::ensure_clock(ctx);
    Result r;
    double peak = 0;
    std::string peak_shape;
    auto note_peak = [&](double threads_per_cycle, const std::string& shape) {
        if (threads_per_cycle > peak) {
            peak = threads_per_cycle;
            peak_shape = shape;
        }
    };

    // 1D: 1, 2, 4 ... 1024 threads per block (Vega10 microbenchmarks 2.1.2).
    Table t1;
    t1.title = "threads per cycle vs 1D block size (empty kernel)";
    t1.columns = {"threads per block", "threads per cycle", "blocks per cycle"};
    t1.units = {"threads", "threads/cycle", "blocks/cycle"};
    for (int n = 1; n <= ctx.max_threads_per_block; n *= 2) {
        kit::progress(ctx, "launch-rate 1D block " + std::to_string(n));
        const RatePoint p = measure_rate(ctx, dim3(n));
        t1.rows.push_back({double(n), p.threads_per_cycle, p.blocks_per_cycle});
        note_peak(p.threads_per_cycle, std::to_string(n));
    }

    // 2D: n x n for n = 1..32 (Vega10 microbenchmarks 2.1.3).
    Table t2;
    t2.title = "threads per cycle vs 2D block n x n (empty kernel)";
    t2.columns = {"n", "threads per block", "threads per cycle"};
    t2.units = {"threads", "threads", "threads/cycle"};
    for (int n = 1; n * n <= ctx.max_threads_per_block; ++n) {
        kit::progress(ctx, "launch-rate 2D block " + std::to_string(n) + "x" + std::to_string(n));
        const RatePoint p = measure_rate(ctx, dim3(n, n));
        t2.rows.push_back({double(n), double(n * n), p.threads_per_cycle});
        note_peak(p.threads_per_cycle, std::to_string(n) + "x" + std::to_string(n));
    }

    // 3D: n x n x n for n = 1..10, and a few 1024-thread shapes (Vega10 microbenchmarks 2.1.3, 3D).
    Table t3;
    t3.title = "threads per cycle vs 3D block shape (empty kernel)";
    t3.columns = {"x", "y", "z", "threads per block", "threads per cycle"};
    t3.units = {"threads", "threads", "threads", "threads", "threads/cycle"};
    std::vector<dim3> shapes;
    for (unsigned n = 1; n <= 10; ++n) shapes.push_back(dim3(n, n, n));
    for (dim3 d : {dim3(16, 16, 4), dim3(32, 16, 2), dim3(8, 8, 16), dim3(4, 4, 64)})
        shapes.push_back(d);
    for (dim3 d : shapes) {
        const unsigned threads = d.x * d.y * d.z;
        if (threads > unsigned(ctx.max_threads_per_block) || d.z > 64) continue;
        const std::string shape =
            std::to_string(d.x) + "x" + std::to_string(d.y) + "x" + std::to_string(d.z);
        kit::progress(ctx, "launch-rate 3D block " + shape);
        const RatePoint p = measure_rate(ctx, d);
        t3.rows.push_back({double(d.x), double(d.y), double(d.z), double(threads),
                           p.threads_per_cycle});
        note_peak(p.threads_per_cycle, shape);
    }

    // Smallest 1D block that reaches 95% of the peak.
    double min_block = 0;
    for (const auto& row : t1.rows)
        if (row[1] >= 0.95 * peak) {
            min_block = row[0];
            break;
        }

    // Launch overhead (Vega10 microbenchmarks 2.8 notes a 7 us launch cost on ROCm; here with and without a graph).
    Table t4;
    t4.title = "per-launch cost of back-to-back empty kernels: stream vs CUDA graph";
    t4.columns = {"launches", "stream", "stream", "graph", "graph", "host enqueue"};
    t4.units = {"count", "ns", "cycles", "ns", "cycles", "ns"};
    LaunchCost best{};
    for (int k : {10, 100, 1000}) {
        kit::progress(ctx, "launch-rate overhead x" + std::to_string(k));
        const LaunchCost c = measure_launch_cost(k);
        t4.rows.push_back({double(k), c.stream_ns, ctx.ns_to_cycles(c.stream_ns), c.graph_ns,
                           ctx.ns_to_cycles(c.graph_ns), c.host_ns});
        best = c; // the largest batch amortizes the first launch's latency best
    }

    r.tables = {std::move(t1), std::move(t2), std::move(t3), std::move(t4)};
    r.headlines.push_back(
        {"peak_threads_per_cycle", peak, "threads/cycle",
         "Thread creation peaks at " + kit::num(peak) + " threads/cycle (block " + peak_shape +
             "); 1D blocks need >= " + kit::num(min_block) + " threads for 95% of it"});
    r.headlines.push_back({"min_block_for_peak", min_block, "threads",
                           "Smallest 1D block reaching 95% of peak thread rate: " +
                               kit::num(min_block) + " threads"});
    // Host-bound when the host's enqueue per call is at least 80% of the stream's time per kernel.
    const bool host_bound = best.host_ns >= 0.8 * best.stream_ns;
    r.headlines.push_back(
        {"launch_stream_ns", best.stream_ns, "ns",
         "Back-to-back launch on a stream: " + kit::ns_and_cycles(ctx, best.stream_ns) +
             " per kernel; host enqueue " + kit::num(best.host_ns) + " ns per call" +
             (host_bound ? std::string(": the stream figure is limited by the host's enqueue "
                                       "cost, not the GPU (the graph figure, ") +
                               kit::num(best.graph_ns) + " ns per kernel, is the GPU-side cost)"
                         : std::string(": the host enqueues faster than the stream drains, so "
                                       "this is the GPU-side cost of a stream launch"))});
    r.headlines.push_back({"launch_graph_ns", best.graph_ns, "ns",
                           "Launch inside a CUDA graph: " + kit::ns_and_cycles(ctx, best.graph_ns) +
                               " per kernel (" + kit::num(best.stream_ns / best.graph_ns, 1) +
                               "x cheaper than a stream launch)"});
    return r;
}

} // namespace gemmlab::probe
