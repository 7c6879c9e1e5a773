// gemmlab_dev_mma_sync_f16: standalone GPU self-test and timing of rung 19 (mma_sync_f16), calling
// launch_mma_sync_f16 directly, so it needs neither the half-precision API nor a registry row.
// Build and run (GPU machine, from the repository root):
//   cmake --preset device -DGEMMLAB_BUILD_DEV_TESTS=ON &&
//   cmake --build build/device --target gemmlab_dev_mma_sync_f16 &&
//   build/device/tests/dev/gemmlab_dev_mma_sync_f16 [--no-timing] [--seed N]
//
// Correctness: every input/output type pair (bf16->bf16, bf16->f32, f16->f16, f16->f32) x every
// op pair (NN, NT, TN, TT) x shapes 1x1x1, 7x17x9, 127x129x65, 128x128x64, 1003x517x259,
// 2048x2048x2048 x four alignments (all 16-byte aligned with ld a multiple of 8; all offset by one
// element with ld = minimum + 3; A alone offset; B alone offset) x two epilogues (beta = 0 on a
// NaN-filled C; alpha = 1.5, beta = -0.5). Inputs uniform in [-1, 1] rounded to the input type,
// fresh per case (seed printed). Each element must satisfy, against a CPU double reference,
//   |C - ref| <= 2 (k + 3) 2^-24 Mag + u_out |ref| + eta_out,
//   Mag = |alpha| sum_p |a_ip| |b_pj| + |beta| |c_ij|,
// u_out = 2^-8 (bf16), 2^-11 (f16), 0 (f32): the FP32 accumulation and epilogue, then one
// rounding to the output type; eta_out = half the output type's smallest subnormal (2^-134, 2^-25,
// 2^-150), the absolute error of that rounding when the result underflows. Every element of the
// output is checked, except at 2048^3 where the CPU reference checks 16 whole rows and 16 whole
// columns (edges included). Elements of C's buffer outside the m x n matrix (ld padding, the
// offset element) must come back bit-for-bit unchanged.
// Timing: 4096^3 bf16->bf16 NN (column-major, beta = 0), both instantiated configurations and
// cuBLAS (cublasGemmEx, bf16 in/out, FP32 compute) in the same run: CUDA events, 3 warm-up runs,
// median of 10.

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cublas_v2.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/timing.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"

