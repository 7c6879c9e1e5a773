// Rung 18: half precision (BF16/FP16 inputs) on the CUDA cores: the correct fallback.
//
// Idea: the half-precision API's plumbing end to end, and the rung `auto` falls back to where no
// tensor-core rung fits. Each 64x16 tile of op(A) and 16x64 tile of op(B) is converted to float
// on its way into shared memory (exact: every BF16/FP16 value is a float), then each of 256
// threads accumulates a 4x4 block of C with FP32 FMAs, and the epilogue applies alpha and beta
// in float and rounds once to C's type (round to nearest even). Element-wise 2-byte loads and
// stores: any pointer alignment and leading dimension is fine.
// Changed from rung 9 (same 64x64x16 tile and 4x4 outer product): inputs in BF16/FP16,
// shared tiles in float, and a warp's 4x4 tiles are strided (rows tx + 16 i, columns
// ty + 16 j) so that its shared-memory reads and its C stores are contiguous without vector
// loads. Not tuned: the tensor-core rungs are the fast half-precision path.
// Seeds: 001 v7 (64x64x16 tile, 4x4 micro-kernel, 256 threads), on half-precision inputs.
// Measured effect: not yet measured (no GPU where it was written); docs/ladder.md will carry it.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

using BlockHalf = tile::GemmShape<kHalfSimtBM, kHalfSimtBN, kHalfSimtBK>; // block tile (BM, BN, BK)
constexpr int kTMh = 4, kTNh = 4;               // thread tile
constexpr int kThreadsHalf = (BlockHalf::kM / kTMh) * (BlockHalf::kN / kTNh);
static_assert(kThreadsHalf == 256, "a 64x64 block tile of 4x4 thread tiles is 256 threads");
constexpr int kRowThreads = BlockHalf::kM / kTMh; // threads along m: rows tx + kRowThreads * i
static_assert(BlockHalf::kN / kTNh == kThreadsHalf / kRowThreads,
              "the threads along n must cover BN with TN columns each");

/// gmem -> smem: the (R, BK) tile of an operand viewed as R x k (op(A), or op(B)^T), starting at
/// row r0 and depth p0, converted to float into S (BK, R + 1), k-major; zero outside rows x k.
/// KContig: the operand's k index is the contiguous one in memory (X(r, p) = X[p + r * ld]),
/// else its r index is (X[r + p * ld]). Consecutive threads walk the contiguous index, so a
/// warp's global loads are contiguous either way; the +1 padding keeps the k-fastest stores to
/// at most two-way bank conflicts.
template <int R, int BK, bool KContig, class TIn>
__device__ __forceinline__ void load_tile(float (&S)[BK][R + 1], const TIn* X, int64_t ld,
                                          int64_t rows, int64_t k, int64_t r0, int64_t p0) {
    for (int idx = threadIdx.x; idx < R * BK; idx += kThreadsHalf) {
        const int r = KContig ? idx / BK : idx % R;
        const int p = KContig ? idx % BK : idx / R;
        const int64_t gr = r0 + r, gp = p0 + p;
        float v = 0.f;
        if (gr < rows && gp < k) v = to_float(KContig ? X[gp + gr * ld] : X[gr + gp * ld]);
        S[p][r] = v;
    }
}

