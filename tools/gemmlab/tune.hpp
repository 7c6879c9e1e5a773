#pragma once
// `gemmlab tune`: on the current GPU, times every option auto may take (candidate and k slices)
// at the representative shape of each shape class, for each type key asked for, and keeps the
// fastest per slot: the entries of auto's tune cache (src/gemm/tune_cache.hpp says where the
// file lives, what it holds and when auto ignores it).
//
// Order: the classes by their representative's 2mnk, cheapest first, each for every type key,
// so a budget that runs out leaves the largest shapes, where the model's choice matters least
// (every SM busy for many waves), to the model. A slot started before the budget is spent is
// finished. Timing: column-major nn (a row-major nn call of the transposed shape normalizes to
// the same problem), alpha 1, beta 0, fresh uniform inputs in [-1, 1], CUDA events, kTunePolicy.
// A measured winner replaces the model's pick only when it is at least kMinSpeedup faster:
// closer than that, two medians of event timings differ by noise as often as by speed.

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "common/timing.hpp"
#include "gemmlab/bench_core.hpp"
#include "gemm/tune_cache.hpp"

namespace gemmlab::cli {

/// Repetitions of each option at each class: 2 untimed runs, then at least 5 timed and 2 ms.
inline constexpr TimingPolicy kTunePolicy{2, 5, 200, 2.0, false};

/// How much faster than the model's pick a measured winner must be to replace it.
inline constexpr double kMinSpeedup = 1.03;

struct TuneConfig {
    std::vector<detail::TuneType> types;
    double budget_s = 120;
    uint64_t seed = 0;
};

/// One slot of the plan: a type key and a shape class.
struct TuneSlot {
    detail::TuneType type;
    int shape_class;
};

/// Every slot of `types`, in the order tune runs them (see the header).
std::vector<TuneSlot> tune_plan(const std::vector<detail::TuneType>& types);

struct TuneReport {
    std::vector<detail::TuneEntry> entries; ///< one per slot tuned, in the order tuned
    int planned = 0;                        ///< slots in the plan
    std::vector<std::string> skipped;       ///< one line per slot whose buffers did not fit
    double elapsed_s = 0;
    bool budget_spent = false; ///< stopped before the end of the plan
};

/// Called after each slot with the slots done so far and the seconds elapsed.
using TuneProgressFn = std::function<void(int done, int total, double elapsed_s, const TuneSlot&)>;

/// Runs the plan on the current device. Throws CudaFailure.
TuneReport run_tune(const TuneConfig& config, const TuneProgressFn& progress);

/// The slots where tuning changed auto's choice (winner, slices, time, speed-up over the model's
/// pick), then one summary line per type key: within kLineWidth columns.
void print_tune_report(std::ostream& os, const TuneReport& report, double budget_s);

/// The file to write: `fresh` entries, and those of `old` (the cache already at the path, when
/// its key is `key`) for slots `fresh` does not cover, so that tuning one type keeps the others.
detail::TuneFile merged_tune_file(const std::optional<detail::TuneFile>& old, const detail::TuneKey& key,
                                  const std::vector<detail::TuneEntry>& fresh, std::string tuned_at);

/// `gemmlab tune --explain`: every option auto's model weighs for one case, each timed beside
/// cuBLAS and auto (interleaved, fresh inputs, warm behind the hold or with L2 flushed), with the
/// model's time for it: where the model's ranking and the GPU's part, and by how much. Nothing is
/// written; it is how the model's constants are checked (docs/auto.md).
struct ExplainedOption {
    std::string name;
    int splits = 1;
    double model_us = 0;
    double measured_us = 0;
    bool model_pick = false;
};

struct Explained {
    std::string case_text;  ///< Case::describe()
    std::string auto_pick;  ///< auto_choice's candidate ("small", "decode" or a model option)
    int auto_splits = 1;
    double cublas_us = 0, auto_us = 0;
    std::vector<ExplainedOption> options; ///< in the model's order
};

/// Measures `c` (one product or a strided batch) on the current device. Throws CudaFailure.
Explained explain_case(const Case& c, uint64_t seed, bool cold);

/// One table per case: each option's model and measured time, its ratio to cuBLAS, the model's
/// pick and the fastest marked.
void print_explained(std::ostream& os, const Explained& e);

} // namespace gemmlab::cli