namespace {

using namespace gemmlab;
using namespace gemmlab::detail;

// ------------------------------------------------------------------------------ types

template <class T>
struct TypeInfo;
template <>
struct TypeInfo<__nv_bfloat16> {
    static constexpr const char* kName = "bf16";
    static double u() { return std::ldexp(1.0, -8); }
    static double eta() { return std::ldexp(1.0, -134); }
    static float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
    static __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
};
template <>
struct TypeInfo<__half> {
    static constexpr const char* kName = "f16";
    static double u() { return std::ldexp(1.0, -11); }
    static double eta() { return std::ldexp(1.0, -25); }
    static float to_float(__half x) { return __half2float(x); }
    static __half from_float(float x) { return __float2half_rn(x); }
};
template <>
struct TypeInfo<float> {
    static constexpr const char* kName = "f32";
    static double u() { return 0; }
    static double eta() { return std::ldexp(1.0, -150); }
    static float to_float(float x) { return x; }
    static float from_float(float x) { return x; }
};

// ------------------------------------------------------------------------------ cases

struct Shape {
    int64_t m, n, k;
};

const Shape kShapes[] = {{1, 1, 1},       {7, 17, 9},        {127, 129, 65},
                         {128, 128, 64},  {1003, 517, 259},  {2048, 2048, 2048}};

enum class Align { All, None, AOnly, BOnly }; // which operands stay 16-byte aligned
const Align kAligns[] = {Align::All, Align::None, Align::AOnly, Align::BOnly};
const char* align_name(Align a) {
    switch (a) {
    case Align::All: return "aligned";
    case Align::None: return "unaligned";
    case Align::AOnly: return "B-unaligned";
    case Align::BOnly: return "A-unaligned";
    }
    return "?";
}

/// A column-major matrix stored rows x cols with leading dimension ld, `off` elements into its
/// buffer. Aligned: ld rounded up to a multiple of 8, no offset (the 16-byte path); otherwise
/// one element in and ld = rows + 3 (the narrow path).
struct Storage {
    int64_t rows, cols, ld, off;
    Storage(int64_t r, int64_t c, bool aligned)
        : rows(r), cols(c), ld(aligned ? (r + 7) / 8 * 8 : r + 3), off(aligned ? 0 : 1) {}
    size_t elems() const { return size_t(off + ld * (cols - 1) + rows); } // exactly what is used
    size_t at(int64_t r, int64_t c) const { return size_t(off + r + c * ld); }
};

struct Counters {
    int cases = 0, passed = 0;
};

template <class T>
void fill_uniform(std::vector<T>& v, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> dist(-1.f, 1.f);
    for (auto& x : v) x = TypeInfo<T>::from_float(dist(rng));
}

/// The checked part of one case's result: the worst element and how many broke the bound.
struct Verdict {
    int64_t checked = 0, bad = 0;
    double worst_ratio = -1; // |err| / bound of the worst element (inf for NaN)
    int64_t wi = 0, wj = 0;
    double got = 0, want = 0, bound = 0;
    int64_t padding_changed = 0;
};

/// Runs and checks one (types, ops, shape, alignment) setup for both epilogues.
template <class TIn, class TOut>
void run_setup(const Shape& s, bool ta, bool tb, Align align, std::mt19937_64& rng, Counters& count) {
    using In = TypeInfo<TIn>;
    using Out = TypeInfo<TOut>;
    const int64_t m = s.m, n = s.n, k = s.k;
    const Storage sa(ta ? k : m, ta ? m : k, align == Align::All || align == Align::AOnly);
    const Storage sb(tb ? n : k, tb ? k : n, align == Align::All || align == Align::BOnly);
    const Storage sc(m, n, align == Align::All);

    std::vector<TIn> ha(sa.elems()), hb(sb.elems());
    fill_uniform(ha, rng); // padding too: a kernel that reads it gets a wrong answer
    fill_uniform(hb, rng);
    DeviceBuffer<TIn> da(ha.size()), db(hb.size());
    DeviceBuffer<TOut> dc(sc.elems());
    da.copy_from_host(ha.data(), ha.size());
    db.copy_from_host(hb.data(), hb.size());

    // op(A) as k-contiguous rows (at[p + i k]) and op(B) as k-contiguous columns (bt[p + j k]),
    // in float (exact), for a reference whose inner loop is contiguous.
    std::vector<float> at(size_t(m * k)), bt(size_t(n * k));
    for (int64_t i = 0; i < m; ++i)
        for (int64_t p = 0; p < k; ++p) at[size_t(p + i * k)] = In::to_float(ha[ta ? sa.at(p, i) : sa.at(i, p)]);
    for (int64_t j = 0; j < n; ++j)
        for (int64_t p = 0; p < k; ++p) bt[size_t(p + j * k)] = In::to_float(hb[tb ? sb.at(j, p) : sb.at(p, j)]);

    // Rows and columns checked: all, or 16 of each at 2048^3 (the first and last included).
    const bool sampled = double(m) * double(n) * double(k) > 2e9;
    std::vector<char> row_checked(size_t(m), sampled ? 0 : 1), col_full(size_t(n), sampled ? 0 : 1);
    if (sampled) {
        row_checked[0] = row_checked[size_t(m - 1)] = 1;
        col_full[0] = col_full[size_t(n - 1)] = 1;
        std::uniform_int_distribution<int64_t> ri(0, m - 1), ci(0, n - 1);
        for (int t = 0; t < 14; ++t) row_checked[size_t(ri(rng))] = col_full[size_t(ci(rng))] = 1;
    }

    const struct {
        float alpha, beta;
    } epilogues[] = {{1.f, 0.f}, {1.5f, -0.5f}};
    for (const auto& ep : epilogues) {
        std::vector<TOut> hc0(sc.elems());
        if (ep.beta == 0.f) std::fill(hc0.begin(), hc0.end(), Out::from_float(NAN));
        else fill_uniform(hc0, rng);
        dc.copy_from_host(hc0.data(), hc0.size());

        const HalfArgs<TIn, TOut> args{m, n, k, ep.alpha, da.get() + sa.off, sa.ld, ta,
                                       db.get() + sb.off, sb.ld, tb, ep.beta, dc.get() + sc.off, sc.ld};
        char name[160];
        std::snprintf(name, sizeof name, "%s->%s %c%c %lldx%lldx%lld %s alpha=%g beta=%g", In::kName,
                      Out::kName, ta ? 'T' : 'N', tb ? 'T' : 'N', (long long)m, (long long)n, (long long)k,
                      align_name(align), ep.alpha, ep.beta);
        ++count.cases;
        try {
            launch_mma_sync_f16(args, nullptr);
            GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
        } catch (const std::exception& e) {
            std::printf("FAIL %s: %s\n", name, e.what());
            continue;
        }
        std::vector<TOut> hc(sc.elems());
        dc.copy_to_host(hc.data(), hc.size());

        // Check columns in parallel; each thread keeps its own verdict.
        const unsigned nthreads = std::max(1u, std::min(std::thread::hardware_concurrency(), 32u));
        std::vector<Verdict> verdicts(nthreads);
        std::atomic<int64_t> next_col{0};
        const auto work = [&](unsigned tid) {
            Verdict& v = verdicts[tid];
            for (int64_t j; (j = next_col.fetch_add(1)) < n;) {
                const float* bj = bt.data() + j * k;
                for (int64_t i = 0; i < m; ++i) {
                    if (!row_checked[size_t(i)] && !col_full[size_t(j)]) continue;
                    const float* ai = at.data() + i * k;
                    double dot = 0, mag = 0;
                    for (int64_t p = 0; p < k; ++p) {
                        const double prod = double(ai[p]) * double(bj[p]);
                        dot += prod;
                        mag += std::fabs(prod);
                    }
                    double want = double(ep.alpha) * dot;
                    mag *= std::fabs(double(ep.alpha));
                    if (ep.beta != 0.f) {
                        const double c0 = Out::to_float(hc0[sc.at(i, j)]);
                        want += double(ep.beta) * c0;
                        mag += std::fabs(double(ep.beta) * c0);
                    }
                    const double got = Out::to_float(hc[sc.at(i, j)]);
                    const double bound =
                        2.0 * double(k + 3) * std::ldexp(1.0, -24) * mag + Out::u() * std::fabs(want) + Out::eta();
                    const double err = std::fabs(got - want);
                    ++v.checked;
                    const double ratio = err <= bound ? err / bound : (std::isnan(err) ? INFINITY : err / bound);
                    if (!(err <= bound)) ++v.bad;
                    if (ratio > v.worst_ratio) {
                        v.worst_ratio = ratio;
                        v.wi = i, v.wj = j, v.got = got, v.want = want, v.bound = bound;
                    }
                }
            }
        };
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < nthreads; ++t) pool.emplace_back(work, t);
        for (auto& t : pool) t.join();

        Verdict all;
        for (const auto& v : verdicts) {
            all.checked += v.checked;
            all.bad += v.bad;
            if (v.worst_ratio > all.worst_ratio) {
                const int64_t checked = all.checked, bad = all.bad;
                all = v;
                all.checked = checked, all.bad = bad;
            }
        }
        // Outside m x n: the offset element and the ld padding of every column.
        for (size_t e = 0; e < hc.size(); ++e) {
            const int64_t rel = int64_t(e) - sc.off;
            const bool inside = rel >= 0 && rel % sc.ld < m;
            if (!inside && std::memcmp(&hc[e], &hc0[e], sizeof(TOut)) != 0) ++all.padding_changed;
        }
        if (all.bad == 0 && all.padding_changed == 0) {
            ++count.passed;
            continue;
        }
        std::printf("FAIL %s: %lld of %lld checked elements outside the bound", name, (long long)all.bad,
                    (long long)all.checked);
        if (all.bad > 0)
            std::printf("; worst C(%lld, %lld) = %.9g, want %.9g (|err| %.3g, bound %.3g)", (long long)all.wi,
                        (long long)all.wj, all.got, all.want, std::fabs(all.got - all.want), all.bound);
        if (all.padding_changed > 0)
            std::printf("; %lld elements outside m x n written", (long long)all.padding_changed);
        std::printf("\n");
    }
}

