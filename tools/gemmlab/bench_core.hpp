#pragma once
// The machinery shared by `bench` and `verify`: one GEMM case on the device with its inputs,
// its reference, and the run-check-time loop for each rung.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/fill.hpp"
#include "common/timing.hpp"
#include "gemm/problem.hpp"
#include "gemm/reference/check.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::cli {

/// The element types of a case: A and B, and C. F32, F64, BF16, F16: C of the same type;
/// BF16_F32, F16_F32: half-precision A and B with a float C.
enum class DType { F32, F64, BF16, F16, BF16_F32, F16_F32 };

/// Every DType, in the order of `--dtype` help.
inline constexpr DType kAllDTypes[] = {DType::F32,  DType::F64,      DType::BF16,
                                       DType::F16,  DType::BF16_F32, DType::F16_F32};

/// The `--dtype` spelling: "f32", "f64", "bf16", "f16", "bf16-f32", "f16-f32".
constexpr const char* to_string(DType d) {
    switch (d) {
    case DType::F32: return "f32";
    case DType::F64: return "f64";
    case DType::BF16: return "bf16";
    case DType::F16: return "f16";
    case DType::BF16_F32: return "bf16-f32";
    case DType::F16_F32: return "f16-f32";
    }
    return "?";
}

/// The type of A and B (what KernelInfo::types lists).
constexpr DataType input_type(DType d) {
    switch (d) {
    case DType::F32: return DataType::F32;
    case DType::F64: return DataType::F64;
    case DType::BF16: case DType::BF16_F32: return DataType::BF16;
    case DType::F16: case DType::F16_F32: return DataType::F16;
    }
    return DataType::F32;
}

/// True for BF16/FP16 inputs (the half-precision API).
constexpr bool is_half(DType d) { return input_type(d) == DataType::BF16 || input_type(d) == DataType::F16; }

struct Shape {
    int64_t m = 0, n = 0, k = 0;
    /// Products of this shape in one strided batched call (gemm_strided_batched); 1 is a plain
    /// gemm call.
    int64_t batch = 1;
};

/// Which operand a strided batched case shares across its batches (stride 0).
enum class Broadcast { None, A, B };

/// Where the reference result comes from.
enum class ReferenceSource {
    Gpu,  ///< double-double GPU kernel: fast at bench sizes
    Cpu,  ///< the CPU reference (src/gemm/reference): independent of all GPU code
    None, ///< no reference: the case is only timed (`gemmlab tune`); run_and_check throws
};

/// One GEMM problem: everything but the kernel.
struct Case {
    DType dtype = DType::F32;
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::N;
    Shape shape;
    double alpha = 1, beta = 0;
    int64_t ld_pad = 0; ///< added to every minimal leading dimension
    /// How A and B are filled (C0 is Uniform unless SmallIntegers). NearFltMin and
    /// WithSpecials fill A only, B being Uniform: products stay normal floats, and the
    /// non-finite values of A meet finite ones (Inf * 0 from both sides would be NaN either way).
    FillKind fill = FillKind::Uniform;
    /// The call's GemmOptions::precision (what auto and cuBLAS may use).
    Precision precision = Precision::Default;
    /// Elements added to each of A, B and C's base pointers: 1 makes them unaligned for
    /// 16-byte accesses.
    int64_t offset = 0;
    /// Batched cases (shape.batch != 1): the operand with stride 0, if any. The others are
    /// stored one after another, batch_gap elements apart (an odd gap leaves every other batch
    /// unaligned for 16-byte accesses even when batch 0 is aligned).
    Broadcast broadcast = Broadcast::None;
    int64_t batch_gap = 0;
    /// The call's GemmOptions::sm_count_target (0: every SM).
    int sm_count_target = 0;

    std::string ops() const { return {to_char(op_a), to_char(op_b)}; }
    /// True when the case calls gemm_strided_batched (shape.batch != 1), false for gemm.
    bool batched() const { return shape.batch != 1; }
    std::string describe() const;
};

/// The outcome of one kernel on one case.
struct RunResult {
    bool launched = false;      ///< gemm returned Success
    std::string error;          ///< gemm's message when it did not
    reference::CheckResult check{};
};

/// A case materialised on the device: A, B and the original C filled from `seed`, and the
/// reference computed once; each kernel then runs against it.
class DeviceProblem {
public:
    DeviceProblem(const Case& c, uint64_t seed, ReferenceSource ref);
    ~DeviceProblem();
    DeviceProblem(const DeviceProblem&) = delete;
    DeviceProblem& operator=(const DeviceProblem&) = delete;

    /// Resets C (NaN poison when beta == 0, else the original C), runs `kernel` once and checks
    /// every element against the reference, within the bound of the precision that kernel
    /// computes in (check_precision; for half inputs the half bound, reference::check_half).
    /// A batched case is checked batch by batch (the worst element names its batch); batch 0
    /// must leave C exactly as it was.
    RunResult run_and_check(const std::string& kernel);

