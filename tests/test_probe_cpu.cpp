// CPU-only tests of the probe suite's plumbing: the registry, cycle <-> ns conversion, the
// pointer-chase cycle builder and the JSON report. No GPU needed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmlab/probe.hpp"
#include "probe/chase.hpp"
#include "probe/report.hpp"

namespace gp = gemmlab::probe;

// ---------------------------------------------------------------- registry

TEST(ProbeRegistry, HasNineteenProbesWithUniqueNames) {
    const auto all = gp::probes();
    ASSERT_EQ(all.size(), 19u);
    std::set<std::string> names;
    for (const auto& p : all) {
        EXPECT_FALSE(p.name.empty());
        EXPECT_FALSE(p.seed.empty()) << p.name;
        EXPECT_FALSE(p.question.empty()) << p.name;
        EXPECT_NE(p.run, nullptr) << p.name;
        EXPECT_TRUE(names.insert(std::string(p.name)).second) << "duplicate " << p.name;
    }
}

TEST(ProbeRegistry, ClockRunsFirst) {
    ASSERT_FALSE(gp::probes().empty());
    EXPECT_EQ(gp::probes().front().name, "clock");
}

TEST(ProbeRegistry, FindProbe) {
    for (const auto& p : gp::probes()) {
        const gp::ProbeInfo* found = gp::find_probe(p.name);
        ASSERT_NE(found, nullptr) << p.name;
        EXPECT_EQ(found, &p);
    }
    for (const char* name : {"latency", "fma", "cacheline", "access-divergence", "launch-rate"})
        EXPECT_NE(gp::find_probe(name), nullptr) << name;
    EXPECT_EQ(gp::find_probe("no-such-probe"), nullptr);
    EXPECT_EQ(gp::find_probe(""), nullptr);
    EXPECT_EQ(gp::find_probe("Clock"), nullptr); // names are exact
}

TEST(ProbeResult, AtFindsHeadlinesAndThrowsOnMissing) {
    gp::Result r;
    r.headlines.push_back({"a", 1.5, "x", "a: 1.5x"});
    r.headlines.push_back({"b", -2.0, "cycles", "b"});
    EXPECT_DOUBLE_EQ(r.at("a"), 1.5);
    EXPECT_DOUBLE_EQ(r.at("b"), -2.0);
    EXPECT_THROW(r.at("c"), std::out_of_range);
}

// ---------------------------------------------------------------- Context conversions

TEST(ProbeContext, CyclesAndNanoseconds) {
    gp::Context ctx;
    ctx.clock_mhz = 1000.0; // 1 cycle = 1 ns
    EXPECT_DOUBLE_EQ(ctx.cycles_to_ns(262), 262.0);
    EXPECT_DOUBLE_EQ(ctx.ns_to_cycles(139), 139.0);

    ctx.clock_mhz = 1755.0;
    EXPECT_NEAR(ctx.cycles_to_ns(1755), 1000.0, 1e-9);
    EXPECT_NEAR(ctx.ns_to_cycles(1000), 1755.0, 1e-9);
    EXPECT_NEAR(ctx.cycles_to_ns(262), 149.2877, 1e-3);

    ctx.clock_mhz = 1980.0;
    for (double c : {0.0, 1.0, 33.0, 262.0, 600.5, 1e6})
        EXPECT_NEAR(ctx.ns_to_cycles(ctx.cycles_to_ns(c)), c, 1e-9 * std::max(1.0, c));
}

// ---------------------------------------------------------------- random single cycle

TEST(ChaseCycle, SingleCycleThroughEveryNode) {
    for (size_t n : {1u, 2u, 3u, 7u, 8u, 64u, 1000u, 4096u, 65537u, 1u << 18}) {
        for (uint64_t seed : {1ull, 42ull, 0x9E3779B97F4A7C15ull}) {
            const std::vector<uint32_t> next = gp::random_cycle(n, seed);
            ASSERT_EQ(next.size(), n);
            // A permutation...
            std::vector<char> seen(n, 0);
            for (uint32_t v : next) {
                ASSERT_LT(v, n);
                ASSERT_EQ(seen[v], 0) << "node " << v << " has two predecessors (n=" << n << ")";
                seen[v] = 1;
            }
            // ...that is one cycle: walking from node 0 returns after exactly n steps.
            EXPECT_TRUE(gp::is_single_cycle(next)) << "n=" << n << " seed=" << seed;
            EXPECT_EQ(gp::cycle_length(next), n);
            // No fixed points except the trivial 1-node cycle.
            if (n > 1) {
                for (size_t i = 0; i < n; ++i) ASSERT_NE(next[i], i) << "n=" << n;
            }
        }
    }
}

TEST(ChaseCycle, DeterministicPerSeedAndDifferentAcrossSeeds) {
    EXPECT_EQ(gp::random_cycle(5000, 7), gp::random_cycle(5000, 7));
    EXPECT_NE(gp::random_cycle(5000, 7), gp::random_cycle(5000, 8));
}

TEST(ChaseCycle, NotSequential) {
    // A random order: far fewer than half of the steps go to the neighbouring node.
    const auto next = gp::random_cycle(1 << 16, 3);
    size_t neighbours = 0;
    for (size_t i = 0; i < next.size(); ++i) neighbours += next[i] == (i + 1) % next.size();
    EXPECT_LT(neighbours, next.size() / 100);
}

