// `gemmlab bench --dtype fp8,int8` (bench_quantized.hpp). cuBLASLt is the yardstick, called the
// way its documentation asks for 8-bit inputs: column-major "TN" (A transposed, k contiguous for
// both operands), FP8 with FP32 compute, per-tensor scale pointers and BF16 C/D, INT8 with
// CUBLAS_COMPUTE_32I and int32 C/D; the heuristic's first algorithm, a 32 MB workspace. A
// row-major C = A B^T is that column-major product with the operands swapped.

#include "gemmlab/bench_quantized.hpp"

#include <cstdio>
#include <functional>
#include <iostream>
#include <random>
#include <stdexcept>

#include <cublasLt.h>
#include <cuda_fp8.h>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gemm/quantized_problem.hpp"
#include "gemm/reference/quantized_reference.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/quantized.hpp"

namespace gemmlab::cli {

namespace {

#define GEMMLAB_LT_CHECK(call)                                                                     \
    do {                                                                                           \
        const cublasStatus_t st_ = (call);                                                         \
        if (st_ != CUBLAS_STATUS_SUCCESS)                                                          \
            throw CudaFailure(std::string(#call) + " failed: cublasStatus " + std::to_string(int(st_))); \
    } while (0)

/// One cuBLASLt matmul set up once and run many times: row-major C (m x n) = A (m x k) B^T with
/// B stored n x k, i.e. column-major D (n x m) = op(B_mem)^T op(A_mem) with k contiguous in both.
class LtMatmul {
public:
    LtMatmul(bool fp8, int64_t m, int64_t n, int64_t k, const void* A, const void* B, void* C,
             const float* scale_a, const float* scale_b)
        : fp8_(fp8), A_(A), B_(B), C_(C), ws_(size_t(32) << 20) {
        GEMMLAB_LT_CHECK(cublasLtCreate(&lt_));
        const cublasComputeType_t compute = fp8 ? CUBLAS_COMPUTE_32F : CUBLAS_COMPUTE_32I;
        const cudaDataType_t scale_type = fp8 ? CUDA_R_32F : CUDA_R_32I;
        GEMMLAB_LT_CHECK(cublasLtMatmulDescCreate(&desc_, compute, scale_type));
        const cublasOperation_t t = CUBLAS_OP_T, nop = CUBLAS_OP_N;
        GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &t, sizeof(t)));
        GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &nop, sizeof(nop)));
        if (fp8) { // the Lt "A" is our B and its "B" our A: their scales swap too
            GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER,
                                                            &scale_b, sizeof(scale_b)));
            GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER,
                                                            &scale_a, sizeof(scale_a)));
        }
        const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_8I;
        const cudaDataType_t out = fp8 ? CUDA_R_16BF : CUDA_R_32I;
        GEMMLAB_LT_CHECK(cublasLtMatrixLayoutCreate(&a_, in, uint64_t(k), uint64_t(n), k)); // B_mem
        GEMMLAB_LT_CHECK(cublasLtMatrixLayoutCreate(&b_, in, uint64_t(k), uint64_t(m), k)); // A_mem
        GEMMLAB_LT_CHECK(cublasLtMatrixLayoutCreate(&c_, out, uint64_t(n), uint64_t(m), n));
        cublasLtMatmulPreference_t pref;
        GEMMLAB_LT_CHECK(cublasLtMatmulPreferenceCreate(&pref));
        const size_t ws_bytes = ws_.bytes();
        GEMMLAB_LT_CHECK(cublasLtMatmulPreferenceSetAttribute(
            pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof(ws_bytes)));
        int found = 0;
        const cublasStatus_t st =
            cublasLtMatmulAlgoGetHeuristic(lt_, desc_, a_, b_, c_, c_, pref, 1, &heuristic_, &found);
        cublasLtMatmulPreferenceDestroy(pref);
        if (st != CUBLAS_STATUS_SUCCESS || found == 0)
            throw CudaFailure("cuBLASLt has no algorithm for this " +
                              std::string(fp8 ? "FP8" : "INT8") + " product");
    }
    ~LtMatmul() {
        cublasLtMatrixLayoutDestroy(c_);
        cublasLtMatrixLayoutDestroy(b_);
        cublasLtMatrixLayoutDestroy(a_);
        cublasLtMatmulDescDestroy(desc_);
        cublasLtDestroy(lt_);
    }
    LtMatmul(const LtMatmul&) = delete;
    LtMatmul& operator=(const LtMatmul&) = delete;

    void run(cudaStream_t stream) {
        const float alpha_f = 1.0f, beta_f = 0.0f;
        const int32_t alpha_i = 1, beta_i = 0;
        const void* alpha = fp8_ ? static_cast<const void*>(&alpha_f) : &alpha_i;
        const void* beta = fp8_ ? static_cast<const void*>(&beta_f) : &beta_i;
        GEMMLAB_LT_CHECK(cublasLtMatmul(lt_, desc_, alpha, B_, a_, A_, b_, beta, C_, c_, C_, c_,
                                        &heuristic_.algo, ws_.get(), ws_.bytes(), stream));
    }

