#pragma once
// `gemmlab accuracy`: how far each rung, `auto` and cuBLAS land from the exact product of the
// same inputs, over k and input distributions (issue 28). What users compare is the result, not
// the bound: this measures the typical error beside the vendor library's, in the same run.
//
// For every type (and float's two precisions), input distribution and k, one case of
// m x n x k (alpha = 1, beta = 0) is filled once (fill_random, as bench does), its reference
// computed once by the double-double GPU reference (src/gemm/reference/gpu_reference.hpp: about
// 106 bits, for every input type), and every kernel run once on it. Two numbers per run:
//   max_rel     = max_ij |C - Ref| / max_ij |Ref|
//   median_rel  = median_ij |C - Ref| / (|A||B|)_ij,  (|A||B|)_ij = sum_p |A_ip| |B_pj|
// and each beside cuBLAS's on the same inputs at the same math (a TF32 row against cuBLAS's
// FAST_TF32, every other row against cuBLAS's true FP32/FP64). Each run is also checked against
// its precision's bound (reference::check), as bench does.
//
// The CPU-side pieces (statistics, ratios, options, targets, table, JSON) are here and in
// accuracy.cpp, tested without a GPU (tests/test_accuracy.cpp); the GPU side is accuracy.cu.

#include <cstdint>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmlab/bench_core.hpp"
#include "gemmlab/results.hpp"

