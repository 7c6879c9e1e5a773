#pragma once
// The CPU blocking ladder (docs/sources.md, "DCU GEMM" 3.5.2): the register-blocking idea,
// measured on one core.
//
// Rungs (numbers and names as in cpu_kernels(), src/gemm/registry.cu), with the source's count of
// memory accesses (loads + stores of A, B and C elements) for M x N x K:
//   0 cpu_naive         C(i,j) += A(i,p) * B(p,j), C in memory           4 MNK
//   1 cpu_block_1x4     1x4 block of C: A(i,p) held in a register        (3 + 1/4) MNK
//   2 cpu_block_4x4     4x4 block of C: 4 A and 4 B values in registers  (2 + 1/4 + 1/4) MNK
//   3 cpu_block_4x4_k4  4x4 block, its 16 sums held in registers across
//                       the whole k loop (unrolled by 4), C written once MN + (1/4 + 1/4) MNK
// Rungs 0-2 keep the source's C-in-memory update on purpose: their C element is read and written
// once per multiply-add, which is what the counts 4, 3 and 2 (of 4, 3.25, 2.5) stand for.

#include <cstdint>

#include "gemmlab/gemm.hpp"

namespace gemmlab::cpu {

/// Number of CPU rungs (valid `rung` values are 0 .. kRungCount - 1).
inline constexpr int kRungCount = 4;

/// C = alpha * op(A) * op(B) + beta * C on host memory, single-threaded, with CPU rung `rung`.
/// Same semantics as gemmlab::gemm: any m, n, k >= 0 and valid leading dimensions; k == 0 or
/// alpha == 0 gives C = beta * C; beta == 0 never reads C. Throws std::out_of_range for an
/// unknown rung.
template <class T>
void gemm(int rung, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
          const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc);

extern template void gemm<float>(int, Layout, Op, Op, int64_t, int64_t, int64_t, float,
                                 const float*, int64_t, const float*, int64_t, float, float*,
                                 int64_t);
extern template void gemm<double>(int, Layout, Op, Op, int64_t, int64_t, int64_t, double,
                                  const double*, int64_t, const double*, int64_t, double, double*,
                                  int64_t);

} // namespace gemmlab::cpu