private:
    bool fp8_;
    const void *A_, *B_;
    void* C_;
    DeviceBuffer<unsigned char> ws_;
    cublasLtHandle_t lt_ = nullptr;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
    cublasLtMatmulHeuristicResult_t heuristic_{};
};

/// Checks `samples` random elements of a row-major m x n C (ld n) against the CPU reference of
/// row i of A (m x k) and row j of B (n x k): FP8 within fp8_gamma's bound (BF16 C), INT8
/// exactly. Returns the number of failures and prints the first.
template <class TIn, class TOut>
int64_t check_samples(const char* who, const std::vector<TIn>& A, const std::vector<TIn>& B,
                      const TOut* C_dev, int64_t m, int64_t n, int64_t k, float scale, int samples,
                      std::mt19937_64& rng) {
    int64_t failures = 0;
    for (int s = 0; s < samples; ++s) {
        const int64_t i = int64_t(rng() % uint64_t(m)), j = int64_t(rng() % uint64_t(n));
        TOut got_raw;
        GEMMLAB_CUDA_CHECK(cudaMemcpy(&got_raw, C_dev + i * n + j, sizeof(TOut), cudaMemcpyDeviceToHost));
        double ref = 0, mag = 0;
        // One element of the product: the reference on a 1 x 1 x k problem.
        reference::quantized_gemm<TIn, TIn, TOut>(Layout::RowMajor, Op::N, Op::T, 1, 1, k, 1.0,
                                                   &A[size_t(i * k)], k, {&scale, false},
                                                   &B[size_t(j * k)], k, {&scale, false}, 0.0,
                                                   nullptr, 1, &ref, &mag, nullptr, 1);
        bool ok;
        if constexpr (std::is_same_v<TOut, int32_t>) {
            ok = double(got_raw) == ref;
        } else {
            const auto r = reference::check_quantized(Layout::RowMajor, 1, 1, &got_raw, 1, &ref,
                                                      &mag, reference::fp8_gamma(k));
            ok = r.pass();
        }
        if (!ok && failures++ == 0)
            std::cout << "  " << who << ": (" << i << ", " << j << ") got " << double(got_raw)
                      << ", want " << ref << "\n";
    }
    return failures;
}

struct Row {
    std::string kind, kernel;
    Shape shape;
    double ms = 0, tops = 0, ratio = 0;
    int64_t failures = 0;
};

