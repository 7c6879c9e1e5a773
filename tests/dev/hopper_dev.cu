// Development check of the Hopper rungs 20-24 (their launchers, src/gemm/kernels/2x_*.cu) on the
// GPU machine, outside the library: every rung x op x shape against a double-precision GPU reference, then TFLOP/s
// beside cublasGemmEx in the same run (cuBLAS timed right before each plan). Build and run:
//   cmake --preset device -DGEMMLAB_BUILD_DEV_TESTS=ON
//   cmake --build build/device --target gemmlab_dev_hopper
//   build/device/tests/dev/gemmlab_dev_hopper [quick|profile|explore [rounds]]
// quick: bf16 only; profile: one launch per rung at 4096^3 (for ncu), no checks; explore: rung
// 24 and cuBLAS at 4096^3 and 8192^3, interleaved sample by sample, no checks.

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <random>
#include <vector>

#include <cublas_v2.h>

#include "common/timing.hpp"
#include "gemm/kernels/launchers.hpp"

using namespace gemmlab::detail;
using gemmlab::TimingPolicy, gemmlab::TimingStats, gemmlab::time_device_work, gemmlab::time_interleaved;

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            std::printf("CUDA error %s at line %d: %s\n", cudaGetErrorString(e_), __LINE__, #x);   \
            std::exit(2);                                                                          \
        }                                                                                          \
    } while (0)

template <class TIn, class TOut>
using LaunchFn = void (*)(const HalfArgs<TIn, TOut>&, cudaStream_t);

template <class TIn, class TOut>
struct Named {
    const char* name;
    LaunchFn<TIn, TOut> fn;
};

template <class TIn, class TOut>
std::vector<Named<TIn, TOut>> plans() {
    return {{"20 wgmma", &launch_wgmma<TIn, TOut>},
            {"21 tma", &launch_tma<TIn, TOut>},
            {"22 warp_spec", &launch_warp_specialized<TIn, TOut>},
            {"23 cluster", &launch_cluster_multicast<TIn, TOut>},
            {"24 persist", &launch_persistent<TIn, TOut>}};
}

template <class T> float to_f(T x) { return float(x); }
template <class T> T from_f(float x);
template <> __nv_bfloat16 from_f(float x) { return __float2bfloat16_rn(x); }
template <> __half from_f(float x) { return __float2half_rn(x); }
template <> float from_f(float x) { return x; }

template <class TIn>
__global__ void reference_kernel(int64_t m, int64_t n, int64_t k, const TIn* A, int64_t lda,
                                 bool ta, const TIn* B, int64_t ldb, bool tb, double* ref,
                                 double* mag) {
    const int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
    const int64_t j = blockIdx.y;
    if (i >= m) return;
    double s = 0, a = 0;
    for (int64_t l = 0; l < k; ++l) {
        const double x = double(float(ta ? A[l + i * lda] : A[i + l * lda]));
        const double y = double(float(tb ? B[j + l * ldb] : B[l + j * ldb]));
        s += x * y;
        a += std::fabs(x * y);
    }
    ref[i + j * m] = s;
    mag[i + j * m] = a;
}

template <class T> double unit_out() { return 0; }
template <> double unit_out<__nv_bfloat16>() { return std::ldexp(1.0, -8); }
template <> double unit_out<__half>() { return std::ldexp(1.0, -11); }

struct Rng {
    std::mt19937_64 r{12345};
    std::uniform_real_distribution<float> u{-1.f, 1.f};
    float operator()() { return u(r); }
};

