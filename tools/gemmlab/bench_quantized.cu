// `gemmlab bench --dtype fp8,fp8-block,int8` (bench_quantized.hpp). cuBLASLt is the yardstick,
// called the way its documentation asks for 8-bit inputs: column-major "TN" (A transposed, k
// contiguous for both operands), FP8 with FP32 compute, per-tensor scale pointers (fp8-block:
// the VEC128_32F and BLK128x128_32F scale modes) and BF16 C/D, INT8 with CUBLAS_COMPUTE_32I and
// int32 C/D; the heuristic's first algorithm, a 32 MB workspace. A row-major C = A B^T is that
// column-major product with the operands swapped, so cuBLASLt's A is our B: its 128 x 128
// blocks go on cuBLASLt's A, our A's 1 x 128 groups on its B, in the very layouts
// Scaling::BlockWise documents.

#include "gemmlab/bench_quantized.hpp"

#include <algorithm>
#include <cmath>
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
/// block_wise (FP8): scale_a holds A's 1 x 128 groups, scale_b B's 128 x 128 blocks.
class LtMatmul {
public:
    LtMatmul(bool fp8, int64_t m, int64_t n, int64_t k, const void* A, const void* B, void* C,
             const float* scale_a, const float* scale_b, bool block_wise = false,
             bool float_out = false)
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
        if (block_wise) {
            const int32_t blocks = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F; // on our B
            const int32_t groups = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;     // on our A
            GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_A_SCALE_MODE,
                                                            &blocks, sizeof(blocks)));
            GEMMLAB_LT_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_B_SCALE_MODE,
                                                            &groups, sizeof(groups)));
        }
        const cudaDataType_t in = fp8 ? CUDA_R_8F_E4M3 : CUDA_R_8I;
        const cudaDataType_t out = !fp8 ? CUDA_R_32I : float_out ? CUDA_R_32F : CUDA_R_16BF;
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
                              std::string(block_wise ? "block-scaled FP8" : fp8 ? "FP8" : "INT8") +
                              (float_out ? " product with float D" : " product") + " (status " +
                              std::to_string(int(st)) + ")");
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

/// The scales of a bench product: one per-tensor value, or block-wise factors (scale_a m x
/// ceil(k / 128), ld m; scale_b ld x ceil(n / 128), ld block_b_ld(k)).
struct BenchScales {
    bool block_wise = false;
    std::vector<float> a, b;
    /// Row i of A's and column j of B's scales as the 1 x 1 x k reference of one element takes
    /// them.
    reference::HostScale row(int64_t i, int64_t m) const {
        return block_wise ? reference::HostScale{&a[size_t(i)], false, true, 1, 0, m}
                          : reference::HostScale{a.data(), false};
    }
    reference::HostScale column(int64_t j, int64_t k) const {
        return block_wise ? reference::HostScale{&b[size_t((j / 128) * reference::HostScale::block_b_ld(k))],
                                                 false, true, 128, 0, 1}
                          : reference::HostScale{b.data(), false};
    }
};

