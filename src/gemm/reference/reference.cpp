// CPU reference GEMM: packed, register-blocked, multithreaded, accumulating in double (float,
// BF16 and FP16 inputs) or double-double (double inputs). See reference.hpp for the contract.
//
// Structure (BLIS-like, one level of cache blocking is enough for a checker):
//   normalize  row-major C = op(A) op(B) becomes column-major C^T = op(B)^T op(A)^T, so the rest
//              sees one layout; op(A)/op(B) become (row stride, column stride) views.
//   tiles      the m x n output is cut into (kMC, kNC) tiles, handed to threads by an atomic
//              counter; a thread owns its tile for the whole k loop, so nothing is shared.
//   pack       per (tile, kKC slice of k): op(A) -> kMR-row slivers, op(B) -> kNR-column slivers,
//              converted to double and zero-padded, so the inner kernel reads two unit-stride
//              streams whatever the layout and ops were.
//   kernel     a (kMR, kNR) block of sums (and of |a|*|b| sums) held in registers over the slice;
//              AVX2/FMA intrinsics when the build targets them (-march=x86-64-v3), else portable
//              scalar code with the same arithmetic. The intrinsics matter for double-double,
//              which GCC does not vectorize well on its own.
//   epilogue   Ref = alpha*acc + beta*C0, Mag = |alpha|*mag + |beta|*|C0|, once per tile.
//
// The double-double code must not be "helped" by -ffp-contract=fast (GCC's default in gnu++
// mode): if fl(a*b) were fused into the following TwoSum add, the error terms would be wrong.
// Every rounded product that feeds an error-free transformation is therefore an explicit FMA
// (std::fma(a, b, 0.0) or _mm256_fmadd_pd): an FMA result is not a multiply and cannot be
// contracted again.

#include "gemm/reference/reference.hpp"

#include "gemm/element.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <memory>
#include <thread>
#include <vector>

#if defined(__AVX__) && defined(__FMA__)
#include <immintrin.h>
#endif

