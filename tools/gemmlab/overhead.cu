// The measurements of `gemmlab overhead` (overhead.hpp says what each table is).
//
// How, and why so:
// - Host clock (steady_clock), not events: the quantity is the host's time in the call (enqueue)
//   or the time a caller waits for a result (latency); device events would leave out the former
//   and most of the latter.
// - Contenders are interleaved sample by sample (each sample runs every row once), so drift in
//   clocks or in host load falls on all of them alike.
// - Enqueue samples are short (default 512 calls) so the launch queue does not fill: once it is
//   full, a launch waits for the GPU, and the loop would time the GPU instead of the host. The
//   `drained` figure (loop + the stream finishing) shows when the GPU could not keep up.
// - Every gemm call's Status is checked, as a caller would; a failure stops the run.
// - cuBLAS direct: one handle made up front, bound to the stream once, the same calls rung 0
//   makes (cublasSgemm_64 / cublasDgemm_64 / cublasGemmEx_64 with FP32 compute); rung 0 through
//   gemmlab adds the API's checks, a pooled handle and cublasSetStream per call.

#include <algorithm>
#include <chrono>
#include <functional>

#include <cublas_v2.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "common/progress.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/driver_launch.cuh"
#include "gemm/pointer_check.hpp"
#include "gemmlab/overhead.hpp"

namespace gemmlab::cli {

namespace {

__global__ void overhead_empty_kernel() {}

/// As many parameter bytes as a gemm kernel takes (operands, batch strides, count: 120-144).
struct ParameterBlock {
    unsigned char bytes[128];
};
__global__ void overhead_parameter_kernel(ParameterBlock) {}

using Clock = std::chrono::steady_clock;

double us_between(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double, std::micro>(b - a).count();
}

/// The cuBLAS call rung 0 makes, on a handle of its own (see the header).
class DirectCublas {
public:
    explicit DirectCublas(cudaStream_t stream) {
        GEMMLAB_CUBLAS_CHECK(cublasCreate(&handle_));
        GEMMLAB_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
        GEMMLAB_CUBLAS_CHECK(cublasSetStream(handle_, stream));
    }
    ~DirectCublas() {
        if (handle_) cublasDestroy(handle_);
    }
    DirectCublas(const DirectCublas&) = delete;
    DirectCublas& operator=(const DirectCublas&) = delete;

    static const char* label(DType d) {
        switch (input_type(d)) {
        case DataType::F32: return "cuBLAS direct (cublasSgemm_64)";
        case DataType::F64: return "cuBLAS direct (cublasDgemm_64)";
        default: return "cuBLAS direct (cublasGemmEx_64)";
        }
    }

