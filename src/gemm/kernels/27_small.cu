// Rung 27: many small products: one warp per 32x32 tile of C, tiles of different batches side
// by side in one block.
//
// Idea: a tiny product (16^3, 32^3: attention heads, many small squares) is all latency: a
// 64x64 or 128x128 block tile computes up to 16x the useful work, and one tile per block
// leaves the SM with a few blocks each waiting on its own loads. Here the unit of work is a
// warp: each warp takes a 32x32 tile of C of some batch (work items counted over all tiles of
// all batches, so a 16x16 problem is one warp and four of them share a block), stages
// 32 x depth slices of op(A) and op(B) in its own shared memory (converted to the accumulator
// type on the way in), and accumulates 4 rows (8 apart) x 8 columns of C per lane with FMAs;
// no block-wide barrier, so the warps of a block never wait for each other and every SM holds
// dozens of independent tiles in flight. Any shape is correct (zero-filled edges; larger C is
// more tiles, a grid-stride loop covers any count), but the tile rungs win from a few hundred
// rows up: auto sends only C that one warp tile holds here (auto_select.cu).
// Types: float and double (FMAs in the type), BF16/FP16 inputs with FP32 accumulation and one
// rounding to C's type: the same arithmetic, and so the same bounds, as rungs 13 and 18.
// Changed from rung 18 (staging through shared memory, converted to the accumulator type,
// 4xN thread tiles): a warp, not a block, owns a tile; batches are work items, not grid slices.
// Seeds: 001 (thread tiles, shared staging); the warp-per-tile batching is this rung's own.

#include <type_traits>

#include "gemm/element.hpp"
#include "gemm/kernels/driver_launch.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace {

constexpr int kTile = int(kSmallTile); // a warp's C tile: 32 x 32
constexpr int kWarps = 4;         // warps per block (each on its own tile)
constexpr int kTM = 4, kTN = 8;   // a lane's outputs: rows a + 8 i, columns 8 b + j
constexpr int kRowGroups = kTile / kTM, kColGroups = kTile / kTN;
static_assert(kRowGroups * kColGroups == 32, "a warp's lanes must cover its tile");
static_assert(kTile == 32, "load_slice gives each lane one row (or one depth) of a 32-row slice");
// Shared rows of 36: k-contiguous loads store 16 consecutive k of two rows per warp, which a
// stride of 32 would put in one bank (16-way conflict) and 36 spreads over 8 banks x 2 rows
// (two-way); 36 keeps each row 16-byte aligned for the vector reads of the multiply loop.
constexpr int kRow = kTile + 4;

/// k elements staged per step: 2 x depth x 36 words per warp, the same bytes for both types.
template <class TAcc>
constexpr int kDepth = sizeof(TAcc) == 8 ? 8 : 16;

template <class TAcc>
struct WarpTiles {
    TAcc a[kDepth<TAcc>][kRow]; // op(A)(row0 + r, p0 + p) at a[p][r]
    TAcc b[kDepth<TAcc>][kRow]; // op(B)(p0 + p, col0 + c) at b[p][c]
};

/// gmem -> smem: the 32 x D slice of an operand viewed as R x k (op(A), or op(B)^T) from row
/// r0 and depth p0 into S[p][r], zero outside rows x k. KContig: the k index is the contiguous
/// one in memory (X(r, p) = X[p + r * ld]), else the row index is (X[r + p * ld]); consecutive
/// lanes walk the contiguous index either way, so each load instruction reads whole segments.
/// Each lane keeps one pointer and steps it (64-bit addresses per element would not fit the
/// registers of the half-precision kernels).
template <int D, bool KContig, class TAcc, class TIn>
__device__ __forceinline__ void load_slice(TAcc (&S)[D][kRow], const TIn* X, int64_t ld,
                                           int64_t rows, int64_t k, int64_t r0, int64_t p0,
                                           int lane) {
    if constexpr (KContig) { // lane: depth lane % D of rows lane / D + (32 / D) t
        constexpr int kRowsPerStep = 32 / D;
        const int p = lane % D;
        const bool p_in = p0 + p < k;
        const TIn* x = X + (p0 + p) + (r0 + lane / D) * ld;
#pragma unroll
        for (int t = 0; t < D; ++t, x += kRowsPerStep * ld) {
            const int r = kRowsPerStep * t + lane / D;
            S[p][r] = p_in && r0 + r < rows ? widen<TAcc>(*x) : TAcc(0);
        }
    } else { // lane: row lane of depths t
        const bool r_in = r0 + lane < rows;
        const TIn* x = X + (r0 + lane) + p0 * ld;
#pragma unroll
        for (int t = 0; t < D; ++t, x += ld) S[t][lane] = r_in && p0 + t < k ? widen<TAcc>(*x) : TAcc(0);
    }
}

/// N consecutive shared words from a 16-byte aligned address, in 16-byte loads.
template <int N, class TAcc>
__device__ __forceinline__ void load_vector(TAcc (&out)[N], const TAcc* src) {
    if constexpr (std::is_same_v<TAcc, float>) {
#pragma unroll
        for (int v = 0; v < N / 4; ++v) {
            const float4 x = reinterpret_cast<const float4*>(src)[v];
            out[4 * v] = x.x, out[4 * v + 1] = x.y, out[4 * v + 2] = x.z, out[4 * v + 3] = x.w;
        }
    } else {
#pragma unroll
        for (int v = 0; v < N / 2; ++v) {
            const double2 x = reinterpret_cast<const double2*>(src)[v];
            out[2 * v] = x.x, out[2 * v + 1] = x.y;
        }
    }
}