namespace gemmlab::reference {
namespace {

// Output tile per thread work item, and the k slice packed at a time.
// A slice (kMC, kKC) doubles = 256 KiB stays in L2; one B sliver (kKC, kNR) = 8 KiB in L1.
constexpr int64_t kMC = 128;
constexpr int64_t kNC = 256;
constexpr int64_t kKC = 256;

// Register block. Plain: 4x4 sums + 4x4 magnitudes = 8 ymm. Double-double: hi, lo, mag = 12 ymm.
constexpr int kMR = 4;
constexpr int kNR = 4;
static_assert(kMC % kMR == 0, "kMC must be a multiple of the register block height kMR");
static_assert(kNC % kNR == 0, "kNC must be a multiple of the register block width kNR");

enum class Accum { Double, DoubleDouble };

/// op(X) as a strided matrix: element (r, c) is p[r * rs + c * cs].
template <class T>
struct View {
    const T* p;
    int64_t rs, cs;
    T operator()(int64_t r, int64_t c) const { return p[r * rs + c * cs]; }
};

/// The normalized (column-major) problem: A and B in T, C0 in TC.
template <class T, class TC = T>
struct Problem {
    int64_t m, n, k;
    double alpha, beta;
    View<T> a; // (m, k)
    View<T> b; // (k, n)
    const TC* c0;
    int64_t ldc;
    double* ref; // (m, n), ld = m
    double* mag; // (m, n), ld = m
};

/// Packs op(A)(i0 .. i0+mc, p0 .. p0+kc) into kMR-row slivers: sliver s holds, for each p, the
/// kMR values of rows i0 + s*kMR .. (zero past mc). Layout: [s][p][r], kMR * kc per sliver.
template <class T>
void pack_a(const View<T>& a, int64_t i0, int64_t mc, int64_t p0, int64_t kc, double* out) {
    for (int64_t s = 0; s < mc; s += kMR) {
        const int rows = int(std::min<int64_t>(kMR, mc - s));
        for (int64_t p = 0; p < kc; ++p) {
            double* dst = out + s * kc + p * kMR;
            int r = 0;
            for (; r < rows; ++r) dst[r] = detail::to_double(a(i0 + s + r, p0 + p));
            for (; r < kMR; ++r) dst[r] = 0.0;
        }
    }
}

/// Packs op(B)(p0 .. p0+kc, j0 .. j0+nc) into kNR-column slivers, layout [s][p][c].
template <class T>
void pack_b(const View<T>& b, int64_t p0, int64_t kc, int64_t j0, int64_t nc, double* out) {
    for (int64_t s = 0; s < nc; s += kNR) {
        const int cols = int(std::min<int64_t>(kNR, nc - s));
        for (int64_t p = 0; p < kc; ++p) {
            double* dst = out + s * kc + p * kNR;
            int c = 0;
            for (; c < cols; ++c) dst[c] = detail::to_double(b(p0 + p, j0 + s + c));
            for (; c < kNR; ++c) dst[c] = 0.0;
        }
    }
}

/// Accumulator block of one (kMR, kNR) piece of the output. `hi` lives in Ref, `g` (the
/// magnitude sum) in Mag, `lo` (double-double only) in the thread's tile-local buffer.
struct BlockPtrs {
    double* hi;
    double* g;
    int64_t ld; // of hi and g
    double* lo;
    int64_t ldlo;
};

/// One block of sums: column j of the (kMR, kNR) block is hi[j][0 .. kMR).
struct Acc {
    double hi[kNR][kMR]; // sum of a*b (double-double: its high word)
    double lo[kNR][kMR]; // double-double low word (unused for Accum::Double)
    double g[kNR][kMR];  // sum of |a|*|b|
};

#if defined(__AVX__) && defined(__FMA__)
static_assert(kMR == 4, "the AVX kernel holds one block column (kMR doubles) per ymm register");

/// acc += a_sliver (kMR, kc) * b_sliver (kc, kNR), and the same for |a|*|b|: AVX2/FMA, one ymm
/// per block column. Every product goes through an FMA instruction, so the double-double steps
/// stay exact under any -ffp-contract setting.
template <Accum M>
void accumulate(int64_t kc, const double* __restrict a, const double* __restrict b, Acc& acc) {
    __m256d hi[kNR], lo[kNR], g[kNR];
    for (int j = 0; j < kNR; ++j) {
        hi[j] = _mm256_loadu_pd(acc.hi[j]);
        lo[j] = _mm256_loadu_pd(acc.lo[j]);
        g[j] = _mm256_loadu_pd(acc.g[j]);
    }
    const __m256d sign = _mm256_set1_pd(-0.0);
    const __m256d zero = _mm256_setzero_pd();
    for (int64_t p = 0; p < kc; ++p) {
        const __m256d av = _mm256_loadu_pd(a + p * kMR); // (kMR)
        const __m256d aabs = _mm256_andnot_pd(sign, av);
        for (int j = 0; j < kNR; ++j) {
            const __m256d bv = _mm256_broadcast_sd(b + p * kNR + j);
            if constexpr (M == Accum::Double) {
                hi[j] = _mm256_fmadd_pd(av, bv, hi[j]);
            } else {
                // TwoProd: a*b = pr + ep exactly. TwoSum: hi + pr = s + es exactly.
                const __m256d pr = _mm256_fmadd_pd(av, bv, zero);
                const __m256d ep = _mm256_fmsub_pd(av, bv, pr);
                const __m256d s = _mm256_add_pd(hi[j], pr);
                const __m256d z = _mm256_sub_pd(s, hi[j]);
                const __m256d es =
                    _mm256_add_pd(_mm256_sub_pd(hi[j], _mm256_sub_pd(s, z)), _mm256_sub_pd(pr, z));
                hi[j] = s;
                lo[j] = _mm256_add_pd(lo[j], _mm256_add_pd(ep, es));
            }
            g[j] = _mm256_fmadd_pd(aabs, _mm256_andnot_pd(sign, bv), g[j]);
        }
    }
    for (int j = 0; j < kNR; ++j) {
        _mm256_storeu_pd(acc.hi[j], hi[j]);
        _mm256_storeu_pd(acc.lo[j], lo[j]);
        _mm256_storeu_pd(acc.g[j], g[j]);
    }
}
#else
/// Portable version of the above (builds without -march=x86-64-v3, e.g. Debug), same arithmetic.
/// Each rounded product is written std::fma(a, b, 0.0): an FMA result is not a multiply, so
/// -ffp-contract=fast (GCC's gnu++ default) cannot fuse it into the TwoSum add that follows.
template <Accum M>
void accumulate(int64_t kc, const double* __restrict a, const double* __restrict b, Acc& acc) {
    for (int64_t p = 0; p < kc; ++p) {
        const double* ap = a + p * kMR; // (kMR)
        const double* bp = b + p * kNR; // (kNR)
        for (int j = 0; j < kNR; ++j)
            for (int i = 0; i < kMR; ++i) {
                double& hi = acc.hi[j][i];
                if constexpr (M == Accum::Double) {
                    hi = std::fma(ap[i], bp[j], hi);
                } else {
                    const double pr = std::fma(ap[i], bp[j], 0.0);
                    const double ep = std::fma(ap[i], bp[j], -pr);
                    const double s = hi + pr;
                    const double z = s - hi;
                    const double es = (hi - (s - z)) + (pr - z);
                    hi = s;
                    acc.lo[j][i] += ep + es;
                }
                acc.g[j][i] = std::fma(std::fabs(ap[i]), std::fabs(bp[j]), acc.g[j][i]);
            }
    }
}
#endif

/// The inner kernel: block(kMR, kNR) += a_sliver(kMR, kc) * b_sliver(kc, kNR), same for |a|*|b|.
/// `first` starts the sums at zero instead of loading them; rows/cols clip the edge blocks.
template <Accum M>
void kernel(int64_t kc, const double* a, const double* b, BlockPtrs c, int rows, int cols,
            bool first) {
    Acc acc;
    for (int j = 0; j < kNR; ++j)
        for (int i = 0; i < kMR; ++i) {
            const bool in = !first && i < rows && j < cols;
            acc.hi[j][i] = in ? c.hi[i + j * c.ld] : 0.0;
            acc.g[j][i] = in ? c.g[i + j * c.ld] : 0.0;
            acc.lo[j][i] = (M == Accum::DoubleDouble && in) ? c.lo[i + j * c.ldlo] : 0.0;
        }
    accumulate<M>(kc, a, b, acc);
    for (int j = 0; j < cols; ++j)
        for (int i = 0; i < rows; ++i) {
            c.hi[i + j * c.ld] = acc.hi[j][i];
            c.g[i + j * c.ld] = acc.g[j][i];
            if constexpr (M == Accum::DoubleDouble) c.lo[i + j * c.ldlo] = acc.lo[j][i];
        }
}

/// Per-thread scratch: packed slices and the double-double low words of one tile.
struct Scratch {
    std::unique_ptr<double[]> a{new double[kMC * kKC]};
    std::unique_ptr<double[]> b{new double[kKC * kNC]};
    std::unique_ptr<double[]> lo{new double[kMC * kNC]};
};

/// Ref = alpha * (hi + lo) + beta * c0 rounded once (to within a few 2^-106), Mag likewise.
inline void epilogue(double alpha, double beta, double hi, double lo, double g, const double* c0,
                     double* ref, double* mag) {
    const double c = c0 ? *c0 : 0.0; // c0 == nullptr when beta == 0: C0 is never read
    if (!std::isfinite(hi)) {        // Inf/NaN inputs or overflow: the error terms are meaningless
        *ref = c0 ? alpha * hi + beta * c : alpha * hi;
    } else {
        const double p1 = std::fma(alpha, hi, 0.0);
        const double e1 = std::fma(alpha, hi, -p1) + alpha * lo;
        const double p2 = std::fma(beta, c, 0.0);
        const double e2 = std::fma(beta, c, -p2);
        const double s = p1 + p2;
        const double z = s - p1;
        const double es = (p1 - (s - z)) + (p2 - z);
        *ref = s + (es + (e1 + e2));
    }
    *mag = std::fabs(alpha) * g + (c0 ? std::fabs(beta) * std::fabs(c) : 0.0);
}

template <Accum M, class T, class TC>
void run_tile(const Problem<T, TC>& pr, int64_t i0, int64_t j0, Scratch& sc) {
    const int64_t mc = std::min(kMC, pr.m - i0);
    const int64_t nc = std::min(kNC, pr.n - j0);
    const int64_t ld = pr.m;
    const bool products = pr.k > 0 && pr.alpha != 0.0;

    if (products) {
        for (int64_t p0 = 0; p0 < pr.k; p0 += kKC) {
            const int64_t kc = std::min(kKC, pr.k - p0);
            pack_a(pr.a, i0, mc, p0, kc, sc.a.get());
            pack_b(pr.b, p0, kc, j0, nc, sc.b.get());
            for (int64_t jr = 0; jr < nc; jr += kNR) {
                const double* bs = sc.b.get() + jr * kc; // (kc, kNR) sliver
                for (int64_t ir = 0; ir < mc; ir += kMR) {
                    const double* as = sc.a.get() + ir * kc; // (kMR, kc) sliver
                    const BlockPtrs c{pr.ref + (i0 + ir) + (j0 + jr) * ld,
                                      pr.mag + (i0 + ir) + (j0 + jr) * ld, ld,
                                      sc.lo.get() + ir + jr * kMC, kMC};
                    kernel<M>(kc, as, bs, c, int(std::min<int64_t>(kMR, mc - ir)),
                              int(std::min<int64_t>(kNR, nc - jr)), p0 == 0);
                }
            }
        }
    }

    for (int64_t j = 0; j < nc; ++j)
        for (int64_t i = 0; i < mc; ++i) {
            const int64_t o = (i0 + i) + (j0 + j) * ld;
            const double hi = products ? pr.ref[o] : 0.0;
            const double lo = (products && M == Accum::DoubleDouble) ? sc.lo[i + j * kMC] : 0.0;
            const double g = products ? pr.mag[o] : 0.0;
            const TC* c0 = pr.beta != 0.0 ? pr.c0 + (i0 + i) + (j0 + j) * pr.ldc : nullptr;
            double c0d = 0.0;
            if (c0) c0d = detail::to_double(*c0);
            epilogue(pr.alpha, pr.beta, hi, lo, g, c0 ? &c0d : nullptr, pr.ref + o, pr.mag + o);
        }
}

template <Accum M, class T, class TC>
void run(const Problem<T, TC>& pr, int threads) {
    const int64_t tiles_m = (pr.m + kMC - 1) / kMC;
    const int64_t tiles_n = (pr.n + kNC - 1) / kNC;
    const int64_t tiles = tiles_m * tiles_n;
    if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
    threads = int(std::min<int64_t>(threads, tiles));

    std::atomic<int64_t> next{0};
    auto worker = [&] {
        Scratch sc;
        for (int64_t t; (t = next.fetch_add(1, std::memory_order_relaxed)) < tiles;)
            run_tile<M>(pr, (t % tiles_m) * kMC, (t / tiles_m) * kNC, sc);
    };
    if (threads == 1) {
        worker();
        return;
    }
    std::vector<std::jthread> pool;
    pool.reserve(size_t(threads - 1));
    for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
    worker();
}

/// op(X) of a column-major X as a (row stride, column stride) view.
template <class T>
View<T> op_view(const T* x, int64_t ldx, Op op) {
    return op == Op::N ? View<T>{x, 1, ldx} : View<T>{x, ldx, 1};
}

} // namespace

template <class T>
void gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
          int64_t lda, const T* B, int64_t ldb, T beta, const T* C0, int64_t ldc, double* ref,
          double* mag, int threads) {
    if (m <= 0 || n <= 0) return;
    if (layout == Layout::RowMajor) { // C^T = op(B)^T op(A)^T, column-major
        std::swap(m, n);
        std::swap(A, B);
        std::swap(lda, ldb);
        std::swap(op_a, op_b);
    }
    // In column-major terms op(A) is m x k and op(B) is k x n; a stored row-major operand read
    // as column-major is its transpose, which the swap above already accounts for.
    const Problem<T> pr{
        m,   n,   k,  double(alpha), double(beta), op_view(A, lda, op_a), op_view(B, ldb, op_b), C0,
        ldc, ref, mag};
    if constexpr (sizeof(T) == sizeof(float))
        run<Accum::Double>(pr, threads);
    else
        run<Accum::DoubleDouble>(pr, threads);
}

