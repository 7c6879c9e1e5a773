#pragma once
// Shared by the probes of Vega10 microbenchmarks 2.8-2.14 and by `bandwidth`:
//  - a device copy and a device read, so that each probe reads its own "% of copy bandwidth" (or
//    "% of read bandwidth", for probes that only read) against a ceiling measured in the same run
//    instead of depending on another probe's result;
//  - a fill whose values the host regenerates bit for bit from (seed, index), so host references
//    need no gigabyte transfers of the input;
//  - small host helpers: timing policy, plain-words text, pinned buffers.
// The device primitives (cache-policy loads, shared-memory loads, clocks) are in probe_kit.cuh.

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"
#include "common/timing.hpp"
#include "gemmlab/probe.hpp"
#include "probe/probe_kit.hpp"

namespace gemmlab::probe::membw {

// ------------------------------------------------------------------ values host and device agree on

/// lowbias32 (Wellons): a cheap 32-bit mix with good avalanche.
__host__ __device__ inline uint32_t mix32(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/// A random 32-bit word for element `i` of a fill drawn with `seed`.
__host__ __device__ inline uint32_t hash_index(uint64_t i, uint32_t seed) {
    return mix32(uint32_t(i) ^ mix32(seed + uint32_t(i >> 32) * 0x9E3779B9u));
}

/// Uniform in [offset, offset + width) with 24 random bits. `width` must be a power of two: then
/// u * width is exact and the one rounding left (the add) is the same on host and device, with
/// or without FMA contraction, so a host reference reproduces every input bit for bit.
__host__ __device__ inline float uniform_value(uint64_t i, uint32_t seed, float offset, float width) {
    const float u = float(hash_index(i, seed) >> 8) * 0x1.0p-24f; // exact: 24-bit integer * 2^-24
    return offset + u * width;
}

/// Fills x[0, n) with uniform_value(i, seed, offset, width); stream-ordered.
void fill_uniform(float* x, size_t n, uint32_t seed, float offset, float width, cudaStream_t stream);

/// Fills x[0, n) with hash_index(i, seed) & mask; stream-ordered.
void fill_hash_u32(uint32_t* x, size_t n, uint32_t seed, uint32_t mask, cudaStream_t stream);

/// A seed for this run's inputs (std::random_device): fresh data for every check.
uint32_t fresh_seed();

// ------------------------------------------------------------------ the copy ceiling

/// float4 grid-stride copy of n4 elements, four 16-byte loads in flight per thread.
void launch_copy(const float4* in, float4* out, size_t n4, int grid, cudaStream_t stream);

/// Blocks for a grid-stride kernel of 256 threads: 8 per SM (2048 threads, a full SM).
inline int stream_grid(const Context& ctx) { return std::max(ctx.sm_count, 1) * 8; }

/// float4 grid-stride read of n4 elements (summed, never stored unless the sum is -1, which
/// positive inputs cannot give), four 16-byte loads in flight per thread: the read-only ceiling
/// for probes that only read, such as a reduction. `sink` is one float of device memory.
void launch_read(const float4* in, size_t n4, float* sink, int grid, cudaStream_t stream);

struct CopyCeiling {
    double gbps = 0;  ///< (bytes read + bytes written) / median time, 1e9 B/s
    double ms = 0;    ///< median time of one copy
    size_t bytes = 0; ///< size of each of the two buffers
};

/// Times a device-to-device copy between two fresh buffers of `bytes` each (the input filled
/// with random values) and returns its median bandwidth, read plus write bytes counted.
CopyCeiling measure_copy(const Context& ctx, size_t bytes, cudaStream_t stream);

struct ReadCeiling {
    double gbps = 0;  ///< bytes read / median time, 1e9 B/s
    double ms = 0;    ///< median time of one read pass
    size_t bytes = 0; ///< size of the buffer read
};

/// Times launch_read over a fresh buffer of `bytes` (filled with positive random values) and
/// returns its median bandwidth.
ReadCeiling measure_read(const Context& ctx, size_t bytes, cudaStream_t stream);

// ------------------------------------------------------------------ host helpers

/// Repetition for bandwidth points: a few warm-ups, then at least 5 samples and 40 ms.
inline TimingPolicy quick_policy() {
    TimingPolicy p;
    p.warmup = 2;
    p.min_samples = 5;
    p.max_samples = 200;
    p.min_total_ms = 40;
    return p;
}

/// Median milliseconds of `work` under `policy`.
inline double median_ms(const std::function<void(cudaStream_t)>& work, cudaStream_t stream,
                        const TimingPolicy& policy = quick_policy()) {
    return time_device_work(work, stream, policy).median_ms;
}

/// printf into a std::string.
#if defined(__GNUC__)
__attribute__((format(printf, 1, 2)))
#endif
inline std::string strf(const char* fmt, ...) {
    va_list a;
    va_start(a, fmt);
    char buf[512];
    std::vsnprintf(buf, sizeof buf, fmt, a);
    va_end(a);
    return buf;
}

// progress, ensure_clock, num3 and cycles_text live in probe_kit.hpp (one home for the host
// helpers of every probe); these names keep `using namespace membw` callers unchanged.
using kit::cycles_text;
using kit::ensure_clock;
using kit::num3;
using kit::progress;

/// Runs f(begin, end) over [0, n) split across the host's cores; for host references.
template <class F>
void parallel_chunks(size_t n, F&& f) {
    const size_t workers = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 64);
    const size_t chunk = (n + workers - 1) / workers;
    std::vector<std::thread> pool;
    for (size_t b = 0; b < n; b += chunk) pool.emplace_back([&f, b, e = std::min(n, b + chunk)] { f(b, e); });
    for (auto& t : pool) t.join();
}

/// Page-locked host memory (cudaMallocHost): fast device-to-host copies of outputs to check.
template <class T>
class PinnedBuffer {
public:
    explicit PinnedBuffer(size_t count) : count_(count) {
        if (count_) GEMMLAB_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T)));
    }
    ~PinnedBuffer() {
        if (ptr_) cudaFreeHost(ptr_);
    }
    PinnedBuffer(const PinnedBuffer&) = delete;
    PinnedBuffer& operator=(const PinnedBuffer&) = delete;
    T* get() const noexcept { return ptr_; }
    size_t size() const noexcept { return count_; }
    T& operator[](size_t i) const noexcept { return ptr_[i]; }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

} // namespace gemmlab::probe::membw
