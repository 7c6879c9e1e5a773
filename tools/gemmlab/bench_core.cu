#include <algorithm>
#include <cstdio>
#include <type_traits>
#include <variant>
#include <vector>

#include "common/device_buffer.hpp"
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
    std::snprintf(buf, sizeof buf, "%s %s %s %lldx%lldx%lld alpha=%g beta=%g%s%s%s%s", to_string(dtype),
                  layout == Layout::RowMajor ? "row" : "col", ops().c_str(), (long long)shape.m,
                  (long long)shape.n, (long long)shape.k, alpha, beta,
                  ld_pad ? (" ld+" + std::to_string(ld_pad)).c_str() : "", fills[int(fill)],
                  offset ? (" ptr+" + std::to_string(offset)).c_str() : "",
                  precision == Precision::Tf32 ? " precision=tf32" : "");
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

Precision check_precision(const std::string& kernel, DType dtype, Precision requested) {
    if (dtype != DType::F32) return Precision::Default;
    if (kernel == "auto" || kernel == "cublas") return requested;
    const auto info = find_gpu_kernel(kernel);
    return info ? info->precision : Precision::Default;
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
    DeviceBuffer<TIn> A, B;
    DeviceBuffer<TOut> C0, C;
    std::vector<double> ref, mag;
    std::vector<TOut> host_c;
    Stream stream;

    static double device_bytes(const Case& cs, ReferenceSource src) {
        const bool row_major = cs.layout == Layout::RowMajor;
        // Recomputed in double from the leading dimensions: Storage::elements may overflow.
        const auto elements = [&](const Storage& st) {
            return std::max(1.0, double(st.ld) * double(row_major ? st.rows : st.cols)) + double(cs.offset);
        };
        const double a = elements(storage(cs.layout, cs.shape.m, cs.shape.k, cs.op_a == Op::T, cs.ld_pad));
        const double b = elements(storage(cs.layout, cs.shape.k, cs.shape.n, cs.op_b == Op::T, cs.ld_pad));
        const double c = elements(storage(cs.layout, cs.shape.m, cs.shape.n, false, cs.ld_pad));
        double bytes = (a + b) * double(sizeof(TIn)) + 2 * c * double(sizeof(TOut));
        if (src == ReferenceSource::Gpu) bytes += 2.0 * double(cs.shape.m) * double(cs.shape.n) * sizeof(double);
        return bytes;
    }

    TypedProblem(const Case& cs, uint64_t seed, ReferenceSource src)
        : c(cs),
          sa(storage(cs.layout, cs.shape.m, cs.shape.k, cs.op_a == Op::T, cs.ld_pad)),
          sb(storage(cs.layout, cs.shape.k, cs.shape.n, cs.op_b == Op::T, cs.ld_pad)),
          sc(storage(cs.layout, cs.shape.m, cs.shape.n, false, cs.ld_pad)),
          A(size_t(sa.elements + cs.offset)), B(size_t(sb.elements + cs.offset)),
          C0(size_t(sc.elements + cs.offset)), C(size_t(sc.elements + cs.offset)) {
        const FillKind fill_b =
            c.fill == FillKind::NearFltMin || c.fill == FillKind::WithSpecials ? FillKind::Uniform : c.fill;
        const FillKind fill_c = c.fill == FillKind::SmallIntegers ? c.fill : FillKind::Uniform;
        fill_random(A.get(), A.size(), seed * 3 + 0, c.fill, stream.get());
        fill_random(B.get(), B.size(), seed * 3 + 1, fill_b, stream.get());
        fill_random(C0.get(), C0.size(), seed * 3 + 2, fill_c, stream.get());
        const size_t mn = size_t(c.shape.m * c.shape.n);
        ref.resize(mn);
        mag.resize(mn);
        host_c.resize(C.size());
        if (src == ReferenceSource::Gpu) gpu_ref(mn);
        else cpu_ref();
    }

    // Base pointers as the call sees them: `offset` elements into each buffer.
    const TIn* a() const { return A.get() + c.offset; }
    const TIn* b() const { return B.get() + c.offset; }
    TOut* c_out() { return C.get() + c.offset; }
    const TOut* c0() const { return C0.get() + c.offset; }

    // The normalized problem, exactly as the API builds it (row-major = transposed col-major).
    Args normalized() {
        const Scalar alpha = Scalar(c.alpha), beta = Scalar(c.beta);
        const bool ta = c.op_a == Op::T, tb = c.op_b == Op::T;
        if (c.layout == Layout::RowMajor)
            return {c.shape.n, c.shape.m, c.shape.k, alpha, b(), sb.ld, tb, a(), sa.ld, ta, beta, c_out(), sc.ld};
        return {c.shape.m, c.shape.n, c.shape.k, alpha, a(), sa.ld, ta, b(), sb.ld, tb, beta, c_out(), sc.ld};
    }

    void gpu_ref(size_t mn) {
        DeviceBuffer<double> dref(mn), dmag(mn);
        if constexpr (kHalf)
            reference::gpu_reference_half<TIn, TOut>(normalized(), c0(), sc.ld, dref.get(), dmag.get(),
                                                     stream.get());
        else
            reference::gpu_reference<T>(normalized(), c0(), sc.ld, dref.get(), dmag.get(), stream.get());
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        dref.copy_to_host(ref.data(), mn);
        dmag.copy_to_host(mag.data(), mn);
    }

    void cpu_ref() {
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        std::vector<TIn> a(A.size()), b(B.size());
        std::vector<TOut> c0(C0.size());
        A.copy_to_host(a.data(), a.size());
        B.copy_to_host(b.data(), b.size());
        C0.copy_to_host(c0.data(), c0.size());
        if constexpr (kHalf)
            reference::half_gemm<TIn, TOut>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n,
                                            c.shape.k, float(c.alpha), a.data() + c.offset, sa.ld,
                                            b.data() + c.offset, sb.ld, float(c.beta),
                                            c0.data() + c.offset, sc.ld, ref.data(), mag.data());
        else
            reference::gemm<T>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k, T(c.alpha),
                               a.data() + c.offset, sa.ld, b.data() + c.offset, sb.ld, T(c.beta),
                               c0.data() + c.offset, sc.ld, ref.data(), mag.data());
    }

    Status launch(const std::string& kernel, cudaStream_t s) {
        GemmOptions opt;
        opt.kernel = kernel;
        opt.stream = s;
        opt.precision = c.precision;
        return call(opt);
    }

    Status call(const GemmOptions& opt) {
        if constexpr (kHalf) // the half-precision overloads (alpha and beta in float)
            return gemm(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k, float(c.alpha),
                        a(), sa.ld, b(), sb.ld, float(c.beta), c_out(), sc.ld, opt);
        else
            return gemm<T>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k, T(c.alpha),
                           a(), sa.ld, b(), sb.ld, T(c.beta), c_out(), sc.ld, opt);
    }

    Status validate(const GemmOptions& opt) {
        if constexpr (kHalf)
            return validate_gemm(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k,
                                 float(c.alpha), a(), sa.ld, b(), sb.ld, float(c.beta), c_out(),
                                 sc.ld, opt);
        else
            return validate_gemm<T>(c.layout, c.op_a, c.op_b, c.shape.m, c.shape.n, c.shape.k,
                                    T(c.alpha), a(), sa.ld, b(), sb.ld, T(c.beta), c_out(), sc.ld,
                                    opt);
    }

    detail::Problem problem() {
        const Args g = normalized();
        return {data_type_of<TIn>(), data_type_of<TOut>(), c.precision, g.m, g.n, g.k,
                double(g.alpha), g.A, g.lda, g.trans_a, g.B, g.ldb, g.trans_b, double(g.beta),
                g.C, g.ldc};
    }

    RunResult run_and_check(const std::string& kernel) {
        RunResult r;
        if (c.beta == 0) poison_nan(C.get(), C.size(), stream.get());
        else GEMMLAB_CUDA_CHECK(cudaMemcpyAsync(C.get(), C0.get(), C.bytes(), cudaMemcpyDeviceToDevice, stream.get()));
        const Status st = launch(kernel, stream.get());
        if (st != Status::Success) {
            r.error = std::string(to_string(st)) + ": " + last_error();
            return r;
        }
        r.launched = true;
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        C.copy_to_host(host_c.data(), host_c.size());
        if constexpr (kHalf)
            r.check = reference::check_half<TIn, TOut>(c.layout, c.shape.m, c.shape.n, c.shape.k,
                                                       host_c.data() + c.offset, sc.ld, ref.data(),
                                                       mag.data());
        else
            r.check = reference::check<T>(c.layout, c.shape.m, c.shape.n, c.shape.k,
                                          host_c.data() + c.offset, sc.ld, ref.data(), mag.data(),
                                          check_precision(kernel, c.dtype, c.precision));
        return r;
    }

    TimingStats time(const std::string& kernel, const TimingPolicy& policy) {
        return time_device_work(
            [&](cudaStream_t s) {
                const Status st = launch(kernel, s);
                if (st != Status::Success)
                    throw CudaFailure(std::string("timing ") + kernel + ": " + last_error());
            },
            stream.get(), policy);
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

TimingStats DeviceProblem::time(const std::string& kernel, const TimingPolicy& policy) {
    return std::visit([&](auto& p) { return p->time(kernel, policy); }, impl_->p);
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