template <class TIn, class TOut>
int check_case(Rng& rng, int64_t m, int64_t n, int64_t k, bool ta, bool tb, float alpha,
               float beta, const char* tname, int& cases) {
    const int64_t ar = ta ? k : m, ac = ta ? m : k, br = tb ? n : k, bc = tb ? k : n;
    const int64_t lda = (ar + 7) / 8 * 8 + (ar % 3 == 0 ? 8 : 0), ldb = (br + 7) / 8 * 8,
                  ldc = beta == 0 ? (m + 7) / 8 * 8 + 8 : m + 5; // beta == 0: C fit for TMA
    std::vector<TIn> hA(lda * ac), hB(ldb * bc);
    for (auto& x : hA) x = from_f<TIn>(rng());
    for (auto& x : hB) x = from_f<TIn>(rng());
    std::vector<TOut> hC(ldc * n);
    for (auto& x : hC) x = beta == 0 ? from_f<TOut>(NAN) : from_f<TOut>(rng());
    TIn *dA, *dB;
    TOut* dC;
    double *dref, *dmag;
    CK(cudaMalloc(&dA, hA.size() * sizeof(TIn)));
    CK(cudaMalloc(&dB, hB.size() * sizeof(TIn)));
    CK(cudaMalloc(&dC, hC.size() * sizeof(TOut)));
    CK(cudaMalloc(&dref, m * n * 8));
    CK(cudaMalloc(&dmag, m * n * 8));
    CK(cudaMemcpy(dA, hA.data(), hA.size() * sizeof(TIn), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dB, hB.data(), hB.size() * sizeof(TIn), cudaMemcpyHostToDevice));
    reference_kernel<<<dim3(unsigned((m + 127) / 128), unsigned(n)), 128>>>(m, n, k, dA, lda, ta, dB,
                                                                          ldb, tb, dref, dmag);
    CK(cudaGetLastError());
    std::vector<double> ref(m * n), mag(m * n);
    CK(cudaMemcpy(ref.data(), dref, m * n * 8, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(mag.data(), dmag, m * n * 8, cudaMemcpyDeviceToHost));
    const double gamma = 2.0 * double(k + 3) * std::ldexp(1.0, -24);
    const double uo = unit_out<TOut>();
    int failed = 0;
    for (const auto& pl : plans<TIn, TOut>()) {
        ++cases;
        CK(cudaMemcpy(dC, hC.data(), hC.size() * sizeof(TOut), cudaMemcpyHostToDevice));
        HalfArgs<TIn, TOut> g{m, n, k, alpha, dA, lda, ta, dB, ldb, tb, beta, dC, ldc};
        pl.fn(g, nullptr);
        CK(cudaGetLastError());
        CK(cudaDeviceSynchronize());
        std::vector<TOut> out(hC.size());
        CK(cudaMemcpy(out.data(), dC, out.size() * sizeof(TOut), cudaMemcpyDeviceToHost));
        int64_t bad = 0, bi = -1, bj = -1;
        double worst = 0;
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                const double c0 = beta == 0 ? 0 : double(to_f(hC[i + j * ldc]));
                const double want = alpha * ref[i + j * m] + beta * c0;
                const double bound = gamma * (std::fabs(alpha) * mag[i + j * m] + std::fabs(beta * c0)) +
                                     uo * std::fabs(want) + (uo > 0 ? std::ldexp(1.0, -25) : 0);
                const double got = double(to_f(out[i + j * ldc]));
                const double err = std::fabs(got - want);
                if (!(err <= bound)) {
                    ++bad;
                    const double r = bound > 0 ? err / bound : INFINITY;
                    if (!(r <= worst)) { worst = r; bi = i; bj = j; }
                }
            }
        // the padding between columns must be untouched
        for (int64_t j = 0; j < n && bad == 0; ++j)
            for (int64_t i = m; i < ldc; ++i)
                if (std::memcmp(&out[i + j * ldc], &hC[i + j * ldc], sizeof(TOut)) != 0) {
                    ++bad;
                    std::printf("padding (%lld, %lld) changed: %g (was %g)\n", (long long)i, (long long)j,
                                double(to_f(out[i + j * ldc])), double(to_f(hC[i + j * ldc])));
                    break;
                }
        if (bad) {
            ++failed;
            std::printf("FAIL %-14s %s %c%c %lldx%lldx%lld a=%g b=%g: %lld bad, worst (%lld,%lld) ratio %g\n",
                        pl.name, tname, ta ? 't' : 'n', tb ? 't' : 'n', (long long)m, (long long)n,
                        (long long)k, alpha, beta, (long long)bad, (long long)bi, (long long)bj, worst);
        }
    }
    cudaFree(dA); cudaFree(dB); cudaFree(dC); cudaFree(dref); cudaFree(dmag);
    return failed;
}

