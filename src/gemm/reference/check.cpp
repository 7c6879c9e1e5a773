// The error-bound check of DESIGN.md (see check.hpp).

#include "gemm/reference/check.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>

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

template <class T>
CheckResult check(Layout layout, int64_t m, int64_t n, int64_t k, const T* C, int64_t ldc,
                  const double* ref, const double* mag, Precision precision) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    const double g = error_gamma<T>(k, precision);
    const bool row_major = layout == Layout::RowMajor;
    CheckResult r;

    // Walk in storage order (rows outer for row-major) so big checks stream through memory.
    const int64_t outer = row_major ? m : n, inner = row_major ? n : m;
    const int64_t ld_ref = inner; // ref and mag are dense
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t x = 0; x < inner; ++x) {
            const double got = double(C[o * ldc + x]);
            const double want = ref[o * ld_ref + x];
            const double bound = g * mag[o * ld_ref + x];
            double ratio;
            bool ok;
            if (!std::isfinite(want)) { // Inf/NaN inputs: demand the same non-finite value
                ok = std::isnan(want) ? std::isnan(got) : got == want;
                ratio = ok ? 0.0 : kInf;
            } else if (!std::isfinite(got)) {
                ok = false;
                ratio = kInf;
                if (std::isnan(got)) ++r.unwritten;
            } else {
                const double err = std::fabs(got - want);
                ok = err <= bound;
                ratio = bound > 0 ? err / bound : (err == 0 ? 0.0 : kInf);
            }
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

namespace {

/// Shortest text that reads back as the same double ("3.25", "3.2500000000000004").
std::string shortest(double v) {
    char buf[64];
    const auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

} // namespace

std::string describe(const CheckResult& r) {
    if (r.worst_row < 0) return "no elements";
    char ratio[32];
    std::snprintf(ratio, sizeof ratio, "%.3g", r.worst_ratio);
    std::string s = "worst (" + std::to_string(r.worst_row) + ", " + std::to_string(r.worst_col) +
                    "): got " + shortest(r.got) + " want " + shortest(r.want) + " err/bound " +
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

} // namespace gemmlab::reference
