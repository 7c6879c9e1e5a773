#pragma once
// A copy of an operand whose columns a rung cannot read in 16-byte units (an odd leading
// dimension: 2047 x 2047, 4095 x 4097 x 1023; or a base off 16 bytes) into the library's
// workspace, its columns 128 bytes apart and otherwise unchanged (same layout, same batch), so
// that the rung runs its aligned path on the copy:
// - the 16-bit wgmma rungs, whose TMA needs 16-byte columns (hopper/launch.cuh); rung 19, which
//   reads any alignment, ran such products at a quarter of their speed (docs/ladder.md);
// - rung 15's rotating mainloop, which needs 16-byte cp.async copies (mma_tile.cuh); with 8-byte
//   copies of an odd-pitched double the kernel takes the plain mainloop instead.
// The copy reads and writes each element once (2 x the element's bytes of DRAM traffic; auto's
// model counts it). Where the workspace cannot be had, the caller keeps its unaligned path.

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::repitch {

/// Elements between the copy's columns: the column rounded up to 128 bytes (a whole L2 line, so
/// that every TMA box row or cp.async line starts one).
template <class T>
int64_t copy_ld(int64_t rows) {
    constexpr int64_t kLine = 128 / int64_t(sizeof(T));
    return (rows + kLine - 1) / kLine * kLine;
}

/// Copies `count` matrices of rows x cols elements (column j of matrix b at X + b stride + j ld)
/// to out (column j of matrix b at out + (b cols + j) ldp), ldp a multiple of 16 bytes. Each
/// thread moves 16 bytes of one column: element-wise loads (the source has no alignment to
/// vectorize on; a warp's loads still cover 512 contiguous bytes) and one 16-byte store. Rows
/// past `rows` inside the last 16 bytes are written as zeros (never read: the readers' extent is
/// `rows`).
template <class T>
__global__ void __launch_bounds__(256)
    repitch_kernel(const T* __restrict__ X, int64_t ld, int64_t stride, int64_t rows, int64_t cols,
                   int64_t count, T* __restrict__ out, int64_t ldp) {
    constexpr int V = 16 / int(sizeof(T)); // elements per 16-byte store
    const int64_t chunks = (rows + V - 1) / V; // per column
    const int64_t per_matrix = chunks * cols;
    const int64_t total = per_matrix * count;
    for (int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t b = i / per_matrix, in_matrix = i - b * per_matrix;
        const int64_t col = in_matrix / chunks, r0 = (in_matrix - col * chunks) * V;
        // Moved as raw bits of the element's width: no conversion, any element type.
        using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                        std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
        const Bits* src = reinterpret_cast<const Bits*>(X + b * stride + col * ld + r0);
        Bits v[V];
#pragma unroll
        for (int j = 0; j < V; ++j) v[j] = r0 + j < rows ? src[j] : Bits(0);
        uint4 packed;
        memcpy(&packed, v, sizeof(packed));
        *reinterpret_cast<uint4*>(out + (b * cols + col) * ldp + r0) = packed;
    }
}

/// One stored operand: `rows` contiguous elements per column, `cols` columns, and its batch
/// (stride 0: one matrix every product reads).
template <class T>
struct Operand {
    const T* data;
    int64_t ld, rows, cols, stride;
    int64_t count; // matrices stored: the batch's count, or 1 when shared

    int64_t copy_elements() const { return copy_ld<T>(rows) * cols * count; }
};

/// The batch stride of x's copy: its matrices one after another (0 for a shared operand).
template <class T>
int64_t copy_stride(const Operand<T>& x) {
    return x.count > 1 ? copy_ld<T>(x.rows) * x.cols : 0;
}

/// Enqueues the copy of `x` to `out` (16-byte aligned): columns copy_ld(x.rows) apart,
/// matrices copy_stride(x) apart.
template <class T>
void enqueue_copy(const Operand<T>& x, T* out, cudaStream_t stream) {
    static_assert(sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8, "16-byte stores of whole elements");
    const int64_t ldp = copy_ld<T>(x.rows);
    const int64_t threads = (x.rows * int64_t(sizeof(T)) + 15) / 16 * x.cols * x.count;
    // A few blocks per SM; each thread loops over the rest.
    const int64_t cap = int64_t(current_device_caps().sm_count) * 8;
    const unsigned grid = unsigned(std::min<int64_t>(ceil_div(threads, 256), cap));
    repitch_kernel<T><<<grid, 256, 0, stream>>>(x.data, x.ld, x.stride, x.rows, x.cols, x.count,
                                                out, ldp);
    GEMMLAB_CHECK_LAUNCH();
}

/// op(A) and op(B) of g (GemmArgs or HalfArgs) as stored: A is m x k (k x m when transposed), B
/// k x n (n x k).
template <class Args>
auto stored_a(const Args& g) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(g.A)>>;
    const bool shared = g.batch.count == 1 || g.batch.strides.a == 0;
    return Operand<T>{g.A, g.lda, g.trans_a ? g.k : g.m, g.trans_a ? g.m : g.k, g.batch.strides.a,
                      shared ? 1 : g.batch.count};
}
template <class Args>
auto stored_b(const Args& g) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(g.B)>>;
    const bool shared = g.batch.count == 1 || g.batch.strides.b == 0;
    return Operand<T>{g.B, g.ldb, g.trans_b ? g.n : g.k, g.trans_b ? g.k : g.n, g.batch.strides.b,
                      shared ? 1 : g.batch.count};
}

/// Runs launch(r) on copies of the operands of g that needs_copy(stored operand) names, both in
/// one workspace, where r is g pointing at the copies. False, having enqueued nothing, where the
/// workspace cannot be had or usable(r) turns the copies down.
template <class Args, class NeedsCopy, class Usable, class Launch>
bool launch_on_copies(const Args& g, cudaStream_t stream, NeedsCopy needs_copy, Usable usable, Launch launch) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(g.A)>>;
    const Operand<T> a = stored_a(g), b = stored_b(g);
    const bool copy_a = needs_copy(a), copy_b = needs_copy(b);
    const size_t a_bytes = copy_a ? (a.copy_elements() * sizeof(T) + 255) / 256 * 256 : 0;
    const size_t b_bytes = copy_b ? b.copy_elements() * sizeof(T) : 0;
    Workspace ws(a_bytes + b_bytes, stream);
    if (!ws.data()) return false;
    T* a_copy = static_cast<T*>(ws.data());
    T* b_copy = reinterpret_cast<T*>(static_cast<char*>(ws.data()) + a_bytes);
    Args r = g;
    if (copy_a) r.A = a_copy, r.lda = copy_ld<T>(a.rows), r.batch.strides.a = copy_stride(a);
    if (copy_b) r.B = b_copy, r.ldb = copy_ld<T>(b.rows), r.batch.strides.b = copy_stride(b);
    if (!usable(r)) return false;
    if (copy_a) enqueue_copy(a, a_copy, stream);
    if (copy_b) enqueue_copy(b, b_copy, stream);
    launch(r);
    return true; // ws is freed on the stream after the launch's kernels
}

} // namespace gemmlab::detail::repitch