template <class TIn, class TOut>
int check_all(Rng& rng, const char* tname, int& cases) {
    const int64_t shapes[][3] = {{1, 1, 1},     {7, 17, 9},      {127, 129, 65}, {128, 256, 64},
                                 {1003, 517, 259}, {300, 1000, 1000}, {200, 300, 70},
                                 {2048, 2048, 2048}, {2304, 2048, 1000}, {3000, 3000, 200},
                                 {1100, 4000, 777}};
    int failed = 0;
    for (int op = 0; op < 4; ++op)
        for (const auto& s : shapes) {
            failed += check_case<TIn, TOut>(rng, s[0], s[1], s[2], op & 1, op & 2, 1.0f, 0.0f, tname, cases);
            if (s[0] < 2048 || s[2] < 1024)
                failed += check_case<TIn, TOut>(rng, s[0], s[1], s[2], op & 1, op & 2, 1.5f, -0.5f, tname, cases);
        }
    return failed;
}

/// A size^3 problem for timing: A and B uniform in [-1, 1] (the same draws every time), C, and
/// a cuBLAS handle; freed with the object.
template <class TIn, class TOut>
struct SquareOperands {
    int64_t size;
    TIn* A = nullptr;
    TIn* B = nullptr;
    TOut* C = nullptr;
    cublasHandle_t handle = nullptr;

    explicit SquareOperands(int64_t size_) : size(size_) {
        const size_t elems = size_t(size) * size_t(size);
        CK(cudaMalloc(&A, elems * sizeof(TIn)));
        CK(cudaMalloc(&B, elems * sizeof(TIn)));
        CK(cudaMalloc(&C, elems * sizeof(TOut)));
        Rng rng;
        std::vector<TIn> h(elems);
        for (TIn* d : {A, B}) {
            for (auto& x : h) x = from_f<TIn>(rng());
            CK(cudaMemcpy(d, h.data(), h.size() * sizeof(TIn), cudaMemcpyHostToDevice));
        }
        cublasCreate(&handle);
    }
    ~SquareOperands() {
        cublasDestroy(handle);
        cudaFree(A);
        cudaFree(B);
        cudaFree(C);
    }
    SquareOperands(const SquareOperands&) = delete;
    SquareOperands& operator=(const SquareOperands&) = delete;

    /// C = op(A) op(B) for the plans (column-major, alpha 1, beta 0).
    HalfArgs<TIn, TOut> args(bool ta, bool tb) const {
        return {size, size, size, 1.0f, A, size, ta, B, size, tb, 0.0f, C, size};
    }
    /// The same product by cublasGemmEx, FP32 compute.
    void cublas(bool ta, bool tb, cudaDataType ti, cudaDataType to) const {
        const float alpha = 1, beta = 0;
        const int s = int(size);
        cublasGemmEx(handle, ta ? CUBLAS_OP_T : CUBLAS_OP_N, tb ? CUBLAS_OP_T : CUBLAS_OP_N, s, s, s,
                     &alpha, A, ti, s, B, ti, s, &beta, C, to, s, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT);
    }
    double tflops(double ms) const { return 2.0 * double(size) * size * size / (ms * 1e-3) / 1e12; }
};

template <class TIn, class TOut>
void time_all(int64_t size, bool ta, bool tb, cudaDataType ti, cudaDataType to, const char* tname) {
    const SquareOperands<TIn, TOut> ops(size);
    TimingPolicy policy; // 3 warm-up runs, then 10 timed
    policy.max_samples = policy.min_samples = 10;
    policy.min_total_ms = 0;
    const auto time = [&](const std::function<void(cudaStream_t)>& work) {
        const TimingStats t = time_device_work(work, nullptr, policy);
        CK(cudaGetLastError());
        return ops.tflops(t.median_ms);
    };
    // cuBLAS timed right before each plan, so that both see the same clocks and temperature.
    for (const auto& pl : plans<TIn, TOut>()) {
        const HalfArgs<TIn, TOut> g = ops.args(ta, tb);
        const double cub = time([&](cudaStream_t) { ops.cublas(ta, tb, ti, to); });
        const double t = time([&](cudaStream_t) { pl.fn(g, nullptr); });
        std::printf("time %s %c%c %lld^3: %-14s %.1f TFLOP/s, cublas %.1f: %.3fx\n", tname,
                    ta ? 't' : 'n', tb ? 't' : 'n', (long long)size, pl.name, t, cub, t / cub);
    }
}

