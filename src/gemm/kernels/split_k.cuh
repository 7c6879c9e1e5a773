#pragma once
// Split-K: a product whose m x n tiles cannot fill the GPU while k is long (512 x 512 x 16384
// is 16 tiles of 128 x 128 on 132 SMs) is cut along k into slices; each slice's product goes to
// a partial buffer, and a second kernel adds the partials in slice order and applies alpha and
// beta. No atomics, one fixed order: the same call gives the same bits on every run.
//
// Two producers of partials share the sum here:
// - the warp-specialized wgmma kernel (22_warp_specialized.cuh), whose work units are (tile, slice) pairs writing FP32
//   partials (rungs 24-26);
// - any natively batched rung (13-17: CUDA cores, DMMA, TF32, 3xTF32), through
//   launch_split_k below: the slices are a strided batch of the rung's own kernel, slice s
//   reading op(A) and op(B) s slices along k and writing partial buffer s (alpha 1, beta 0), so
//   no kernel changes. Partials are in the element type (FP32 for float, FP64 for double).
// Accuracy: each slice's sum and then the sum of the slices is one reordering of the same k
// products, inside the type's bound (docs/precision.md, "Split-K").

#include <cstdint>
#include <type_traits>

#include "gemm/element.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/problem.hpp"

namespace gemmlab::detail {

/// Slices of launch_split_k start at multiples of this many k: whole k tiles of every
/// configuration auto splits (BK <= 32), so only the last slice has a ragged tile.
inline constexpr int64_t kSplitKAlign = 32;

/// C = alpha * (partial slice 0 + slice 1 + ...) + beta * C over m x n, one thread per element
/// (grid-stride). Slice s's element (i, j) is partial[s * slice_stride + i + j * ldp]; the sum
/// runs in TPartial, alpha and beta in TScalar, and C (read only when beta != 0) is rounded to
/// TOut once.
template <class TPartial, class TOut, class TScalar>
__global__ void __launch_bounds__(256)
    sum_slices_kernel(const TPartial* __restrict__ partial, int slices, int64_t slice_stride,
                      int64_t ldp, int64_t m, int64_t n, TScalar alpha, TScalar beta,
                      TOut* __restrict__ C, int64_t ldc) {
    const int64_t total = m * n;
    for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
         idx += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = idx % m, j = idx / m;
        const TPartial* p = partial + i + j * ldp;
        TPartial sum = 0;
        for (int s = 0; s < slices; ++s) sum += p[s * slice_stride];
        TOut* c = C + i + j * ldc;
        TScalar v = alpha * TScalar(sum);
        if constexpr (std::is_same_v<TOut, TScalar>) {
            if (beta != TScalar(0)) v += beta * *c;
            *c = v;
        } else {
            if (beta != TScalar(0)) v += beta * to_float(*c);
            *c = from_float<TOut>(v);
        }
    }
}

/// Enqueues sum_slices_kernel on `stream` with enough blocks to fill the device 8 times over.
template <class TPartial, class TOut, class TScalar>
void enqueue_sum_slices(const TPartial* partial, int slices, int64_t slice_stride, int64_t ldp,
                        int64_t m, int64_t n, TScalar alpha, TScalar beta, TOut* C, int64_t ldc,
                        int sm_count, cudaStream_t stream);

/// Runs `launch` (a natively batched rung's launcher) on g with k cut into about `splits`
/// slices of whole multiples of kSplitKAlign, then sums them (see the header). Falls back to
/// one unsplit launch when k gives fewer than 2 slices, when g is itself a batch, or when the
/// workspace pool cannot supply the partials.
template <class T>
void launch_split_k(Launcher<T> launch, const GemmArgs<T>& g, int splits, cudaStream_t stream);

} // namespace gemmlab::detail