/// Multiply-accumulate stage: acc (TM, TN) += the BK-deep product of the shared tiles for this
/// thread's rows tx + 16 i and columns ty + 16 j. A warp (16 consecutive tx, 2 ty) reads 16
/// consecutive As words (conflict-free) and 2 Bs words (broadcast).
template <int BM, int BN, int BK>
__device__ __forceinline__ void mma_tile(float (&acc)[kTMh][kTNh], const float (&As)[BK][BM + 1],
                                         const float (&Bs)[BK][BN + 1], int tx, int ty) {
#pragma unroll
    for (int p = 0; p < BK; ++p) {
        float a[kTMh], b[kTNh];
#pragma unroll
        for (int i = 0; i < kTMh; ++i) a[i] = As[p][tx + kRowThreads * i];
#pragma unroll
        for (int j = 0; j < kTNh; ++j) b[j] = Bs[p][ty + (kThreadsHalf / kRowThreads) * j];
#pragma unroll
        for (int i = 0; i < kTMh; ++i)
#pragma unroll
            for (int j = 0; j < kTNh; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
}

/// Epilogue: C = alpha * acc + beta * C in float, rounded once to TOut, inside m x n only; C is
/// read only when beta != 0 (NaN in C must not leak into a beta == 0 result).
template <class TOut>
__device__ __forceinline__ void store_tile(const float (&acc)[kTMh][kTNh], TOut* C, int64_t ldc,
                                           int64_t m, int64_t n, int64_t row0, int64_t col0,
                                           float alpha, float beta, int tx, int ty) {
#pragma unroll
    for (int j = 0; j < kTNh; ++j) {
        const int64_t col = col0 + ty + (kThreadsHalf / kRowThreads) * j;
#pragma unroll
        for (int i = 0; i < kTMh; ++i) {
            const int64_t row = row0 + tx + kRowThreads * i;
            if (row >= m || col >= n) continue;
            TOut* c = C + row + col * ldc;
            float v = alpha * acc[i][j];
            if (beta != 0.f) v += beta * to_float(*c);
            *c = from_float<TOut>(v);
        }
    }
}

template <class TIn, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreadsHalf) half_simt_kernel(HalfOperands<TIn, TOut> g, bool swapped,
                                                                   BatchStrides batch) {
    constexpr int BM = BlockHalf::kM, BN = BlockHalf::kN, BK = BlockHalf::kK;
    __shared__ float As[BK][BM + 1]; // (BK, BM + 1): op(A) tile in float, k-major
    __shared__ float Bs[BK][BN + 1]; // (BK, BN + 1): op(B) tile in float, k-major
    static_assert(sizeof(As) + sizeof(Bs) == kHalfSimtSmemBytes, "what auto reads is what it takes");

    const int tx = threadIdx.x % kRowThreads, ty = threadIdx.x / kRowThreads;
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    const TIn* const A = batch_a(g, batch); // this block's batch (blockIdx.z)
    const TIn* const B = batch_b(g, batch);
    float acc[kTMh][kTNh] = {}; // (TM, TN) accumulators
    for (int64_t p0 = 0; p0 < g.k; p0 += BK) {
        // gmem -> smem (converted to float)
        load_tile<BM, BK, /*KContig=*/TransA>(As, A, g.lda, g.m, g.k, row0, p0);
        load_tile<BN, BK, /*KContig=*/!TransB>(Bs, B, g.ldb, g.n, g.k, col0, p0);
        __syncthreads();
        // smem -> registers -> FMA
        mma_tile<BM, BN, BK>(acc, As, Bs, tx, ty);
        __syncthreads(); // the tiles may be overwritten only after everyone has read them
    }

    // epilogue
    store_tile(acc, batch_c(g, batch), g.ldc, g.m, g.n, row0, col0, g.alpha, g.beta, tx, ty);
}

} // namespace

template <class TIn, class TOut>
void launch_half_simt(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    for_each_batch_chunk(g, [&](const HalfArgs<TIn, TOut>& chunk) { // batches on gridDim.z
        const auto tg = tile::make_tile_grid(chunk.m, chunk.n, BlockHalf::kM, BlockHalf::kN, chunk.batch.count);
        dispatch_ops(chunk, [&]<bool TA, bool TB>() {
            half_simt_kernel<TIn, TOut, TA, TB>
                <<<tg.dims, kThreadsHalf, 0, stream>>>(chunk, tg.swapped, chunk.batch.strides);
        });
        GEMMLAB_CHECK_LAUNCH();
    });
}

GEMMLAB_INSTANTIATE_HALF(launch_half_simt)

} // namespace gemmlab::detail
