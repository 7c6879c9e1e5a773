#pragma once
// `gemmlab bench --dtype fp8,fp8-block,int8`: the quantized rungs (29 FP8, 30 INT8) timed
// against cuBLASLt in the same run, on row-major A op N, B op T (the K-major "TN" both read in
// place).

#include <string>
#include <vector>

#include "common/timing.hpp"
#include "gemmlab/bench_core.hpp"

namespace gemmlab::cli {

/// The quantized --dtype values: "fp8" (E4M3 x E4M3, BF16 C, per-tensor scales), "fp8-block"
/// (the same with DeepSeek-V3's block-wise scales, Scaling::BlockWise) and "int8" (int8 x int8,
/// int32 C).
bool is_quantized_dtype(const std::string& d);

/// A --dtype list cut in two: the quantized types, which `bench` and `accuracy` run against
/// cuBLASLt on their own, and the others, rejoined with commas for the ladder's parser (an
/// empty entry stays there, for that parser to report).
struct DtypeSplit {
    std::vector<std::string> quantized;
    std::string others;
};
DtypeSplit split_quantized_dtypes(const std::string& dtypes);

/// `gemmlab verify`'s 8-bit part: rung 29 (per-tensor and block-wise scales, BF16 C) and rung 30
/// (int32 C) on row-major "TN" shapes off the tile sizes, every element against the CPU
/// reference (FP8 within docs/precision.md's bound, INT8 exactly); one line per case. Returns
/// kExitOk or kExitCheckFailed; needs an sm_90a GPU (the caller skips elsewhere).
int run_quantized_verify(uint64_t seed);

/// The FP8 layer shapes of docs/workloads.md ("FP8 layers"), for --shapes: DeepSeek-V3's
/// linear layers at 64, 128 and 4096 tokens, row-major nt MxNxK.
std::string fp8_layer_shapes();

/// Checks (sampled elements against the CPU reference: FP8 within docs/precision.md's bound,
/// INT8 exactly; cuBLASLt's the same way) and times each kind on each shape, gemmlab and
/// cuBLASLt interleaved; prints one table. Returns kExitOk, or kExitCheckFailed when a check
/// failed.
int run_quantized_bench(const std::vector<std::string>& kinds, const std::vector<Shape>& shapes,
                        const TimingPolicy& policy, uint64_t seed);

/// `gemmlab accuracy --dtype fp8,fp8-block`: rung 29 and cuBLASLt (both into float C, so the
/// sum's error is not hidden under a 16-bit rounding) against the FP64 product of the
/// dequantized inputs, per k and input kind ("signed", "same-sign"), m x n row-major nt; one
/// line per case with both errors (max and median of |C - Ref| / Mag) and the bound. Returns
/// kExitCheckFailed when gemmlab's error passes the bound.
int run_quantized_accuracy(const std::vector<std::string>& kinds, const std::vector<int64_t>& ks,
                           const std::vector<std::string>& inputs, int64_t m, int64_t n,
                           uint64_t seed);

} // namespace gemmlab::cli