/// One warp's tile: C(row0.., col0..) = alpha * op(A) op(B) + beta * C for its 32 x 32 (inside
/// m x n), the lane's 4 x 8 elements accumulated over k in slices of kDepth.
template <bool TransA, bool TransB, class Ops, class TAcc>
__device__ __forceinline__ void warp_tile(const Ops& g, const decltype(g.A) A, const decltype(g.B) B,
                                          decltype(g.C) C, int64_t row0, int64_t col0,
                                          WarpTiles<TAcc>& s, int lane) {
    constexpr int D = kDepth<TAcc>;
    // Rows ra + 8 i, columns 8 cb + j: the 8 lanes of a column store 8 consecutive rows of C
    // (one or two 32-byte sectors), where rows 4 ra + i would put every lane in its own sector
    // and send the L2 four times the sectors it keeps.
    const int ra = lane % kRowGroups, cb = lane / kRowGroups;
    TAcc acc[kTM][kTN] = {};
    for (int64_t p0 = 0; p0 < g.k; p0 += D) {
        load_slice<D, /*KContig=*/TransA>(s.a, A, g.lda, g.m, g.k, row0, p0, lane);
        load_slice<D, /*KContig=*/!TransB>(s.b, B, g.ldb, g.n, g.k, col0, p0, lane);
        __syncwarp();
        // Unrolled by 2 only: fully unrolled, ptxas hoists every step's shared loads and needs
        // 140-250 registers (spilling in the half kernels); by 2, 80-95 (float accumulators)
        // and ~135 (double): 6 and 3 blocks per SM.
#pragma unroll 2
        for (int p = 0; p < D; ++p) {
            TAcc a[kTM], b[kTN];
#pragma unroll
            for (int i = 0; i < kTM; ++i) a[i] = s.a[p][ra + kRowGroups * i]; // 8 words a warp
            load_vector(b, &s.b[p][kTN * cb]);
#pragma unroll
            for (int i = 0; i < kTM; ++i)
#pragma unroll
                for (int j = 0; j < kTN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
        }
        __syncwarp(); // the slices are overwritten only after every lane has read them
    }
    // C = alpha * acc + beta * C in the accumulator type, rounded once to C's type; C is read
    // only when beta != 0 (NaN in C must not leak into a beta == 0 result).
    using TScalar = decltype(g.alpha);
    const TScalar alpha = g.alpha, beta = g.beta;
#pragma unroll
    for (int j = 0; j < kTN; ++j) {
        const int64_t col = col0 + kTN * cb + j;
#pragma unroll
        for (int i = 0; i < kTM; ++i) {
            const int64_t row = row0 + ra + kRowGroups * i;
            if (row >= g.m || col >= g.n) continue;
            auto* c = C + row + col * g.ldc;
            TAcc v = alpha * acc[i][j];
            if (beta != TScalar(0)) v += beta * widen<TAcc>(*c);
            *c = narrow<std::remove_pointer_t<decltype(C)>>(v);
        }
    }
}

/// Work item w = tile (w % tiles) of batch (w / tiles), tiles in column-major order; each warp
/// takes items kWarps * gridDim.x apart.
template <class Ops, class TAcc, bool TransA, bool TransB>
__global__ void __launch_bounds__(32 * kWarps) small_kernel(Ops g, BatchStrides strides,
                                                            int64_t batches) {
    __shared__ __align__(16) WarpTiles<TAcc> tiles[kWarps];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t tiles_m = (g.m + kTile - 1) / kTile, tiles_n = (g.n + kTile - 1) / kTile;
    const int64_t per_batch = tiles_m * tiles_n, items = per_batch * batches;
    for (int64_t w = int64_t(blockIdx.x) * kWarps + warp; w < items;
         w += int64_t(gridDim.x) * kWarps) {
        const int64_t z = w / per_batch, t = w % per_batch;
        warp_tile<TransA, TransB>(g, g.A + z * strides.a, g.B + z * strides.b, g.C + z * strides.c,
                                  (t % tiles_m) * kTile, (t / tiles_m) * kTile, tiles[warp], lane);
    }
}

/// The kernel parameter of each argument type: the operands without the batch (the strides
/// go as their own parameter, as in every natively batched rung).
template <class T>
GemmOperands<T> operands_of(const GemmArgs<T>& g) {
    return g;
}
template <class TIn, class TOut>
HalfOperands<TIn, TOut> operands_of(const HalfArgs<TIn, TOut>& g) {
    return g;
}

/// Enqueues the kernel for GemmArgs<T> or HalfArgs<TIn, TOut>: one warp per work item, the
/// grid capped where a grid-stride loop takes over (items past 2^31 - 1 blocks).
template <class TAcc, class Args>
void launch_small_args(const Args& g, cudaStream_t stream) {
    using Ops = decltype(operands_of(g));
    const int64_t tiles = ((g.m + kTile - 1) / kTile) * ((g.n + kTile - 1) / kTile);
    const int64_t blocks = (tiles * g.batch.count + kWarps - 1) / kWarps;
    const unsigned grid = unsigned(blocks < kMaxGridX ? blocks : kMaxGridX);
    // Through the driver (driver_launch.cuh): a tiny product's call is mostly host time.
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        DriverLaunch<&small_kernel<Ops, TAcc, TA, TB>>::run(grid, 32 * kWarps, 0, stream,
                                                             operands_of(g), g.batch.strides,
                                                             g.batch.count);
    });
}

} // namespace

template <class T>
void launch_small(const GemmArgs<T>& g, cudaStream_t stream) {
    launch_small_args<T>(g, stream);
}

template <class TIn, class TOut>
void launch_small_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    launch_small_args<float>(g, stream);
}

template void launch_small<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_small<double>(const GemmArgs<double>&, cudaStream_t);
GEMMLAB_INSTANTIATE_HALF(launch_small_half)

} // namespace gemmlab::detail
