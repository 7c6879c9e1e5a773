// Double-double GPU reference GEMM (see gpu_reference.hpp). Deliberately simple: 16x16 shared
// tiles, one output per thread; its speed only has to beat the CPU reference, its accuracy has
// to beat every rung by a wide margin.

#include "common/cuda_check.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/reference/gpu_reference.hpp"

namespace gemmlab::reference {
namespace {

constexpr int kTile = 16;

struct DoubleDouble {
    double hi = 0, lo = 0;
};

// Error-free transformations (Knuth's TwoSum, FMA-based TwoProd), then a normalizing add.
__device__ __forceinline__ DoubleDouble dd_add_product(DoubleDouble s, double a, double b) {
    const double p = a * b;
    const double p_err = fma(a, b, -p);
    const double t = s.hi + p;
    const double bv = t - s.hi;
    const double t_err = (s.hi - (t - bv)) + (p - bv);
    const double lo = s.lo + p_err + t_err;
    const double hi = t + lo;
    return {hi, lo - (hi - t)};
}

/// Element (row, col) of op(X) as a double, 0 outside rows x cols (exact for every type).
template <bool Trans, class T>
__device__ __forceinline__ double op_at_double(const T* X, int64_t ld, int64_t rows, int64_t cols,
                                               int64_t row, int64_t col) {
    return (row < rows && col < cols) ? detail::to_double(detail::op_at<Trans>(X, ld, row, col)) : 0.0;
}

// Args: GemmArgs<T> or HalfArgs<TIn, TOut> (the same members); TC: C0's element type. The grid is
// planned by tile_grid (tile_grid.hpp): `swapped` says m's tiles run along gridDim.y.
template <class Args, class TC, bool TransA, bool TransB>
__global__ void dd_gemm_kernel(Args g, const TC* C0, int64_t ldc0, double* ref, double* mag,
                               bool swapped) {
    __shared__ double a_tile[kTile][kTile + 1]; // (BM, BK) of op(A), padded
    __shared__ double b_tile[kTile][kTile + 1]; // (BK, BN) of op(B), padded
    const int tx = threadIdx.x, ty = threadIdx.y;
    int64_t tile_i, tile_j;
    detail::block_tile(swapped, tile_i, tile_j);
    const int64_t i0 = tile_i * kTile, j0 = tile_j * kTile;
    const int64_t i = i0 + tx;
    const int64_t j = j0 + ty;
    DoubleDouble acc;
    double abs_sum = 0;
    for (int64_t p0 = 0; p0 < g.k; p0 += kTile) {
        a_tile[tx][ty] = op_at_double<TransA>(g.A, g.lda, g.m, g.k, i0 + tx, p0 + ty);
        b_tile[tx][ty] = op_at_double<TransB>(g.B, g.ldb, g.k, g.n, p0 + tx, j0 + ty);
        __syncthreads();
        for (int p = 0; p < kTile; ++p) {
            const double a = a_tile[tx][p], b = b_tile[p][ty];
            acc = dd_add_product(acc, a, b);
            abs_sum += fabs(a * b);
        }
        __syncthreads();
    }
    if (i >= g.m || j >= g.n) return;
    const double alpha = double(g.alpha), beta = double(g.beta);
    // alpha * acc in double-double, then + beta * C0.
    DoubleDouble r = dd_add_product({}, alpha, acc.hi);
    r = dd_add_product(r, alpha, acc.lo);
    double m = fabs(alpha) * abs_sum;
    if (beta != 0) {
        const double c0 = detail::to_double(C0[i + j * ldc0]);
        r = dd_add_product(r, beta, c0);
        m += fabs(beta) * fabs(c0);
    }
    ref[i + j * g.m] = r.hi + r.lo;
    mag[i + j * g.m] = m;
}

template <class Args, class TC>
void launch_dd_gemm(const Args& g, const TC* C0, int64_t ldc0, double* ref, double* mag,
                    cudaStream_t stream) {
    if (g.m == 0 || g.n == 0) return;
    const dim3 block(kTile, kTile);
    const detail::LaunchGrid grid = detail::tile_grid(detail::ceil_div(g.m, kTile), detail::ceil_div(g.n, kTile));
    detail::dispatch_ops(g, [&]<bool TA, bool TB>() {
        dd_gemm_kernel<Args, TC, TA, TB><<<grid.dims, block, 0, stream>>>(g, C0, ldc0, ref, mag,
                                                                          grid.swapped);
    });
    GEMMLAB_CHECK_LAUNCH();
}

} // namespace

template <class T>
void gpu_reference(const detail::GemmArgs<T>& g, const T* C0, int64_t ldc0, double* ref, double* mag,
                   cudaStream_t stream) {
    launch_dd_gemm(g, C0, ldc0, ref, mag, stream);
}

template <class TIn, class TOut>
void gpu_reference_half(const detail::HalfArgs<TIn, TOut>& g, const TOut* C0, int64_t ldc0,
                        double* ref, double* mag, cudaStream_t stream) {
    launch_dd_gemm(g, C0, ldc0, ref, mag, stream);
}

template void gpu_reference<float>(const detail::GemmArgs<float>&, const float*, int64_t, double*, double*, cudaStream_t);
template void gpu_reference<double>(const detail::GemmArgs<double>&, const double*, int64_t, double*, double*, cudaStream_t);
#define GEMMLAB_HALF_GPU_REFERENCE(TIn, TOut)                                                      \
    template void gpu_reference_half<TIn, TOut>(const detail::HalfArgs<TIn, TOut>&, const TOut*,   \
                                                int64_t, double*, double*, cudaStream_t);
GEMMLAB_HALF_GPU_REFERENCE(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_HALF_GPU_REFERENCE(__nv_bfloat16, float)
GEMMLAB_HALF_GPU_REFERENCE(__half, __half)
GEMMLAB_HALF_GPU_REFERENCE(__half, float)
#undef GEMMLAB_HALF_GPU_REFERENCE

} // namespace gemmlab::reference
