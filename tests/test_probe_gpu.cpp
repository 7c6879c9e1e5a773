// GPU tests of the probes of the Vega10 microbenchmarks, sections 1.3-2.7 (docs/sources.md): run
// each probe once and check that its headline values are physically consistent. Skipped
// (GTEST_SKIP) when no CUDA device is visible.

#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <string>

#include <cuda_runtime_api.h>
#include <nlohmann/json.hpp>

#include "gemmlab/probe.hpp"
#include "probe/probes.hpp"
#include "probe/report.hpp"

namespace gp = gemmlab::probe;

namespace {

bool has_device() {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); // clear the "no device" error
        return false;
    }
    return n > 0;
}

bool is_pow2(double v) {
    const long long x = std::llround(v);
    return double(x) == v && x > 0 && (x & (x - 1)) == 0;
}

/// Every table well formed, every value finite, every headline worded.
void expect_well_formed(const gp::Result& r, const std::string& probe) {
    EXPECT_FALSE(r.tables.empty()) << probe;
    EXPECT_FALSE(r.headlines.empty()) << probe;
    for (const auto& t : r.tables) {
        EXPECT_FALSE(t.title.empty()) << probe;
        EXPECT_EQ(t.columns.size(), t.units.size()) << probe << ": " << t.title;
        EXPECT_FALSE(t.rows.empty()) << probe << ": " << t.title;
        for (const auto& row : t.rows) {
            ASSERT_EQ(row.size(), t.columns.size()) << probe << ": " << t.title;
            for (double v : row) EXPECT_TRUE(std::isfinite(v)) << probe << ": " << t.title;
        }
    }
    for (const auto& h : r.headlines) {
        EXPECT_FALSE(h.key.empty()) << probe;
        EXPECT_FALSE(h.unit.empty()) << probe << ": " << h.key;
        EXPECT_FALSE(h.text.empty()) << probe << ": " << h.key;
        EXPECT_TRUE(std::isfinite(h.value)) << probe << ": " << h.key;
        // A time in a headline is given in cycles and in ns.
        if (h.unit == "cycles") {
            EXPECT_NE(h.text.find("cycles"), std::string::npos) << h.text;
            EXPECT_NE(h.text.find(" ns"), std::string::npos) << h.text;
        }
    }
}

} // namespace

class ProbeGpu : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (!has_device()) return;
        ctx_ = std::make_unique<gp::Context>(gp::make_context(0));
        clock_ = std::make_unique<gp::Result>(gp::run_clock(*ctx_));
    }
    static void TearDownTestSuite() {
        clock_.reset();
        ctx_.reset();
    }
    void SetUp() override {
        if (!ctx_) GTEST_SKIP() << "no CUDA device visible";
    }

    gp::Result run(gp::Result (*probe)(gp::Context&), const char* name) {
        gp::Result r = probe(*ctx_);
        expect_well_formed(r, name);
        // The report writer accepts it.
        const nlohmann::json j = gp::to_json(*ctx_, {{gp::find_probe(name), r}});
        EXPECT_EQ(j.at("probes").at(0).at("name"), name);
        return r;
    }

    static std::unique_ptr<gp::Context> ctx_;
    static std::unique_ptr<gp::Result> clock_;
};

std::unique_ptr<gp::Context> ProbeGpu::ctx_;
std::unique_ptr<gp::Result> ProbeGpu::clock_;

TEST_F(ProbeGpu, ContextFromDevice) {
    EXPECT_FALSE(ctx_->name.empty());
    EXPECT_GT(ctx_->sm_count, 0);
    EXPECT_GT(ctx_->l2_bytes, 0u);
    EXPECT_GE(ctx_->max_threads_per_block, 1024);
    if (ctx_->cc_major == 9) {
        EXPECT_EQ(ctx_->fp32_lanes_per_sm, 128);
        EXPECT_EQ(ctx_->fp64_lanes_per_sm, 64);
    }
}

TEST_F(ProbeGpu, Clock) {
    expect_well_formed(*clock_, "clock");
    EXPECT_GT(ctx_->clock_mhz, 100.0);
    EXPECT_LT(ctx_->clock_mhz, 3000.0);
    EXPECT_DOUBLE_EQ(clock_->at("sm_clock_mhz"), ctx_->clock_mhz);
    // Measured within a plausible range of the rated maximum (boost can sit a little above it).
    const double rated = clock_->at("rated_max_clock_mhz");
    if (rated > 0) {
        EXPECT_LT(ctx_->clock_mhz, rated * 1.15);
    }
}

TEST_F(ProbeGpu, LaunchRate) {
    const gp::Result r = run(gp::run_launch_rate, "launch-rate");
    EXPECT_GT(r.at("peak_threads_per_cycle"), 1.0);
    EXPECT_GE(r.at("min_block_for_peak"), 1.0);
    EXPECT_LE(r.at("min_block_for_peak"), 1024.0);
    EXPECT_GT(r.at("launch_stream_ns"), 0.0);
    EXPECT_LT(r.at("launch_stream_ns"), 100e3);
    EXPECT_GT(r.at("launch_graph_ns"), 0.0);
    EXPECT_LT(r.at("launch_graph_ns"), 100e3);
}

