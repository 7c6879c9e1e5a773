// gemmlab::gemm_fp8 and gemm_int8 (include/gemmlab/quantized.hpp): validate (no CUDA call before
// this succeeds), normalize to the one column-major form (quantized_problem.hpp), pick the rung,
// launch on the caller's stream, turn failures into a Status. The same order and rules as
// gemm (api.cu); the quantized rungs keep their own small table here, since their element types
// are not DataTypes and no float call may reach them.

#include <charconv>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/cuda_check.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/operand_rules.hpp"
#include "gemm/pointer_check.hpp"
#include "gemm/quantized_problem.hpp"
#include "gemmlab/quantized.hpp"

namespace gemmlab {

namespace {

Status fail(Status s, std::string message) {
    detail::set_last_error(std::move(message));
    return s;
}

/// Which quantized product a call is.
enum class QuantKind { Fp8, Int8 };

/// The quantized rungs: the table `quantized_kernels()` returns and the API dispatches on.
constexpr KernelInfo quantized_rung(int number, std::string_view name, std::string_view technique,
                                    std::string_view sources) {
    return KernelInfo{.number = number,
                      .name = name,
                      .technique = technique,
                      .sources = sources,
                      .types = {},
                      .precision = Precision::Default,
                      .engine = Engine::TensorCores,
                      .device = Device::Gpu,
                      .needs_sm90a = true};
}

const KernelInfo kQuantizedRungs[] = {
    quantized_rung(29, "wgmma_fp8",
                   "FP8 (E4M3/E5M2) wgmma m64n128k32 on rung 24's persistent TMA pipeline, "
                   "wgmma's sums promoted into FP32 registers every 128 k (block-wise scales "
                   "applied there), per-tensor or per-channel scales in the epilogue; BF16, "
                   "FP16, float or saturating FP8 C with amax",
                   "sm_90a wgmma fp8"),
    quantized_rung(30, "wgmma_int8",
                   "INT8 wgmma m64n256k32 with exact s32 accumulators on rung 24's persistent "
                   "TMA pipeline; int32 C, or float C with per-tensor or per-channel scales",
                   "sm_90a wgmma s8"),
};
constexpr const KernelInfo& kFp8Rung = kQuantizedRungs[0];
constexpr const KernelInfo& kInt8Rung = kQuantizedRungs[1];

/// gemm's rule for one operand (operand_rules.hpp), as a Status with last_error set.
Status check_operand(Layout layout, const detail::StoredOperand& x) {
    std::string message;
    const Status s = detail::check_stored_operand(layout, x, &message);
    return s == Status::Success ? s : fail(s, std::move(message));
}

/// The rung `key` names for a call of `kind`, nullptr for auto; or a failure.
Status find_rung(const std::string& key, QuantKind kind, const KernelInfo** rung) {
    const KernelInfo& own = kind == QuantKind::Fp8 ? kFp8Rung : kInt8Rung;
    if (key == "auto") {
        *rung = &own; // one rung per kind so far: auto is that rung
        return Status::Success;
    }
    int number = -1;
    const auto [ptr, ec] = std::from_chars(key.data(), key.data() + key.size(), number);
    const bool is_number = ec == std::errc() && ptr == key.data() + key.size();
    for (const KernelInfo& r : kQuantizedRungs)
        if (r.name == key || (is_number && r.number == number)) {
            if (&r != &own)
                return fail(Status::UnsupportedType,
                            "kernel '" + key + "' (rung " + std::to_string(r.number) + ", " +
                                std::string(r.name) + ") does not take this call's " +
                                (kind == QuantKind::Fp8 ? "FP8" : "INT8") + " inputs");
            *rung = &r;
            return Status::Success;
        }
    return fail(Status::UnknownKernel,
                "kernel = '" + key + "' matches no quantized rung (wgmma_fp8, wgmma_int8) nor 'auto'");
}

/// One quantized call, its element types erased: what validation and the launch both read.
struct QuantCall {
    QuantKind kind;
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    float alpha, beta;
    const void* A;
    int64_t lda;
    Scale scale_a;
    const void* B;
    int64_t ldb;
    Scale scale_b;
    void* C;
    int64_t ldc;
    Fp8Output output = {}; // FP8 C only
};

/// Whether the call computes op(A) op(B) (else C = beta * C).
bool reads_ab(const QuantCall& q) { return q.m > 0 && q.n > 0 && q.k > 0 && q.alpha != 0.0f; }

/// The block-wise scales' rules: both operands or neither, FP8 only, values present where the
/// product is computed.
Status check_block_scales(const QuantCall& q) {
    const bool a = q.scale_a.scaling == Scaling::BlockWise, b = q.scale_b.scaling == Scaling::BlockWise;
    if (!a && !b) return Status::Success;
    if (q.kind == QuantKind::Int8)
        return fail(Status::UnsupportedType, "Scaling::BlockWise is FP8's (gemm_fp8); INT8 takes "
                                             "PerTensor or PerChannel scales");
    if (a != b)
        return fail(Status::UnsupportedType,
                    std::string("Scaling::BlockWise must be on both operands (scale_a: 1 x 128 "
                                "groups, scale_b: 128 x 128 blocks), but only ") +
                        (a ? "scale_a" : "scale_b") + " has it");
    if (!reads_ab(q)) return Status::Success;
    if (!q.scale_a.values)
        return fail(Status::NullPointer, "scale_a is BlockWise but its values are null (m x "
                                         "ceil(k / 128) = " + std::to_string(q.m) + " x " +
                                             std::to_string(detail::ceil_div(q.k, int64_t(128))) +
                                             " floats needed)");
    if (!q.scale_b.values)
        return fail(Status::NullPointer, "scale_b is BlockWise but its values are null (ceil(k / "
                                         "128) x ceil(n / 128) blocks needed)");
    return Status::Success;
}

/// gemm's checks, then the scales and the kernel name. No CUDA call.
Status validate(const QuantCall& q, const GemmOptions& options, const KernelInfo** rung) {
    detail::set_last_error({});
    for (auto [name, v] : {std::pair{"m", q.m}, {"n", q.n}, {"k", q.k}})
        if (v < 0)
            return fail(Status::InvalidSize, std::string(name) + " = " + std::to_string(v) +
                                                 " is negative (sizes must be >= 0)");
    const bool ta = q.op_a == Op::T, tb = q.op_b == Op::T;
    const detail::StoredOperand ops[] = {
        {"A", "lda", ta ? q.k : q.m, ta ? q.m : q.k, ta ? "k" : "m", ta ? "m" : "k", q.lda, ta, true},
        {"B", "ldb", tb ? q.n : q.k, tb ? q.k : q.n, tb ? "n" : "k", tb ? "k" : "n", q.ldb, tb, true},
        {"C", "ldc", q.m, q.n, "m", "n", q.ldc, false, false}};
    for (const auto& x : ops)
        if (Status s = check_operand(q.layout, x); s != Status::Success) return s;
    const bool writes_c = q.m > 0 && q.n > 0;
    if (writes_c && !q.C)
        return fail(Status::NullPointer, "C is null but m x n = " + std::to_string(q.m) + " x " +
                                             std::to_string(q.n) + " elements must be written");
    if (reads_ab(q)) {
        if (!q.A) return fail(Status::NullPointer, "A is null but k = " + std::to_string(q.k) + " > 0 and alpha != 0");
        if (!q.B) return fail(Status::NullPointer, "B is null but k = " + std::to_string(q.k) + " > 0 and alpha != 0");
        if (q.scale_a.scaling == Scaling::PerChannel && !q.scale_a.values)
            return fail(Status::NullPointer, "scale_a is PerChannel but its values are null (m = " +
                                                 std::to_string(q.m) + " floats needed)");
        if (q.scale_b.scaling == Scaling::PerChannel && !q.scale_b.values)
            return fail(Status::NullPointer, "scale_b is PerChannel but its values are null (n = " +
                                                 std::to_string(q.n) + " floats needed)");
    }
    if (Status s = check_block_scales(q); s != Status::Success) return s;
    return find_rung(options.kernel, q.kind, rung);
}

/// Rejects pointers a kernel on `device` cannot dereference (gemm/pointer_check.hpp).
Status check_device_pointer(const char* name, const void* p, int device) {
    if (!p) return Status::Success;
    std::string why = detail::pointer_problem(name, p, device);
    return why.empty() ? Status::Success : fail(Status::NotDevicePointer, std::move(why));
}

/// C = beta * C (beta == 0: zeros, C not read) for k == 0 or alpha == 0; an int32 C gets zeros.
template <class TOut>
__global__ void scale_c_kernel(int64_t m, int64_t n, float beta, TOut* C, int64_t ldc) {
    for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < m * n;
         idx += int64_t(gridDim.x) * blockDim.x) {
        TOut* c = C + idx % m + (idx / m) * ldc;
        if constexpr (std::is_same_v<TOut, int32_t>) *c = 0;
        else *c = TOut(beta == 0.0f ? 0.0f : beta * float(*c));
    }
}

/// The column-major form of the call (row-major: C^T = op(B)^T op(A)^T, scales swapped too).
/// Block-wise scales are not symmetric in A and B (1 x 128 groups on A, 128 x 128 blocks on B),
/// so a block-wise row-major call keeps A and B, reads each row-major operand as the
/// column-major matrix of its transpose (the op flips) and writes C row-major.
detail::QuantArgs normalize(const QuantCall& q) {
    const auto side = [](Scale s) {
        return std::pair{s.scaling == Scaling::PerChannel || s.scaling == Scaling::PerTensor
                             ? s.values
                             : nullptr,
                         s.scaling == Scaling::PerChannel ? 1 : 0};
    };
    const auto [sa, sa_step] = side(q.scale_a);
    const auto [sb, sb_step] = side(q.scale_b);
    const bool row = q.layout == Layout::RowMajor;
    detail::OutputScales out{sa, sa_step, sb, sb_step};
    out.out_scale = q.output.scale;
    out.amax = q.output.amax;
    if (q.scale_a.scaling == Scaling::BlockWise) {
        out.c_row_major = row;
        const int64_t k_blocks = detail::ceil_div(q.k, int64_t(128));
        const detail::BlockScales blocks{q.scale_a.values, q.m, q.scale_b.values,
                                         (k_blocks + 3) / 4 * 4};
        return {q.m, q.n, q.k, q.alpha, q.beta, q.A, q.lda, (q.op_a == Op::T) != row, q.B,
                q.ldb, (q.op_b == Op::T) != row, q.C, q.ldc, out, blocks};
    }
    if (!row)
        return {q.m, q.n, q.k, q.alpha, q.beta, q.A, q.lda, q.op_a == Op::T, q.B, q.ldb,
                q.op_b == Op::T, q.C, q.ldc, out};
    std::swap(out.row, out.col);
    std::swap(out.row_step, out.col_step);
    return {q.n, q.m, q.k, q.alpha, q.beta, q.B, q.ldb, q.op_b == Op::T, q.A, q.lda,
            q.op_a == Op::T, q.C, q.ldc, out};
}

/// The whole call: validation, device and pointer checks, then `launch` (the typed launcher)
/// on the normalized problem, or the beta-only kernel.
template <class TOut, class Launch>
Status run(const QuantCall& q, const GemmOptions& options, Launch&& launch) {
    const KernelInfo* rung = nullptr;
    if (Status s = validate(q, options, &rung); s != Status::Success) return s;
    if (q.m == 0 || q.n == 0) return Status::Success;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return fail(Status::NoDevice, "no CUDA device is visible");
    }
    try {
        int device = 0;
        GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
        if (std::string why = detail::device_unsupported_reason(*rung, device); !why.empty())
            return fail(Status::UnsupportedDevice, std::move(why));
        const bool product = reads_ab(q);
        const std::pair<const char*, const void*> pointers[] = {
            {"C", q.C},
            {"A", product ? q.A : nullptr},
            {"B", product ? q.B : nullptr},
            {"scale_a.values", product ? q.scale_a.values : nullptr},
            {"scale_b.values", product ? q.scale_b.values : nullptr},
            {"output.scale", product ? q.output.scale : nullptr},
            {"output.amax", q.output.amax}};
        for (const auto& [name, p] : pointers)
            if (Status s = check_device_pointer(name, p, device); s != Status::Success) return s;
        if (!product) {
            if (q.output.amax) // C is beta * C with beta 0 (an FP8 C is never read): all zeros
                GEMMLAB_CUDA_CHECK(cudaMemsetAsync(q.output.amax, 0, sizeof(float), options.stream));
            const int64_t total = q.m * q.n;
            const unsigned blocks = unsigned(std::min<int64_t>(detail::ceil_div(total, 256), 65535));
            scale_c_kernel<TOut><<<blocks, 256, 0, options.stream>>>(q.m, q.n, q.beta,
                                                                     static_cast<TOut*>(q.C), q.ldc);
            GEMMLAB_CHECK_LAUNCH();
            return Status::Success;
        }
        launch(normalize(q), options.stream);
        return Status::Success;
    } catch (const CudaFailure& e) {
        return fail(Status::CudaError, e.what());
    }
}

