#pragma once
// The 16-bit Hopper rungs read A and B by TMA, which needs 16-byte-aligned columns: a base
// address and a leading dimension in whole 16-byte units (8 elements). An operand without them
// (an odd leading dimension: 2047 x 2047, 4095 x 4097 x 1023) is copied here into the library's
// workspace with its columns 128 bytes apart, unchanged otherwise (same layout, same batch),
// and the rung runs on the copy. The copy reads and writes each element once (4 bytes of DRAM
// traffic an element, auto's model counts it), against rung 19's kernel, which reads any
// alignment but ran such products at a quarter of the wgmma rungs' speed (docs/ladder.md).
// Where the workspace cannot be had, the caller keeps rung 19.

#include <algorithm>
#include <cstdint>

#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::hopper {

/// Elements between the copy's columns: the column rounded up to 128 bytes (a whole L2 line,
/// so that every TMA box row is one line).
inline int64_t repitched_ld(int64_t rows) { return (rows + 63) / 64 * 64; }

/// Copies `count` matrices of rows x cols 16-bit elements (column j of matrix b at
/// X + b stride + j ld) to out (column j of matrix b at out + (b cols + j) ldp), ldp a multiple
/// of 8. Each thread moves 8 rows of one column: eight 2-byte loads (the source has no
/// alignment to vectorize on; a warp's loads still cover 512 contiguous bytes) and one 16-byte
/// store. Rows past `rows` inside the last 8 are written as zeros (never read: the tensor map's
/// extent is `rows`).
template <class T>
__global__ void __launch_bounds__(256)
    repitch_kernel(const T* __restrict__ X, int64_t ld, int64_t stride, int64_t rows, int64_t cols,
                   int64_t count, T* __restrict__ out, int64_t ldp) {
    static_assert(sizeof(T) == 2, "16-bit operands");
    const int64_t chunks = (rows + 7) / 8; // per column
    const int64_t per_matrix = chunks * cols;
    const int64_t total = per_matrix * count;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t b = i / per_matrix, in_matrix = i - b * per_matrix;
        const int64_t col = in_matrix / chunks, r0 = (in_matrix - col * chunks) * 8;
        const uint16_t* src = reinterpret_cast<const uint16_t*>(X + b * stride + col * ld + r0);
        uint16_t v[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) v[j] = r0 + j < rows ? src[j] : uint16_t(0);
        uint4 packed;
        packed.x = v[0] | uint32_t(v[1]) << 16;
        packed.y = v[2] | uint32_t(v[3]) << 16;
        packed.z = v[4] | uint32_t(v[5]) << 16;
        packed.w = v[6] | uint32_t(v[7]) << 16;
        *reinterpret_cast<uint4*>(out + (b * cols + col) * ldp + r0) = packed;
    }
}

/// One stored operand of a 16-bit problem: `rows` contiguous elements per column, `cols`
/// columns, and its batch (stride 0: one matrix every product reads).
template <class T>
struct StoredOperand {
    const T* data;
    int64_t ld, rows, cols, stride;
    int64_t count; // matrices stored: the batch's count, or 1 when shared

    int64_t copy_elements() const { return repitched_ld(rows) * cols * count; }
};

/// The batch stride of x's copy: its matrices one after another (0 for a shared operand).
template <class T>
int64_t repitched_stride(const StoredOperand<T>& x) {
    return x.count > 1 ? repitched_ld(x.rows) * x.cols : 0;
}

/// Enqueues the copy of `x` to `out`: columns repitched_ld(x.rows) apart, matrices
/// repitched_stride(x) apart.
template <class T>
void enqueue_repitch(const StoredOperand<T>& x, T* out, cudaStream_t stream) {
    const int64_t ldp = repitched_ld(x.rows);
    const int64_t threads = (x.rows + 7) / 8 * x.cols * x.count;
    // A few blocks per SM; each thread loops over the rest.
    const int64_t cap = int64_t(current_device_caps().sm_count) * 8;
    const unsigned grid = unsigned(std::min<int64_t>(ceil_div(threads, 256), cap));
    repitch_kernel<T><<<grid, 256, 0, stream>>>(x.data, x.ld, x.stride, x.rows, x.cols, x.count,
                                                out, ldp);
    GEMMLAB_CHECK_LAUNCH();
}

/// op(A) and op(B) of g as stored: A is m x k (k x m when transposed), B k x n (n x k).
template <class TIn, class TOut>
StoredOperand<TIn> stored_a(const HalfArgs<TIn, TOut>& g) {
    const bool shared = g.batch.count == 1 || g.batch.strides.a == 0;
    return {g.A, g.lda, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.batch.strides.a,
            shared ? 1 : g.batch.count};
}
template <class TIn, class TOut>
StoredOperand<TIn> stored_b(const HalfArgs<TIn, TOut>& g) {
    const bool shared = g.batch.count == 1 || g.batch.strides.b == 0;
    return {g.B, g.ldb, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.batch.strides.b,
            shared ? 1 : g.batch.count};
}

} // namespace gemmlab::detail::hopper
