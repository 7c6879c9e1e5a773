#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "gemm/problem.hpp"
#include "gemm/reference/gpu_reference.hpp"
#include "gemm/reference/reference.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/status.hpp"
#include "gemmlab/bench_core.hpp"

namespace gemmlab::cli {

std::string Case::describe() const {
    char buf[160];
    const char* fills[] = {"", " int", " wide-range", " near-FLT_MIN", " Inf/NaN"};
    std::string batch;
    if (batched()) {
        batch = " batch=" + std::to_string(shape.batch);
        if (broadcast != Broadcast::None) batch += broadcast == Broadcast::A ? " A-shared" : " B-shared";
        if (batch_gap) batch += " gap+" + std::to_string(batch_gap);
    }
    std::snprintf(buf, sizeof buf, "%s %s %s %lldx%lldx%lld%s alpha=%g beta=%g%s%s%s%s", to_string(dtype),
                  layout == Layout::RowMajor ? "row" : "col", ops().c_str(), (long long)shape.m,
                  (long long)shape.n, (long long)shape.k, batch.c_str(), alpha, beta,
                  ld_pad ? (" ld+" + std::to_string(ld_pad)).c_str() : "", fills[int(fill)],
                  offset ? (" ptr+" + std::to_string(offset)).c_str() : "",
                  precision != Precision::Default ? (std::string(" precision=") + to_string(precision)).c_str() : "");
    if (sm_count_target) return buf + (" sm_count_target=" + std::to_string(sm_count_target));
    return buf;
}

bool kernel_supports(const std::string& kernel, DType dtype) {
    const auto info = find_gpu_kernel(kernel);
    return !info || (info->supports(input_type(dtype)) && check_device_support(*info) == Status::Success);
}

void note_kernels_this_device_cannot_run(const std::vector<std::string>& kernels) {
    for (const auto& k : kernels)
        if (const auto info = find_gpu_kernel(k))
            if (check_device_support(*info) == Status::UnsupportedDevice)
                std::printf("skipping %s: %s\n", k.c_str(), last_error());
}

bool precision_changes_math(DType dtype, Precision precision) {
    switch (precision) {
    case Precision::Default: return true;
    case Precision::Tf32: return dtype == DType::F32;
    case Precision::Int8Emulation: return dtype == DType::F32 || dtype == DType::F64;
    }
    return false;
}

Precision check_precision(const std::string& kernel, DType dtype, Precision requested) {
    if (!precision_changes_math(dtype, requested)) return Precision::Default;
    if (kernel == "auto") return requested;
    if (kernel == "cublas") return requested == Precision::Tf32 ? requested : Precision::Default;
    if (dtype != DType::F32) return Precision::Default;
    const auto info = find_gpu_kernel(kernel);
    return info ? info->precision : Precision::Default;
}

const char* to_string(PeakPipe p) noexcept {
    switch (p) {
    case PeakPipe::None: return "";
    case PeakPipe::Fp32Fma: return "FP32 FMA";
    case PeakPipe::Fp64Fma: return "FP64 FMA";
    case PeakPipe::Fp64Tensor: return "FP64 tensor cores";
    case PeakPipe::Tf32Tensor: return "TF32 tensor cores";
    case PeakPipe::HalfTensor: return "BF16/FP16 tensor cores";
    }
    return "";
}

double peak_flop_per_clk_sm(PeakPipe pipe, int cc_major, int cc_minor) noexcept {
    const int cc = 10 * cc_major + cc_minor;
    // Tensor cores, dense: A100 (8.0) and H100/H200 (9.0). Hopper's TF32 and BF16 rates are
    // wgmma's; mma.sync reaches about two thirds of them (docs/probes.md, "tensor").
    switch (pipe) {
    case PeakPipe::None: return 0;
    case PeakPipe::Fp32Fma: return 2.0 * fp32_lanes_per_sm(cc_major, cc_minor);
    case PeakPipe::Fp64Fma: return 2.0 * fp64_lanes_per_sm(cc_major, cc_minor);
    case PeakPipe::Fp64Tensor: return cc == 90 ? 256 : cc == 80 ? 128 : 0;
    case PeakPipe::Tf32Tensor: return cc == 90 ? 2048 : cc == 80 ? 1024 : 0;
    case PeakPipe::HalfTensor: return cc == 90 ? 4096 : cc == 80 ? 2048 : 0;
    }
    return 0;
}

PeakPipe peak_pipe(std::string_view kernel, DType dtype, Precision precision, int cc_major,
                   int cc_minor) {
    const bool half = is_half(dtype);
    if (kernel == "auto" || kernel == "cublas") {
        if (half) return PeakPipe::HalfTensor;
        if (precision == Precision::Int8Emulation && kernel == "auto") return PeakPipe::None; // INT8
        if (dtype == DType::F64)
            return peak_flop_per_clk_sm(PeakPipe::Fp64Tensor, cc_major, cc_minor) > 0 ? PeakPipe::Fp64Tensor
                                                                                      : PeakPipe::Fp64Fma;
        if (precision == Precision::Tf32) return PeakPipe::Tf32Tensor;
        const bool tf32_cores = peak_flop_per_clk_sm(PeakPipe::Tf32Tensor, cc_major, cc_minor) > 0;
        return kernel == "auto" && tf32_cores ? PeakPipe::Tf32Tensor : PeakPipe::Fp32Fma;
    }
    const auto info = find_gpu_kernel(kernel);
    if (!info) return PeakPipe::None;
    if (info->engine == Engine::ByType && half) return PeakPipe::HalfTensor;
    if (info->engine == Engine::CudaCores || info->engine == Engine::ByType)
        return dtype == DType::F64 ? PeakPipe::Fp64Fma : PeakPipe::Fp32Fma;
    if (info->engine == Engine::TensorCores)
        return half ? PeakPipe::HalfTensor : dtype == DType::F64 ? PeakPipe::Fp64Tensor : PeakPipe::Tf32Tensor;
    return PeakPipe::None;
}

namespace {

/// Stored extent of one operand: (rows, cols) as it sits in memory, its leading dimension and
/// its element count.
struct Storage {
    int64_t rows, cols, ld, elements;
};

Storage storage(Layout layout, int64_t op_rows, int64_t op_cols, bool trans, int64_t pad) {
    const int64_t rows = trans ? op_cols : op_rows, cols = trans ? op_rows : op_cols;
    const bool row_major = layout == Layout::RowMajor;
    const int64_t ld = std::max<int64_t>(1, row_major ? cols : rows) + pad;
    const int64_t outer = row_major ? rows : cols;
    return {rows, cols, ld, std::max<int64_t>(1, ld * outer)};
}

/// The batch layout of a case: how many matrices each buffer holds and how far apart. A plain
/// case (and batch 0, which must touch nothing) has one of each.
struct BatchPlan {
    int64_t count;                      ///< matrices computed (0 for batch 0)
    int64_t stored;                     ///< max(count, 1): matrices allocated and referenced
    int64_t stride_a, stride_b, stride_c; ///< elements; 0 for a shared operand

