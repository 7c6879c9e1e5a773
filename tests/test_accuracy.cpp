// `gemmlab accuracy`: its statistics, ratios to cuBLAS, options, targets, table and JSON on the
// CPU (no GPU needed), and one small run end to end where a GPU is present.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <random>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "common/device_info.hpp"
#include "gemmlab/accuracy.hpp"
#include "gemmlab/text.hpp"
#include "test_support.hpp"

namespace {

using namespace gemmlab;
using namespace gemmlab::cli;

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(AccuracyStats, MedianIsTheMiddleOrTheMeanOfTheTwoMiddles) {
    std::vector<double> odd{5, 1, 3};
    EXPECT_EQ(median_of(odd), 3);
    std::vector<double> even{4, 1, 3, 2};
    EXPECT_EQ(median_of(even), 2.5);
    std::vector<double> one{7};
    EXPECT_EQ(median_of(one), 7);
    std::vector<double> none;
    EXPECT_EQ(median_of(none), 0);
    std::vector<double> with_inf{kInf, 1, 2};
    EXPECT_EQ(median_of(with_inf), 2);
}

// max |err| / max |ref| is the ratio of two maxima taken over different elements, and the
// median is of |err| / Mag element by element.
TEST(AccuracyStats, MaxRelIsTheLargestErrorOverTheLargestReference) {
    const std::vector<double> ref{10, -2, 0.5, 4};
    const std::vector<double> got{10.5, -2, 0.25, 4.125};
    const std::vector<double> mag{20, 4, 1, 8};
    const ErrorStats s = error_stats(got, ref, mag);
    EXPECT_EQ(s.elements, 4);
    EXPECT_EQ(s.nonfinite, 0);
    EXPECT_EQ(s.max_abs_err, 0.5);
    EXPECT_EQ(s.max_abs_ref, 10);
    EXPECT_EQ(s.max_rel, 0.05);
    // |err| / Mag: 0.025, 0, 0.25, 0.015625 -> median of four = (0.015625 + 0.025) / 2
    EXPECT_DOUBLE_EQ(s.median_rel, (0.015625 + 0.025) / 2);
}

TEST(AccuracyStats, NonFiniteResultsMakeTheMaxInfinite) {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const std::vector<double> ref{1, 2, 3};
    const std::vector<double> got{1, nan, 3};
    const std::vector<double> mag{1, 2, 3};
    const ErrorStats s = error_stats(got, ref, mag);
    EXPECT_EQ(s.nonfinite, 1);
    EXPECT_TRUE(std::isinf(s.max_rel));
    EXPECT_EQ(s.median_rel, 0); // 0, inf, 0
}

TEST(AccuracyStats, ZeroMagnitudeCountsZeroWhenExactAndInfiniteWhenNot) {
    const std::vector<double> ref{0, 0, 0};
    const std::vector<double> mag{0, 0, 0};
    const ErrorStats exact = error_stats(std::vector<double>{0, 0, 0}, ref, mag);
    EXPECT_EQ(exact.max_rel, 0);
    EXPECT_EQ(exact.median_rel, 0);
    const ErrorStats wrong = error_stats(std::vector<double>{0, 1e-30, 1e-30}, ref, mag);
    EXPECT_TRUE(std::isinf(wrong.max_rel));
    EXPECT_TRUE(std::isinf(wrong.median_rel));
}

TEST(AccuracyStats, LengthsMustAgree) {
    const std::vector<double> a{1, 2}, b{1};
    EXPECT_THROW(error_stats(a, b, a), std::invalid_argument);
}

TEST(AccuracyStats, RatioToCublas) {
    EXPECT_EQ(ratio_to(2e-7, 1e-7), 2);
    EXPECT_EQ(ratio_to(0, 0), 1);
    EXPECT_TRUE(std::isinf(ratio_to(1e-9, 0)));
    EXPECT_EQ(ratio_to(0, 1e-7), 0);
}

TEST(AccuracyOptions, Distributions) {
    EXPECT_EQ(parse_distributions("same-sign,signed"),
              (std::vector<Distribution>{Distribution::SameSign, Distribution::Signed}));
    EXPECT_EQ(parse_distributions("all").size(), 4u);
    EXPECT_EQ(parse_distributions("wide,wide").size(), 1u);
    EXPECT_THROW(parse_distributions("gauss"), CLI::ValidationError);
    EXPECT_THROW(parse_distributions(""), CLI::ValidationError);
    EXPECT_EQ(fill_of(Distribution::Signed), FillKind::Uniform);
    EXPECT_EQ(fill_of(Distribution::SameSign), FillKind::Uniform); // then |x| on the device
    EXPECT_EQ(fill_of(Distribution::Wide), FillKind::WideRange);
    EXPECT_EQ(fill_of(Distribution::NearUnderflow), FillKind::NearFltMin);
    for (Distribution d : kAllDistributions) EXPECT_EQ(parse_distributions(to_string(d)).front(), d);
}

TEST(AccuracyOptions, KList) {
    EXPECT_EQ(parse_k_list("256,65536"), (std::vector<int64_t>{256, 65536}));
    EXPECT_THROW(parse_k_list("0"), CLI::ValidationError);
    EXPECT_THROW(parse_k_list("-4"), CLI::ValidationError);
    EXPECT_THROW(parse_k_list("12a"), CLI::ValidationError);
    EXPECT_THROW(parse_k_list(""), CLI::ValidationError);
}

TEST(AccuracyOptions, DefaultsQuickAndChecks) {
    AccuracyOptions o;
    const AccuracyConfig all = accuracy_config(o);
    EXPECT_EQ(all.ks, (std::vector<int64_t>{256, 1024, 4096, 16384, 65536}));
    EXPECT_EQ(all.dists.size(), 4u);
    EXPECT_EQ(all.dtypes.size(), 6u);
    EXPECT_EQ(all.precisions.size(), 2u);
    EXPECT_EQ(all.m, 512);
    EXPECT_EQ(all.n, 512);
    EXPECT_EQ(all.layout, Layout::RowMajor);
    EXPECT_EQ(all.op_a, Op::N);
    EXPECT_EQ(all.op_b, Op::N);
    EXPECT_EQ(std::count(all.kernels.begin(), all.kernels.end(), "cublas"), 0) << "cuBLAS always runs, once";
    EXPECT_EQ(all.kernels.back(), "auto");

    o.quick = true;
    const AccuracyConfig quick = accuracy_config(o);
    EXPECT_EQ(quick.ks, (std::vector<int64_t>{256, 4096, 65536}));
    EXPECT_EQ(quick.dists, (std::vector<Distribution>{Distribution::Signed, Distribution::SameSign}));
    o.ks = "1024";
    o.ks_given = true;
    o.inputs = "wide";
    o.inputs_given = true;
    const AccuracyConfig given = accuracy_config(o);
    EXPECT_EQ(given.ks, (std::vector<int64_t>{1024}));
    EXPECT_EQ(given.dists, (std::vector<Distribution>{Distribution::Wide}));

    AccuracyOptions bad;
    bad.m = 0;
    EXPECT_THROW(accuracy_config(bad), CLI::ValidationError);
    bad = {};
    bad.ops = "all";
    EXPECT_THROW(accuracy_config(bad), CLI::ValidationError);
    bad = {};
    bad.kernels = "nosuch";
    EXPECT_THROW(accuracy_config(bad), CLI::ValidationError);
    bad = {};
    bad.layout = "diagonal";
    EXPECT_THROW(accuracy_config(bad), CLI::ValidationError);
}

AccuracyRow row(DType dt, const std::string& kernel, Precision call, Precision math, Distribution d,
                int64_t k, double max_rel, double median_rel) {
    AccuracyRow r;
    r.dtype = dt;
    r.kernel = kernel;
    r.number = kernel == "cublas" ? 0 : kernel == "auto" ? -1 : 17;
    r.call_precision = call;
    r.math = math;
    r.dist = d;
    r.k = k;
    r.stats.elements = 4;
    r.stats.max_rel = max_rel;
    r.stats.median_rel = median_rel;
    r.bound_pass = true;
    return r;
}

constexpr Precision D = Precision::Default, T = Precision::Tf32;
constexpr Distribution S = Distribution::Signed, P = Distribution::SameSign, W = Distribution::Wide;

// Each row is compared with cuBLAS on the same type, inputs and k, at the row's math: a TF32
// rung with cuBLAS's TF32 call, everything else with its true FP32 one.
TEST(AccuracyRatios, EachRowAgainstCublasAtItsMath) {
    std::vector<AccuracyRow> rows{
        row(DType::F32, "cublas", D, D, S, 256, 1e-7, 1e-8),
        row(DType::F32, "cublas", T, T, S, 256, 1e-4, 1e-5),
        row(DType::F32, "cublas", D, D, S, 4096, 4e-7, 4e-8),
        row(DType::F32, "tf32x3", D, D, S, 256, 3e-7, 1e-8),
        row(DType::F32, "tf32", D, T, S, 256, 1.1e-4, 2e-5),
        row(DType::F32, "auto", T, T, S, 256, 1e-4, 1e-5),
        row(DType::F32, "tf32x3", D, D, S, 4096, 2e-7, 8e-8),
        row(DType::F32, "tf32x3", D, D, P, 4096, 2e-7, 8e-8), // no cuBLAS row for U[0,1)
        row(DType::F64, "dmma", D, D, S, 256, 1e-16, 1e-17),  // no cuBLAS row for f64
    };
    rows.push_back(row(DType::F32, "auto", D, D, S, 256, 1e-7, 1e-8));
    rows.back().error = "launch failed";
    add_cublas_ratios(rows);
    EXPECT_DOUBLE_EQ(*rows[0].max_vs_cublas, 1);
    EXPECT_DOUBLE_EQ(*rows[1].median_vs_cublas, 1);
    EXPECT_DOUBLE_EQ(*rows[3].max_vs_cublas, 3);
    EXPECT_DOUBLE_EQ(*rows[3].median_vs_cublas, 1);
    EXPECT_DOUBLE_EQ(*rows[4].max_vs_cublas, 1.1);
    EXPECT_DOUBLE_EQ(*rows[4].median_vs_cublas, 2);
    EXPECT_DOUBLE_EQ(*rows[5].max_vs_cublas, 1);
    EXPECT_DOUBLE_EQ(*rows[6].max_vs_cublas, 0.5);
    EXPECT_DOUBLE_EQ(*rows[6].median_vs_cublas, 2);
    EXPECT_FALSE(rows[7].max_vs_cublas);
    EXPECT_FALSE(rows[8].max_vs_cublas);
    EXPECT_FALSE(rows[9].max_vs_cublas) << "a failed call has no ratio";
}

std::vector<AccuracyRow> target_rows(double worst_f32_median) {
    std::vector<AccuracyRow> rows;
    for (Distribution d : {S, P, W})
        for (int64_t k : {128, 256, 65536, 131072}) {
            rows.push_back(row(DType::F32, "cublas", D, D, d, k, 1e-7, 1e-8));
            rows.push_back(row(DType::F32, "cublas", T, T, d, k, 1e-4, 1e-5));
            rows.push_back(row(DType::F64, "cublas", D, D, d, k, 1e-16, 1e-17));
            rows.push_back(row(DType::F32, "auto", D, D, d, k, 1.5e-7, 1.9e-8));
            rows.push_back(row(DType::F32, "auto", T, T, d, k, 1.1e-4, 1.15e-5));
            rows.push_back(row(DType::F64, "auto", D, D, d, k, 2e-16, 1e-17));
            // Far off, but outside the targets' range of k and inputs: must not count.
            if (k < 256 || k > 65536 || d == W) rows.back().stats.max_rel = 1;
        }
    for (auto& r : rows)
        if (r.dtype == DType::F32 && r.kernel == "auto" && r.call_precision == D && r.k == 65536 && r.dist == P)
            r.stats.median_rel = worst_f32_median;
    add_cublas_ratios(rows);
    return rows;
}

TEST(AccuracyTargets, OneLinePerTypeMetWithinTheLimit) {
    const auto lines = accuracy_targets(target_rows(1.9e-8));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[0].rfind("target: f32 auto within 2.0x of cuBLAS SGEMM", 0), 0u) << lines[0];
    EXPECT_NE(lines[0].find("8 of 8 within"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("U[-1,1), U[0,1); k=256,65536"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("worst 1.90x (median"), std::string::npos) << lines[0];
    EXPECT_EQ(lines[0].substr(lines[0].size() - 5), ": met");
    EXPECT_EQ(lines[1].rfind("target: f32 auto/tf32 within 1.2x of cuBLAS TF32", 0), 0u) << lines[1];
    EXPECT_NE(lines[1].find("worst 1.15x (median"), std::string::npos) << lines[1];
    EXPECT_EQ(lines[1].substr(lines[1].size() - 5), ": met");
    EXPECT_EQ(lines[2].rfind("target: f64 auto within 2.0x of cuBLAS DGEMM", 0), 0u) << lines[2];
    EXPECT_NE(lines[2].find("worst 2.00x (max"), std::string::npos) << lines[2];
    EXPECT_EQ(lines[2].substr(lines[2].size() - 5), ": met") << "2x is within 2x";
}

TEST(AccuracyTargets, MissedBeyondTheLimitNamingTheWorstCase) {
    const auto lines = accuracy_targets(target_rows(2.1e-8));
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_NE(lines[0].find("7 of 8 within, worst 2.10x (median, k=65536, U[0,1)): MISSED"),
              std::string::npos)
        << lines[0];
}

TEST(AccuracyTargets, AFailedCallMissesAndAbsentTypesGiveNoLine) {
    std::vector<AccuracyRow> rows{row(DType::F32, "cublas", D, D, S, 4096, 1e-7, 1e-8),
                                  row(DType::F32, "auto", D, D, S, 4096, 1e-7, 1e-8)};
    rows[1].error = "no launch";
    add_cublas_ratios(rows);
    const auto lines = accuracy_targets(rows);
    ASSERT_EQ(lines.size(), 1u) << "no TF32 or f64 rows: no line for them";
    EXPECT_NE(lines[0].find("0 of 2 within"), std::string::npos) << lines[0];
    EXPECT_NE(lines[0].find("MISSED"), std::string::npos) << lines[0];
}

AccuracyReport wide_report() {
    AccuracyReport r;
    r.info.seed = 42;
    r.config.dtypes = {DType::F32};
    r.config.dists = {S};
    r.config.ks = {256, 1024, 4096, 16384, 65536, 262144, 1048576};
    for (int64_t k : r.config.ks) {
        r.rows.push_back(row(DType::F32, "cublas", D, D, S, k, 3.9e-7, 1.2e-8));
        r.rows.push_back(row(DType::F32, "cublas", T, T, S, k, 1e-4, 1.2e-5));
        r.rows.push_back(row(DType::F32, "register_prefetch_global", D, D, S, k, 1.234e-5, 1e-300));
        r.rows.push_back(row(DType::F32, "auto", T, T, S, k, 1e-4, 1.2e-5));
        r.rows.push_back(row(DType::F32, "auto", D, D, S, k, 3.9e-3, 1.2e-8));
    }
    r.rows.back().bound_pass = false;
    r.rows.back().worst_over_bound = 1.5;
    r.rows.push_back(row(DType::F32, "tf32", D, T, S, 256, 1e-4, 1.2e-5));
    r.rows.back().error = "InvalidValue: a very long message that goes on and on so that it has to be wrapped "
                          "over more than one line of the report";
    add_cublas_ratios(r.rows);
    r.targets = accuracy_targets(r.rows);
    r.notes.push_back("skipped f32 row nn 512x512x1048576: needs 4.0 GiB of GPU memory; 1.0 GiB of 80 GiB free");
    return r;
}

void expect_fits(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) EXPECT_LE(display_width(line), kLineWidth) << line;
}

// The longest rung name and seven k values: in parts, every line within 100 columns, each cell
// the value and its ratio, the failures and the targets listed.
TEST(AccuracyTable, FitsIn100ColumnsAndShowsRatios) {
    const AccuracyReport r = wide_report();
    std::ostringstream os;
    print_accuracy(os, r);
    const std::string text = os.str();
    expect_fits(text);
    EXPECT_NE(text.find("f32, U[-1,1) inputs: max |err| / max |ref|, x cuBLAS"), std::string::npos) << text;
    EXPECT_NE(text.find("f32, U[-1,1) inputs: median of |err| / (|A||B|), x cuBLAS"), std::string::npos);
    EXPECT_NE(text.find("3.9e-7 1.00x"), std::string::npos) << text;
    EXPECT_NE(text.find("1.2e-5 32x"), std::string::npos) << text;  // 1.234e-5 / 3.9e-7 = 31.6
    EXPECT_NE(text.find("3.9e-3 >999x!"), std::string::npos) << text;
    EXPECT_NE(text.find("k=1048576"), std::string::npos);
    EXPECT_NE(text.find("auto/tf32"), std::string::npos);
    EXPECT_NE(text.find("failures:"), std::string::npos);
    EXPECT_NE(text.find("outside the bound, worst error / bound 1.5"), std::string::npos) << text;
    EXPECT_NE(text.find("target: f32 auto"), std::string::npos);
    EXPECT_NE(text.find("skipped f32"), std::string::npos);
    // cuBLAS first, then auto, then the rungs.
    const size_t cublas = text.find("\ncublas "), autos = text.find("\nauto ");
    const size_t rung = text.find("\nregister_prefetch_global");
    EXPECT_LT(cublas, autos);
    EXPECT_LT(autos, rung);
}

TEST(AccuracyJson, RowsTargetsAndNullForInfinite) {
    AccuracyReport r = wide_report();
    r.rows[2].stats.max_rel = kInf;
    const nlohmann::json j = accuracy_json(r);
    EXPECT_EQ(j["schema"], "gemmlab-accuracy-1");
    EXPECT_EQ(j["seed"], 42);
    EXPECT_EQ(j["ks"].size(), 7u);
    EXPECT_EQ(j["inputs"][0], "signed");
    ASSERT_EQ(j["rows"].size(), r.rows.size());
    const auto& first = j["rows"][0];
    for (const char* key : {"dtype", "kernel", "number", "label", "call_precision", "math", "inputs", "k",
                            "max_rel", "median_rel", "max_vs_cublas", "median_vs_cublas",
                            "worst_error_over_bound", "bound_pass", "pass"})
        EXPECT_TRUE(first.contains(key)) << key;
    EXPECT_TRUE(j["rows"][2]["max_rel"].is_null());
    EXPECT_EQ(j["rows"][3]["label"], "auto/tf32");
    EXPECT_EQ(j["rows"].back()["pass"], false);
    EXPECT_TRUE(j["rows"].back().contains("error"));
    EXPECT_EQ(j["targets"].size(), r.targets.size());
}

// ------------------------------------------------- the promotion's derivation, on a CPU model
// A model of one mma.sync m16n8k8 TF32 element, as the `tensor` probe measured it on the H100
// (docs/probes.md): products exact, the eight summed exactly, the bits of that sum below the
// last place of the larger of C and the largest product dropped (toward zero), then the result
// truncated to FP32. With it, docs/precision.md's claims about 3xTF32 can fail on the CPU:
// kept over all of k the truncations bias the sum, growing with k; promoted every k step (rung
// 17) they do not, and the error stays below a sequential FP32 FMA sum's.
namespace model {

using LD = long double;

float tf32_rna(float x) { // cvt.rna.tf32.f32: to nearest, ties away, 10 explicit bits
    uint32_t b;
    std::memcpy(&b, &x, 4);
    b = (b + 0x1000u) & 0xFFFFE000u;
    float r;
    std::memcpy(&r, &b, 4);
    return r;
}

float truncate_to_float(LD v) {
    float f = float(v);
    if (std::fabs(LD(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
    return f;
}

float mma8(float c, const LD (&p)[8]) {
    LD sum = 0, largest = std::fabs(LD(c));
    for (LD x : p) {
        sum += x;
        largest = std::max(largest, std::fabs(x));
    }
    if (largest == 0) return c;
    int e = 0;
    std::frexp(largest, &e); // largest in [2^(e-1), 2^e)
    const LD last_place = std::ldexp(LD(1), e - 1 - 23);
    return truncate_to_float(LD(c) + std::trunc(sum / last_place) * last_place);
}

struct Medians {
    double unpromoted, promoted, fma;
};

/// Median |err| / Mag over `count` same-sign dot products of length k.
Medians same_sign_medians(int k, int count) {
    std::mt19937_64 rng(1234 + k);
    std::uniform_real_distribution<double> u01(0.0, 1.0);
    std::vector<double> unpromoted, promoted, fma;
    std::vector<float> a(k), b(k), ab(k), as(k), bb(k), bs(k);
    for (int n = 0; n < count; ++n) {
        LD exact = 0;
        for (int i = 0; i < k; ++i) {
            a[i] = float(u01(rng));
            b[i] = float(u01(rng));
            exact += LD(a[i]) * LD(b[i]);
            ab[i] = tf32_rna(a[i]);
            as[i] = tf32_rna(a[i] - ab[i]);
            bb[i] = tf32_rna(b[i]);
            bs[i] = tf32_rna(b[i] - bb[i]);
        }
        float chain = 0, sum = 0, f = 0;
        for (int s = 0; s < k / 8; ++s) {
            LD p[3][8];
            for (int i = 0; i < 8; ++i) {
                const int q = 8 * s + i;
                p[0][i] = LD(as[q]) * bb[q];
                p[1][i] = LD(ab[q]) * bs[q];
                p[2][i] = LD(ab[q]) * bb[q];
            }
            float step = 0;
            for (const auto& products : p) {
                chain = mma8(chain, products);
                step = mma8(step, products);
            }
            sum += step; // round to nearest, as __fadd_rn
        }
        for (int i = 0; i < k; ++i) f = std::fma(a[i], b[i], f);
        const auto rel = [&](float got) { return double(std::fabs(LD(got) - exact) / exact); };
        unpromoted.push_back(rel(chain));
        promoted.push_back(rel(sum));
        fma.push_back(rel(f));
    }
    return {median_of(unpromoted), median_of(promoted), median_of(fma)};
}

} // namespace model

TEST(AccuracyModel, PromotionRemovesTheBiasOfTruncatedSums) {
    const model::Medians short_k = model::same_sign_medians(256, 48);
    const model::Medians long_k = model::same_sign_medians(4096, 48);
    const double u = 0x1p-24;
    const auto show = [&](const model::Medians& m) {
        return "unpromoted " + std::to_string(m.unpromoted / u) + " u, promoted " +
               std::to_string(m.promoted / u) + " u, FP32 FMA in k order " + std::to_string(m.fma / u) + " u";
    };
    // Kept over all of k, the truncations add up: 16 times the k, many times the error.
    EXPECT_GT(long_k.unpromoted, 8 * short_k.unpromoted) << show(short_k) << "; " << show(long_k);
    EXPECT_GT(long_k.unpromoted, 100 * u) << show(long_k);
    // Promoted every k step, what is left is an FP32 sum of k / 8 terms rounded to nearest
    // (median about 0.16 sqrt(k / 8) u = 3.6 u here) and one step's bias: below a plain FP32
    // sum's error, and far below the unpromoted one.
    EXPECT_LT(long_k.promoted, 10 * u) << show(long_k);
    EXPECT_LT(long_k.promoted, long_k.fma) << show(long_k);
    EXPECT_GT(long_k.unpromoted, 10 * long_k.promoted) << show(long_k);
}

gemmlab::test::CliOutput run_cli(const std::string& args) {
    return gemmlab::test::run_cli_at(GEMMLAB_CLI_PATH, args);
}

TEST(AccuracyCli, BadValuesAreUsageErrors) {
    const std::pair<const char*, const char*> cases[] = {
        {"accuracy --k 0", "at least 1"},          {"accuracy --k 12a", "'12a'"},
        {"accuracy --inputs gauss", "'gauss'"},    {"accuracy --op all", "one op combination"},
        {"accuracy --dtype f8", "'f8'"},           {"accuracy --kernels nosuch", "'nosuch'"},
        {"accuracy --m 0", "at least 1"},          {"accuracy --precision fast", "'fast'"},
        {"accuracy --dtype fp8 --inputs wide", "'wide'"},
    };
    for (const auto& [args, message] : cases) {
        const auto out = run_cli(args);
        EXPECT_EQ(out.code, 2) << args << "\n" << out.text;
        EXPECT_NE(out.text.find(message), std::string::npos) << args << "\n" << out.text;
    }
}

TEST(AccuracyCli, SaysItNeedsAGpu) {
    if (visible_device_count() != 0) GTEST_SKIP() << "a GPU is present";
    const auto out = run_cli("accuracy --quick");
    EXPECT_EQ(out.code, 3) << out.text;
    EXPECT_NE(out.text.find("needs an NVIDIA GPU"), std::string::npos) << out.text;
}

// fp8 and fp8-block against cuBLASLt: one row per dtype, k and input kind, each within its
// bound and with cuBLASLt's error beside it (a float C both ways, so neither is exact).
TEST(AccuracyGpu, Fp8RowsBesideCublasLt) {
    REQUIRE_GPU();
    const auto out = run_cli("accuracy --dtype fp8,fp8-block --k 256,2048 --m 96 --n 136 "
                             "--inputs signed,same-sign --seed 5");
    if (out.text.find("sm_90a") != std::string::npos) GTEST_SKIP() << out.text;
    ASSERT_EQ(out.code, 0) << out.text;
    std::istringstream lines(out.text);
    std::string line;
    int rows = 0;
    while (std::getline(lines, line)) {
        std::istringstream f(line);
        std::string dtype, k, inputs, within;
        double bound = 0, ours_max = 0, ours_median = 0, lt_max = 0, lt_median = 0, ratio = 0;
        if (!(f >> dtype >> k >> inputs >> bound >> ours_max >> ours_median >> lt_max >> lt_median >>
              ratio >> within))
            continue; // the header, the seed and the note
        ++rows;
        EXPECT_TRUE(dtype == "fp8" || dtype == "fp8-block") << line;
        EXPECT_EQ(within, "yes") << line;
        EXPECT_LE(ours_max, bound) << line;
        EXPECT_GT(ours_max, 0.0) << line; // float C rounds: an error of exactly 0 is a wrong table
        EXPECT_GT(lt_max, 0.0) << line;
        EXPECT_LE(ours_median, ours_max) << line;
    }
    EXPECT_EQ(rows, 8) << out.text;
}

// A small run on the GPU: every row within its bound, each ratio to cuBLAS present, the same-sign
// inputs really same-sign (|Ref| grows like k, the signed one like sqrt(k)), the targets there.
TEST(AccuracyGpu, SmallRunEndToEnd) {
    REQUIRE_GPU();
    gemmlab::test::TempDir dir;
    const std::string path = (dir.path() / "accuracy.json").string();
    const auto out = run_cli("accuracy --dtype f32,f64 --kernels auto,tf32x3,tf32 --k 256,4096 --m 96 "
                             "--n 80 --inputs signed,same-sign --seed 7 --json " + path);
    ASSERT_EQ(out.code, 0) << out.text;
    expect_fits(out.text);
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    EXPECT_EQ(j["seed"], 7);
    int rows = 0;
    for (const auto& r : j["rows"]) {
        ++rows;
        EXPECT_TRUE(r["pass"].get<bool>()) << r.dump();
        EXPECT_FALSE(r["max_vs_cublas"].is_null()) << r.dump();
        EXPECT_FALSE(r["median_vs_cublas"].is_null()) << r.dump();
        const double k = r["k"];
        if (r["inputs"] == "same-sign") EXPECT_GT(r["max_abs_ref"].get<double>(), 0.15 * k) << r.dump();
        else EXPECT_LT(r["max_abs_ref"].get<double>(), 0.15 * k) << r.dump();
    }
    // f32: cublas, cublas/tf32, auto, auto/tf32, tf32x3, tf32; f64: cublas, auto; 2 k x 2 inputs.
    EXPECT_EQ(rows, (6 + 2) * 4);
    EXPECT_EQ(j["targets"].size(), 3u);
}

// Rung 17 promotes its tensor-core sums every k step (docs/precision.md, "Promotion"): on
// same-sign inputs its typical error is then an FP32 sum's over k / 8 terms, about
// 0.16 sqrt(k / 8) u, plus the bias of one step's truncations (about u), where the truncations
// kept over all of k cost hundreds of u at this k. 64 u separates the two by far.
TEST(AccuracyGpu, Tf32x3HasNoTruncationBiasOnSameSignInputs) {
    REQUIRE_GPU();
    gemmlab::test::TempDir dir;
    const std::string path = (dir.path() / "tf32x3.json").string();
    const auto out = run_cli("accuracy --dtype f32 --precision default --kernels tf32x3 --k 16384 "
                             "--m 128 --n 128 --inputs same-sign --seed 3 --json " + path);
    ASSERT_EQ(out.code, 0) << out.text;
    std::ifstream in(path);
    const nlohmann::json j = nlohmann::json::parse(in);
    bool seen = false;
    for (const auto& r : j["rows"])
        if (r["kernel"] == "tf32x3") {
            seen = true;
            EXPECT_LT(r["median_rel"].get<double>(), 64 * 0x1p-24) << r.dump();
        }
    EXPECT_TRUE(seen) << out.text;
}

} // namespace
