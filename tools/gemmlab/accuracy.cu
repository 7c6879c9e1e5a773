// `gemmlab accuracy`, the GPU side: per type, distribution and k, one case filled by
// DeviceProblem (bench's fills), its double-double reference (gpu_reference), then each
// kernel once on it, its C copied back and measured (error_stats) and checked against its
// precision's bound (reference::check, check_half).

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/progress.hpp"
#include "gemm/element.hpp"
#include "gemm/problem.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/gpu_reference.hpp"
#include "gemmlab/accuracy.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/status.hpp"

namespace gemmlab::cli {

namespace {

/// |x| for every element of a rows x cols column-major block (leading dimension ld), by clearing
/// the sign bit of each: exact in every type.
template <class Bits>
__global__ void clear_sign_kernel(Bits* x, int64_t rows, int64_t cols, int64_t ld) {
    constexpr Bits kMagnitude = Bits(~(Bits(1) << (8 * sizeof(Bits) - 1)));
    const int64_t count = rows * cols;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
         i += int64_t(gridDim.x) * blockDim.x)
        x[i % rows + (i / rows) * ld] &= kMagnitude;
}

/// clear_sign_kernel over op(X) of the normalized problem: stored rows x cols, rows = op rows
/// unless transposed.
template <class T>
void clear_sign(const void* x, int64_t op_rows, int64_t op_cols, bool trans, int64_t ld, cudaStream_t s) {
    using Bits = std::conditional_t<sizeof(T) == 8, unsigned long long,
                                    std::conditional_t<sizeof(T) == 4, unsigned int, unsigned short>>;
    const int64_t rows = trans ? op_cols : op_rows, cols = trans ? op_rows : op_cols;
    // The problem's operands are const for the call; here they are still being prepared.
    Bits* bits = static_cast<Bits*>(const_cast<void*>(x));
    clear_sign_kernel<Bits><<<1024, 256, 0, s>>>(bits, rows, cols, ld);
    GEMMLAB_CHECK_LAUNCH();
}

/// A call to measure on each case: a kernel at a call precision.
struct Entry {
    std::string kernel;
    Precision call_precision;
};

/// The calls for `dt`: cuBLAS at every math a row of this type can have (for float, FP32 and
/// TF32), auto at each asked precision (once for types without a TF32 mode), every rung that
/// has the type and runs here, once at its own math.
std::vector<Entry> entries_for(const AccuracyConfig& cfg, DType dt) {
    std::vector<Entry> out{{"cublas", Precision::Default}};
    if (dt == DType::F32) out.push_back({"cublas", Precision::Tf32});
    for (const auto& k : cfg.kernels) {
        if (k == "auto") {
            for (Precision p : cfg.precisions) {
                const Precision call = precision_changes_math(dt, p) ? p : Precision::Default;
                const bool repeated = std::any_of(out.begin(), out.end(), [&](const Entry& e) {
                    return e.kernel == k && e.call_precision == call;
                });
                if (!repeated) out.push_back({k, call});
            }
        } else if (kernel_supports(k, dt)) {
            out.push_back({k, Precision::Default});
        }
    }
    return out;
}

/// One case of types (TIn, TOut): fill, reference, every entry.
template <class TIn, class TOut>
void run_case(const AccuracyConfig& cfg, DType dt, Distribution dist, int64_t k, uint64_t seed,
              const std::vector<Entry>& entries, std::vector<AccuracyRow>& rows) {
    constexpr bool kHalf = detail::is_half_v<TIn>;
    Case cs;
    cs.dtype = dt;
    cs.layout = cfg.layout;
    cs.op_a = cfg.op_a;
    cs.op_b = cfg.op_b;
    cs.shape = {cfg.m, cfg.n, k};
    cs.alpha = 1;
    cs.beta = 0;
    cs.fill = fill_of(dist);
    DeviceProblem problem(cs, seed, ReferenceSource::None); // filled and synchronized
    const detail::Problem p = problem.normalized();
    Stream stream;
    if (dist == Distribution::SameSign) {
        clear_sign<TIn>(p.A, p.m, p.k, p.trans_a, p.lda, stream.get());
        clear_sign<TIn>(p.B, p.k, p.n, p.trans_b, p.ldb, stream.get());
    }
    const size_t mn = size_t(p.m) * size_t(p.n);
    DeviceBuffer<double> dref(mn), dmag(mn);
    if constexpr (kHalf)
        reference::gpu_reference_half<TIn, TOut>(p.as_half<TIn, TOut>(), static_cast<const TOut*>(p.C),
                                                 p.ldc, dref.get(), dmag.get(), stream.get());
    else
        reference::gpu_reference<TIn>(p.as<TIn>(), static_cast<const TIn*>(p.C), p.ldc, dref.get(),
                                      dmag.get(), stream.get());
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    std::vector<double> ref(mn), mag(mn), got(mn);
    dref.copy_to_host(ref.data(), mn);
    dmag.copy_to_host(mag.data(), mn);
    std::vector<TOut> c(mn);
    const size_t row_bytes = size_t(p.m) * sizeof(TOut), pitch = size_t(p.ldc) * sizeof(TOut);

    for (const Entry& e : entries) {
        AccuracyRow row;
        row.dtype = dt;
        row.kernel = e.kernel;
        const auto info = find_gpu_kernel(e.kernel);
        row.number = info ? info->number : -1;
        row.call_precision = e.call_precision;
        row.math = check_precision(e.kernel, dt, e.call_precision);
        row.dist = dist;
        row.k = k;
        // NaN in every element of C first: an element the kernel leaves unwritten shows.
        GEMMLAB_CUDA_CHECK(cudaMemset2DAsync(p.C, pitch, 0xFF, row_bytes, size_t(p.n), stream.get()));
        GemmOptions opt;
        opt.kernel = e.kernel;
        opt.precision = e.call_precision;
        opt.stream = stream.get();
        const Status st = problem.call(opt);
        if (st != Status::Success) {
            row.error = std::string(to_string(st)) + ": " + last_error();
            rows.push_back(std::move(row));
            continue;
        }
        GEMMLAB_CUDA_CHECK(cudaMemcpy2DAsync(c.data(), row_bytes, p.C, pitch, row_bytes, size_t(p.n),
                                             cudaMemcpyDeviceToHost, stream.get()));
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
        for (size_t i = 0; i < mn; ++i) got[i] = detail::to_double(c[i]);
        row.stats = error_stats(got, ref, mag);
        reference::CheckResult check;
        if constexpr (kHalf)
            check = reference::check_half<TIn, TOut>(Layout::ColMajor, p.m, p.n, k, c.data(), p.m,
                                                     ref.data(), mag.data());
        else
            check = reference::check<TIn>(Layout::ColMajor, p.m, p.n, k, c.data(), p.m, ref.data(),
                                          mag.data(), row.math);
        row.worst_over_bound = check.worst_ratio;
        row.bound_pass = check.pass;
        rows.push_back(std::move(row));
    }
}

void run_case_of(DType dt, const AccuracyConfig& cfg, Distribution dist, int64_t k, uint64_t seed,
                 const std::vector<Entry>& entries, std::vector<AccuracyRow>& rows) {
    switch (dt) {
    case DType::F32: return run_case<float, float>(cfg, dt, dist, k, seed, entries, rows);
    case DType::F64: return run_case<double, double>(cfg, dt, dist, k, seed, entries, rows);
    case DType::BF16: return run_case<__nv_bfloat16, __nv_bfloat16>(cfg, dt, dist, k, seed, entries, rows);
    case DType::BF16_F32: return run_case<__nv_bfloat16, float>(cfg, dt, dist, k, seed, entries, rows);
    case DType::F16: return run_case<__half, __half>(cfg, dt, dist, k, seed, entries, rows);
    case DType::F16_F32: return run_case<__half, float>(cfg, dt, dist, k, seed, entries, rows);
    }
}

} // namespace

std::vector<AccuracyRow> run_accuracy(const AccuracyConfig& cfg, std::vector<std::string>& notes) {
    std::vector<AccuracyRow> rows;
    Progress progress(int(cfg.dtypes.size() * cfg.dists.size() * cfg.ks.size()));
    uint64_t seed = cfg.seed;
    for (DType dt : cfg.dtypes) {
        const std::vector<Entry> entries = entries_for(cfg, dt);
        for (Distribution dist : cfg.dists)
            for (int64_t k : cfg.ks) {
                progress.step(std::string(to_string(dt)) + " " + describe(dist) + " k=" + std::to_string(k));
                try {
                    run_case_of(dt, cfg, dist, k, seed++, entries, rows);
                } catch (const OutOfDeviceMemory&) {
                    Case cs;
                    cs.dtype = dt;
                    cs.shape = {cfg.m, cfg.n, k};
                    notes.push_back(too_large_note(cs, ReferenceSource::Gpu));
                }
            }
    }
    progress.done();
    return rows;
}

} // namespace gemmlab::cli