    BatchPlan(const Case& cs, const Storage& sa, const Storage& sb, const Storage& sc)
        : count(cs.shape.batch), stored(std::max<int64_t>(cs.shape.batch, 1)),
          stride_a(cs.broadcast == Broadcast::A ? 0 : sa.elements + cs.batch_gap),
          stride_b(cs.broadcast == Broadcast::B ? 0 : sb.elements + cs.batch_gap),
          stride_c(sc.elements + cs.batch_gap) {}

    /// Elements of a buffer holding `stored` matrices of `elements`, `stride` apart.
    int64_t buffer(int64_t elements, int64_t stride) const { return (stored - 1) * stride + elements; }
};

/// One case in A/B type TIn and C type TOut (TIn, or float for half inputs); alpha and beta
/// are TIn for float and double, float for the half types.
template <class TIn, class TOut = TIn>
struct TypedProblem {
    static constexpr bool kHalf = detail::is_half_v<TIn>;
    using T = TIn;
    using Scalar = std::conditional_t<kHalf, float, TIn>;
    using Args = std::conditional_t<kHalf, detail::HalfArgs<TIn, TOut>, detail::GemmArgs<TIn>>;
    static_assert(kHalf || std::is_same_v<TIn, TOut>, "float and double calls have C in their type");

    Case c;
    Storage sa, sb, sc;
    BatchPlan bp;
    DeviceBuffer<TIn> A, B;
    DeviceBuffer<TOut> C0, C;
    std::vector<double> ref, mag;
    std::vector<TOut> host_c;
    ReferenceSource source;
    Stream stream;

