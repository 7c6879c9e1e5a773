#pragma once
// The machinery shared by `bench` and `verify`: one GEMM case on the device with its inputs,
// its reference, and the run-check-time loop for each rung.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/fill.hpp"
#include "common/timing.hpp"
#include "gemm/reference/check.hpp"
#include "gemmlab/gemm.hpp"

namespace gemmlab::cli {

enum class DType { F32, F64 };
constexpr const char* to_string(DType d) { return d == DType::F32 ? "f32" : "f64"; }

struct Shape {
    int64_t m = 0, n = 0, k = 0;
};

/// Where the reference result comes from.
enum class ReferenceSource {
    Gpu, ///< double-double GPU kernel: fast at bench sizes
    Cpu, ///< the CPU reference (src/gemm/reference): independent of all GPU code
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

    std::string ops() const { return {to_char(op_a), to_char(op_b)}; }
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
    /// computes in (check_precision).
    RunResult run_and_check(const std::string& kernel);

    /// Times `kernel` (no checking) under `policy`.
    TimingStats time(const std::string& kernel, const TimingPolicy& policy);

    const Case& spec() const;

    /// Bytes of device memory a DeviceProblem of `c` allocates: A, B, the original C and the C
    /// each kernel writes, and with the GPU reference its result and bound magnitudes (two
    /// doubles per element of C). A double, so that no shape overflows it.
    static double device_bytes(const Case& c, ReferenceSource ref);

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

/// The precision whose error bound `kernel` is checked against when the call asks for
/// `requested`: a named rung's own (naming "tf32" means TF32 whatever the call says); for
/// "auto" and "cublas" the call's. Double has no TF32 mode.
Precision check_precision(const std::string& kernel, DType dtype, Precision requested);

/// True when `kernel` ("auto" or a rung) computes in `dtype`: a rung without that type (dmma has
/// no float) gets no row in bench or verify rather than an error row.
bool kernel_supports(const std::string& kernel, DType dtype);

/// The line bench and verify print for a case whose buffers do not fit in GPU memory: the
/// case, the bytes it needs (device_bytes) and what the device has free, and that it is skipped.
std::string too_large_message(const Case& c, double needed_bytes, size_t free_bytes, size_t total_bytes);

/// too_large_message for `c` with the current device's free and total memory.
std::string too_large_note(const Case& c, ReferenceSource ref);

/// 2mnk: floating-point operations of one GEMM.
inline double gemm_flops(const Shape& s) { return 2.0 * double(s.m) * double(s.n) * double(s.k); }

} // namespace gemmlab::cli
