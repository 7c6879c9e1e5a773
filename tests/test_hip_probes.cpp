// The probes of the HIP build on the CPU: their table (src/probe/hip_probes.cpp), that an unknown
// name is refused before any device is touched, and the bank model and chase builder as this
// build uses them (64-lane wavefronts). No GPU needed; the probes themselves need an AMD GPU.

#include <gtest/gtest.h>

#include <cstdio>
#include <numeric>
#include <string>
#include <vector>

#include "common/gpu_runtime.hpp"
#include "probe/bank_model.hpp"
#include "probe/chase.hpp"
#include "probe/hip_probes.hpp"

namespace gp = gemmlab::probe;

namespace {

TEST(HipProbes, TableHasThePortedProbesClockFirst) {
    const std::vector<std::string> want = {"clock",        "launch-rate", "fma",      "latency",
                                           "smem-latency", "smem-bank",   "bandwidth"};
    const auto probes = gp::hip_probes();
    ASSERT_EQ(probes.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(probes[i].name, want[i]);
        EXPECT_FALSE(probes[i].seed.empty()) << want[i];
        EXPECT_FALSE(probes[i].question.empty()) << want[i];
        EXPECT_NE(probes[i].run, nullptr) << want[i];
    }
}

TEST(HipProbes, UnknownOrCudaOnlyNameIsRefusedBeforeAnyDevice) {
    // cacheline is a probe of the CUDA build only; the names are checked before make_context.
    EXPECT_FALSE(gp::run_hip_probes({"latency", "cacheline"}, stdout));
    EXPECT_FALSE(gp::run_hip_probes({"no-such-probe"}, stdout));
}

TEST(HipProbes, BankModelAtThisBuildsWavefrontWidth) {
    // smem-bank states its expectations with kWarpSize (64 here): 32-lane halves, each with the
    // conflicts a 32-lane warp would have, served one after the other.
    ASSERT_EQ(gemmlab::kWarpSize, 64);
    for (int s = 1; s <= 64; ++s) {
        const gp::BankCost c = gp::strided_load_cost(s, gemmlab::kWarpSize);
        EXPECT_EQ(c.ways, std::gcd(s, 32)) << "stride " << s;
        EXPECT_EQ(c.passes, 2 * std::gcd(s, 32)) << "stride " << s;
    }
    EXPECT_EQ(gp::strided_load_cost(33, gemmlab::kWarpSize).ways, 1); // padded [64][33] column
}

TEST(HipProbes, ChaseCycleInThisBuild) {
    const auto next = gp::random_cycle(4096, 0x9E3779B97F4A7C15ull);
    EXPECT_TRUE(gp::is_single_cycle(next));
}

} // namespace