    static double device_bytes(const Case& cs, ReferenceSource src) {
        const bool row_major = cs.layout == Layout::RowMajor;
        // Recomputed in double from the leading dimensions: Storage::elements may overflow.
        const auto elements = [&](const Storage& st) {
            return std::max(1.0, double(st.ld) * double(row_major ? st.rows : st.cols)) + double(cs.offset);
        };
        // A batch holds `stored` of each matrix (one of a shared operand), batch_gap apart.
        const double stored = double(std::max<int64_t>(cs.shape.batch, 1));
        const auto batched = [&](double one, bool shared) {
            return shared ? one : stored * (one + double(cs.batch_gap));
        };
        const double a = batched(elements(storage(cs.layout, cs.shape.m, cs.shape.k, cs.op_a == Op::T, cs.ld_pad)),
                                 cs.broadcast == Broadcast::A);
        const double b = batched(elements(storage(cs.layout, cs.shape.k, cs.shape.n, cs.op_b == Op::T, cs.ld_pad)),
                                 cs.broadcast == Broadcast::B);
        const double c = batched(elements(storage(cs.layout, cs.shape.m, cs.shape.n, false, cs.ld_pad)), false);
        double bytes = (a + b) * double(sizeof(TIn)) + 2 * c * double(sizeof(TOut));
        if (src == ReferenceSource::Gpu)
            bytes += 2.0 * stored * double(cs.shape.m) * double(cs.shape.n) * sizeof(double);
        return bytes;
    }

    TypedProblem(const Case& cs, uint64_t seed, ReferenceSource src)
        : c(cs),
          sa(storage(cs.layout, cs.shape.m, cs.shape.k, cs.op_a == Op::T, cs.ld_pad)),
          sb(storage(cs.layout, cs.shape.k, cs.shape.n, cs.op_b == Op::T, cs.ld_pad)),
          sc(storage(cs.layout, cs.shape.m, cs.shape.n, false, cs.ld_pad)), bp(cs, sa, sb, sc),
          A(size_t(bp.buffer(sa.elements, bp.stride_a) + cs.offset)),
          B(size_t(bp.buffer(sb.elements, bp.stride_b) + cs.offset)),
          C0(size_t(bp.buffer(sc.elements, bp.stride_c) + cs.offset)),
          C(size_t(bp.buffer(sc.elements, bp.stride_c) + cs.offset)), source(src) {
        const FillKind fill_b =
            c.fill == FillKind::NearFltMin || c.fill == FillKind::WithSpecials ? FillKind::Uniform : c.fill;
        const FillKind fill_c = c.fill == FillKind::SmallIntegers ? c.fill : FillKind::Uniform;
        fill_random(A.get(), A.size(), seed * 3 + 0, c.fill, stream.get());
        fill_random(B.get(), B.size(), seed * 3 + 1, fill_b, stream.get());
        fill_random(C0.get(), C0.size(), seed * 3 + 2, fill_c, stream.get());
        if (src == ReferenceSource::None) {
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get())); // filled before any timing
            return;
        }
        const size_t mn = size_t(c.shape.m * c.shape.n);
        ref.resize(mn * size_t(bp.count));
        mag.resize(mn * size_t(bp.count));
        host_c.resize(C.size());
        if (src == ReferenceSource::Gpu) gpu_ref(mn);
        else cpu_ref();
    }

    // Base pointers as the call sees them: `offset` elements into each buffer.
    const TIn* a() const { return A.get() + c.offset; }
    const TIn* b() const { return B.get() + c.offset; }
    TOut* c_out() { return C.get() + c.offset; }
    const TOut* c0() const { return C0.get() + c.offset; }