template <class TA, class TB, class TOut>
QuantCall fp8_call(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                   const TA* A, int64_t lda, Scale scale_a, const TB* B, int64_t ldb,
                   Scale scale_b, float beta, const TOut* C, int64_t ldc, Fp8Output output = {}) {
    return {QuantKind::Fp8, layout, op_a, op_b, m, n, k, alpha, beta, A, lda, scale_a, B, ldb,
            scale_b, const_cast<TOut*>(C), ldc, output};
}

/// Rung 29's launcher for the call. The normalized problem of a row-major call has A and B
/// swapped (normalize), unless its scales are block-wise: its first operand is then B, of type
/// TB, so the launcher's types swap with them.
template <class TA, class TB, class TOut>
auto fp8_launcher(const QuantCall& q) {
    const bool swapped = q.layout == Layout::RowMajor && q.scale_a.scaling != Scaling::BlockWise;
    return swapped ? &detail::launch_wgmma_fp8<TB, TA, TOut> : &detail::launch_wgmma_fp8<TA, TB, TOut>;
}

} // namespace

std::span<const KernelInfo> quantized_kernels() noexcept { return kQuantizedRungs; }

template <class TA, class TB, class TOut>
Status gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                const TA* A, int64_t lda, Scale scale_a, const TB* B, int64_t ldb, Scale scale_b,
                float beta, TOut* C, int64_t ldc, const GemmOptions& options) {
    const QuantCall q = fp8_call(layout, op_a, op_b, m, n, k, alpha, A, lda, scale_a, B, ldb,
                                 scale_b, beta, C, ldc);
    return run<TOut>(q, options, fp8_launcher<TA, TB, TOut>(q));
}

