// GPU tests of the probes for the Vega10 microbenchmarks, sections 2.8-2.14 (docs/sources.md),
// and of `bandwidth`: each probe runs on the device, and its headline values must be physically
// consistent (and its own checks of results must pass). Skipped when no CUDA device is visible.

#include <cmath>
#include <numeric>
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gemmlab/probe.hpp"
#include "probe/probes.hpp"

namespace gp = gemmlab::probe;

namespace {

bool have_device() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); // no driver or no device: clear the sticky error
        return false;
    }
    return n > 0;
}

class ProbeGpuB : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!have_device()) return;
        ctx_ = new gp::Context(gp::make_context(0));
        gp::run_clock(*ctx_);
    }
    static void TearDownTestSuite() {
        delete ctx_;
        ctx_ = nullptr;
    }
    void SetUp() override {
        if (!ctx_) GTEST_SKIP() << "no CUDA device visible";
        ASSERT_GT(ctx_->clock_mhz, 100.0) << "the clock probe must fill ctx.clock_mhz";
    }
    static gp::Context& ctx() { return *ctx_; }

    /// Every table rectangular, with a unit per column and finite values; every headline worded,
    /// finite, and a time in it given in cycles and in ns.
    static void expect_well_formed(const gp::Result& r) {
        EXPECT_FALSE(r.tables.empty());
        EXPECT_FALSE(r.headlines.empty());
        for (const auto& t : r.tables) {
            EXPECT_FALSE(t.title.empty());
            EXPECT_EQ(t.columns.size(), t.units.size()) << t.title;
            EXPECT_FALSE(t.rows.empty()) << t.title;
            for (const auto& row : t.rows) {
                ASSERT_EQ(row.size(), t.columns.size()) << t.title;
                for (double v : row) EXPECT_TRUE(std::isfinite(v)) << t.title;
            }
        }
        for (const auto& h : r.headlines) {
            EXPECT_FALSE(h.key.empty());
            EXPECT_FALSE(h.unit.empty()) << h.key;
            EXPECT_FALSE(h.text.empty()) << h.key;
            EXPECT_TRUE(std::isfinite(h.value)) << h.key << ": " << h.text;
            if (h.unit == "cycles") {
                EXPECT_NE(h.text.find("cycles"), std::string::npos) << h.text;
                EXPECT_NE(h.text.find(" ns"), std::string::npos) << h.text;
            }
        }
    }

    static inline gp::Context* ctx_ = nullptr;
};

TEST_F(ProbeGpuB, SmemBankConflictsGrowWithStrideAndPaddingFixesThem) {
    const gp::Result r = gp::run_smem_bank(ctx());
    expect_well_formed(r);
    const double s1 = r.at("smem_stride1_cycles_per_access");
    const double s32 = r.at("smem_stride32_cycles_per_access");
    const double col32 = r.at("smem_tile32x32_column_cycles_per_access");
    const double col33 = r.at("smem_tile32x33_column_cycles_per_access");
    EXPECT_GT(s1, 0.0);
    EXPECT_GT(s32, 4 * s1) << "a 32-way conflict must cost far more than a conflict-free access";
    EXPECT_GT(col32, 4 * col33) << "padding the tile must remove the column conflict";
    EXPECT_LT(col33, 1.5 * s1 + 0.5) << "the padded column read should cost about a stride-1 access";

    const gp::Table& t = r.tables.at(0);
    ASSERT_EQ(t.columns, (std::vector<std::string>{"stride", "cycles per access", "ns per access", "conflict ways"}));
    ASSERT_EQ(t.rows.size(), 64u);
    for (const auto& row : t.rows) EXPECT_EQ(row[3], double(std::gcd(int(row[0]), 32)));
    // Odd strides are conflict-free: about the stride-1 cost.
    EXPECT_LT(t.rows.at(2)[1], 1.5 * s1 + 0.5); // stride 3
}

