// The quantized GEMMs' CPU reference and check (quantized_reference.hpp): op(A) and op(B) are
// decoded once into k-contiguous double panels, then each output is a double dot product;
// columns of C are spread over threads.

#include "gemm/reference/quantized_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

namespace gemmlab::reference {

namespace {

double value_of(__nv_fp8_e4m3 x) { return double(float(x)); }
double value_of(__nv_fp8_e5m2 x) { return double(float(x)); }
double value_of(int8_t x) { return double(x); }
double value_of(float x) { return double(x); }
double value_of(int32_t x) { return double(x); }
double value_of(__nv_bfloat16 x) { return double(__bfloat162float(x)); }
double value_of(__half x) { return double(__half2float(x)); }

/// op(X) (rows x k) as a dense row-major panel of doubles: panel[r * k + p] = op(X)(r, p), where
/// the op is `trans` and X is stored in `layout` with leading dimension ld (gemm's convention).
template <class T>
std::vector<double> panel_of(Layout layout, bool trans, bool is_b, int64_t rows, int64_t k,
                             const T* X, int64_t ld) {
    std::vector<double> out(size_t(rows * k));
    for (int64_t r = 0; r < rows; ++r)
        for (int64_t p = 0; p < k; ++p) {
            // op(A)(r, p) / op(B)(p, r) as stored: (i, j) of the stored matrix.
            int64_t i = is_b ? p : r, j = is_b ? r : p;
            if (trans) std::swap(i, j);
            const int64_t off = layout == Layout::RowMajor ? i * ld + j : i + j * ld;
            out[size_t(r * k + p)] = value_of(X[off]);
        }
    return out;
}

/// The quantized result types' formats: unit roundoff, half the smallest subnormal, and where
/// round to nearest overflows (the largest finite value plus half its ulp).
template <class T>
struct OutFormat;
template <> struct OutFormat<float> {
    static constexpr double u = 0x1p-24, eta = 0x1p-150, overflow = 0x1p128 * (1 - 0x1p-25);
};
template <> struct OutFormat<__nv_bfloat16> {
    static constexpr double u = 0x1p-8, eta = 0x1p-134, overflow = 0x1p128 * (1 - 0x1p-9);
};
template <> struct OutFormat<__half> {
    static constexpr double u = 0x1p-11, eta = 0x1p-25, overflow = 65520.0;
};
/// The FP8 formats saturate (Fp8Output): `largest` is what a result past them becomes.
template <> struct OutFormat<__nv_fp8_e4m3> {
    static constexpr double u = 0x1p-4, eta = 0x1p-10, largest = 448.0;
};
template <> struct OutFormat<__nv_fp8_e5m2> {
    static constexpr double u = 0x1p-3, eta = 0x1p-17, largest = 57344.0;
};
template <class T>
constexpr bool kSaturates = std::is_same_v<T, __nv_fp8_e4m3> || std::is_same_v<T, __nv_fp8_e5m2>;

} // namespace

template <class TA, class TB, class TOut>
void quantized_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, double alpha,
                    const TA* A, int64_t lda, HostScale scale_a, const TB* B, int64_t ldb,
                    HostScale scale_b, double beta, const TOut* C0, int64_t ldc, double* ref,
                    double* mag, int64_t* sum_int64, int threads) {
    if (m == 0 || n == 0) return;
    const bool row = layout == Layout::RowMajor;
    const bool product = k > 0 && alpha != 0.0;
    const std::vector<double> a = product ? panel_of(layout, op_a == Op::T, false, m, k, A, lda)
                                          : std::vector<double>{};
    const std::vector<double> b = product ? panel_of(layout, op_b == Op::T, true, n, k, B, ldb)
                                          : std::vector<double>{};
    const bool blocks = scale_a.block_wise && scale_b.block_wise;
    const auto column = [&](int64_t j) {
        for (int64_t i = 0; i < m; ++i) {
            double sum = 0, abs_sum = 0, block_sum = 0, block_abs = 0;
            int64_t exact = 0;
            if (product)
                for (int64_t p = 0; p < k; ++p) {
                    const double x = a[size_t(i * k + p)], y = b[size_t(j * k + p)];
                    block_sum += x * y;
                    block_abs += std::fabs(x) * std::fabs(y);
                    if constexpr (std::is_same_v<TA, int8_t>) exact += int64_t(x) * int64_t(y);
                    if (p % 128 == 127 || p == k - 1) { // a k block ends: dequantize it
                        const double f = blocks ? scale_a.at(i, p / 128) * scale_b.at(j, p / 128) : 1.0;
                        sum += f * block_sum;
                        abs_sum += std::fabs(f) * block_abs;
                        block_sum = block_abs = 0;
                    }
                }
            const double s = product ? alpha * (blocks ? 1.0 : scale_a.at(i) * scale_b.at(j)) : 0.0;
            double c0 = 0;
            if (beta != 0.0) c0 = value_of(C0[row ? i * ldc + j : i + j * ldc]);
            const int64_t out = row ? i * n + j : i + j * m;
            ref[out] = (product ? s * sum : 0.0) + beta * c0;
            mag[out] = (product ? std::fabs(s) * abs_sum : 0.0) + std::fabs(beta * c0);
            if (sum_int64) sum_int64[out] = exact;
        }
    };
    int t = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
    t = int(std::min<int64_t>(t, n));
    std::vector<std::thread> pool;
    for (int w = 0; w < t; ++w)
        pool.emplace_back([&, w] {
            for (int64_t j = w; j < n; j += t) column(j);
        });
    for (auto& th : pool) th.join();
}

