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

/// True when `p` is aligned to `bytes`.
template <class T>
inline bool is_aligned(const T* p, unsigned bytes) {
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
