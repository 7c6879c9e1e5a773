// The error-bound check of DESIGN.md (see check.hpp).

#include "gemm/reference/check.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <type_traits>

#include "gemm/element.hpp"

namespace gemmlab::reference {

template <class T>
double error_gamma(int64_t k, Precision precision) {
    // Unit roundoff of T: half the distance from 1 to the next T (2^-24 float, 2^-53 double).
    constexpr double u = std::numeric_limits<T>::epsilon() / 2;
    const double accumulation = 2.0 * (double(k) + 3.0) * u;
    if (sizeof(T) == sizeof(float) && precision == Precision::Tf32) {
        constexpr double u_tf32 = 0x1p-11; // 10 explicit mantissa bits, round to nearest
        return 2 * u_tf32 + u_tf32 * u_tf32 + accumulation;
    }
    return accumulation;
}

namespace {

/// The bound of one element, and what C's type makes of the exact result.
struct ElementRule {
    double gamma;          ///< relative to Mag
    double abs_acc;        ///< absolute, the accumulation's (FP32 results below FLT_MIN)
    OutputRounding out;    ///< the final rounding to C's type ({0, 0, inf} for none)
};

/// Walks C against Ref and Mag under `rule`; get(o, x) is C's element o * ldc + x as a double,
/// rounded(want) is want rounded to nearest in C's type.
template <class Get, class Round>
CheckResult check_elements(Layout layout, int64_t m, int64_t n, const ElementRule& rule, Get get,
                           Round rounded, const double* ref, const double* mag) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const bool row_major = layout == Layout::RowMajor;
    CheckResult r;

    // Walk in storage order (rows outer for row-major) so big checks stream through memory.
    const int64_t outer = row_major ? m : n, inner = row_major ? n : m;
    const int64_t ld_ref = inner; // ref and mag are dense
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t x = 0; x < inner; ++x) {
            const double got = get(o, x);
            const double want = ref[o * ld_ref + x];
            const double acc = rule.gamma * mag[o * ld_ref + x] + rule.abs_acc;
            const double bound = acc + rule.out.u * (std::fabs(want) + acc) + rule.out.eta;
            double ratio;
            bool ok;
            if (!std::isfinite(want)) { // Inf/NaN inputs: demand the same non-finite value
                ok = std::isnan(want) ? std::isnan(got) : got == want;
                ratio = ok ? 0.0 : kInf;
            } else if (std::isinf(got)) {
                // Round to nearest gives Inf from the overflow threshold on: fine where the
                // computed FP32 result may have reached it, with this sign.
                ok = got > 0 ? want + acc >= rule.out.overflow : want - acc <= -rule.out.overflow;
                ratio = ok ? 0.0 : kInf;
            } else if (std::isnan(got)) {
                ok = false;
                ratio = kInf;
                ++r.unwritten;
            } else {
                const double err = std::fabs(got - want);
                ok = err <= bound;
                ratio = bound > 0 ? err / bound : (err == 0 ? 0.0 : kInf);
            }
            if (std::isfinite(want) && !(got == rounded(want))) ++r.inexact;
            if (!ok) ++r.failures;
            if (r.worst_row < 0 || ratio > r.worst_ratio) {
                r.worst_ratio = ratio;
                r.worst_row = row_major ? o : x;
                r.worst_col = row_major ? x : o;
                r.got = got;
                r.want = want;
            }
        }
    r.pass = r.failures == 0;
    return r;
}

} // namespace

template <class T>
CheckResult check(Layout layout, int64_t m, int64_t n, int64_t k, const T* C, int64_t ldc,
                  const double* ref, const double* mag, Precision precision) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    // No output rounding beyond gamma's, and no overflow allowance: Inf where Ref is finite fails.
    const ElementRule rule{error_gamma<T>(k, precision), 0.0, {0.0, 0.0, kInf}};
    return check_elements(
        layout, m, n, rule, [&](int64_t o, int64_t x) { return double(C[o * ldc + x]); },
        [](double want) { return double(T(want)); }, ref, mag);
}

