#pragma once
// Parsing of the option values shared by several subcommands. Each throws CLI::ValidationError
// with a message naming the bad value, so CLI11 prints it with the usage and exits with 2.

#include <string>
#include <vector>

#include "gemmlab/bench_core.hpp"

namespace gemmlab::cli {

std::vector<DType> parse_dtypes(const std::string& s);             // "f32,f64,bf16,f16-f32"
std::string dtype_names();                                         // "f32, f64, bf16, ..."
Layout parse_layout(const std::string& s);                         // "row" | "col"
std::vector<std::pair<Op, Op>> parse_ops(const std::string& s);    // "nn,tn" or "all"
/// "1,32,1024": the strided batch counts of `bench --batch` (integers >= 0).
std::vector<int64_t> parse_batches(const std::string& s);
/// "1024,2048" -> cubes, each at every count of `batches`.
std::vector<Shape> parse_sizes(const std::string& s, const std::vector<int64_t>& batches = {1});
/// "64x64x128,100x7x3,64x64x64@512": MxNxK at every count of `batches`, or MxNxK@B at batch B.
std::vector<Shape> parse_shapes(const std::string& s, const std::vector<int64_t>& batches = {1});
/// "all" -> every GPU rung, then "auto"; else names or numbers (or "auto"), checked against the registry.
std::vector<std::string> parse_gpu_kernels(const std::string& s);
/// "all" -> every CPU rung; else CPU rung names or numbers.
std::vector<std::string> parse_cpu_kernels(const std::string& s);

/// "default" | "tf32" | "int8_emulation".
Precision parse_precision(const std::string& s);
/// "default,tf32" -> both, in that order.
std::vector<Precision> parse_precisions(const std::string& s);

std::vector<std::string> split(const std::string& s, char sep);

} // namespace gemmlab::cli