    // The normalized problem of batch z alone, exactly as the API builds it (row-major =
    // transposed col-major): what the references compute, one batch at a time.
    Args normalized(int64_t z = 0) {
        const Scalar alpha = Scalar(c.alpha), beta = Scalar(c.beta);
        const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
        const TIn* az = a() + z * bp.stride_a;
        const TIn* bz = b() + z * bp.stride_b;
        TOut* cz = c_out() + z * bp.stride_c;
        if (c.layout == Layout::RowMajor)
            return {{c.shape.n, c.shape.m, c.shape.k, alpha, bz, sb.ld, tb, az, sa.ld, ta, beta, cz, sc.ld}};
        return {{c.shape.m, c.shape.n, c.shape.k, alpha, az, sa.ld, ta, bz, sb.ld, tb, beta, cz, sc.ld}};
    }

    // The GPU reference, one launch per batch (it is computed once per case), into a dense
    // m x n block per batch.
    void gpu_ref(size_t mn) {
        if (bp.count == 0) return;
        DeviceBuffer<double> dref(mn * size_t(bp.count)), dmag(mn * size_t(bp.count));
        for (int64_t z = 0; z < bp.count; ++z) {
            double* rz = dref.get() + size_t(z) * mn;
            double* mz = dmag.get() + size_t(z) * mn;
            const TOut* c0z = c0() + z * bp.stride_c;
            if constexpr (kHalf)
                reference::gpu_reference_half<TIn, TOut>(normalized(z), c0z, sc.ld, rz, mz, stream.get());
            else
                reference::gpu_reference<T>(normalized(z), c0z, sc.ld, rz, mz, stream.get());
        }
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        dref.copy_to_host(ref.data(), ref.size());
        dmag.copy_to_host(mag.data(), mag.size());
    }

