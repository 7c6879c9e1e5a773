// The CPU blocking ladder (see cpu_ladder.hpp for the rung list; its source: docs/sources.md,
// "DCU GEMM" 3.5.2).
//
// All rungs share one driver: normalize to column-major (row-major C = op(A) op(B) is column-major
// C^T = op(B)^T op(A)^T), cover C with (MR, NR) blocks, and hand each block to the rung's block
// function. Edge blocks use the same block function instantiated at (1, NR) and (1, 1), so every
// m, n is handled by the rung's own idea and no block ever reads or writes past the matrix.
//
// What "in memory" means below: the block functions update C through the caller's pointer, which
// may alias A and B as far as the compiler knows, so every C(i,j) += a*b really is a load and a
// store per multiply-add (store-to-load forwarding aside): the source's counting model. Only rung 3
// declares local accumulators, which the compiler is free to keep in registers.

#include "gemm/reference/cpu_ladder.hpp"

#include <stdexcept>
#include <string>
#include <utility>

namespace gemmlab::cpu {
namespace {

/// The normalized (column-major) problem: op(A)(i, p) = A[i * ars + p * acs], op(B) likewise,
/// C(i, j) = C[i + j * ldc].
template <class T>
struct Problem {
    int64_t m, n, k;
    T alpha;
    const T* A;
    int64_t ars, acs;
    const T* B;
    int64_t brs, bcs;
    T beta;
    T* C;
    int64_t ldc;

    T a(int64_t i, int64_t p) const { return A[i * ars + p * acs]; }
    T b(int64_t p, int64_t j) const { return B[p * brs + j * bcs]; }
    T& c(int64_t i, int64_t j) const { return C[i + j * ldc]; }
};

/// Rungs 0-2: an (MR, NR) block of C updated in memory, C(i,j) += a(i) * b(j), once per p.
/// Per p it loads MR values of A and NR of B into registers and does MR*NR read-modify-writes
/// of C, i.e. per multiply-add: 2 (C load + store) + 1/NR (A) + 1/MR (B) memory accesses.
///   (1, 1): 4 MNK           (seed: naive)
///   (1, 4): (3 + 1/4) MNK   (seed: 1x4 blocking, A(i,p) reused 4 times)
///   (4, 4): (2 + 1/2) MNK   (seed: 4x4 blocking, A and B values each reused 4 times)
struct CInMemory {
    template <int MR, int NR, class T>
    static void block(const Problem<T>& pr, int64_t i0, int64_t j0) {
        // beta * C0 is saved first: C itself is the accumulator, as in the source's pseudo-code.
        T c0[NR][MR];
        for (int j = 0; j < NR; ++j)
            for (int i = 0; i < MR; ++i) {
                c0[j][i] = pr.beta == T(0) ? T(0) : pr.beta * pr.c(i0 + i, j0 + j);
                pr.c(i0 + i, j0 + j) = T(0);
            }
        for (int64_t p = 0; p < pr.k; ++p) {
            T a[MR], b[NR]; // the registers of the source's blocking
            for (int i = 0; i < MR; ++i) a[i] = pr.a(i0 + i, p);
            for (int j = 0; j < NR; ++j) b[j] = pr.b(p, j0 + j);
            for (int j = 0; j < NR; ++j)
                for (int i = 0; i < MR; ++i) pr.c(i0 + i, j0 + j) += a[i] * b[j];
        }
        for (int j = 0; j < NR; ++j)
            for (int i = 0; i < MR; ++i)
                pr.c(i0 + i, j0 + j) = pr.alpha * pr.c(i0 + i, j0 + j) + c0[j][i];
    }
};

/// Rung 3: the (MR, NR) sums live in local accumulators (registers) for the whole k loop, which
/// is unrolled by the source's depth 4; C is read (beta != 0) and written once per element.
/// Per multiply-add: 1/NR (A) + 1/MR (B); plus MN for C:  MN + (1/4 + 1/4) MNK ~ 1/2 MNK.
struct CInRegistersK4 {
    static constexpr int kDepth = 4;