template <class TA, class TB, class TOut>
Status validate_gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                         float alpha, const TA* A, int64_t lda, Scale scale_a, const TB* B,
                         int64_t ldb, Scale scale_b, float beta, const TOut* C, int64_t ldc,
                         const GemmOptions& options) {
    const KernelInfo* rung = nullptr;
    return validate(fp8_call(layout, op_a, op_b, m, n, k, alpha, A, lda, scale_a, B, ldb, scale_b,
                             beta, C, ldc),
                    options, &rung);
}

template <class TA, class TB, class TC>
Status gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                const TA* A, int64_t lda, Scale scale_a, const TB* B, int64_t ldb, Scale scale_b,
                TC* C, int64_t ldc, Fp8Output output, const GemmOptions& options) {
    const QuantCall q = fp8_call(layout, op_a, op_b, m, n, k, alpha, A, lda, scale_a, B, ldb,
                                 scale_b, 0.0f, C, ldc, output);
    return run<TC>(q, options, fp8_launcher<TA, TB, TC>(q));
}

template <class TA, class TB, class TC>
Status validate_gemm_fp8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                         float alpha, const TA* A, int64_t lda, Scale scale_a, const TB* B,
                         int64_t ldb, Scale scale_b, const TC* C, int64_t ldc, Fp8Output output,
                         const GemmOptions& options) {
    const KernelInfo* rung = nullptr;
    return validate(fp8_call(layout, op_a, op_b, m, n, k, alpha, A, lda, scale_a, B, ldb, scale_b,
                             0.0f, C, ldc, output),
                    options, &rung);
}