    // The CPU reference, batch by batch.
    void cpu_ref() {
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        std::vector<TIn> a(A.size()), b(B.size());
        std::vector<TOut> c0(C0.size());
        A.copy_to_host(a.data(), a.size());
        B.copy_to_host(b.data(), b.size());
        C0.copy_to_host(c0.data(), c0.size());
        const size_t mn = size_t(c.shape.m * c.shape.n);
        for (int64_t z = 0; z < bp.count; ++z) {
            const TIn* az = a.data() + c.offset + z * bp.stride_a;
            const TIn* bz = b.data() + c.offset + z * bp.stride_b;
            const TOut* c0z = c0.data() + c.offset + z * bp.stride_c;
            double* rz = ref.data() + size_t(z) * mn;
            double* mz = mag.data() + size_t(z) * mn;
            if constexpr (kHalf)
                reference::half_gemm<TIn, TOut>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n,
                                                c.shape.k, float(c.alpha), az, sa.ld, bz, sb.ld,
                                                float(c.beta), c0z, sc.ld, rz, mz);
            else
                reference::gemm<T>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k,
                                   T(c.alpha), az, sa.ld, bz, sb.ld, T(c.beta), c0z, sc.ld, rz, mz);
        }
    }

    Status launch(const std::string& kernel, cudaStream_t s) {
        GemmOptions opt;
        opt.kernel = kernel;
        opt.stream = s;
        opt.precision = c.precision;
        opt.sm_count_target = c.sm_count_target;
        return call(opt);
    }

    Status call(const GemmOptions& opt) {
        const auto [m, n, k, batch] = c.shape;
        if (c.batched()) {
            if constexpr (kHalf)
                return gemm_strided_batched(c.layout, c.op_a, c.op_b, m, n, k, float(c.alpha), a(),
                                            sa.ld, bp.stride_a, b(), sb.ld, bp.stride_b,
                                            float(c.beta), c_out(), sc.ld, bp.stride_c, batch, opt);
            else
                return gemm_strided_batched<T>(c.layout, c.op_a, c.op_b, m, n, k, T(c.alpha), a(),
                                               sa.ld, bp.stride_a, b(), sb.ld, bp.stride_b,
                                               T(c.beta), c_out(), sc.ld, bp.stride_c, batch, opt);
        }
        if constexpr (kHalf) // the half-precision overloads (alpha and beta in float)
            return gemm(c.layout, c.op_a, c.op_b, m, n, k, float(c.alpha), a(), sa.ld, b(), sb.ld,
                        float(c.beta), c_out(), sc.ld, opt);
        else
            return gemm<T>(c.layout, c.op_a, c.op_b, m, n, k, T(c.alpha), a(), sa.ld, b(), sb.ld,
                           T(c.beta), c_out(), sc.ld, opt);
    }

    // Batch 0: C must come out bit for bit as it went in.
    reference::CheckResult check_untouched(const std::vector<TOut>& before) const {
        reference::CheckResult r;
        for (size_t i = 0; i < host_c.size(); ++i)
            if (std::memcmp(&host_c[i], &before[i], sizeof(TOut)) != 0) ++r.failures;
        r.pass = r.failures == 0;
        return r;
    }

    reference::CheckResult check_batch(const std::string& kernel, int64_t z) const {
        const size_t mn = size_t(c.shape.m * c.shape.n);
        const TOut* cz = host_c.data() + c.offset + z * bp.stride_c;
        const double* rz = ref.data() + size_t(z) * mn;
        const double* mz = mag.data() + size_t(z) * mn;
        if constexpr (kHalf)
            return reference::check_half<TIn, TOut>(c.layout, c.shape.m, c.shape.n, c.shape.k, cz,
                                                    sc.ld, rz, mz);
        else
            return reference::check<T>(c.layout, c.shape.m, c.shape.n, c.shape.k, cz, sc.ld, rz, mz,
                                       check_precision(kernel, c.dtype, c.precision));
    }

    Status validate(const GemmOptions& opt) {
        const auto [m, n, k, batch] = c.shape;
        if (c.batched()) {
            if constexpr (kHalf)
                return validate_gemm_strided_batched(c.layout, c.op_a, c.op_b, m, n, k, float(c.alpha),
                                                     a(), sa.ld, bp.stride_a, b(), sb.ld, bp.stride_b,
                                                     float(c.beta), c_out(), sc.ld, bp.stride_c, batch, opt);
            else
                return validate_gemm_strided_batched<T>(c.layout, c.op_a, c.op_b, m, n, k, T(c.alpha),
                                                        a(), sa.ld, bp.stride_a, b(), sb.ld, bp.stride_b,
                                                        T(c.beta), c_out(), sc.ld, bp.stride_c, batch, opt);
        }
        if constexpr (kHalf)
            return validate_gemm(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k,
                                 float(c.alpha), a(), sa.ld, b(), sb.ld, float(c.beta), c_out(),
                                 sc.ld, opt);
        else
            return validate_gemm<T>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k,
                                    T(c.alpha), a(), sa.ld, b(), sb.ld, T(c.beta), c_out(), sc.ld,
                                    opt);
    }

    // The whole call, batch included (A and B's strides swap with them for a row-major case).
    detail::Problem problem() {
        const Args g = normalized();
        const bool row = c.layout == Layout::RowMajor;
        const detail::Batch batch{bp.count, {row ? bp.stride_b : bp.stride_a,
                                             row ? bp.stride_a : bp.stride_b, bp.stride_c}};
        return {data_type_of<TIn>(), data_type_of<TOut>(), c.precision, g.m, g.n, g.k,
                double(g.alpha), g.A, g.lda, g.trans_a, g.B, g.ldb, g.trans_b, double(g.beta),
                g.C, g.ldc, batch};
    }

    RunResult run_and_check(const std::string& kernel) {
        if (source == ReferenceSource::None)
            throw std::logic_error("run_and_check on a problem made without a reference");
        RunResult r;
        if (c.beta == 0) poison_nan(C.get(), C.size(), stream.get());
        else GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(C.get(), C0.get(), C.bytes(), cudaMemcpyDeviceToDevice, stream.get()));
        std::vector<TOut> before; // batch 0 compares C with what it was
        if (bp.count == 0) {
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
            before.resize(host_c.size());
            C.copy_to_host(before.data(), before.size());
        }
        const Status st = launch(kernel, stream.get());
        if (st != Status::Success) {
            r.error = std::string(to_string(st)) + ": " + last_error();
            return r;
        }
        r.launched = true;
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        C.copy_to_host(host_c.data(), host_c.size());
        if (bp.count == 0) {
            r.check = check_untouched(before);
        } else if (!c.batched()) {
            r.check = check_batch(kernel, 0);
        } else {
            for (int64_t z = 0; z < bp.count; ++z) reference::merge(r.check, check_batch(kernel, z), z);
        }
        return r;
    }

    std::vector<TimingStats> time(const std::vector<std::string>& kernels, const TimingPolicy& policy) {
        std::vector<std::function<void(cudaStream_t)>> works;
        for (const std::string& kernel : kernels)
            works.push_back([this, kernel](cudaStream_t s) {
                const Status st = launch(kernel, s);
                if (st != Status::Success)
                    throw CudaFailure(std::string("timing ") + kernel + ": " + last_error());
            });
        return time_interleaved(works, stream.get(), policy);
    }
};

} // namespace