TEST_F(ProbeGpuB, SmemLatencyIsTensOfCycles) {
    const gp::Result r = gp::run_smem_latency(ctx());
    expect_well_formed(r);
    const double lat = r.at("smem_load_latency_cycles");
    EXPECT_GE(lat, 10.0);
    EXPECT_LE(lat, 100.0);
    EXPECT_GE(r.at("smem_index_chain_cycles"), lat - 1.0) << "the index chain adds arithmetic to the load";
}

TEST_F(ProbeGpuB, BandwidthCeilingsAreOrdered) {
    const gp::Result r = gp::run_bandwidth(ctx());
    expect_well_formed(r);
    const double copy = r.at("dram_copy_gbps");
    const double read = r.at("dram_read_gbps");
    const double l2 = r.at("l2_read_gbps");
    EXPECT_GT(copy, 500.0);
    EXPECT_LT(copy, 5000.0);
    EXPECT_GT(read, 500.0);
    EXPECT_LT(read, 5000.0);
    EXPECT_GT(l2, read) << "L2 must be faster than DRAM";
    const double smem = r.at("smem_read_bytes_per_cycle_sm");
    EXPECT_GT(smem, 16.0);
    EXPECT_LE(smem, 260.0) << "more than 2x the 128 B/cycle of 32 banks x 4 B is not physical";
}

TEST_F(ProbeGpuB, ReductionSumsAreExactAndFast) {
    const gp::Result r = gp::run_reduction(ctx());
    expect_well_formed(r);
    EXPECT_EQ(r.at("reduction_verified"), 1.0) << r.headlines.back().text;
    const double best = r.at("reduction_best_gbps");
    EXPECT_GT(best, 300.0);
    EXPECT_LT(best, 6000.0);
    EXPECT_GT(r.at("reduction_tree4_over_tree2"), 0.0);
}

TEST_F(ProbeGpuB, PaddingIsVerified) {
    const gp::Result r = gp::run_padding(ctx());
    expect_well_formed(r);
    EXPECT_EQ(r.at("padding_verified"), 1.0) << r.headlines.back().text;
    const double best = r.at("padding_best_gbps");
    EXPECT_GT(best, 100.0);
    EXPECT_LT(best, 6000.0);
}

TEST_F(ProbeGpuB, BatchnormIsVerified) {
    const gp::Result r = gp::run_batchnorm(ctx());
    expect_well_formed(r);
    EXPECT_EQ(r.at("batchnorm_verified"), 1.0) << r.headlines.back().text;
    const double best = r.at("batchnorm_best_gbps");
    EXPECT_GT(best, 100.0);
    EXPECT_LT(best, 6000.0);
}

TEST_F(ProbeGpuB, FastSinIsFasterThanSinf) {
    const gp::Result r = gp::run_math(ctx());
    expect_well_formed(r);
    const double sinf_rate = r.at("math_sinf_per_cycle_sm");
    const double fast_rate = r.at("math_fast_sinf_per_cycle_sm");
    EXPECT_GT(sinf_rate, 0.0);
    EXPECT_GT(fast_rate, sinf_rate) << "__sinf must out-run sinf";
    EXPECT_LE(fast_rate, 64.0) << "more than 4x the 16 special-function results per cycle is not physical";
    EXPECT_GT(r.at("math_sin_double_latency_cycles"), 10.0);
}

TEST_F(ProbeGpuB, IndexDecodeMultiplyShiftIsExactAndCheaper) {
    const gp::Result r = gp::run_index_nchw(ctx());
    expect_well_formed(r);
    EXPECT_EQ(r.at("index_verified"), 1.0) << r.headlines.back().text;
    EXPECT_LT(r.at("index_magic_cycles_per_elem"), r.at("index_divmod_cycles_per_elem"));
}

TEST_F(ProbeGpuB, ChannelConflictRatioIsAFraction) {
    const gp::Result r = gp::run_channel_conflict(ctx());
    expect_well_formed(r);
    const double spread = r.at("channel_spread_gbps");
    EXPECT_GT(spread, 500.0);
    EXPECT_LT(spread, 5000.0);
    const double ratio = r.at("channel_worst_over_best");
    EXPECT_GT(ratio, 0.0);
    EXPECT_LE(ratio, 1.0);
}

} // namespace