    /// Times `kernels` (no checking) under `policy`, interleaved sample by sample
    /// (time_interleaved): one TimingStats per kernel, in order.
    std::vector<TimingStats> time(const std::vector<std::string>& kernels, const TimingPolicy& policy);

    /// One gemm call (gemm_strided_batched for a batched case) on the case's buffers with the caller's options (kernel, stream,
    /// precision; the case's own precision is not applied): no reset of C, no check, no
    /// synchronization. What `gemmlab overhead` times, so the options are built once by the
    /// caller rather than per call.
    Status call(const GemmOptions& options);

    /// validate_gemm (validate_gemm_strided_batched) with the arguments `call` passes: the checks
    /// alone, no CUDA call.
    Status validate(const GemmOptions& options);

    /// The case normalized to the column-major form exactly as the API normalizes it (row-major
    /// calls transposed, A and B swapped), with pointers into this problem's buffers: what a
    /// direct cuBLAS call on the same data takes (its Batch too, for a batched case).
    detail::Problem normalized();

    const Case& spec() const;

    /// Bytes of device memory a DeviceProblem of `c` allocates: A and B in the input type, the
    /// original C and the C each kernel writes in C's type (bf16-f32: 2-byte A and B, 4-byte C),
    /// and with the GPU reference its result and bound magnitudes (two doubles per element of
    /// C). A double, so that no shape overflows it.
    static double device_bytes(const Case& c, ReferenceSource ref);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The precision whose error bound `kernel` is checked against when the call asks for
/// `requested`: a named rung's own (naming "tf32" means TF32 whatever the call says); for
/// "auto" and "cublas" the call's where it changes their math (precision_changes_math; cuBLAS
/// has no INT8 emulation). Only float has a TF32 mode; Int8Emulation is checked at the type's
/// own bound (reference/check.hpp), as Default.
Precision check_precision(const std::string& kernel, DType dtype, Precision requested);

/// Whether `precision` makes auto compute `dtype` differently from Default: TF32 for float,
/// INT8 emulation for float and double; neither for the half types.
bool precision_changes_math(DType dtype, Precision precision);

/// True when `kernel` ("auto" or a rung) computes in `dtype` and can run on the current device:
/// a rung without that type (dmma has no float), or one that needs sm_90a on another GPU, gets
/// no row in bench or verify rather than an error row.
bool kernel_supports(const std::string& kernel, DType dtype);

/// Prints one line for each of `kernels` that the current device cannot run, with the reason
/// (what kernel_supports skips silently).
void note_kernels_this_device_cannot_run(const std::vector<std::string>& kernels);

/// The line bench and verify print for a case whose buffers do not fit in GPU memory: the
/// case, the bytes it needs (device_bytes) and what the device has free, and that it is skipped.
std::string too_large_message(const Case& c, double needed_bytes, size_t free_bytes, size_t total_bytes);

/// too_large_message for `c` with the current device's free and total memory.
std::string too_large_note(const Case& c, ReferenceSource ref);

/// The arithmetic pipe a bench row's %peak is taken against: the engine and precision the
/// row's kernel computes with (docs/cli.md, "bench").
enum class PeakPipe { None, Fp32Fma, Fp64Fma, Fp64Tensor, Tf32Tensor, HalfTensor };

/// "FP32 FMA", "FP64 FMA", "FP64 tensor cores", "TF32 tensor cores", "BF16/FP16 tensor cores",
/// or "" for None.
const char* to_string(PeakPipe p) noexcept;

/// The pipe `kernel` (a rung's name, "auto" or "cublas") runs a `dtype` product on at
/// `precision` (the row's checked precision) on a GPU of compute capability cc_major.cc_minor.
/// A named rung's is its KernelInfo engine and type: CUDA cores run FP32 or FP64 FMAs (the half
/// types convert to FP32), tensor cores run DMMA for double, TF32 for float (TF32, and 3xTF32's
/// three TF32 products) and BF16/FP16. cuBLAS and auto choose per call; their pipe is the one
/// they use for large products: tensor cores for the half types and for double (where the GPU
/// has FP64 tensor cores), TF32 tensor cores for float in TF32 mode and for auto at FP32
/// accuracy (3xTF32), the FP32 FMA pipes for cuBLAS's SGEMM. None for an unknown kernel.
PeakPipe peak_pipe(std::string_view kernel, DType dtype, Precision precision, int cc_major,
                   int cc_minor);

/// Dense FLOP per clock per SM of `pipe` on compute capability cc_major.cc_minor (the vendor's
/// architecture figures; FMA pipes from fp32/fp64_lanes_per_sm), 0 where not known.
double peak_flop_per_clk_sm(PeakPipe pipe, int cc_major, int cc_minor) noexcept;

/// 2mnk per product, times the batch: floating-point operations of one (batched) call.
inline double gemm_flops(const Shape& s) {
    return 2.0 * double(s.m) * double(s.n) * double(s.k) * double(s.batch);
}

} // namespace gemmlab::cli