#define GEMMLAB_FP8_INSTANTIATE(TA, TB, TOut)                                                      \
    template Status gemm_fp8<TA, TB, TOut>(Layout, Op, Op, int64_t, int64_t, int64_t, float,       \
                                           const TA*, int64_t, Scale, const TB*, int64_t, Scale,   \
                                           float, TOut*, int64_t, const GemmOptions&);             \
    template Status validate_gemm_fp8<TA, TB, TOut>(Layout, Op, Op, int64_t, int64_t, int64_t,     \
                                                    float, const TA*, int64_t, Scale, const TB*,   \
                                                    int64_t, Scale, float, const TOut*, int64_t,   \
                                                    const GemmOptions&);
#define GEMMLAB_FP8_INSTANTIATE_FP8_C(TA, TB, TC)                                                  \
    template Status gemm_fp8<TA, TB, TC>(Layout, Op, Op, int64_t, int64_t, int64_t, float,         \
                                         const TA*, int64_t, Scale, const TB*, int64_t, Scale,     \
                                         TC*, int64_t, Fp8Output, const GemmOptions&);             \
    template Status validate_gemm_fp8<TA, TB, TC>(Layout, Op, Op, int64_t, int64_t, int64_t,       \
                                                  float, const TA*, int64_t, Scale, const TB*,     \
                                                  int64_t, Scale, const TC*, int64_t, Fp8Output,   \
                                                  const GemmOptions&);