template <class TIn, class TOut>
void half_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,
               const TIn* A, int64_t lda, const TIn* B, int64_t ldb, float beta, const TOut* C0,
               int64_t ldc, double* ref, double* mag, int threads) {
    if (m <= 0 || n <= 0) return;
    if (layout == Layout::RowMajor) { // C^T = op(B)^T op(A)^T, column-major
        std::swap(m, n);
        std::swap(A, B);
        std::swap(lda, ldb);
        std::swap(op_a, op_b);
    }
    // Products of two BF16/FP16 values are exact in double (at most 22 significant bits), so
    // plain double accumulation is as good as for float inputs.
    const Problem<TIn, TOut> pr{m,   n,   k,  double(alpha), double(beta), op_view(A, lda, op_a),
                                op_view(B, ldb, op_b), C0, ldc, ref, mag};
    run<Accum::Double>(pr, threads);
}

template void gemm<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t,
                          const float*, int64_t, float, const float*, int64_t, double*, double*,
                          int);
template void gemm<double>(Layout, Op, Op, int64_t, int64_t, int64_t, double, const double*,
                           int64_t, const double*, int64_t, double, const double*, int64_t, double*,
                           double*, int);

#define GEMMLAB_HALF_REFERENCE(TIn, TOut)                                                          \
    template void half_gemm<TIn, TOut>(Layout, Op, Op, int64_t, int64_t, int64_t, float,          \
                                       const TIn*, int64_t, const TIn*, int64_t, float,            \
                                       const TOut*, int64_t, double*, double*, int);
GEMMLAB_HALF_REFERENCE(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_HALF_REFERENCE(__nv_bfloat16, float)
GEMMLAB_HALF_REFERENCE(__half, __half)
GEMMLAB_HALF_REFERENCE(__half, float)
#undef GEMMLAB_HALF_REFERENCE

} // namespace gemmlab::reference
