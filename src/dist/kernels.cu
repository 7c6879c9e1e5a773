// Element-wise kernels of the distributed layer: the one rounding of a float accumulation to
// the output type (SUMMA with half-type C, the reduce-scatter of half-type partial products),
// and the sum of the pieces the copy engines' reduce-scatter gathered.

#include "dist/kernels.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace gemmlab::dist::detail {

namespace {

template <class TC>
__device__ TC from_float(float v) {
    if constexpr (std::is_same_v<TC, float>) return v;
    else if constexpr (std::is_same_v<TC, __nv_bfloat16>) return __float2bfloat16_rn(v);
    else return __float2half_rn(v);
}

template <class TC>
__global__ void store_from_float_kernel(int64_t lines, int64_t width, const float* src,
                                        int64_t ld_src, float beta, TC* dst, int64_t ld_dst) {
    const int64_t total = lines * width;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
         i += int64_t(gridDim.x) * blockDim.x) {
        const int64_t line = i / width, e = i % width;
        float v = src[line * ld_src + e];
        if (beta != 0.0f) v += beta * float(dst[line * ld_dst + e]);
        dst[line * ld_dst + e] = from_float<TC>(v);
    }
}

template <class T, class TC>
__global__ void sum_pieces_kernel(Pieces<T> pieces, int64_t rows, int64_t cols, TC* dst, int64_t ld_dst) {
    const int64_t total = rows * cols;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
        T v = pieces.src[0][i];
        for (int p = 1; p < pieces.count; ++p) v += pieces.src[p][i];
        const int64_t r = i / cols, c = i % cols;
        if constexpr (std::is_same_v<T, TC>) dst[r * ld_dst + c] = v;
        else dst[r * ld_dst + c] = from_float<TC>(v);
    }
}

} // namespace

template <class T, class TC>
cudaError_t sum_pieces(const Pieces<T>& pieces, int64_t rows, int64_t cols, TC* dst, int64_t ld_dst,
                       cudaStream_t stream) {
    const int64_t n = rows * cols;
    if (n <= 0 || pieces.count <= 0) return cudaSuccess;
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n + threads - 1) / threads, 132 * 8);
    sum_pieces_kernel<T, TC><<<unsigned(blocks), threads, 0, stream>>>(pieces, rows, cols, dst, ld_dst);
    return cudaGetLastError();
}

template cudaError_t sum_pieces<float, float>(const Pieces<float>&, int64_t, int64_t, float*, int64_t, cudaStream_t);
template cudaError_t sum_pieces<float, __nv_bfloat16>(const Pieces<float>&, int64_t, int64_t, __nv_bfloat16*, int64_t,
                                                      cudaStream_t);
template cudaError_t sum_pieces<float, __half>(const Pieces<float>&, int64_t, int64_t, __half*, int64_t, cudaStream_t);
template cudaError_t sum_pieces<double, double>(const Pieces<double>&, int64_t, int64_t, double*, int64_t,
                                                cudaStream_t);

template <class TC>
cudaError_t store_from_float(int64_t lines, int64_t width, const float* src, int64_t ld_src,
                             float beta, TC* dst, int64_t ld_dst, cudaStream_t stream) {
    if (lines <= 0 || width <= 0) return cudaSuccess;
    const int64_t total = lines * width;
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((total + threads - 1) / threads, 132 * 16);
    store_from_float_kernel<TC><<<unsigned(blocks), threads, 0, stream>>>(lines, width, src, ld_src,
                                                                          beta, dst, ld_dst);
    return cudaGetLastError();
}

template cudaError_t store_from_float<float>(int64_t, int64_t, const float*, int64_t, float, float*,
                                             int64_t, cudaStream_t);
template cudaError_t store_from_float<__nv_bfloat16>(int64_t, int64_t, const float*, int64_t, float,
                                                     __nv_bfloat16*, int64_t, cudaStream_t);
template cudaError_t store_from_float<__half>(int64_t, int64_t, const float*, int64_t, float, __half*,
                                              int64_t, cudaStream_t);

} // namespace gemmlab::dist::detail
