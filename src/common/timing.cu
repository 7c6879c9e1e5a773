// Event timing: warm-up, then timed samples until both a minimum count and a minimum total time
// are reached, for one piece of work or several interleaved sample by sample; optional L2 flush
// between samples ("cold" runs).

#include <algorithm>
#include <cstdint>

#include "common/device_buffer.hpp"
#include "common/timing.hpp"

namespace gemmlab {

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
            if (policy.flush_l2)
                GEMMLAB_CUDA_CHECK(cudaMemsetAsync(flush.get(), round & 0xff, flush.bytes(), stream));
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
