// Event timing: warm-up, then timed samples until both a minimum count and a minimum total time
// are reached, for one piece of work or several interleaved sample by sample; optional L2 flush
// between samples ("cold" runs). Before each sample the stream is kept busy (the flush, or a
// short hold), so that the host has enqueued the sample's work before the GPU reaches its start
// event: the events then bracket device time alone, not the gap of a launch onto an idle GPU.

#include <algorithm>
#include <cstdint>

#include "common/device_buffer.hpp"
#include "common/timing.hpp"

namespace gemmlab {
namespace {

/// One thread spinning `cycles` of its SM's clock (TimingPolicy::hold_cycles). Without it a
/// warm sample's window opened on an idle GPU and held the host's enqueue of the work: in one
/// run cuBLAS's 1 x 2048 x 2048 read 14.8 us warm and 8.9 us with the L2 flushed (docs/ladder.md,
/// "Timing contenders interleaved").
__global__ void hold_stream(long long cycles) {
    const long long start = clock64();
    while (clock64() - start < cycles) {
    }
}

} // namespace

TimingStats summarize(std::vector<double> s) {
    std::sort(s.begin(), s.end());
    TimingStats t;
    t.samples = int(s.size());
    if (s.empty()) return t;
    const size_t n = s.size();
    t.median_ms = n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    t.min_ms = s.front();
    t.max_ms = s.back();
    return t;
}

TimingStats time_device_work(const std::function<void(cudaStream_t)>& work, cudaStream_t stream,
                             const TimingPolicy& policy) {
    return time_interleaved({work}, stream, policy).front();
}

std::vector<TimingStats> time_interleaved(const std::vector<std::function<void(cudaStream_t)>>& works,
                                          cudaStream_t stream, const TimingPolicy& policy) {
    DeviceBuffer<uint8_t> flush;
    if (policy.flush_l2) {
        int dev = 0, l2 = 0;
        GEMMLAB_CUDA_CHECK(cudaGetDevice(&dev));
        GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, dev));
        // Twice the L2 so that no line of the previous sample's operands can survive.
        flush = DeviceBuffer<uint8_t>(size_t(std::max(l2, 1 << 20)) * 2);
    }
    for (const auto& work : works)
        for (int i = 0; i < policy.warmup; ++i) work(stream);
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream));

    Event start, stop;
    std::vector<std::vector<double>> samples(works.size());
    std::vector<double> total(works.size(), 0.0);
    const auto needs_more = [&](size_t i) {
        const int n = int(samples[i].size());
        return n < policy.max_samples && (n < policy.min_samples || total[i] < policy.min_total_ms);
    };
    for (int round = 0;; ++round) {
        bool any = false;
        for (size_t i = 0; i < works.size(); ++i) {
            if (!needs_more(i)) continue;
            any = true;
            if (policy.flush_l2) {
                GEMMLAB_CUDA_CHECK(cudaMemsetAsync(flush.get(), round & 0xff, flush.bytes(), stream));
            } else if (policy.hold_cycles > 0) {
                hold_stream<<<1, 1, 0, stream>>>(policy.hold_cycles);
                GEMMLAB_CUDA_CHECK(cudaGetLastError());
            }
            start.record(stream);
            works[i](stream);
            stop.record(stream);
            const double ms = stop.ms_since(start);
            samples[i].push_back(ms);
            total[i] += ms;
        }
        if (!any) break;
    }
    std::vector<TimingStats> out;
    out.reserve(works.size());
    for (auto& s : samples) out.push_back(summarize(std::move(s)));
    return out;
}

} // namespace gemmlab