struct DeviceProblem::Impl {
    std::variant<std::unique_ptr<TypedProblem<float>>, std::unique_ptr<TypedProblem<double>>,
                 std::unique_ptr<TypedProblem<__nv_bfloat16>>,
                 std::unique_ptr<TypedProblem<__nv_bfloat16, float>>,
                 std::unique_ptr<TypedProblem<__half>>, std::unique_ptr<TypedProblem<__half, float>>>
        p;
};

DeviceProblem::DeviceProblem(const Case& c, uint64_t seed, ReferenceSource ref) : impl_(new Impl) {
    switch (c.dtype) {
    case DType::F32: impl_->p = std::make_unique<TypedProblem<float>>(c, seed, ref); break;
    case DType::F64: impl_->p = std::make_unique<TypedProblem<double>>(c, seed, ref); break;
    case DType::BF16: impl_->p = std::make_unique<TypedProblem<__nv_bfloat16>>(c, seed, ref); break;
    case DType::BF16_F32:
        impl_->p = std::make_unique<TypedProblem<__nv_bfloat16, float>>(c, seed, ref);
        break;
    case DType::F16: impl_->p = std::make_unique<TypedProblem<__half>>(c, seed, ref); break;
    case DType::F16_F32: impl_->p = std::make_unique<TypedProblem<__half, float>>(c, seed, ref); break;
    }
}

DeviceProblem::~DeviceProblem() = default;

RunResult DeviceProblem::run_and_check(const std::string& kernel) {
    return std::visit([&](auto& p) { return p->run_and_check(kernel); }, impl_->p);
}

std::vector<TimingStats> DeviceProblem::time(const std::vector<std::string>& kernels,
                                             const TimingPolicy& policy) {
    return std::visit([&](auto& p) { return p->time(kernels, policy); }, impl_->p);
}

Status DeviceProblem::call(const GemmOptions& options) {
    return std::visit([&](auto& p) { return p->call(options); }, impl_->p);
}

Status DeviceProblem::validate(const GemmOptions& options) {
    return std::visit([&](auto& p) { return p->validate(options); }, impl_->p);
}

detail::Problem DeviceProblem::normalized() {
    return std::visit([](auto& p) { return p->problem(); }, impl_->p);
}

const Case& DeviceProblem::spec() const {
    return std::visit([](auto& p) -> const Case& { return p->c; }, impl_->p);
}

double DeviceProblem::device_bytes(const Case& c, ReferenceSource ref) {
    switch (c.dtype) {
    case DType::F32: return TypedProblem<float>::device_bytes(c, ref);
    case DType::F64: return TypedProblem<double>::device_bytes(c, ref);
    case DType::BF16: return TypedProblem<__nv_bfloat16>::device_bytes(c, ref);
    case DType::BF16_F32: return TypedProblem<__nv_bfloat16, float>::device_bytes(c, ref);
    case DType::F16: return TypedProblem<__half>::device_bytes(c, ref);
    case DType::F16_F32: return TypedProblem<__half, float>::device_bytes(c, ref);
    }
    return 0;
}

std::string too_large_message(const Case& c, double needed_bytes, size_t free_bytes, size_t total_bytes) {
    char exact[40];
    std::snprintf(exact, sizeof exact, "%.0f", needed_bytes);
    return "skipped " + c.describe() + ": needs " + format_bytes(needed_bytes) + " (" + exact +
           " bytes) of GPU memory; " + format_bytes(double(free_bytes)) + " of " +
           format_bytes(double(total_bytes)) + " free";
}

std::string too_large_note(const Case& c, ReferenceSource ref) {
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) cudaGetLastError();
    return too_large_message(c, DeviceProblem::device_bytes(c, ref), free_bytes, total_bytes);
}

} // namespace gemmlab::cli
