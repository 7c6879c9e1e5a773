#pragma once
// Device building blocks shared by the rungs: operand element access with the op folded in,
// guarded loads, and the alpha/beta epilogue. Each rung composes these in its own stages.

#include <cstdint>
#include <string>

#include "common/cuda_check.hpp"
#include "gemm/kernels/tile_grid.hpp"
#include "gemm/problem.hpp"

namespace gemmlab::detail {

/// Element (row, col) of op(X) where X is column-major with leading dimension ld.
/// op(X)(r, c) = X(r, c) or X(c, r). No bounds check.
template <bool Trans, class T>
__device__ __forceinline__ T op_at(const T* X, int64_t ld, int64_t row, int64_t col) {
    return Trans ? X[col + row * ld] : X[row + col * ld];
}

/// As op_at, but returns 0 outside the rows x cols extent of op(X): the zero-fill that makes
/// edge tiles contribute nothing to the sum.
template <bool Trans, class T>
__device__ __forceinline__ T op_at_or_zero(const T* X, int64_t ld, int64_t rows, int64_t cols,
                                           int64_t row, int64_t col) {
    return (row < rows && col < cols) ? op_at<Trans>(X, ld, row, col) : T(0);
}

/// Epilogue for one element: C(i, j) = alpha * acc + beta * C(i, j), reading C only when
/// beta != 0 so that NaN or Inf already in C never leaks into a beta == 0 result.
template <class T>
__device__ __forceinline__ void store_c(T* C, int64_t ldc, int64_t i, int64_t j, T acc, T alpha,
                                        T beta) {
    T* c = C + i + j * ldc;
    *c = (beta == T(0)) ? alpha * acc : alpha * acc + beta * *c;
}

/// Guarded epilogue: writes only inside m x n.
template <class T>
__device__ __forceinline__ void store_c_guarded(T* C, int64_t ldc, int64_t m, int64_t n,
                                                int64_t i, int64_t j, T acc, T alpha, T beta) {
    if (i < m && j < n) store_c(C, ldc, i, j, acc, alpha, beta);
}

/// Integer ceiling division for grid sizes.
constexpr int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A planned grid of block tiles, ready to launch (see tile_grid.hpp).
struct LaunchGrid {
    dim3 dims;    ///< the launch's grid
    bool swapped; ///< pass to the kernel, which decodes its tile with block_tile()
};

/// The grid of tiles_x x tiles_y block tiles (x the rung's preferred fast dimension). Throws
/// CudaFailure when no 2-D grid holds them (a C larger than any GPU memory).
inline LaunchGrid tile_grid(int64_t tiles_x, int64_t tiles_y) {
    const TileGrid g = plan_tile_grid(tiles_x, tiles_y);
    if (!g.fits)
        throw CudaFailure("C needs " + std::to_string(tiles_x) + " x " + std::to_string(tiles_y) +
                          " block tiles, more than a CUDA grid holds (2^31-1 x 65535)");
    return {dim3(g.grid_x, g.grid_y), g.swapped};
}

// ---------------------------------------------------------------------- strided batches
// A natively batched rung (KernelInfo::native_batch) launches its usual x/y grid of tiles with
// one z slice per batch: block (x, y, z) computes tile (x, y) of batch z, its kernel taking the
// operands (GemmOperands / HalfOperands) and the BatchStrides as parameters. A batch past
// gridDim.z's 65535 is split by the launcher into launches of at most 65535 batches each
// (for_each_batch_chunk) rather than looped inside the kernel: the kernels run at their
// register cap, and a z loop there made ptxas spill in most float configurations of rungs 13
// and 14 (presumably z and the addresses hoisted out of the loop, live across the mainloop).
// For the same reason a kernel moves A, B and C to its batch where it uses them (batch_a,
// batch_b, batch_c: blockIdx.z times a stride parameter), not once at entry. One batch (the
// plain gemm call) is z = 0: a few integer instructions, no register held across the mainloop.

/// gridDim.z for `count` batches: one slice each, at most 65535 (for_each_batch_chunk).
inline unsigned batch_grid_z(int64_t count) {
    return unsigned(count < kMaxGridY ? count : kMaxGridY);
}

/// Batch z of `g` (GemmArgs or HalfArgs) as a problem of its own: A, B and C moved z strides on.
template <class Args>
Args batch_view(const Args& g, int64_t z) {
    Args b = g;
    b.A += z * g.batch.strides.a;
    b.B += z * g.batch.strides.b;
    b.C += z * g.batch.strides.c;
    return b;
}

/// Calls launch(chunk) for the batches of `g` (GemmArgs or HalfArgs) in chunks of at most 65535
/// (one launch each, on gridDim.z): `g` itself when it fits, else copies moved to each chunk's
/// first batch.
template <class Args, class Launch>
void for_each_batch_chunk(const Args& g, Launch&& launch) {
    if (g.batch.count <= kMaxGridY) return launch(g);
    for (int64_t first = 0; first < g.batch.count; first += kMaxGridY) {
        Args chunk = batch_view(g, first);
        const int64_t left = g.batch.count - first;
        chunk.batch.count = left < kMaxGridY ? left : kMaxGridY;
        launch(chunk);
    }
}

/// True when every batch of an operand keeps batch 0's alignment: one batch, or a stride that
/// is a multiple of `elements` (a rung that checks the base pointer and leading dimension for a
/// vector path checks this too: an odd stride misaligns every other batch).
inline bool stride_keeps_alignment(const Batch& batch, int64_t stride, int64_t elements) {
    return batch.count == 1 || stride % elements == 0;
}

#ifdef __CUDACC__
/// This block's batch (blockIdx.z) of A in `g` (GemmOperands or HalfOperands); call where it
/// is used, not once at entry (see above).
template <class Ops>
__device__ __forceinline__ auto batch_a(const Ops& g, const BatchStrides& s) {
    return g.A + int64_t(blockIdx.z) * s.a;
}
/// This block's batch of B.
template <class Ops>
__device__ __forceinline__ auto batch_b(const Ops& g, const BatchStrides& s) {
    return g.B + int64_t(blockIdx.z) * s.b;
}
/// This block's batch of C.
template <class Ops>
__device__ __forceinline__ auto batch_c(const Ops& g, const BatchStrides& s) {
    return g.C + int64_t(blockIdx.z) * s.c;
}
/// `g` with C moved to this block's batch: what an epilogue that takes the operands gets.
template <class Ops>
__device__ __forceinline__ Ops with_batch_c(const Ops& g, const BatchStrides& s) {
    Ops b = g;
    b.C = batch_c(g, s);
    return b;
}
#endif

/// True when `p` is aligned to `bytes`.
template <class T>
__host__ __device__ inline bool is_aligned(const T* p, unsigned bytes) {
    return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

/// Calls f.template operator()<TransA, TransB>() with the op flags of `args` (GemmArgs or
/// HalfArgs) as compile-time constants, so each rung instantiates its kernel for the four op
/// combinations in one line.
template <class Args, class F>
void dispatch_ops(const Args& args, F&& f) {
    if (!args.trans_a && !args.trans_b) f.template operator()<false, false>();
    else if (!args.trans_a && args.trans_b) f.template operator()<false, true>();
    else if (args.trans_a && !args.trans_b) f.template operator()<true, false>();
    else f.template operator()<true, true>();
}

} // namespace gemmlab::detail