template <class TOut>
QuantCheck check_quantized(Layout layout, int64_t m, int64_t n, const TOut* C, int64_t ldc,
                           const double* ref, const double* mag, double gamma) {
    using F = OutFormat<TOut>;
    QuantCheck r;
    const bool row = layout == Layout::RowMajor;
    const auto note = [&](int64_t i, int64_t j, double got, double want, double bound, double ratio) {
        if (ratio > r.worst_ratio || (r.row < 0 && ratio >= r.worst_ratio)) {
            r.row = i, r.col = j, r.got = got, r.want = want, r.bound = bound, r.worst_ratio = ratio;
        }
    };
    for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
            const int64_t out = row ? i * n + j : i + j * m;
            const double got = value_of(C[row ? i * ldc + j : i + j * ldc]);
            const double want = ref[out];
            const double inf = std::numeric_limits<double>::infinity();
            if constexpr (kSaturates<TOut>) {
                const double bound = gamma * mag[out] + F::u * std::fabs(want) + F::eta;
                if (std::isinf(want) || std::fabs(want) - bound > F::largest) { // saturated
                    const bool ok = got == std::copysign(F::largest, want);
                    if (!ok) ++r.failures;
                    note(i, j, got, want, 0.0, ok ? 0.0 : inf);
                    continue;
                }
            }
            if (std::isnan(want) || std::isinf(want)) { // IEEE special values propagate
                const bool ok = std::isnan(want) ? std::isnan(got) : got == want;
                if (!ok) ++r.failures;
                note(i, j, got, want, 0.0, ok ? 0.0 : inf);
                continue;
            }
            const double bound = gamma * mag[out] + F::u * std::fabs(want) + F::eta;
            bool rounded_to_inf = false;
            if constexpr (!kSaturates<TOut>) {
                // The sum before C's rounding lies within the bound of want, so C may be +Inf
                // where want + bound reaches the overflow threshold, and -Inf where want - bound
                // does: where the bound is wider than |want| (wide scales, cancellation), either.
                rounded_to_inf = std::isinf(got) && (got > 0 ? want + bound >= F::overflow
                                                             : want - bound <= -F::overflow);
            }
            const double err = rounded_to_inf ? 0.0 : std::fabs(got - want); // NaN: fails below
            const bool ok = err <= bound; // false for NaN
            if (!ok) ++r.failures;
            note(i, j, got, want, bound, bound > 0 && !std::isnan(err) ? err / bound : ok ? 0.0 : inf);
        }
    return r;
}

std::string QuantCheck::describe() const {
    std::ostringstream s;
    s << failures << " element(s) outside the bound; worst (" << row << ", " << col << "): got "
      << got << ", want " << want << ", bound " << bound << " (error / bound " << worst_ratio << ")";
    return s.str();
}

double fp8_gamma(int64_t k, int64_t promote_k) {
    constexpr double u = 0x1p-24, u_tc = 0x1p-13;
    const int64_t intervals = (k + promote_k - 1) / promote_k;
    return double(std::min(k, promote_k)) * u_tc + double(intervals + 4) * u;
}

double fp8_block_gamma(int64_t k) { return fp8_gamma(k) + 0x1p-24; }

#define GEMMLAB_QREF(TA, TB, TOut)                                                                 \
    template void quantized_gemm<TA, TB, TOut>(Layout, Op, Op, int64_t, int64_t, int64_t, double,  \
                                               const TA*, int64_t, HostScale, const TB*, int64_t, \
                                               HostScale, double, const TOut*, int64_t, double*,   \
                                               double*, int64_t*, int);
#define GEMMLAB_QREF_OUTPUTS(TA, TB)                                                               \
    GEMMLAB_QREF(TA, TB, __nv_bfloat16) GEMMLAB_QREF(TA, TB, __half) GEMMLAB_QREF(TA, TB, float)
GEMMLAB_QREF_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e4m3)
GEMMLAB_QREF_OUTPUTS(__nv_fp8_e4m3, __nv_fp8_e5m2)
GEMMLAB_QREF_OUTPUTS(__nv_fp8_e5m2, __nv_fp8_e4m3)
GEMMLAB_QREF(int8_t, int8_t, float)
GEMMLAB_QREF(int8_t, int8_t, int32_t)
#undef GEMMLAB_QREF_OUTPUTS
#undef GEMMLAB_QREF

template QuantCheck check_quantized<float>(Layout, int64_t, int64_t, const float*, int64_t,
                                           const double*, const double*, double);
template QuantCheck check_quantized<__nv_bfloat16>(Layout, int64_t, int64_t, const __nv_bfloat16*,
                                                   int64_t, const double*, const double*, double);
template QuantCheck check_quantized<__half>(Layout, int64_t, int64_t, const __half*, int64_t,
                                            const double*, const double*, double);
template QuantCheck check_quantized<__nv_fp8_e4m3>(Layout, int64_t, int64_t, const __nv_fp8_e4m3*,
                                                   int64_t, const double*, const double*, double);
template QuantCheck check_quantized<__nv_fp8_e5m2>(Layout, int64_t, int64_t, const __nv_fp8_e5m2*,
                                                   int64_t, const double*, const double*, double);

} // namespace gemmlab::reference