    /// One call on the normalized column-major problem `p` (the form cuBLAS takes).
    void call(const detail::Problem& p) const {
        const cublasOperation_t ta = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
        const cublasOperation_t tb = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
        if (p.type == DataType::F32) {
            const float alpha = float(p.alpha), beta = float(p.beta);
            GEMMLAB_CUBLAS_CHECK(cublasSgemm_64(handle_, ta, tb, p.m, p.n, p.k, &alpha,
                                                static_cast<const float*>(p.A), p.lda,
                                                static_cast<const float*>(p.B), p.ldb, &beta,
                                                static_cast<float*>(p.C), p.ldc));
        } else if (p.type == DataType::F64) {
            const double alpha = p.alpha, beta = p.beta;
            GEMMLAB_CUBLAS_CHECK(cublasDgemm_64(handle_, ta, tb, p.m, p.n, p.k, &alpha,
                                                static_cast<const double*>(p.A), p.lda,
                                                static_cast<const double*>(p.B), p.ldb, &beta,
                                                static_cast<double*>(p.C), p.ldc));
        } else {
            const float alpha = float(p.alpha), beta = float(p.beta);
            const cudaDataType_t in = p.type == DataType::BF16 ? CUDA_R_16BF : CUDA_R_16F;
            const cudaDataType_t out = p.c_type == DataType::F32 ? CUDA_R_32F : in;
            GEMMLAB_CUBLAS_CHECK(cublasGemmEx_64(handle_, ta, tb, p.m, p.n, p.k, &alpha, p.A, in,
                                                 p.lda, p.B, in, p.ldb, &beta, p.C, out, p.ldc,
                                                 CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        }
    }

private:
    cublasHandle_t handle_ = nullptr;
};

/// One row of a table: a label and one call (throws when the call fails).
struct Contender {
    std::string label;
    std::string kernel; // gemmlab kernel key, or empty
    std::function<void()> call;
};

/// A gemmlab call with options built once, as a program calling in a loop would hold them.
Contender gemmlab_contender(DeviceProblem& problem, const std::string& kernel, cudaStream_t stream) {
    GemmOptions o;
    o.kernel = kernel;
    o.stream = stream;
    std::string label = kernel == "cublas" ? "gemmlab cublas (rung 0)" : "gemmlab " + kernel;
    return {std::move(label), kernel, [&problem, o] {
                if (const Status s = problem.call(o); s != Status::Success)
                    throw CudaFailure("gemmlab overhead: kernel '" + o.kernel + "': " +
                                      std::string(to_string(s)) + ": " + last_error());
            }};
}

/// The gemmlab kernels of a table: rung 0 first (the library's own cuBLAS path), then the
/// configured ones in their order, each once; those without `dt` or that this device cannot
/// run are left out, as bench leaves them out (note_kernels_this_device_cannot_run says which).
std::vector<std::string> gemmlab_kernels(const OverheadConfig& c, DType dt) {
    std::vector<std::string> out = {"cublas"};
    for (const auto& k : c.kernels)
        if (std::find(out.begin(), out.end(), k) == out.end() && kernel_supports(k, dt))
            out.push_back(k);
    return out;
}

std::vector<EnqueueRow> measure_enqueue(DType dt, const OverheadConfig& c, uint64_t seed,
                                        Progress& progress) {
    const Case cs{dt, Layout::RowMajor, Op::N, Op::N, {1, 1, 1}, 1.0, 0.0, 0, FillKind::Uniform};
    DeviceProblem problem(cs, seed, ReferenceSource::Gpu);
    Stream stream;
    const cudaStream_t s = stream.get();
    DirectCublas blas(s);
    const detail::Problem normalized = problem.normalized();

    std::vector<Contender> rows;
    rows.push_back({"empty kernel launch <<<1, 32>>>", "", [s] {
                        overhead_empty_kernel<<<1, 32, 0, s>>>();
                        GEMMLAB_CHECK_LAUNCH(); // gemm checks every launch the same way
                    }});
    // The parts of gemm's host path that are not the launch, each alone.
    GemmOptions auto_options;
    auto_options.stream = s;
    rows.push_back({"part: validate_gemm (no CUDA call)", "", [&problem, auto_options] {
                        if (problem.validate(auto_options) != Status::Success)
                            throw CudaFailure(std::string("validate_gemm: ") + last_error());
                    }});
    // The pointer checks as gemm makes them (driver query), and through the runtime's
    // cudaPointerGetAttributes, which they replaced: both rows, so the choice stays measured.
    const auto pointer_part = [p = normalized](detail::PointerPlace (*place)(const void*, int)) {
        return [p, place] {
            int device = 0;
            GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
            for (const void* ptr : {static_cast<const void*>(p.C), p.A, p.B})
                if (place(ptr, device).kind != detail::PointerPlace::Usable)
                    throw CudaFailure("gemmlab overhead: a device pointer was not recognised");
        };
    };
    rows.push_back({"part: cudaGetDevice + 3 pointer checks", "", pointer_part(&detail::pointer_place)});
    rows.push_back({"part: same via cudaPointerGetAttributes", "",
                    pointer_part(&detail::pointer_place_runtime)});
    // What the launch itself costs: auto's pick and launch with no API checks before it, and an
    // empty kernel taking a parameter block the size of a gemm kernel's.
    rows.push_back({"part: auto's launch alone", "", [p = normalized, s] { detail::launch_auto(p, s); }});
    rows.push_back({"part: empty kernel, 128-byte parameter", "", [s] {
                        overhead_parameter_kernel<<<1, 32, 0, s>>>(ParameterBlock{});
                        GEMMLAB_CHECK_LAUNCH();
                    }});
    // The same empty kernel launched as auto's tiny-product path launches (cuLaunchKernel on a
    // cached function handle: gemm/kernels/driver_launch.cuh).
    rows.push_back({"part: empty kernel via cuLaunchKernel", "", [s] {
                        detail::DriverLaunch<&overhead_empty_kernel>::run(1, 32, 0, s);
                    }});
    for (const auto& k : gemmlab_kernels(c, dt)) rows.push_back(gemmlab_contender(problem, k, s));
    rows.push_back({DirectCublas::label(dt), "", [&blas, p = normalized] { blas.call(p); }});

    std::vector<std::vector<double>> host(rows.size()), drained(rows.size());
    for (int sample = -1; sample < c.samples; ++sample) { // sample -1: warm-up, discarded
        progress.step(std::string("enqueue ") + to_string(dt) + " 1x1x1, sample " +
                      std::to_string(sample + 2) + " of " + std::to_string(c.samples + 1));
        for (size_t r = 0; r < rows.size(); ++r) {
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            const auto t0 = Clock::now();
            for (int i = 0; i < c.calls; ++i) rows[r].call();
            const auto t1 = Clock::now();
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            const auto t2 = Clock::now();
            if (sample < 0) continue;
            host[r].push_back(us_between(t0, t1) / c.calls);
            drained[r].push_back(us_between(t0, t2) / c.calls);
        }
    }

    std::vector<EnqueueRow> out;
    for (size_t r = 0; r < rows.size(); ++r) {
        EnqueueRow row;
        row.dtype = dt;
        row.call = rows[r].label;
        row.kernel = rows[r].kernel;
        row.calls_per_sample = c.calls;
        row.host = summarize_us(host[r]);
        row.drained = summarize_us(drained[r]);
        out.push_back(std::move(row));
    }
    const double launch_us = out.front().host.median; // row 0: the empty-kernel launch
    for (auto& row : out)
        if (launch_us > 0) row.vs_launch = row.host.median / launch_us;
    return out;
}

std::vector<LatencyRow> measure_latency(DType dt, int64_t size, const OverheadConfig& c,
                                        uint64_t seed, Progress& progress) {
    const Case cs{dt, Layout::RowMajor, Op::N, Op::N, {size, size, size}, 1.0, 0.0, 0,
                  FillKind::Uniform};
    progress.step(std::string("latency ") + cs.describe());
    DeviceProblem problem(cs, seed, ReferenceSource::Gpu);
    Stream stream;
    const cudaStream_t s = stream.get();
    DirectCublas blas(s);

    std::vector<LatencyRow> out;
    std::vector<Contender> rows;
    auto add_row = [&](const Contender& k) {
        LatencyRow row;
        row.dtype = dt;
        row.shape = cs.shape;
        row.call = k.label;
        row.kernel = k.kernel;
        out.push_back(std::move(row));
        rows.push_back(k);
    };
    add_row({DirectCublas::label(dt), "", [&blas, p = problem.normalized()] { blas.call(p); }});
    for (const auto& k : gemmlab_kernels(c, dt)) {
        // Each gemmlab row's result is checked once, as bench checks it; a kernel that cannot
        // run here (a type it lacks, a Hopper rung elsewhere) gets a row with the reason.
        const RunResult r = problem.run_and_check(k);
        add_row(gemmlab_contender(problem, k, s));
        if (!r.launched) out.back().error = r.error;
        else out.back().check = r.check;
    }

    std::vector<std::vector<double>> samples(rows.size());
    for (size_t r = 0; r < rows.size(); ++r) {
        if (!out[r].error.empty()) continue;
        for (int i = 0; i < c.warmup; ++i) rows[r].call();
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
    }
    for (int rep = 0; rep < c.reps; ++rep)
        for (size_t r = 0; r < rows.size(); ++r) {
            if (!out[r].error.empty()) continue;
            const auto t0 = Clock::now();
            rows[r].call();
            GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(s));
            samples[r].push_back(us_between(t0, Clock::now()));
        }
    for (size_t r = 0; r < rows.size(); ++r) out[r].latency = summarize_us(samples[r]);
    const double cublas_us = out.front().latency.median;
    for (auto& row : out)
        if (cublas_us > 0 && row.error.empty()) row.vs_cublas = row.latency.median / cublas_us;
    return out;
}

/// How the host waits in cudaStreamSynchronize: it changes latency by microseconds.
std::string schedule_text() {
    unsigned flags = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDeviceFlags(&flags));
    switch (flags & cudaDeviceScheduleMask) {
    case cudaDeviceScheduleSpin: return "spin (cudaDeviceScheduleSpin)";
    case cudaDeviceScheduleYield: return "yield (cudaDeviceScheduleYield)";
    case cudaDeviceScheduleBlockingSync: return "blocking (cudaDeviceScheduleBlockingSync)";
    default: return "auto (cudaDeviceScheduleAuto: spin while CPU cores outnumber GPUs)";
    }
}

} // namespace

UsStats summarize_us(std::vector<double> us) {
    UsStats st;
    st.samples = int(us.size());
    if (us.empty()) return st;
    std::sort(us.begin(), us.end());
    const size_t n = us.size();
    st.median = n % 2 ? us[n / 2] : 0.5 * (us[n / 2 - 1] + us[n / 2]);
    st.min = us.front();
    st.max = us.back();
    st.p90 = us[std::min(n - 1, size_t(0.9 * double(n)))]; // nearest rank, upper side
    return st;
}

OverheadReport run_overhead(const OverheadConfig& c, RunInfo info) {
    OverheadReport report;
    info.device = query_device(0);
    report.info = std::move(info);
    report.schedule = schedule_text();
    report.calls_per_sample = c.calls;
    report.enqueue_samples = c.samples;
    report.latency_reps = c.reps;
    report.warmup = c.warmup;
    const int steps = int(c.dtypes.size()) * ((c.enqueue ? c.samples + 1 : 0) +
                                              (c.latency ? int(c.sizes.size()) : 0));
    Progress progress(steps);
    uint64_t seed = report.info.seed;
    for (DType dt : c.dtypes) {
        if (c.enqueue)
            for (auto& row : measure_enqueue(dt, c, seed++, progress))
                report.enqueue.push_back(std::move(row));
        if (c.latency)
            for (int64_t size : c.sizes)
                for (auto& row : measure_latency(dt, size, c, seed++, progress))
                    report.latency.push_back(std::move(row));
    }
    progress.done();
    report.targets = overhead_targets(report);
    return report;
}

} // namespace gemmlab::cli