#define GEMMLAB_FP8_INSTANTIATE_OUTPUTS(TA, TB)                                                    \
    GEMMLAB_FP8_INSTANTIATE(TA, TB, __nv_bfloat16)                                                 \
    GEMMLAB_FP8_INSTANTIATE(TA, TB, __half)                                                        \
    GEMMLAB_FP8_INSTANTIATE(TA, TB, float)                                                         \
    GEMMLAB_FP8_INSTANTIATE_FP8_C(TA, TB, __nv_fp8_e4m3)                                           \
    GEMMLAB_FP8_INSTANTIATE_FP8_C(TA, TB, __nv_fp8_e5m2)
GEMMLAB_FP8_INSTANTIATE_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e4m3)
GEMMLAB_FP8_INSTANTIATE_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e5m2)
GEMMLAB_FP8_INSTANTIATE_OUTPUTS(__nv_fp8_e5m2, __nv_fp8_e4m3)
#undef GEMMLAB_FP8_INSTANTIATE_OUTPUTS
#undef GEMMLAB_FP8_INSTANTIATE_FP8_C
#undef GEMMLAB_FP8_INSTANTIATE

Status gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                 const int8_t* A, int64_t lda, const int8_t* B, int64_t ldb, int32_t* C,
                 int64_t ldc, const GemmOptions& options) {
    const QuantCall q{QuantKind::Int8, layout, op_a, op_b, m, n, k, 1.0f, 0.0f, A, lda, {}, B, ldb,
                      {}, C, ldc};
    return run<int32_t>(q, options, &detail::launch_wgmma_int8<int32_t>);
}

Status gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
                 const int8_t* A, int64_t lda, Scale scale_a, const int8_t* B, int64_t ldb,
                 Scale scale_b, float beta, float* C, int64_t ldc, const GemmOptions& options) {
    const QuantCall q{QuantKind::Int8, layout, op_a, op_b, m, n, k, alpha, beta, A, lda, scale_a,
                      B, ldb, scale_b, C, ldc};
    return run<float>(q, options, &detail::launch_wgmma_int8<float>);
}

Status validate_gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                          const int8_t* A, int64_t lda, const int8_t* B, int64_t ldb,
                          const int32_t* C, int64_t ldc, const GemmOptions& options) {
    const QuantCall q{QuantKind::Int8, layout, op_a, op_b, m, n, k, 1.0f, 0.0f, A, lda, {}, B, ldb,
                      {}, const_cast<int32_t*>(C), ldc};
    const KernelInfo* rung = nullptr;
    return validate(q, options, &rung);
}

Status validate_gemm_int8(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                          float alpha, const int8_t* A, int64_t lda, Scale scale_a,
                          const int8_t* B, int64_t ldb, Scale scale_b, float beta, const float* C,
                          int64_t ldc, const GemmOptions& options) {
    const QuantCall q{QuantKind::Int8, layout, op_a, op_b, m, n, k, alpha, beta, A, lda, scale_a,
                      B, ldb, scale_b, const_cast<float*>(C), ldc};
    const KernelInfo* rung = nullptr;
    return validate(q, options, &rung);
}

} // namespace gemmlab