template <class TIn, class TOut>
void run_type_pair(std::mt19937_64& rng, Counters& count) {
    for (const Shape& s : kShapes)
        for (int op = 0; op < 4; ++op)
            for (Align al : kAligns) run_setup<TIn, TOut>(s, op & 2, op & 1, al, rng, count);
}

// ------------------------------------------------------------------------------ timing

void time_4096() {
    constexpr int64_t N = 4096;
    std::mt19937_64 rng(12345);
    std::vector<__nv_bfloat16> ha(size_t(N * N)), hb(size_t(N * N));
    fill_uniform(ha, rng);
    fill_uniform(hb, rng);
    DeviceBuffer<__nv_bfloat16> da(ha.size()), db(hb.size()), dc(size_t(N * N));
    da.copy_from_host(ha.data(), ha.size());
    db.copy_from_host(hb.data(), hb.size());
    const HalfArgs<__nv_bfloat16, __nv_bfloat16> args{N, N, N, 1.f, da.get(), N, false,
                                                      db.get(), N, false, 0.f, dc.get(), N};
    TimingPolicy policy;
    policy.warmup = 3, policy.min_samples = 10, policy.max_samples = 10, policy.min_total_ms = 0;
    const double flops = 2.0 * double(N) * double(N) * double(N);
    cudaStream_t stream = nullptr;

    const auto report = [&](const char* what, const TimingStats& t, double ref_tflops) {
        const double tflops = flops / (t.median_ms * 1e-3) / 1e12;
        std::printf("  %-44s %8.1f TFLOP/s  (median %.3f ms, min %.3f, max %.3f)", what, tflops, t.median_ms,
                    t.min_ms, t.max_ms);
        if (ref_tflops > 0) std::printf("  %.2fx cuBLAS", tflops / ref_tflops);
        std::printf("\n");
        return tflops;
    };
    std::printf("timing 4096^3 bf16->bf16 NN, column-major, beta = 0 (3 warm-up, median of 10):\n");

    cublasHandle_t handle;
    GEMMLAB_CUBLAS_CHECK(cublasCreate(&handle));
    GEMMLAB_CUBLAS_CHECK(cublasSetStream(handle, stream));
    const float one = 1.f, zero = 0.f;
    const TimingStats tc = time_device_work(
        [&](cudaStream_t) {
            GEMMLAB_CUBLAS_CHECK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, da.get(),
                                              CUDA_R_16BF, N, db.get(), CUDA_R_16BF, N, &zero, dc.get(),
                                              CUDA_R_16BF, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        },
        stream, policy);
    const double ref = report("cuBLAS cublasGemmEx (bf16, FP32 compute)", tc, 0);
    GEMMLAB_CUBLAS_CHECK(cublasDestroy(handle));

    report("mma_sync_f16 (default: 128x128x32 w64x32 s4 b2)",
           time_device_work([&](cudaStream_t st) { launch_mma_sync_f16(args, st); }, stream, policy), ref);
    const auto wide = [&](cudaStream_t st) {
        mma::launch_mma_sync_f16_cfg<mma::Cfg128x256w64x64s3<32>>(args, st);
    };
    report("mma_sync_f16 128x256x32 w64x64 s3", time_device_work(wide, stream, policy), ref);
}

} // namespace

