// The HIP build's table of rungs and its gemm call (ladder.hpp).

#include "hip/ladder.hpp"

#include <charconv>
#include <stdexcept>
#include <string>

#include "gemm/kernels/launchers.hpp"

namespace gemmlab::hip {
namespace {

#define GEMMLAB_HIP_RUNG(number, name)                                                             \
    HipRung { number, #name, &detail::launch_##name<float>, &detail::launch_##name<double> }

constexpr HipRung kRungs[] = {
    GEMMLAB_HIP_RUNG(1, naive),
    GEMMLAB_HIP_RUNG(2, coalesced),
    GEMMLAB_HIP_RUNG(3, register_tile_global),
    GEMMLAB_HIP_RUNG(4, register_prefetch_global),
    GEMMLAB_HIP_RUNG(5, smem_tile),
    GEMMLAB_HIP_RUNG(6, smem_conflict_free),
    GEMMLAB_HIP_RUNG(7, thread_tile_1d),
    GEMMLAB_HIP_RUNG(8, vectorized),
    GEMMLAB_HIP_RUNG(9, thread_tile_4x4),
    GEMMLAB_HIP_RUNG(10, thread_tile_8x8),
    GEMMLAB_HIP_RUNG(11, smem_interleaved_reads),
    GEMMLAB_HIP_RUNG(12, double_buffer),
};
#undef GEMMLAB_HIP_RUNG

void require(bool ok, const std::string& what) {
    if (!ok) throw std::invalid_argument(what);
}

} // namespace

std::span<const HipRung> rungs() noexcept { return kRungs; }

const HipRung* find_rung(std::string_view key) noexcept {
    int number = -1;
    const auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), number);
    const bool numeric = ec == std::errc() && end == key.data() + key.size();
    for (const HipRung& r : kRungs)
        if (numeric ? r.number == number : r.name == key) return &r;
    return nullptr;
}

template <class T>
void gemm(const HipRung& rung, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
          T alpha, const T* A, int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
          cudaStream_t stream) {
    require(m >= 1 && n >= 1 && k >= 1, "the HIP build's gemm needs m, n, k >= 1");
    // Stored extents of A and B (rows x columns in `layout`), as the BLAS rule on lda/ldb reads.
    const bool row = layout == Layout::RowMajor;
    const int64_t a_rows = op_a == Op::N ? m : k, a_cols = op_a == Op::N ? k : m;
    const int64_t b_rows = op_b == Op::N ? k : n, b_cols = op_b == Op::N ? n : k;
    require(lda >= std::max<int64_t>(1, row ? a_cols : a_rows), "lda is too small for A");
    require(ldb >= std::max<int64_t>(1, row ? b_cols : b_rows), "ldb is too small for B");
    require(ldc >= std::max<int64_t>(1, row ? n : m), "ldc is too small for C");
    // One internal layout (problem.hpp): a row-major C = op(A) op(B) is the column-major
    // C^T = op(B)^T op(A)^T, the same op flags with A and B swapped.
    detail::GemmArgs<T> g{};
    if (row)
        static_cast<detail::GemmOperands<T>&>(g) = {n, m, k, alpha, B, ldb, op_b == Op::T,
                                                    A, lda, op_a == Op::T, beta, C, ldc};
    else
        static_cast<detail::GemmOperands<T>&>(g) = {m, n, k, alpha, A, lda, op_a == Op::T,
                                                    B, ldb, op_b == Op::T, beta, C, ldc};
    if constexpr (sizeof(T) == 4) rung.f32(g, stream);
    else rung.f64(g, stream);
}

template void gemm<float>(const HipRung&, Layout, Op, Op, int64_t, int64_t, int64_t, float,
                          const float*, int64_t, const float*, int64_t, float, float*, int64_t,
                          cudaStream_t);
template void gemm<double>(const HipRung&, Layout, Op, Op, int64_t, int64_t, int64_t, double,
                           const double*, int64_t, const double*, int64_t, double, double*,
                           int64_t, cudaStream_t);

} // namespace gemmlab::hip
