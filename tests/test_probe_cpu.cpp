// CPU-only tests of the probe suite's plumbing: the registry, cycle <-> ns conversion, the
// pointer-chase cycle builder, the shared-memory bank model, the JSON report and the cacheline
// probe's L1 tag analysis. No GPU needed.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmlab/probe.hpp"
#include "probe/bank_model.hpp"
#include "probe/cacheline_analysis.hpp"
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

// ---------------------------------------------------------------- bank model (smem-bank)

TEST(BankModel, StrideConflictsAreGcdWithThirtyTwoOnA32LaneWarp) {
    for (int s = 1; s <= 64; ++s) {
        const gp::BankCost c = gp::strided_load_cost(s, 32);
        EXPECT_EQ(c.ways, std::gcd(s, 32)) << "stride " << s;
        EXPECT_EQ(c.passes, c.ways) << "stride " << s; // one pass serves the whole warp
    }
}

TEST(BankModel, A64LaneWavefrontIsServedInTwo32LaneHalves) {
    // GCN/CDNA LDS: the same ways within each half, the halves one after the other.
    for (int s = 1; s <= 64; ++s) {
        const gp::BankCost c = gp::strided_load_cost(s, 64);
        EXPECT_EQ(c.ways, std::gcd(s, 32)) << "stride " << s;
        EXPECT_EQ(c.passes, 2 * std::gcd(s, 32)) << "stride " << s;
    }
    // Had the model served all 64 lanes in one pass, stride 1 would be a 2-way conflict (lanes l
    // and l + 32 share bank l) and stride 32 a 64-way one.
    static_assert(gp::strided_load_cost(1, 64).ways == 1, "lanes l and l + 32 are in different halves");
    static_assert(gp::strided_load_cost(32, 64).ways == 32, "32 distinct words of bank 0 per half");
}

TEST(BankModel, PaddedTileColumnAndBroadcast) {
    // Column of tile[rows][pitch]: lane l reads word l * pitch + c.
    EXPECT_EQ(gp::strided_load_cost(32, 32).ways, 32);
    EXPECT_EQ(gp::strided_load_cost(33, 32).ways, 1);
    EXPECT_EQ(gp::strided_load_cost(33, 64).passes, 2);
    // Every lane on one word: one broadcast per pass.
    EXPECT_EQ(gp::strided_load_cost(0, 32).ways, 1);
    EXPECT_EQ(gp::strided_load_cost(0, 64).passes, 2);
}

