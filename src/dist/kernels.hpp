#pragma once
// The small element-wise kernels of the distributed layer (kernels.cu).

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmlab::dist::detail {

/// dst = src + beta * dst over `lines` lines of `width` elements (row-major: lines are rows;
/// column-major: columns), src in float, dst in TC (bf16, fp16 or float), rounded once.
/// beta == 0 never reads dst. Returns the launch's error.
template <class TC>
cudaError_t store_from_float(int64_t lines, int64_t width, const float* src, int64_t ld_src,
                             float beta, TC* dst, int64_t ld_dst, cudaStream_t stream);

/// The pieces a reduce-scatter sums, at most kMaxPieces of them.
template <class T>
struct Pieces {
    static constexpr int kMaxPieces = 16;
    const T* src[kMaxPieces] = {};
    int count = 0;
};

/// dst(i, j) = src[0](i, j) + src[1](i, j) + ... in that order (one fixed order: the same sum
/// on every run), summed in T (float or double) and rounded once to TC, for `rows` x `cols`
/// pieces stored contiguously (row-major, ld cols); dst is row-major with ld ld_dst. Returns
/// the launch's error.
template <class T, class TC>
cudaError_t sum_pieces(const Pieces<T>& pieces, int64_t rows, int64_t cols, TC* dst, int64_t ld_dst,
                       cudaStream_t stream);

} // namespace gemmlab::dist::detail