namespace gemmlab::cli {

/// The input distributions of A and B.
enum class Distribution {
    Signed,        ///< U[-1, 1) (FillKind::Uniform)
    SameSign,      ///< |U[-1, 1)|: the uniform fill with its sign bits cleared, so every
                   ///< product is positive and rounding errors that lean one way add up
    Wide,          ///< FillKind::WideRange: magnitudes spread over 2^121 (FP16: 2^16)
    NearUnderflow, ///< FillKind::NearFltMin: A just above FLT_MIN (FP16: its smallest normal),
                   ///< B uniform, so products fall below FLT_MIN. For double, only a scale:
                   ///< the reference cannot resolve double's own subnormals
};

/// Every distribution, in the order of `--inputs` help.
inline constexpr Distribution kAllDistributions[] = {Distribution::Signed, Distribution::SameSign,
                                                     Distribution::Wide, Distribution::NearUnderflow};

/// The `--inputs` spelling: "signed", "same-sign", "wide", "near-underflow".
const char* to_string(Distribution d);
/// How a table titles it: "U[-1,1)", "U[0,1)", "wide range", "near underflow".
const char* describe(Distribution d);
/// The fill of A and B that the distribution starts from (SameSign: Uniform, then |x|).
FillKind fill_of(Distribution d);
/// "signed,same-sign" -> both, in the order given; "all" -> every one. Throws
/// CLI::ValidationError naming a bad word.
std::vector<Distribution> parse_distributions(const std::string& s);

/// The error of one computed C against its reference.
struct ErrorStats {
    int64_t elements = 0;   ///< elements compared
    int64_t nonfinite = 0;  ///< elements whose C is not finite where Ref is (unwritten NaN included)
    double max_abs_err = 0; ///< max |C - Ref| over finite elements
    double max_abs_ref = 0; ///< max |Ref|
    /// max_abs_err / max_abs_ref; 0 when both are 0, inf when only Ref's is, or when any element
    /// is non-finite.
    double max_rel = 0;
    /// Median over elements of |C - Ref| / Mag (Mag = sum |A||B|; an element with Mag == 0 counts
    /// 0 when C == Ref, else inf; a non-finite C counts inf). For an even count, the mean of the
    /// two middle values.
    double median_rel = 0;
};

/// ErrorStats of `got` against `ref` and `mag`, all of the same length (elements where Ref is
/// not finite are skipped: the accuracy runs have none).
ErrorStats error_stats(std::span<const double> got, std::span<const double> ref, std::span<const double> mag);

/// The median of `v` (reordered): the middle value, or the mean of the two middle ones; 0 for an
/// empty vector.
double median_of(std::vector<double>& v);

/// value / cublas: 1 when both are 0, inf when only cuBLAS's is (a row exact where cuBLAS is
/// too shows 1x, one that errs where cuBLAS is exact shows inf).
double ratio_to(double value, double cublas);

/// One kernel on one case.
struct AccuracyRow {
    DType dtype = DType::F32;
    std::string kernel;  ///< rung name, "auto" or "cublas"
    int number = -1;     ///< rung number; -1 for auto
    Precision call_precision = Precision::Default; ///< GemmOptions::precision of the call
    Precision math = Precision::Default;           ///< what the result is checked at and compared with
    Distribution dist = Distribution::Signed;
    int64_t k = 0;
    ErrorStats stats;
    double worst_over_bound = 0; ///< reference::CheckResult::worst_ratio
    bool bound_pass = false;
    std::string error;           ///< gemm's message when the call failed (no stats then)
    std::optional<double> max_vs_cublas, median_vs_cublas; ///< set by add_cublas_ratios
    bool ok() const { return error.empty() && bound_pass; }
    /// "auto", "cublas", or the rung name; for auto and cuBLAS called at another precision than
    /// Default, "/" and its name ("auto/tf32").
    std::string label() const;
};

/// What to measure (every value checked by accuracy_config).
struct AccuracyConfig {
    std::vector<DType> dtypes;
    std::vector<Precision> precisions;         ///< float's call precisions (others: default only)
    std::vector<std::string> kernels;          ///< rungs and/or "auto"; cuBLAS always runs
    std::vector<int64_t> ks;
    std::vector<Distribution> dists;
    int64_t m = 512, n = 512;
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::N;
    uint64_t seed = 0;
};

/// The command line's values, as typed.
struct AccuracyOptions {
    std::string dtypes = "f32,f64,bf16,f16,bf16-f32,f16-f32";
    std::string precisions = "default,tf32";
    std::string kernels = "all";
    std::string ks = "256,1024,4096,16384,65536";
    std::string inputs = "all";
    int64_t m = 512, n = 512;
    std::string layout = "row";
    std::string ops = "nn";
    bool quick = false; ///< k = 256, 4096, 65536 and inputs signed, same-sign, unless given
    bool ks_given = false, inputs_given = false;
};

/// The k values of --quick.
inline constexpr int64_t kQuickKs[] = {256, 4096, 65536};

/// Checks and converts the options (a bad value throws CLI::ValidationError: usage, exit 2).
/// The kernel list keeps the order given, "cublas" removed (it always runs).
AccuracyConfig accuracy_config(const AccuracyOptions& o);

/// "256,4096": integers >= 1. Throws CLI::ValidationError (option name `option`).
std::vector<int64_t> parse_k_list(const std::string& s, const std::string& option = "--k");

/// Fills in each row's max_vs_cublas and median_vs_cublas from the cuBLAS row of the same type,
/// distribution and k whose call precision is the row's math (cuBLAS rows get 1). Rows without
/// such a cuBLAS row, or that failed, keep none.
void add_cublas_ratios(std::vector<AccuracyRow>& rows);

/// Issue 28's targets, with the ratios of add_cublas_ratios, over the inputs U[-1,1) and
/// U[0,1) at every measured k from 256 to 65536:
/// f32 auto within kDefaultTarget (2x) of cuBLAS SGEMM's max_rel and median_rel, f64 auto within
/// 2x of DGEMM's, f32 auto at TF32 within kTf32Target (1.2x) of cuBLAS TF32's.
inline constexpr double kDefaultTarget = 2.0;
inline constexpr double kTf32Target = 1.2;

/// One line per target whose type and precision the rows hold:
/// "target: f32 auto within 2.0x of cuBLAS SGEMM (max and median error; U[-1,1), U[0,1);
/// k=256,1024,4096,16384,65536): 20 of 20 within, worst 1.31x (median, k=65536, U[0,1)): met",
/// or "...: MISSED".
std::vector<std::string> accuracy_targets(const std::vector<AccuracyRow>& rows);

/// The whole run.
struct AccuracyReport {
    RunInfo info;
    AccuracyConfig config;
    std::vector<AccuracyRow> rows;
    std::vector<std::string> targets;
    std::vector<std::string> notes; ///< cases skipped (too large), kernels this device lacks
};

/// Per type and distribution, two tables (max_rel, median_rel) with a column per k, each cell
/// the value and its ratio to cuBLAS; then the failures, then the target lines. Every line fits
/// in kLineWidth columns (more k than fit are printed in parts).
void print_accuracy(std::ostream& os, const AccuracyReport& report);

/// Schema "gemmlab-accuracy-1": the run's facts, one object per row, the targets.
nlohmann::json accuracy_json(const AccuracyReport& report);

/// Runs every case on the current device (which must exist): the GPU side (accuracy.cu). A case
/// that does not fit in GPU memory is skipped with a line in `notes`.
std::vector<AccuracyRow> run_accuracy(const AccuracyConfig& config, std::vector<std::string>& notes);

} // namespace gemmlab::cli