TEST(BankModel, RejectsWarpsThatAreNotWholePasses) {
    EXPECT_THROW(gp::strided_load_cost(1, 48), std::invalid_argument);
    EXPECT_THROW(gp::strided_load_cost(1, 0), std::invalid_argument);
    EXPECT_THROW(gp::strided_load_cost(-1, 32), std::invalid_argument);
    EXPECT_THROW(gp::strided_load_cost(1, 32, gp::SharedBanks{128, 32}), std::invalid_argument);
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

// ---------------------------------------------------------------- cacheline: L1 tag analysis

namespace {

const std::vector<double> kTagGaps = {16, 32, 64, 128, 256, 512};

// The cacheline probe's L1 tag sweep as measured on an H100 (docs/results/probe-h100.log):
// cycles per read for N blocks (rows) of two reads g bytes apart (columns, kTagGaps).
const std::vector<std::pair<double, std::vector<double>>> kH100Tags = {
    {256, {39.8438, 40.0605, 40.0566, 40.0879, 45.0566, 39.9844}},
    {304, {39.7993, 40, 40.0033, 39.9836, 50.0493, 46.5444}},
    {362, {39.7555, 39.9779, 39.9848, 39.9834, 48.4323, 50.5552}},
    {431, {39.6995, 39.8886, 39.8968, 45.7459, 57.0742, 63.6531}},
    {512, {40.8887, 42.1963, 42.208, 53.5068, 68.1143, 83.5049}},
    {609, {44.8013, 50.0542, 50.0583, 67.4984, 108.886, 115.25}},
    {724, {52.8425, 66.0269, 66.0504, 112.715, 142.84, 143.479}},
    {861, {64.1434, 88.6533, 88.7137, 150.247, 169.024, 170.105}},
    {1024, {70.7729, 101.809, 101.92, 174.648, 195.091, 193.303}},
    {1218, {77.8452, 115.965, 116.087, 234.65, 219.084, 220.076}},
    {1448, {91.5722, 143.304, 143.419, 272.603, 251.981, 254.71}},
    {1722, {103.971, 167.978, 168.18, 285.146, 281.111, 280.842}},
    {2048, {117.201, 194.36, 194.559, 286.143, 286.107, 286.061}},
    {2435, {130.055, 219.979, 220.25, 286.706, 286.494, 286.302}},
    {2896, {151.787, 263.743, 263.746, 286.467, 286.52, 286.011}},
    {3444, {161.195, 282.568, 282.43, 286.144, 286.415, 285.989}},
    {4096, {162.965, 286.12, 286.011, 286.626, 286.593, 286.08}},
    {4871, {163.351, 286.753, 286.77, 286.716, 286.556, 286.31}},
    {5793, {163.204, 286.483, 286.478, 286.565, 286.516, 286.031}},
    {6889, {163.241, 286.527, 286.534, 286.562, 286.561, 286.147}},
    {8192, {163.286, 286.677, 286.674, 286.839, 286.638, 286.127}},
};

gp::L1TagAnalysis analyze(const std::vector<std::pair<double, std::vector<double>>>& sweep) {
    std::vector<double> blocks;
    std::vector<std::vector<double>> lat;
    for (const auto& [n, row] : sweep) {
        blocks.push_back(n);
        lat.push_back(row);
    }
    return gp::analyze_l1_tags(kTagGaps, blocks, lat);
}

// A model L1 of `capacity` lines of `line` bytes, filled `sector` bytes at a time: a block holds
// one line (two from g = line), the first read of a block misses with the share of blocks that
// do not fit, the second read misses with it only from g = sector.
std::vector<std::pair<double, std::vector<double>>> model_l1(double line, double sector, double capacity) {
    const double hit = 30, miss = 300;
    std::vector<std::pair<double, std::vector<double>>> sweep;
    for (int j = 0; j < 21; ++j) {
        const double n = std::round(256 * std::pow(2.0, j / 4.0));
        std::vector<double> row;
        for (double g : kTagGaps) {
            const double lines = g < line ? 1 : 2;
            const double p = std::clamp((n * lines - capacity) / capacity, 0.0, 1.0);
            const double first = hit + p * (miss - hit);
            const double second = g < sector ? hit : first;
            row.push_back(0.5 * (first + second));
        }
        sweep.emplace_back(n, std::move(row));
    }
    return sweep;
}

} // namespace

TEST(CachelineTags, H100MeasurementGivesA128ByteLineOf32ByteSectors) {
    const gp::L1TagAnalysis a = analyze(kH100Tags);
    ASSERT_TRUE(a.valid);
    EXPECT_NEAR(a.hit, 39.7, 0.1);
    EXPECT_NEAR(a.miss, 286.8, 0.1);
    EXPECT_EQ(a.sector, 32.0);
    EXPECT_EQ(a.line, 128.0);
    // The evidence: reads 16 B apart share a fill, from 32 B they do not ...
    EXPECT_LT(a.second_read_misses[0], 0.1);
    for (size_t g = 1; g < kTagGaps.size(); ++g) EXPECT_GT(a.second_read_misses[g], 0.9) << kTagGaps[g];
    // ... and L1 holds as many blocks at 16, 32 and 64 B (one line each), about half from 128 B.
    for (size_t g : {1, 2}) EXPECT_NEAR(a.half_miss_blocks[g] / a.half_miss_blocks[0], 1.0, 0.1) << kTagGaps[g];
    for (size_t g : {3, 4, 5}) {
        EXPECT_GT(a.half_miss_blocks[g] / a.half_miss_blocks[1], 0.4) << kTagGaps[g];
        EXPECT_LT(a.half_miss_blocks[g] / a.half_miss_blocks[1], 0.7) << kTagGaps[g];
    }
}

TEST(CachelineTags, ModelCachesAreReadBack) {
    struct Want {
        double line, sector;
    };
    for (const Want w : {Want{128, 32}, Want{64, 64}, Want{128, 128}, Want{256, 32}, Want{32, 16}}) {
        const gp::L1TagAnalysis a = analyze(model_l1(w.line, w.sector, 1500));
        EXPECT_TRUE(a.valid);
        EXPECT_EQ(a.line, w.line) << "line " << w.line << ", sector " << w.sector;
        EXPECT_EQ(a.sector, w.sector) << "line " << w.line << ", sector " << w.sector;
    }
}

TEST(CachelineTags, NothingMeasuredFindsNothing) {
    std::vector<std::pair<double, std::vector<double>>> flat;
    for (double n : {256.0, 512.0, 1024.0}) flat.emplace_back(n, std::vector<double>(kTagGaps.size(), 40.0));
    const gp::L1TagAnalysis a = analyze(flat);
    EXPECT_FALSE(a.valid);
    EXPECT_EQ(a.line, 0.0);
    EXPECT_EQ(a.sector, 0.0);
    EXPECT_TRUE(gp::analyze_l1_tags({}, {}, {}).plateau.empty());
}

