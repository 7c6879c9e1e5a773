// Hashed fills and sampled CPU checks (testing.hpp).

#include "dist/testing.hpp"

#include <cmath>
#include <cstdio>
#include <random>

namespace gemmlab::dist::testing {

namespace {

template <class T>
__global__ void fill_kernel(T* data, int64_t ld, bool row_major, int64_t lr, int64_t lc, Distribution d, int gr,
                            int gc, uint64_t seed, int which, Values v) {
    const int64_t total = lr * lc;
    for (int64_t e = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; e < total; e += int64_t(gridDim.x) * blockDim.x) {
        const int64_t li = row_major ? e / lc : e % lr;
        const int64_t lj = row_major ? e % lc : e / lr;
        const int64_t gi = to_global(li, d.block_rows, gr, d.grid.rows);
        const int64_t gj = to_global(lj, d.block_cols, gc, d.grid.cols);
        data[row_major ? li * ld + lj : lj * ld + li] = from_float<T>(hashed_value(seed, which, gi, gj, v));
    }
}

} // namespace

template <class T>
cudaError_t fill_local(const Matrix<T>& m, Layout layout, int rank, uint64_t seed, int which, Values v,
                       cudaStream_t stream) {
    const int64_t lr = local_rows(m.dist, m.rows, rank), lc = local_cols(m.dist, m.cols, rank);
    if (lr == 0 || lc == 0) return cudaSuccess;
    const int64_t blocks = std::min<int64_t>((lr * lc + 255) / 256, 132 * 32);
    fill_kernel<T><<<unsigned(blocks), 256, 0, stream>>>(m.data, m.ld, layout == Layout::RowMajor, lr, lc, m.dist,
                                                         m.dist.grid.row_of(rank), m.dist.grid.col_of(rank), seed,
                                                         which, v);
    return cudaGetLastError();
}

template <class TA, class TC>
SampleCheck check_samples(const TC* c_host, int64_t ld, Layout layout, const Distribution& dc, int rank, int64_t m,
                          int64_t n, int64_t k, double alpha, double beta, uint64_t seed, Values v, int samples) {
    SampleCheck out;
    const int64_t lr = local_rows(dc, m, rank), lc = local_cols(dc, n, rank);
    if (lr == 0 || lc == 0) return out;
    std::mt19937_64 rng(seed ^ 0x5EEDull ^ uint64_t(rank));
    const double c = 4, u = unit_roundoff<TA>(), u_out = output_roundoff<TC>();
    for (int s = 0; s < samples; ++s) {
        // The corners first (edges of blocks are where index bugs live), then random entries.
        int64_t li, lj;
        if (s < 4) {
            li = (s & 1) ? lr - 1 : 0;
            lj = (s & 2) ? lc - 1 : 0;
        } else {
            li = int64_t(rng() % uint64_t(lr));
            lj = int64_t(rng() % uint64_t(lc));
        }
        const int64_t gi = to_global(li, dc.block_rows, dc.grid.row_of(rank), dc.grid.rows);
        const int64_t gj = to_global(lj, dc.block_cols, dc.grid.col_of(rank), dc.grid.cols);
        long double sum = 0, abs_sum = 0;
        for (int64_t p = 0; p < k; ++p) {
            const long double a = host_entry<TA>(seed, 0, gi, p, v), b = host_entry<TA>(seed, 1, p, gj, v);
            sum += a * b;
            abs_sum += std::fabs(double(a * b));
        }
        const double c0 = host_entry<TC>(seed, 2, gi, gj, v);
        const double ref = double(alpha * sum + (beta != 0 ? beta * c0 : 0.0));
        const double got = to_double(c_host[layout == Layout::RowMajor ? li * ld + lj : lj * ld + li]);
        const double bound = c * double(std::max<int64_t>(k, 1)) * u *
                                 (std::fabs(alpha) * double(abs_sum) + std::fabs(beta) * std::fabs(c0)) +
                             u_out * std::fabs(ref);
        const double err = std::fabs(got - ref);
        ++out.checked;
        const double ratio = bound > 0 ? err / bound : (err == 0 ? 0 : INFINITY);
        if (!(err <= bound)) ++out.failed;
        if (out.worst.empty() || !(ratio <= out.worst_ratio)) {
            out.worst_ratio = std::isnan(ratio) ? INFINITY : ratio;
            char buf[200];
            std::snprintf(buf, sizeof buf, "(%lld, %lld) got %.17g want %.17g bound %.3g", (long long)gi,
                          (long long)gj, got, ref, bound);
            out.worst = buf;
        }
    }
    return out;
}

#define GEMMLAB_DIST_FILL(T)                                                                         \
    template cudaError_t fill_local<T>(const Matrix<T>&, Layout, int, uint64_t, int, Values, cudaStream_t);
GEMMLAB_DIST_FILL(float)
GEMMLAB_DIST_FILL(double)
GEMMLAB_DIST_FILL(__nv_bfloat16)
GEMMLAB_DIST_FILL(__half)
#undef GEMMLAB_DIST_FILL

#define GEMMLAB_DIST_CHECK(TA, TC)                                                                   \
    template SampleCheck check_samples<TA, TC>(const TC*, int64_t, Layout, const Distribution&, int, int64_t, \
                                               int64_t, int64_t, double, double, uint64_t, Values, int);
GEMMLAB_DIST_CHECK(float, float)
GEMMLAB_DIST_CHECK(double, double)
GEMMLAB_DIST_CHECK(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_DIST_CHECK(__nv_bfloat16, float)
GEMMLAB_DIST_CHECK(__half, __half)
GEMMLAB_DIST_CHECK(__half, float)
#undef GEMMLAB_DIST_CHECK

} // namespace gemmlab::dist::testing
