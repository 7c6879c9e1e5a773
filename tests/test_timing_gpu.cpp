// GPU tests of the bench's timing: contenders timed together take turns sample by sample, each
// stops on its own once it has its samples and time, and a warm sample's window holds the GPU's
// work, not the host's enqueue of it. Skipped when no CUDA device is visible.

#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/timing.hpp"
#include "test_support.hpp"

namespace {

using namespace gemmlab;

TEST(TimeInterleaved, ContendersTakeTurnsAndEachStopsOnItsOwn) {
    REQUIRE_GPU();
    // A short and an 8x longer piece of work (memsets of 64 MB and 512 MB), each logging its
    // runs on the host.
    DeviceBuffer<uint8_t> buffer(size_t(512) << 20);
    std::vector<int> log;
    const size_t sizes[] = {size_t(64) << 20, size_t(512) << 20};
    std::vector<std::function<void(cudaStream_t)>> works;
    for (int i = 0; i < 2; ++i)
        works.push_back([&, i](cudaStream_t s) {
            log.push_back(i);
            GEMMLAB_CUDA_CHECK(cudaMemsetAsync(buffer.get(), i, sizes[i], s));
        });
    TimingPolicy policy;
    policy.warmup = 2;
    policy.min_samples = 5;
    policy.min_total_ms = 10;
    policy.max_samples = 100000; // the time, not this cap, ends both
    const std::vector<TimingStats> t = time_interleaved(works, nullptr, policy);
    ASSERT_EQ(t.size(), 2u);

    // Warm-up in order (0 0 1 1), then rounds of 0 1 while both need samples, then 0 alone.
    ASSERT_GE(log.size(), 4u);
    EXPECT_EQ((std::vector<int>(log.begin(), log.begin() + 4)), (std::vector<int>{0, 0, 1, 1}));
    const int long_runs = t[1].samples;
    ASSERT_GE(int(log.size()), 4 + 2 * long_runs);
    for (int r = 0; r < long_runs; ++r) {
        EXPECT_EQ(log[4 + 2 * r], 0) << "round " << r;
        EXPECT_EQ(log[4 + 2 * r + 1], 1) << "round " << r;
    }
    for (size_t i = 4 + 2 * size_t(long_runs); i < log.size(); ++i) EXPECT_EQ(log[i], 0) << "run " << i;
    EXPECT_EQ(int(log.size()), 4 + t[0].samples + t[1].samples);

    // Each has what the policy asks; the short one needed more samples to reach the time.
    for (const TimingStats& s : t) {
        EXPECT_GE(s.samples, policy.min_samples);
        EXPECT_GE(s.samples * s.max_ms, policy.min_total_ms); // their sum reached it
        EXPECT_LE(s.min_ms, s.median_ms);
        EXPECT_LE(s.median_ms, s.max_ms);
    }
    EXPECT_GT(t[0].samples, t[1].samples);
    EXPECT_GT(t[1].median_ms, 4 * t[0].median_ms);
}

// A work that spends 5 ms on the host before it enqueues a short memset: with no hold the
// window opens on an idle GPU and holds the 5 ms; behind a hold longer than that (1e8 cycles,
// 50-100 ms) the host has enqueued everything before the GPU reaches the start event, and the
// window holds the memset alone.
TEST(TimeInterleaved, TheHoldKeepsTheHostsEnqueueOutOfTheWindow) {
    REQUIRE_GPU();
    DeviceBuffer<uint8_t> buffer(size_t(1) << 20);
    const auto work = [&](cudaStream_t s) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(buffer.get(), 1, buffer.bytes(), s));
    };
    TimingPolicy policy;
    policy.warmup = 1;
    policy.min_samples = 5;
    policy.min_total_ms = 0;
    policy.hold_cycles = 0;
    const double open_window = time_device_work(work, nullptr, policy).median_ms;
    policy.hold_cycles = 100'000'000;
    const double held = time_device_work(work, nullptr, policy).median_ms;
    EXPECT_GT(open_window, 4.0);
    EXPECT_LT(held, 1.0);
}

} // namespace