int main(int argc, char** argv) {
    bool timing = true;
    uint64_t seed = std::random_device{}();
    for (int i = 1; i < argc; ++i) {
        if (std::strcmp(argv[i], "--no-timing") == 0) timing = false;
        else if (std::strcmp(argv[i], "--seed") == 0 && i + 1 < argc)
            seed = std::strtoull(argv[++i], nullptr, 10);
        else {
            std::printf("usage: %s [--no-timing] [--seed N]\n", argv[0]);
            return 2;
        }
    }
    try {
        int dev = 0;
        cudaDeviceProp prop{};
        GEMMLAB_CUDA_CHECK(cudaGetDevice(&dev));
        GEMMLAB_CUDA_CHECK(cudaGetDeviceProperties(&prop, dev));
        std::printf("mma_sync_f16 dev: %s (sm_%d%d), seed %llu\n", prop.name, prop.major, prop.minor,
                    (unsigned long long)seed);
        std::mt19937_64 rng(seed);
        Counters count;
        run_type_pair<__nv_bfloat16, __nv_bfloat16>(rng, count);
        run_type_pair<__nv_bfloat16, float>(rng, count);
        run_type_pair<__half, __half>(rng, count);
        run_type_pair<__half, float>(rng, count);
        if (timing) time_4096();
        std::printf("mma_sync_f16 dev: %d of %d cases passed\n", count.passed, count.cases);
        return count.passed == count.cases ? 0 : 1;
    } catch (const std::exception& e) {
        std::printf("mma_sync_f16 dev: error: %s\n", e.what());
        return 1;
    }
}
