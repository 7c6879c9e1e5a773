#pragma once
// `auto` seen from outside its file (src/gemm/auto_select.cu): its choice for a call as a pure
// function of the call, the device's caps and the tune table (tests pin it without a GPU), and
// what `gemmlab tune` needs to time every candidate auto may take. The launch itself is
// launch_auto (kernels/launchers.hpp).

#include <string>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "gemm/device_caps.hpp"
#include "gemm/problem.hpp"
#include "gemm/tune_table.hpp"

namespace gemmlab::detail {

/// What auto runs for a call: a candidate configuration, by name, with k in `splits` slices.
struct AutoChoice {
    std::string_view candidate;
    int splits = 1;
    /// Taken from the tune table (else the model chose).
    bool tuned = false;
};

/// auto's choice for `p` on a device with `caps`, consulting `table` (nullptr: none) before its
/// model. No CUDA call: the same function launch_auto runs, minus the launch. Throws
/// CudaFailure when no candidate can run on `caps`.
AutoChoice auto_choice(const Problem& p, const DeviceCaps& caps, const TuneTable* table);

/// auto_choice for the calling thread's current device, with its caps and its tune table as
/// launch_auto would use them (loading the table on first use): what auto runs for `p` here.
AutoChoice current_auto_choice(const Problem& p);

/// One (candidate, k slices) that auto may run: what `gemmlab tune` times.
struct AutoOption {
    int candidate; ///< index in auto's list for the type key (find_candidate), or kTunedEmulation
    std::string_view name; ///< what the tune cache stores
    int splits;
    double model_ns = 0; ///< the model's time for it
};

/// Every option auto may take for `p` on `caps`, each with the model's time for it: the
/// candidates of its type key that its precision and k allow and the device runs, each whole
/// and, where it splits k, in 2, 4, 8 and 16 slices of at least kMinSplitK; and rung 31 where
/// auto's accuracy rule admits it (double, k >= 4096: its modelled share of the fastest other
/// option). What `gemmlab tune` times (and `tune --explain` sets beside the model's times).
std::vector<AutoOption> auto_options(const Problem& p, const DeviceCaps& caps);

/// Launches option (candidate, splits) of `p`'s type key on `p`: what `gemmlab tune` times.
/// Throws std::out_of_range for an index outside the list, CudaFailure if the launch fails.
void launch_option(const Problem& p, int candidate, int splits, cudaStream_t stream);

/// The index of the candidate called `name` in auto's list for `type`, or -1.
int find_candidate(TuneType type, std::string_view name);

/// A tuned choice (a cache entry's candidate name and k slices for slot `type` at the class's
/// representative k) checked against auto's list: its index, or -1 and why it cannot be one.
struct ResolvedChoice {
    int candidate = -1;
    std::string problem; ///< "unknown candidate 'x'", "a TF32 candidate, which f32 never runs", ...
};
ResolvedChoice resolve_tuned_choice(TuneType type, std::string_view name, int splits, int64_t k);

} // namespace gemmlab::detail