TEST_F(ProbeGpu, Fma) {
    const gp::Result r = run(gp::run_fma, "fma");
    const double f32 = r.at("fma_f32_per_cycle_per_sm");
    const double f64 = r.at("fma_f64_per_cycle_per_sm");
    EXPECT_GT(f32, 0.0);
    EXPECT_GT(f64, 0.0);
    if (ctx_->fp32_lanes_per_sm > 0) {
        EXPECT_LE(f32, ctx_->fp32_lanes_per_sm * 1.05);
        EXPECT_GE(f32, ctx_->fp32_lanes_per_sm * 0.5); // the best variant gets near the peak
    }
    if (ctx_->fp64_lanes_per_sm > 0) {
        EXPECT_LE(f64, ctx_->fp64_lanes_per_sm * 1.05);
    }
    EXPECT_EQ(r.at("sm_count_from_fma"), double(ctx_->sm_count));
}

TEST_F(ProbeGpu, Registers) {
    const gp::Result r = run(gp::run_registers, "registers");
    EXPECT_EQ(r.at("max_registers_per_thread"), 255.0); // R0..R254 on sm_50 and later
    EXPECT_GT(r.at("spill_slowdown_x"), 1.2);
}

TEST_F(ProbeGpu, Uniform) {
    const gp::Result r = run(gp::run_uniform, "uniform");
    const double uni = r.at("uniform_loop_cycles");
    EXPECT_GT(uni, 0.0);
    EXPECT_GT(r.at("per_thread_loop_cycles"), 0.0);
    // 32 constant addresses per warp are served one after the other.
    EXPECT_GT(r.at("per_lane_constant_cycles"), 2.0 * uni);
}

TEST_F(ProbeGpu, Divergence) {
    const gp::Result r = run(gp::run_divergence, "divergence");
    EXPECT_GT(r.at("within_warp_32_paths_slowdown"), 8.0);  // ~32x in theory
    EXPECT_LT(r.at("within_warp_32_paths_slowdown"), 40.0);
    EXPECT_LT(r.at("across_warps_32_paths_slowdown"), 2.0); // ~1x
}

TEST_F(ProbeGpu, Latency) {
    const gp::Result r = run(gp::run_latency, "latency");
    const double l1 = r.at("l1_hit_latency_cycles");
    const double l2 = r.at("l2_hit_latency_cycles");
    const double dram = r.at("dram_latency_cycles");
    EXPECT_GT(l1, 0.0);
    EXPECT_GT(l2, l1);
    EXPECT_GT(dram, l2);
    EXPECT_LT(dram, 5000.0);
    const double l1_kib = r.at("l1_reach_kib");
    EXPECT_GE(l1_kib, 8.0);
    EXPECT_LE(l1_kib, 1024.0);
    const double l2_mib = r.at("l2_reach_mib");
    EXPECT_GT(l2_mib, 1.0);
    EXPECT_LE(l2_mib, 2.0 * double(ctx_->l2_bytes) / (1 << 20));
}

TEST_F(ProbeGpu, Cacheline) {
    const gp::Result r = run(gp::run_cacheline, "cacheline");
    const double line = r.at("line_bytes");
    EXPECT_TRUE(is_pow2(line)) << line;
    EXPECT_GE(line, 32.0);
    EXPECT_LE(line, 256.0);
    const double sector = r.at("sector_bytes");
    EXPECT_TRUE(is_pow2(sector)) << sector;
    EXPECT_GE(sector, 16.0);
    EXPECT_LE(sector, line);
    const double l1_sector = r.at("l1_sector_bytes");
    EXPECT_TRUE(is_pow2(l1_sector)) << l1_sector;
    EXPECT_GE(l1_sector, 16.0);
    EXPECT_LE(l1_sector, line);
    if (ctx_->cc_major == 9) { // Hopper: 128 B lines of four 32 B sectors
        EXPECT_EQ(line, 128.0);
        EXPECT_EQ(l1_sector, 32.0);
    }
    const double fetch = r.at("dram_fetch_bytes");
    EXPECT_TRUE(is_pow2(fetch)) << fetch;
    EXPECT_GE(fetch, 16.0);
    EXPECT_LE(fetch, 256.0);
    const double fill = r.at("l1_fill_bytes");
    EXPECT_TRUE(is_pow2(fill)) << fill;
    EXPECT_GE(fill, 16.0);
    EXPECT_LE(fill, 256.0);
}

TEST_F(ProbeGpu, AccessDivergence) {
    const gp::Result r = run(gp::run_access_divergence, "access-divergence");
    const double l2 = r.at("l2_bw_ratio_32_lines");
    const double dram = r.at("dram_bw_ratio_32_lines");
    EXPECT_GT(l2, 0.0);
    EXPECT_LT(l2, 0.6); // 32 lines per request cannot keep the coalesced rate
    EXPECT_GT(dram, 0.0);
    EXPECT_LT(dram, 0.6);
}