    template <int MR, int NR, class T>
    static void block(const Problem<T>& pr, int64_t i0, int64_t j0) {
        T acc[NR][MR] = {};
        auto step = [&](int64_t p) {
            T a[MR], b[NR];
            for (int i = 0; i < MR; ++i) a[i] = pr.a(i0 + i, p);
            for (int j = 0; j < NR; ++j) b[j] = pr.b(p, j0 + j);
            for (int j = 0; j < NR; ++j)
                for (int i = 0; i < MR; ++i) acc[j][i] += a[i] * b[j];
        };
        int64_t p = 0;
        for (; p + kDepth <= pr.k; p += kDepth) {
#pragma GCC unroll 4
            for (int q = 0; q < kDepth; ++q) step(p + q);
        }
        for (; p < pr.k; ++p) step(p); // k % 4 tail
        for (int j = 0; j < NR; ++j)
            for (int i = 0; i < MR; ++i) {
                T& c = pr.c(i0 + i, j0 + j);
                c = pr.beta == T(0) ? pr.alpha * acc[j][i] : pr.alpha * acc[j][i] + pr.beta * c;
            }
    }
};

/// Covers C with (MR, NR) blocks, column of blocks by column of blocks (C is column-major).
/// Leftover rows use (1, NR) blocks, leftover columns (1, 1) blocks of the same rung.
template <class Rung, int MR, int NR, class T>
void cover(const Problem<T>& pr) {
    const int64_t m_full = pr.m / MR * MR;
    const int64_t n_full = pr.n / NR * NR;
    for (int64_t j0 = 0; j0 < n_full; j0 += NR) {
        for (int64_t i0 = 0; i0 < m_full; i0 += MR) Rung::template block<MR, NR>(pr, i0, j0);
        for (int64_t i0 = m_full; i0 < pr.m; ++i0) Rung::template block<1, NR>(pr, i0, j0);
    }
    for (int64_t j0 = n_full; j0 < pr.n; ++j0)
        for (int64_t i0 = 0; i0 < pr.m; ++i0) Rung::template block<1, 1>(pr, i0, j0);
}

/// C = beta * C (k == 0 or alpha == 0), never reading C when beta == 0.
template <class T>
void scale_c(const Problem<T>& pr) {
    for (int64_t j = 0; j < pr.n; ++j)
        for (int64_t i = 0; i < pr.m; ++i)
            pr.c(i, j) = pr.beta == T(0) ? T(0) : pr.beta * pr.c(i, j);
}

} // namespace

template <class T>
void gemm(int rung, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
          const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc) {
    if (rung < 0 || rung >= kRungCount)
        throw std::out_of_range("gemmlab::cpu::gemm: no CPU rung " + std::to_string(rung));
    if (m <= 0 || n <= 0) return;
    if (layout == Layout::RowMajor) { // C^T = op(B)^T op(A)^T, column-major; each keeps its op
        std::swap(m, n);
        std::swap(A, B);
        std::swap(lda, ldb);
        std::swap(op_a, op_b);
    }
    // Column-major op(A) (m x k): N reads A[i + p*lda], T reads A[p + i*lda]; op(B) likewise.
    const Problem<T> pr{m,
                        n,
                        k,
                        alpha,
                        A,
                        op_a == Op::N ? 1 : lda,
                        op_a == Op::N ? lda : 1,
                        B,
                        op_b == Op::N ? 1 : ldb,
                        op_b == Op::N ? ldb : 1,
                        beta,
                        C,
                        ldc};
    if (k == 0 || alpha == T(0)) return scale_c(pr);
    switch (rung) {
    case 0: return cover<CInMemory, 1, 1>(pr);
    case 1: return cover<CInMemory, 1, 4>(pr);
    case 2: return cover<CInMemory, 4, 4>(pr);
    case 3: return cover<CInRegistersK4, 4, 4>(pr);
    }
}

template void gemm<float>(int, Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*,
                          int64_t, const float*, int64_t, float, float*, int64_t);
template void gemm<double>(int, Layout, Op, Op, int64_t, int64_t, int64_t, double, const double*,
                           int64_t, const double*, int64_t, double, double*, int64_t);

} // namespace gemmlab::cpu