TEST(ChaseCycle, EmptyAndDetectionOfBrokenCycles) {
    EXPECT_TRUE(gp::random_cycle(0, 1).empty());
    EXPECT_FALSE(gp::is_single_cycle(std::vector<uint32_t>{}));
    EXPECT_TRUE(gp::is_single_cycle(std::vector<uint32_t>{0}));
    EXPECT_TRUE(gp::is_single_cycle(std::vector<uint32_t>{1, 2, 0}));
    EXPECT_FALSE(gp::is_single_cycle(std::vector<uint32_t>{1, 0, 3, 2})); // two 2-cycles
    EXPECT_FALSE(gp::is_single_cycle(std::vector<uint32_t>{0, 1}));       // two fixed points
    EXPECT_FALSE(gp::is_single_cycle(std::vector<uint32_t>{1, 1}));       // not a permutation
    EXPECT_FALSE(gp::is_single_cycle(std::vector<uint32_t>{1, 5}));       // out of range
}

// ---------------------------------------------------------------- JSON report

namespace {

gp::Context sample_context() {
    gp::Context ctx;
    ctx.device = 0;
    ctx.name = "Test GPU";
    ctx.sm_count = 132;
    ctx.cc_major = 9;
    ctx.cc_minor = 0;
    ctx.l2_bytes = 50u << 20;
    ctx.clock_mhz = 1755.0;
    ctx.fp32_lanes_per_sm = 128;
    ctx.fp64_lanes_per_sm = 64;
    return ctx;
}

gp::Result sample_result() {
    gp::Result r;
    gp::Table t;
    t.title = "pointer chase latency vs footprint";
    t.columns = {"footprint", "latency", "latency"};
    t.units = {"KiB", "cycles", "ns"};
    t.rows = {{1, 33, 18.8}, {1024, 262, 149.3}, {262144, 600, std::nan("")}};
    r.tables.push_back(t);
    r.headlines.push_back({"l2_hit_latency_cycles", 262, "cycles",
                           "L2 hit latency: 262 cycles (149 ns at 1755 MHz)"});
    return r;
}

} // namespace

TEST(ProbeReport, FieldsPresentAndRoundTrip) {
    const gp::Context ctx = sample_context();
    std::vector<std::pair<const gp::ProbeInfo*, gp::Result>> results;
    results.emplace_back(gp::find_probe("latency"), sample_result());
    results.emplace_back(gp::find_probe("clock"), gp::Result{});

    const nlohmann::json j = gp::to_json(ctx, results);
    const nlohmann::json back = nlohmann::json::parse(j.dump(2)); // serializes and parses
    ASSERT_EQ(back, j);

    EXPECT_EQ(back.at("schema"), gp::kReportSchema);
    const auto& dev = back.at("device");
    EXPECT_EQ(dev.at("name"), "Test GPU");
    EXPECT_EQ(dev.at("sm_count"), 132);
    EXPECT_DOUBLE_EQ(dev.at("clock_mhz").get<double>(), 1755.0);
    EXPECT_EQ(dev.at("compute_capability"), "9.0");
    EXPECT_EQ(dev.at("l2_bytes"), 50u << 20);

    const auto& probes = back.at("probes");
    ASSERT_EQ(probes.size(), 2u);
    const auto& lat = probes.at(0);
    EXPECT_EQ(lat.at("name"), "latency");
    EXPECT_FALSE(lat.at("seed").get<std::string>().empty());
    EXPECT_FALSE(lat.at("question").get<std::string>().empty());

    const auto& h = lat.at("headlines").at(0);
    EXPECT_EQ(h.at("key"), "l2_hit_latency_cycles");
    EXPECT_DOUBLE_EQ(h.at("value").get<double>(), 262.0);
    EXPECT_EQ(h.at("unit"), "cycles");
    EXPECT_NE(h.at("text").get<std::string>().find("ns"), std::string::npos);

    const auto& t = lat.at("tables").at(0);
    EXPECT_EQ(t.at("title"), "pointer chase latency vs footprint");
    EXPECT_EQ(t.at("columns"), (nlohmann::json{"footprint", "latency", "latency"}));
    EXPECT_EQ(t.at("units"), (nlohmann::json{"KiB", "cycles", "ns"}));
    ASSERT_EQ(t.at("rows").size(), 3u);
    EXPECT_DOUBLE_EQ(t.at("rows").at(1).at(1).get<double>(), 262.0);
    EXPECT_TRUE(t.at("rows").at(2).at(2).is_null()); // NaN is written as null

    const auto& clk = probes.at(1);
    EXPECT_EQ(clk.at("name"), "clock");
    EXPECT_TRUE(clk.at("headlines").is_array());
    EXPECT_TRUE(clk.at("headlines").empty());
    EXPECT_TRUE(clk.at("tables").empty());
}

TEST(ProbeReport, RejectsMalformedTables) {
    const gp::Context ctx = sample_context();
    gp::Result bad_units = sample_result();
    bad_units.tables[0].units.pop_back();
    EXPECT_THROW(gp::to_json(ctx, {{gp::find_probe("latency"), bad_units}}), std::invalid_argument);

    gp::Result bad_row = sample_result();
    bad_row.tables[0].rows[1].push_back(1.0);
    EXPECT_THROW(gp::to_json(ctx, {{gp::find_probe("latency"), bad_row}}), std::invalid_argument);
}

TEST(ProbeReport, EmptyResults) {
    const nlohmann::json j = gp::to_json(sample_context(), {});
    EXPECT_TRUE(j.at("probes").is_array());
    EXPECT_TRUE(j.at("probes").empty());
    EXPECT_EQ(j.at("device").at("name"), "Test GPU");
}