template <class TOut>
OutputRounding output_rounding() {
    if constexpr (std::is_same_v<TOut, __nv_bfloat16>)
        return {0x1p-8, 0x1p-134, (2.0 - 0x1p-8) * 0x1p127};
    else if constexpr (std::is_same_v<TOut, __half>)
        return {0x1p-11, 0x1p-25, 65520.0};
    else
        return {0.0, 0.0, (2.0 - 0x1p-24) * 0x1p127};
}

double half_bound(int64_t k, double ref, double mag, const OutputRounding& out) {
    const double acc = error_gamma<float>(k) * (mag + kFltMin);
    return acc + out.u * (std::fabs(ref) + acc) + out.eta;
}

template <class TIn, class TOut>
CheckResult check_half(Layout layout, int64_t m, int64_t n, int64_t k, const TOut* C, int64_t ldc,
                       const double* ref, const double* mag) {
    const double gamma = error_gamma<float>(k);
    const ElementRule rule{gamma, gamma * kFltMin, output_rounding<TOut>()};
    return check_elements(
        layout, m, n, rule, [&](int64_t o, int64_t x) { return detail::to_double(C[o * ldc + x]); },
        [](double want) {
            if constexpr (std::is_same_v<TOut, __nv_bfloat16>) return detail::to_double(__double2bfloat16(want));
            else if constexpr (std::is_same_v<TOut, __half>) return detail::to_double(__double2half(want));
            else return double(float(want));
        },
        ref, mag);
}

namespace {

/// Shortest text that reads back as the same double ("3.25", "3.2500000000000004").
std::string shortest(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

} // namespace

void merge(CheckResult& all, const CheckResult& one, int64_t batch) {
    all.pass = all.pass && one.pass;
    all.failures += one.failures;
    all.unwritten += one.unwritten;
    all.inexact += one.inexact;
    if (one.worst_row < 0) return; // an empty batch has no worst element
    if (all.worst_row < 0 || one.worst_ratio > all.worst_ratio) {
        all.worst_row = one.worst_row;
        all.worst_col = one.worst_col;
        all.got = one.got;
        all.want = one.want;
        all.worst_ratio = one.worst_ratio;
        all.worst_batch = batch;
    }
}

std::string describe(const CheckResult& r) {
    if (r.worst_row < 0) return "no elements";
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3g", r.worst_ratio);
    std::string s = "worst (" + std::to_string(r.worst_row) + ", " + std::to_string(r.worst_col) + ")" +
                    (r.worst_batch >= 0 ? " of batch " + std::to_string(r.worst_batch) : "") + ": got " + shortest(r.got) + " want " + shortest(r.want) + " err/bound " +
                    ratio;
    if (r.failures > 0)
        s += "; " + std::to_string(r.failures) + " failed (" + std::to_string(r.unwritten) +
             " unwritten)";
    return s;
}

template double error_gamma<float>(int64_t, Precision);
template double error_gamma<double>(int64_t, Precision);
template CheckResult check<float>(Layout, int64_t, int64_t, int64_t, const float*, int64_t,
                                  const double*, const double*, Precision);
template CheckResult check<double>(Layout, int64_t, int64_t, int64_t, const double*, int64_t,
                                   const double*, const double*, Precision);
template OutputRounding output_rounding<__nv_bfloat16>();
template OutputRounding output_rounding<__half>();
template OutputRounding output_rounding<float>();
#define GEMMLAB_CHECK_HALF(TIn, TOut)                                                              \
    template CheckResult check_half<TIn, TOut>(Layout, int64_t, int64_t, int64_t, const TOut*,    \
                                               int64_t, const double*, const double*);
GEMMLAB_CHECK_HALF(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_CHECK_HALF(__nv_bfloat16, float)
GEMMLAB_CHECK_HALF(__half, __half)
GEMMLAB_CHECK_HALF(__half, float)
#undef GEMMLAB_CHECK_HALF

} // namespace gemmlab::reference