/// Checks `samples` random elements of a row-major m x n C (ld n) against the CPU reference of
/// row i of A (m x k) and row j of B (n x k): FP8 within docs/precision.md's bound (BF16 C),
/// INT8 exactly. Returns the number of failures and prints the first.
template <class TIn, class TOut>
int64_t check_samples(const char* who, const std::vector<TIn>& A, const std::vector<TIn>& B,
                      const TOut* C_dev, int64_t m, int64_t n, int64_t k, const BenchScales& scales,
                      int samples, std::mt19937_64& rng) {
    int64_t failures = 0;
    const double gamma = scales.block_wise ? reference::fp8_block_gamma(k) : reference::fp8_gamma(k);
    for (int s = 0; s < samples; ++s) {
        const int64_t i = int64_t(rng() % uint64_t(m)), j = int64_t(rng() % uint64_t(n));
        TOut got_raw;
        GEMMLAB_CUDA_CHECK(cudaMemcpy(&got_raw, C_dev + i * n + j, sizeof(TOut), cudaMemcpyDeviceToHost));
        double ref = 0, mag = 0;
        // One element of the product: the reference on a 1 x 1 x k problem.
        reference::quantized_gemm<TIn, TIn, TOut>(Layout::RowMajor, Op::N, Op::T, 1, 1, k, 1.0,
                                                   &A[size_t(i * k)], k, scales.row(i, m),
                                                   &B[size_t(j * k)], k, scales.column(j, k), 0.0,
                                                   nullptr, 1, &ref, &mag, nullptr, 1);
        bool ok;
        if constexpr (std::is_same_v<TOut, int32_t>) {
            ok = double(got_raw) == ref;
        } else {
            const auto r = reference::check_quantized(Layout::RowMajor, 1, 1, &got_raw, 1, &ref,
                                                      &mag, gamma);
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
    const bool fp8 = kind != "int8";
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
    // Per-tensor scales of 0.5; block-wise factors in [0.5, 2], a different one per group.
    BenchScales scales;
    scales.block_wise = kind == "fp8-block";
    if (scales.block_wise) {
        std::uniform_real_distribution<float> f(0.5f, 2.0f);
        const int64_t k_blocks = (s.k + 127) / 128;
        scales.a.resize(size_t(s.m * k_blocks));
        scales.b.resize(size_t(reference::HostScale::block_b_ld(s.k) * ((s.n + 127) / 128)));
        for (auto* v : {&scales.a, &scales.b})
            for (auto& x : *v) x = f(rng);
    } else {
        scales.a = scales.b = {fp8 ? 0.5f : 1.0f};
    }
    DeviceBuffer<float> scale_a(scales.a.size()), scale_b(scales.b.size());
    scale_a.copy_from_host(scales.a.data(), scales.a.size());
    scale_b.copy_from_host(scales.b.data(), scales.b.size());
    const Scaling scaling = scales.block_wise ? Scaling::BlockWise : Scaling::PerTensor;

    const auto run_ours = [&](cudaStream_t stream) {
        GemmOptions o;
        o.stream = stream;
        Status st;
        if constexpr (std::is_same_v<TIn, int8_t>)
            st = gemm_int8(Layout::RowMajor, Op::N, Op::T, s.m, s.n, s.k, dA.get(), s.k, dB.get(),
                           s.k, ours.get(), s.n, o);
        else
            st = gemm_fp8<TIn, TIn, TOut>(Layout::RowMajor, Op::N, Op::T, s.m, s.n, s.k, 1.0f,
                                          dA.get(), s.k, {scale_a.get(), scaling}, dB.get(), s.k,
                                          {scale_b.get(), scaling}, 0.0f, ours.get(), s.n, o);
        if (st != Status::Success)
            throw CudaFailure(std::string("gemmlab ") + kind + " failed: " +
                              std::string(to_string(st)) + ": " + gemmlab::last_error());
    };
    LtMatmul lt(fp8, s.m, s.n, s.k, dA.get(), dB.get(), theirs.get(), scale_a.get(), scale_b.get(),
                scales.block_wise);
    run_ours(nullptr);
    lt.run(nullptr);
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    std::mt19937_64 pick(seed + 1);
    const int64_t ours_bad = check_samples<TIn, TOut>("gemmlab", A, B, ours.get(), s.m, s.n, s.k, scales, 256, pick);
    std::mt19937_64 pick2(seed + 1);
    const int64_t lt_bad = check_samples<TIn, TOut>("cuBLASLt", A, B, theirs.get(), s.m, s.n, s.k, scales, 256, pick2);

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

int run_quantized_verify(uint64_t seed) {
    struct Case {
        std::string kind; // fp8, fp8-block or int8
        int64_t m, n, k;
    };
    const Case cases[] = {{"fp8", 127, 129, 257},       {"fp8", 256, 384, 1000},
                          {"fp8-block", 127, 129, 257}, {"fp8-block", 64, 7168, 512},
                          {"int8", 127, 129, 257},      {"int8", 256, 384, 1000}};
    int code = kExitOk;
    for (const Case& c : cases) {
        std::mt19937_64 rng(seed++);
        const bool int8 = c.kind == "int8", block = c.kind == "fp8-block";
        int64_t failures = 0;
        std::string worst;
        const auto check = [&](const auto& r) {
            failures = r.failures;
            worst = r.describe();
        };
        std::vector<double> ref(size_t(c.m * c.n)), mag(ref.size());
        if (int8) {
            std::vector<int8_t> A(size_t(c.m * c.k)), B(size_t(c.n * c.k));
            for (auto* v : {&A, &B})
                for (auto& x : *v) x = int8_t(rng() & 0xFF);
            DeviceBuffer<int8_t> dA(A.size()), dB(B.size());
            DeviceBuffer<int32_t> dC(ref.size());
            dA.copy_from_host(A.data(), A.size());
            dB.copy_from_host(B.data(), B.size());
            const Status st = gemm_int8(Layout::RowMajor, Op::N, Op::T, c.m, c.n, c.k, dA.get(), c.k,
                                        dB.get(), c.k, dC.get(), c.n);
            if (st != Status::Success)
                throw CudaFailure("gemm_int8 failed: " + std::string(to_string(st)) + ": " + last_error());
            std::vector<int32_t> C(ref.size());
            GEMMLAB_CUDA_CHECK(cudaMemcpy(C.data(), dC.get(), C.size() * sizeof(int32_t), cudaMemcpyDeviceToHost));
            std::vector<int64_t> exact(ref.size());
            reference::quantized_gemm<int8_t, int8_t, int32_t>(Layout::RowMajor, Op::N, Op::T, c.m, c.n,
                                                                c.k, 1.0, A.data(), c.k, {}, B.data(), c.k,
                                                                {}, 0.0, nullptr, c.n, ref.data(),
                                                                mag.data(), exact.data());
            for (size_t i = 0; i < C.size(); ++i)
                if (int64_t(C[i]) != exact[i] && failures++ == 0)
                    worst = "(" + std::to_string(i / size_t(c.n)) + ", " + std::to_string(i % size_t(c.n)) +
                            "): got " + std::to_string(C[i]) + ", want " + std::to_string(exact[i]);
        } else {
            using E4M3 = __nv_fp8_e4m3;
            std::vector<E4M3> A(size_t(c.m * c.k)), B(size_t(c.n * c.k));
            std::uniform_real_distribution<float> u(-2.0f, 2.0f);
            for (auto* v : {&A, &B})
                for (auto& x : *v) x = E4M3(u(rng));
            BenchScales scales;
            scales.block_wise = block;
            if (block) {
                std::uniform_real_distribution<float> f(0.5f, 2.0f);
                scales.a.resize(size_t(c.m * ((c.k + 127) / 128)));
                scales.b.resize(size_t(reference::HostScale::block_b_ld(c.k) * ((c.n + 127) / 128)));
                for (auto* v : {&scales.a, &scales.b})
                    for (auto& x : *v) x = f(rng);
            } else {
                scales.a = scales.b = {0.5f};
            }
            DeviceBuffer<E4M3> dA(A.size()), dB(B.size());
            DeviceBuffer<float> dsa(scales.a.size()), dsb(scales.b.size());
            DeviceBuffer<__nv_bfloat16> dC(ref.size());
            dA.copy_from_host(A.data(), A.size());
            dB.copy_from_host(B.data(), B.size());
            dsa.copy_from_host(scales.a.data(), scales.a.size());
            dsb.copy_from_host(scales.b.data(), scales.b.size());
            const Scaling scaling = block ? Scaling::BlockWise : Scaling::PerTensor;
            const Status st = gemm_fp8<E4M3, E4M3, __nv_bfloat16>(
                Layout::RowMajor, Op::N, Op::T, c.m, c.n, c.k, 1.0f, dA.get(), c.k, {dsa.get(), scaling},
                dB.get(), c.k, {dsb.get(), scaling}, 0.0f, dC.get(), c.n);
            if (st != Status::Success)
                throw CudaFailure("gemm_fp8 failed: " + std::string(to_string(st)) + ": " + last_error());
            std::vector<__nv_bfloat16> C(ref.size());
            GEMMLAB_CUDA_CHECK(cudaMemcpy(C.data(), dC.get(), C.size() * sizeof(__nv_bfloat16),
                                          cudaMemcpyDeviceToHost));
            const reference::HostScale sa = block ? reference::HostScale::block_a(scales.a.data(), c.m)
                                                  : reference::HostScale{scales.a.data(), false};
            const reference::HostScale sb = block ? reference::HostScale::block_b(scales.b.data(), c.k)
                                                  : reference::HostScale{scales.b.data(), false};
            reference::quantized_gemm<E4M3, E4M3, __nv_bfloat16>(Layout::RowMajor, Op::N, Op::T, c.m, c.n,
                                                                  c.k, 1.0, A.data(), c.k, sa, B.data(), c.k,
                                                                  sb, 0.0, nullptr, c.n, ref.data(), mag.data());
            check(reference::check_quantized(Layout::RowMajor, c.m, c.n, C.data(), c.n, ref.data(), mag.data(),
                                             block ? reference::fp8_block_gamma(c.k) : reference::fp8_gamma(c.k)));
        }
        std::printf("%-9s %4lldx%4lldx%4lld  %s\n", c.kind.c_str(), static_cast<long long>(c.m),
                    static_cast<long long>(c.n), static_cast<long long>(c.k),
                    failures == 0 ? "pass" : worst.c_str());
        if (failures) code = kExitCheckFailed;
    }
    return code;
}

namespace {

/// E4M3 inputs of one accuracy case (row-major A m x k, B n x k) and their scales: "signed"
/// U[-2, 2), "same-sign" U[0, 2) (sums that only grow, where a short accumulator loses most),
/// rounded to E4M3; per-tensor scales 0.5, block-wise factors U[0.5, 2].
struct AccuracyInputs {
    std::vector<__nv_fp8_e4m3> A, B;
    BenchScales scales;
    AccuracyInputs(int64_t m, int64_t n, int64_t k, bool block_wise, bool same_sign,
                   std::mt19937_64& rng)
        : A(size_t(m * k)), B(size_t(n * k)) {
        std::uniform_real_distribution<float> u(same_sign ? 0.0f : -2.0f, 2.0f);
        for (auto* v : {&A, &B})
            for (auto& x : *v) x = __nv_fp8_e4m3(u(rng));
        scales.block_wise = block_wise;
        if (block_wise) {
            std::uniform_real_distribution<float> f(0.5f, 2.0f);
            scales.a.resize(size_t(m * ((k + 127) / 128)));
            scales.b.resize(size_t(reference::HostScale::block_b_ld(k) * ((n + 127) / 128)));
            for (auto* v : {&scales.a, &scales.b})
                for (auto& x : *v) x = f(rng);
        } else {
            scales.a = scales.b = {0.5f};
        }
    }
};

/// max and median over the elements of |C - Ref| / Mag (Mag = sum of |products|, dequantized):
/// the quantity docs/precision.md bounds by gamma.
struct ErrorStats {
    double max = 0, median = 0;
};
ErrorStats relative_errors(const std::vector<float>& C, const std::vector<double>& ref,
                           const std::vector<double>& mag) {
    std::vector<double> e(C.size());
    for (size_t i = 0; i < C.size(); ++i)
        e[i] = mag[i] > 0 ? std::fabs(double(C[i]) - ref[i]) / mag[i] : (C[i] == 0.0f ? 0.0 : INFINITY);
    ErrorStats s;
    for (double x : e) s.max = std::max(s.max, x);
    std::nth_element(e.begin(), e.begin() + ptrdiff_t(e.size() / 2), e.end());
    s.median = e[e.size() / 2];
    return s;
}

} // namespace

int run_quantized_accuracy(const std::vector<std::string>& kinds, const std::vector<int64_t>& ks,
                           const std::vector<std::string>& inputs, int64_t m, int64_t n,
                           uint64_t seed) {
    std::printf("%-9s %6s %-9s %10s %12s %12s %12s %12s %8s %s\n", "dtype", "k", "inputs",
                "bound", "gemmlab max", "median", "cuBLASLt max", "median", "max/Lt",
                "within bound");
    int code = kExitOk;
    for (const auto& kind : kinds) {
        if (kind == "int8") {
            std::printf("int8: exact (integer sums below 2^31 are exact in int32): the tests "
                        "check it; no error to measure\n");
            continue;
        }
        const bool block = kind == "fp8-block";
        for (int64_t k : ks)
            for (const auto& in_kind : inputs) {
                std::mt19937_64 rng(seed++);
                const AccuracyInputs in(m, n, k, block, in_kind == "same-sign", rng);
                DeviceBuffer<__nv_fp8_e4m3> dA(in.A.size()), dB(in.B.size());
                DeviceBuffer<float> dsa(in.scales.a.size()), dsb(in.scales.b.size());
                DeviceBuffer<float> ours(size_t(m * n)), theirs(size_t(m * n));
                dA.copy_from_host(in.A.data(), in.A.size());
                dB.copy_from_host(in.B.data(), in.B.size());
                dsa.copy_from_host(in.scales.a.data(), in.scales.a.size());
                dsb.copy_from_host(in.scales.b.data(), in.scales.b.size());
                const Scaling scaling = block ? Scaling::BlockWise : Scaling::PerTensor;
                const Status st = gemm_fp8<__nv_fp8_e4m3, __nv_fp8_e4m3, float>(
                    Layout::RowMajor, Op::N, Op::T, m, n, k, 1.0f, dA.get(), k,
                    {dsa.get(), scaling}, dB.get(), k, {dsb.get(), scaling}, 0.0f, ours.get(), n);
                if (st != Status::Success)
                    throw CudaFailure("gemm_fp8 failed: " + std::string(to_string(st)) + ": " +
                                      last_error());
                LtMatmul lt(true, m, n, k, dA.get(), dB.get(), theirs.get(), dsa.get(), dsb.get(),
                            block, /*float_out=*/true);
                lt.run(nullptr);
                GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
                std::vector<float> C_ours(size_t(m * n)), C_lt(size_t(m * n));
                ours.copy_to_host(C_ours.data(), C_ours.size());
                theirs.copy_to_host(C_lt.data(), C_lt.size());
                std::vector<double> ref(size_t(m * n)), mag(ref.size());
                const reference::HostScale sa =
                    block ? reference::HostScale::block_a(in.scales.a.data(), m)
                          : reference::HostScale{in.scales.a.data(), false};
                const reference::HostScale sb =
                    block ? reference::HostScale::block_b(in.scales.b.data(), k)
                          : reference::HostScale{in.scales.b.data(), false};
                reference::quantized_gemm<__nv_fp8_e4m3, __nv_fp8_e4m3, float>(
                    Layout::RowMajor, Op::N, Op::T, m, n, k, 1.0, in.A.data(), k, sa, in.B.data(),
                    k, sb, 0.0, nullptr, n, ref.data(), mag.data());
                const ErrorStats e_ours = relative_errors(C_ours, ref, mag);
                const ErrorStats e_lt = relative_errors(C_lt, ref, mag);
                const double bound = block ? reference::fp8_block_gamma(k) : reference::fp8_gamma(k);
                const bool within = e_ours.max <= bound;
                std::printf("%-9s %6lld %-9s %10.3e %12.3e %12.3e %12.3e %12.3e %8.3f %s\n",
                            kind.c_str(), static_cast<long long>(k), in_kind.c_str(), bound,
                            e_ours.max, e_ours.median, e_lt.max, e_lt.median,
                            e_lt.max > 0 ? e_ours.max / e_lt.max : 0.0, within ? "yes" : "NO");
                if (!within) code = kExitCheckFailed;
            }
    }
    std::printf("E4M3 x E4M3 into float C (cuBLASLt: float D, no fast accumulation), row-major "
                "%lld x %lld, nt; error |C - Ref| / sum |products| against the FP64 product of "
                "the dequantized inputs, over every element; bound: docs/precision.md (FP8).\n",
                static_cast<long long>(m), static_cast<long long>(n));
    return code;
}

bool is_quantized_dtype(const std::string& d) {
    return d == "fp8" || d == "fp8-block" || d == "int8";
}

DtypeSplit split_quantized_dtypes(const std::string& dtypes) {
    DtypeSplit out;
    for (size_t at = 0; at <= dtypes.size();) {
        const size_t comma = std::min(dtypes.find(',', at), dtypes.size());
        const std::string d = dtypes.substr(at, comma - at);
        if (is_quantized_dtype(d)) out.quantized.push_back(d);
        else out.others += (out.others.empty() ? "" : ",") + d;
        at = comma + 1;
    }
    return out;
}

std::string fp8_layer_shapes() {
    // DeepSeek-V3's linear layers (hidden 7168): (n, k) of the fused MLA down projection
    // (2112, 7168), the query and key-value up projections (24576, 1536) and (32768, 512), the
    // attention output (7168, 16384), and an MoE expert's gate+up (4096, 7168) and down
    // (7168, 2048); at 64 and 128 tokens (decode, one expert's share of a batch) and 4096
    // (prefill).
    constexpr int64_t kLayers[][2] = {{2112, 7168}, {24576, 1536}, {32768, 512},
                                      {7168, 16384}, {4096, 7168},  {7168, 2048}};
    std::string out;
    for (int64_t tokens : {64, 128, 4096})
        for (const auto& [n, k] : kLayers)
            out += (out.empty() ? "" : ",") + std::to_string(tokens) + "x" + std::to_string(n) +
                   "x" + std::to_string(k);
    return out;
}

int run_quantized_bench(const std::vector<std::string>& kinds, const std::vector<Shape>& shapes,
                        const TimingPolicy& policy, uint64_t seed) {
    std::vector<Row> rows;
    for (const auto& kind : kinds)
        for (const Shape& s : shapes) {
            if (s.batch != 1) throw std::runtime_error("--dtype " + kind + " runs single products only");
            if (kind != "int8") bench_kind<__nv_fp8_e4m3, __nv_bfloat16>(kind, s, policy, seed++, rows);
            else bench_kind<int8_t, int32_t>(kind, s, policy, seed++, rows);
        }
    std::printf("%-9s %-20s %-11s %10s %12s %9s %s\n", "dtype", "shape (row-major nt)", "kernel",
                "median ms", "TFLOP/TOP/s", "x cuBLASLt", "check (256 samples)");
    int code = kExitOk;
    for (const Row& r : rows) {
        const std::string shape = std::to_string(r.shape.m) + "x" + std::to_string(r.shape.n) + "x" +
                                  std::to_string(r.shape.k);
        std::printf("%-9s %-20s %-11s %10.4f %12.1f %9.3f %s\n", r.kind.c_str(), shape.c_str(),
                    r.kernel.c_str(), r.ms, r.tops, r.ratio,
                    r.failures == 0 ? "pass" : (std::to_string(r.failures) + " failed").c_str());
        if (r.failures) code = kExitCheckFailed;
    }
    std::printf("fp8: E4M3 x E4M3, BF16 C, per-tensor scales (cuBLASLt: A/B_SCALE_POINTER, no fast "
                "accumulation); fp8-block: the same with 1 x 128 scales on A and 128 x 128 on B "
                "(cuBLASLt: VEC128_32F, BLK128x128_32F); int8: int32 C. Ratio > 1: gemmlab "
                "faster.\n");
    return code;
}

} // namespace gemmlab::cli