// Rung 24 beside cuBLAS, interleaved sample by sample (time_interleaved: each round
// runs every contender once, so drift in clocks and temperature falls on all alike); medians
// of `rounds` samples each.
template <class TIn, class TOut>
void explore(int64_t size, cudaDataType ti, cudaDataType to, const char* tname, int rounds) {
    const SquareOperands<TIn, TOut> ops(size);
    const HalfArgs<TIn, TOut> g = ops.args(false, false);
    std::vector<std::string> names = {"cublas"};
    std::vector<std::function<void(cudaStream_t)>> works = {
        [&](cudaStream_t) { ops.cublas(false, false, ti, to); }};
    for (const auto& pl : plans<TIn, TOut>())
        if (std::string(pl.name).rfind("24", 0) == 0) {
            names.push_back(pl.name);
            works.push_back([&g, fn = pl.fn](cudaStream_t) { fn(g, nullptr); });
        }
    TimingPolicy policy; // 3 warm-up runs each, then `rounds` rounds
    policy.max_samples = policy.min_samples = rounds;
    policy.min_total_ms = 0;
    const std::vector<TimingStats> t = time_interleaved(works, nullptr, policy);
    CK(cudaGetLastError());
    for (size_t i = 0; i < works.size(); ++i)
        std::printf("explore %s nn %lld^3: %-14s %.4f ms %.1f TFLOP/s %.3fx cublas (min %.4f max %.4f)\n",
                    tname, (long long)size, names[i].c_str(), t[i].median_ms,
                    ops.tflops(t[i].median_ms), t[0].median_ms / t[i].median_ms, t[i].min_ms,
                    t[i].max_ms);
}

int main(int argc, char** argv) {
    const std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "explore") {
        const int rounds = argc > 2 ? std::atoi(argv[2]) : 50;
        for (int rep = 0; rep < 2; ++rep) {
            explore<__nv_bfloat16, __nv_bfloat16>(4096, CUDA_R_16BF, CUDA_R_16BF, "bf16", rounds);
            explore<__half, __half>(4096, CUDA_R_16F, CUDA_R_16F, "f16", rounds);
            explore<__nv_bfloat16, __nv_bfloat16>(8192, CUDA_R_16BF, CUDA_R_16BF, "bf16", rounds);
            explore<__half, __half>(8192, CUDA_R_16F, CUDA_R_16F, "f16", rounds);
            explore<__half, float>(8192, CUDA_R_16F, CUDA_R_32F, "f16-f32", rounds);
        }
        return 0;
    }
    const bool quick = mode == "quick";
    if (mode == "profile") { // one launch per plan at 4096^3 bf16 nn, for ncu
        const int64_t s = 4096;
        __nv_bfloat16 *a, *b, *c;
        CK(cudaMalloc(&a, s * s * 2));
        CK(cudaMalloc(&b, s * s * 2));
        CK(cudaMalloc(&c, s * s * 2));
        CK(cudaMemset(a, 0x3c, s * s * 2));
        CK(cudaMemset(b, 0x3c, s * s * 2));
        for (const auto& pl : plans<__nv_bfloat16, __nv_bfloat16>()) {
            HalfArgs<__nv_bfloat16, __nv_bfloat16> g{s, s, s, 1.f, a, s, false, b, s, false, 0.f, c, s};
            pl.fn(g, nullptr);
        }
        CK(cudaDeviceSynchronize());
        return 0;
    }
    Rng rng;
    int cases = 0;
    int failed = 0;
    failed += check_all<__nv_bfloat16, __nv_bfloat16>(rng, "bf16", cases);
    if (!quick) failed += check_all<__half, float>(rng, "f16-f32", cases);
    std::printf("hopper dev: %d of %d cases passed\n", cases - failed, cases);
    time_all<__nv_bfloat16, __nv_bfloat16>(4096, false, false, CUDA_R_16BF, CUDA_R_16BF, "bf16");
    time_all<__nv_bfloat16, __nv_bfloat16>(8192, false, false, CUDA_R_16BF, CUDA_R_16BF, "bf16");
    if (!quick) {
        time_all<__nv_bfloat16, __nv_bfloat16>(4096, true, false, CUDA_R_16BF, CUDA_R_16BF, "bf16");
        time_all<__half, float>(8192, false, false, CUDA_R_16F, CUDA_R_32F, "f16-f32");
    }
    return failed ? 1 : 0;
}
