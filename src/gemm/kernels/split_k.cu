// Split-K for the natively batched rungs: slices as a strided batch, then the ordered sum
// (split_k.cuh says why and how).

#include "gemm/kernels/split_k.cuh"

#include <algorithm>

#include "common/cuda_check.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail {

template <class TPartial, class TOut, class TScalar>
void enqueue_sum_slices(const TPartial* partial, int slices, int64_t slice_stride, int64_t ldp,
                        int64_t m, int64_t n, TScalar alpha, TScalar beta, TOut* C, int64_t ldc,
                        int sm_count, cudaStream_t stream) {
    const int64_t cap = int64_t(std::max(sm_count, 1)) * 8;
    const unsigned blocks = unsigned(std::min<int64_t>(ceil_div(m * n, int64_t(256)), cap));
    sum_slices_kernel<TPartial, TOut, TScalar><<<blocks, 256, 0, stream>>>(
        partial, slices, slice_stride, ldp, m, n, alpha, beta, C, ldc);
    GEMMLAB_CHECK_LAUNCH();
}

template void enqueue_sum_slices<float, float, float>(const float*, int, int64_t, int64_t, int64_t,
                                                      int64_t, float, float, float*, int64_t, int,
                                                      cudaStream_t);
template void enqueue_sum_slices<double, double, double>(const double*, int, int64_t, int64_t,
                                                         int64_t, int64_t, double, double, double*,
                                                         int64_t, int, cudaStream_t);
template void enqueue_sum_slices<float, __nv_bfloat16, float>(const float*, int, int64_t, int64_t,
                                                              int64_t, int64_t, float, float,
                                                              __nv_bfloat16*, int64_t, int,
                                                              cudaStream_t);
template void enqueue_sum_slices<float, __half, float>(const float*, int, int64_t, int64_t, int64_t,
                                                       int64_t, float, float, __half*, int64_t, int,
                                                       cudaStream_t);

template <class T>
void launch_split_k(Launcher<T> launch, const GemmArgs<T>& g, int splits, cudaStream_t stream) {
    const int64_t want = std::max(splits, 1);
    const int64_t slice = ceil_div(ceil_div(g.k, want), kSplitKAlign) * kSplitKAlign;
    const int64_t slices = ceil_div(g.k, slice);
    if (slices < 2 || g.batch.count != 1) return launch(g, stream);

    // Partial buffers of m x n, columns padded to 32 bytes so that a rung's 16-byte stores
    // stay aligned in every slice.
    constexpr int64_t kPad = 32 / int64_t(sizeof(T));
    const int64_t ldp = ceil_div(g.m, kPad) * kPad;
    const int64_t slice_elems = ldp * g.n;
    Workspace ws(size_t(slices * slice_elems) * sizeof(T), stream);
    if (!ws.data()) return launch(g, stream);
    T* const partial = static_cast<T*>(ws.data());

    // Slice s starts s * slice along k: in A's columns when op(A) = A (m x k stored), its rows
    // when op(A) = A^T; in B's rows when op(B) = B, its columns when op(B) = B^T.
    const int64_t step_a = g.trans_a ? slice : slice * g.lda;
    const int64_t step_b = g.trans_b ? slice * g.ldb : slice;
    const int64_t last_k = g.k - (slices - 1) * slice;
    const int64_t whole = last_k == slice ? slices : slices - 1; // slices of the full length

    GemmArgs<T> part = g;
    part.k = slice;
    part.alpha = T(1);
    part.beta = T(0);
    part.C = partial;
    part.ldc = ldp;
    part.batch = {whole, {step_a, step_b, slice_elems}};
    launch(part, stream);
    if (whole < slices) { // the ragged last slice: a batch of one with its own k
        GemmArgs<T> last = part;
        last.k = last_k;
        last.A = g.A + whole * step_a;
        last.B = g.B + whole * step_b;
        last.C = partial + whole * slice_elems;
        last.batch = {};
        launch(last, stream);
    }
    enqueue_sum_slices<T, T, T>(partial, int(slices), slice_elems, ldp, g.m, g.n, g.alpha, g.beta,
                                g.C, g.ldc, current_device_caps().sm_count, stream);
}

template void launch_split_k<float>(Launcher<float>, const GemmArgs<float>&, int, cudaStream_t);
template void launch_split_k<double>(Launcher<double>, const GemmArgs<double>&, int, cudaStream_t);

} // namespace gemmlab::detail