template <class TIn, class TOut>
void bench_kind(const std::string& kind, const Shape& s, const TimingPolicy& policy, uint64_t seed,
                std::vector<Row>& rows) {
    const bool fp8 = kind == "fp8";
    std::mt19937_64 rng(seed);
    std::vector<TIn> A(size_t(s.m * s.k)), B(size_t(s.n * s.k));
    std::uniform_real_distribution<float> u(-2.0f, 2.0f);
    for (auto* v : {&A, &B})
        for (auto& x : *v) {
            if constexpr (std::is_same_v<TIn, int8_t>) x = int8_t(rng() & 0xFF);
            else x = TIn(u(rng));
        }
    DeviceBuffer<TIn> dA(A.size()), dB(B.size());
    dA.copy_from_host(A.data(), A.size());
    dB.copy_from_host(B.data(), B.size());
    DeviceBuffer<TOut> ours(size_t(s.m * s.n)), theirs(size_t(s.m * s.n));
    const float scale = fp8 ? 0.5f : 1.0f;
    DeviceBuffer<float> scale_dev(1);
    scale_dev.copy_from_host(&scale, 1);

    const auto run_ours = [&](cudaStream_t stream) {
        GemmOptions o;
        o.stream = stream;
        Status st;
        if constexpr (std::is_same_v<TIn, int8_t>)
            st = gemm_int8(Layout::RowMajor, Op::N, Op::T, s.m, s.n, s.k, dA.get(), s.k, dB.get(),
                           s.k, ours.get(), s.n, o);
        else
            st = gemm_fp8<TIn, TIn, TOut>(Layout::RowMajor, Op::N, Op::T, s.m, s.n, s.k, 1.0f,
                                          dA.get(), s.k, {scale_dev.get()}, dB.get(), s.k,
                                          {scale_dev.get()}, 0.0f, ours.get(), s.n, o);
        if (st != Status::Success)
            throw CudaFailure(std::string("gemmlab ") + kind + " failed: " +
                              std::string(to_string(st)) + ": " + gemmlab::last_error());
    };
    LtMatmul lt(fp8, s.m, s.n, s.k, dA.get(), dB.get(), theirs.get(), scale_dev.get(), scale_dev.get());
    run_ours(nullptr);
    lt.run(nullptr);
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::mt19937_64 pick(seed + 1);
    const int64_t ours_bad = check_samples<TIn, TOut>("gemmlab", A, B, ours.get(), s.m, s.n, s.k, scale, 256, pick);
    std::mt19937_64 pick2(seed + 1);
    const int64_t lt_bad = check_samples<TIn, TOut>("cuBLASLt", A, B, theirs.get(), s.m, s.n, s.k, scale, 256, pick2);

    const auto timings = time_interleaved({[&](cudaStream_t st) { lt.run(st); }, run_ours}, nullptr, policy);
    const double ops = 2.0 * double(s.m) * double(s.n) * double(s.k);
    const std::string rung = fp8 ? "wgmma_fp8" : "wgmma_int8";
    Row theirs_row{kind, "cublaslt", s, timings[0].median_ms, ops / (timings[0].median_ms * 1e9), 1.0, lt_bad};
    Row ours_row{kind, rung, s, timings[1].median_ms, ops / (timings[1].median_ms * 1e9),
                 timings[0].median_ms / timings[1].median_ms, ours_bad};
    rows.push_back(theirs_row);
    rows.push_back(ours_row);
}

} // namespace

bool is_quantized_dtype(const std::string& d) { return d == "fp8" || d == "int8"; }

int run_quantized_bench(const std::vector<std::string>& kinds, const std::vector<Shape>& shapes,
                        const TimingPolicy& policy, uint64_t seed) {
    std::vector<Row> rows;
    for (const auto& kind : kinds)
        for (const Shape& s : shapes) {
            if (s.batch != 1) throw std::runtime_error("--dtype " + kind + " runs single products only");
            if (kind == "fp8") bench_kind<__nv_fp8_e4m3, __nv_bfloat16>(kind, s, policy, seed++, rows);
            else bench_kind<int8_t, int32_t>(kind, s, policy, seed++, rows);
        }
    std::printf("%-5s %-20s %-11s %10s %12s %9s %s\n", "dtype", "shape (row-major nt)", "kernel",
                "median ms", "TFLOP/TOP/s", "x cuBLASLt", "check (256 samples)");
    int code = kExitOk;
    for (const Row& r : rows) {
        const std::string shape = std::to_string(r.shape.m) + "x" + std::to_string(r.shape.n) + "x" +
                                  std::to_string(r.shape.k);
        std::printf("%-5s %-20s %-11s %10.4f %12.1f %9.3f %s\n", r.kind.c_str(), shape.c_str(),
                    r.kernel.c_str(), r.ms, r.tops, r.ratio,
                    r.failures == 0 ? "pass" : (std::to_string(r.failures) + " failed").c_str());
        if (r.failures) code = kExitCheckFailed;
    }
    std::printf("fp8: E4M3 x E4M3, BF16 C, per-tensor scales (cuBLASLt: A/B_SCALE_POINTER, no fast "
                "accumulation); int8: int32 C. Ratio > 1: gemmlab faster.\n");
    return code;
}

} // namespace gemmlab::cli
