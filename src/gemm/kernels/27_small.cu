// Rung 27: many small products: one warp per 32x32 tile of C, tiles of different batches side
// by side in one block.
//
// Idea: a tiny product (16^3, 32^3: attention heads, many small squares) is all latency: a
// 64x64 or 128x128 block tile computes up to 16x the useful work, and one tile per block
// leaves the SM with a few blocks each waiting on its own loads. Here the unit of work is a
// warp: each warp takes a 32x32 tile of C of some batch (work items counted over all tiles of
// all batches, so a 16x16 problem is one warp and four of them share a block), stages
// 32 x depth slices of op(A) and op(B) in its own shared memory and accumulates its tile from
// them (float and double: 4 rows, 8 apart, x 8 columns of C per lane with FMAs; the half types
// on the tensor cores, below); no block-wide barrier, so the warps of a block never wait for each other and every SM holds
// dozens of independent tiles in flight. Any shape is correct (zero-filled edges; larger C is
// more tiles, a grid-stride loop covers any count), but the tile rungs win from a few hundred
// rows up: auto sends only C that one warp tile holds here (auto_select.cu).
// Types: float and double (FMAs in the type). BF16/FP16 inputs on the tensor cores (mma.sync
// m16n8k16 with FP32 accumulators, rung 19's instruction) with one rounding to C's type: the
// same arithmetic, and so the same bound, as rung 19; a warp's 32 x 32 tile is 2 x 4 MMA tiles,
// its slices staged as they lie in memory and read by ldmatrix (transposed where the operand
// runs along m or n), so every layout loads 16-byte runs where it is aligned.
// Changed from rung 18 (staging through shared memory, 4xN thread tiles) and rung 19 (mma.sync
// on block tiles): a warp, not a block, owns a tile; batches are work items, not grid slices.
// Seeds: 001 (thread tiles, shared staging); the warp-per-tile batching is this rung's own.

#include <type_traits>

#include "gemm/element.hpp"
#include "gemm/kernels/driver_launch.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/ptx.cuh"
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

// ------------------------------------------------------------- BF16/FP16 on the tensor cores

/// A warp's staged slices, two of each operand (double-buffered: the next slice, or the next
/// tile's first, is in flight while this one is multiplied), each as it lies in memory: 32
/// outer rows of kSliceK (k contiguous: outer = m or n, inner = k) or of 32 (m or n contiguous:
/// outer = k) elements. Rows of 40 elements (80 bytes): 16-byte aligned for cp.async and
/// ldmatrix, and the eight rows one ldmatrix matrix reads fall in eight different bank groups.
constexpr int kSliceK = 32;
constexpr int kHalfRow = 40;
static_assert(kSliceK == kTile, "both orientations of a slice are 32 x 32");

/// Blocks of small_mma_kernel per SM: as many as its 40 KB of shared memory allow (5 of 228 KB),
/// registers capped to match (102 a thread): 20 warps, each with its copies in flight.
constexpr int kMmaBlocksPerSm = 5;

template <class TIn>
struct WarpHalfStages {
    TIn a[2][kTile][kHalfRow];
    TIn b[2][kTile][kHalfRow];
};

/// gmem -> smem, one operand's 32 x 32 slice in memory order: S[o][i] = X[(inner0 + i) + (outer0
/// + o) * ld], zero outside outer_len x inner_len. Lane L copies chunks L, L + 32, L + 64, L + 96
/// of 8 elements (rows L / 4 + 8 j, elements 8 (L % 4)..+7): by cp.async where the chunk is whole
/// and `vec` (X and ld 16-byte aligned), else element by element (visible after the __syncwarp
/// that follows the wait). The lane's four chunks are one address and one bound apart (8 rows),
/// so it places the first once and steps: the copies issue with a few instructions each.
template <class TIn>
__device__ __forceinline__ void issue_slice(TIn (&S)[kTile][kHalfRow], const TIn* X, int64_t ld,
                                            int64_t outer_len, int64_t inner_len, int64_t outer0,
                                            int64_t inner0, bool vec, int lane) {
    const int o = lane / 4, i = 8 * (lane % 4);
    const int64_t go = outer0 + o, gi = inner0 + i;
    const int64_t rows_left = outer_len - go; // chunk j lies inside where 8 j < rows_left
    const bool whole = vec && gi + 8 <= inner_len;
    const TIn* x = X + gi + go * ld;
    const uint32_t dst = uint32_t(__cvta_generic_to_shared(&S[o][i]));
#pragma unroll
    for (int j = 0; j < 4; ++j, x += 8 * ld) {
        if (whole && 8 * j < rows_left) {
            ptx::cp_async<16>(dst + j * 8 * kHalfRow * int(sizeof(TIn)), x);
        } else {
            alignas(16) TIn e[8];
#pragma unroll
            for (int t = 0; t < 8; ++t) e[t] = 8 * j < rows_left && gi + t < inner_len ? x[t] : TIn(0.0f);
            *reinterpret_cast<uint4*>(&S[o + 8 * j][i]) = *reinterpret_cast<const uint4*>(e);
        }
    }
}

/// acc += one staged slice: two k16 steps of 2 (m16) x 4 (n8) MMAs. Fragments by ldmatrix (PTX
/// ISA "ldmatrix"; fragment layouts in ptx.cuh): an operand staged k-contiguous is read as
/// stored, one staged m- or n-contiguous (outer = k) with .trans, which delivers the same
/// registers.
template <bool AKContig, bool BKContig, class TIn>
__device__ __forceinline__ void mma_slice(float (&acc)[2][4][4], const TIn (&sa_)[kTile][kHalfRow],
                                          const TIn (&sb_)[kTile][kHalfRow], int lane) {
    const uint32_t sa = uint32_t(__cvta_generic_to_shared(&sa_[0][0]));
    const uint32_t sb = uint32_t(__cvta_generic_to_shared(&sb_[0][0]));
    const int q = lane / 8, rr = lane % 8; // ldmatrix: this lane addresses row rr of matrix q
#pragma unroll
    for (int k16 = 0; k16 < kSliceK; k16 += 16) {
        uint32_t a[2][4], b[4][2];
#pragma unroll
        for (int mi = 0; mi < 2; ++mi) { // matrix q: rows 8 (q % 2), k 8 (q / 2) of the m16 x k16 block
            if constexpr (AKContig)
                ptx::ldmatrix_x4(a[mi], sa + 2 * ((16 * mi + 8 * (q % 2) + rr) * kHalfRow + k16 + 8 * (q / 2)));
            else
                ptx::ldmatrix_x4_trans(a[mi], sa + 2 * ((k16 + 8 * (q / 2) + rr) * kHalfRow + 16 * mi + 8 * (q % 2)));
        }
#pragma unroll
        for (int nj = 0; nj < 2; ++nj) { // matrix q: columns 8 (q / 2), k 8 (q % 2): two n8 tiles' b
            uint32_t r[4];
            if constexpr (BKContig)
                ptx::ldmatrix_x4(r, sb + 2 * ((16 * nj + 8 * (q / 2) + rr) * kHalfRow + k16 + 8 * (q % 2)));
            else
                ptx::ldmatrix_x4_trans(r, sb + 2 * ((k16 + 8 * (q % 2) + rr) * kHalfRow + 16 * nj + 8 * (q / 2)));
            b[2 * nj][0] = r[0], b[2 * nj][1] = r[1], b[2 * nj + 1][0] = r[2], b[2 * nj + 1][1] = r[3];
        }
#pragma unroll
        for (int mi = 0; mi < 2; ++mi)
#pragma unroll
            for (int ni = 0; ni < 4; ++ni) ptx::mma_m16n8k16_half<TIn>(acc[mi][ni], a[mi], b[ni]);
    }
}

/// C = alpha * acc + beta * C in FP32, rounded once to C's type; C read only when beta != 0.
/// Accumulator i of an m16n8 tile is C(g + 8 (i / 2), 2 t + i % 2): the 8 lanes of one t store 8
/// consecutive rows of a column.
template <class Ops>
__device__ __forceinline__ void store_tile_mma(const Ops& g, decltype(g.C) C, int64_t row0, int64_t col0,
                                               const float (&acc)[2][4][4], int lane) {
    using TOut = std::remove_pointer_t<decltype(C)>;
    const int gr = lane / 4, t = lane % 4;
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
#pragma unroll
            for (int i = 0; i < 4; ++i) {
                const int64_t row = row0 + 16 * mi + gr + 8 * (i / 2), col = col0 + 8 * ni + 2 * t + i % 2;
                if (row >= g.m || col >= g.n) continue;
                TOut* c = C + row + col * g.ldc;
                float v = g.alpha * acc[mi][ni][i];
                if (g.beta != 0.0f) v += g.beta * widen<float>(*c);
                *c = narrow<TOut>(v);
            }
}

/// With a 16-bit C and beta == 0: alpha * acc rounded to C's type into `buf` (a free 32 x 40 stage
/// of the warp, column by column), then each column's 64 bytes stored as four 16-byte runs, so
/// that every store instruction writes whole 32-byte sectors where store_tile_mma's write 16
/// bytes of each; `vec`: C and ldc 16-byte aligned.
template <class Ops, class TOut>
__device__ __forceinline__ void store_tile_staged(const Ops& g, TOut* C, int64_t row0, int64_t col0,
                                                  const float (&acc)[2][4][4], TOut (&buf)[kTile][kHalfRow],
                                                  bool vec, int lane) {
    static_assert(sizeof(TOut) == 2, "a 16-bit C");
    const int gr = lane / 4, t = lane % 4;
#pragma unroll
    for (int mi = 0; mi < 2; ++mi)
#pragma unroll
        for (int ni = 0; ni < 4; ++ni)
#pragma unroll
            for (int i = 0; i < 4; ++i)
                buf[8 * ni + 2 * t + i % 2][16 * mi + gr + 8 * (i / 2)] = narrow<TOut>(g.alpha * acc[mi][ni][i]);
    __syncwarp();
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        const int q = lane + 32 * j, c = q / 4, r = 8 * (q % 4);
        const int64_t col = col0 + c, row = row0 + r;
        if (col >= g.n) continue;
        TOut* dst = C + row + col * g.ldc;
        if (vec && row + 8 <= g.m) {
            *reinterpret_cast<uint4*>(dst) = *reinterpret_cast<const uint4*>(&buf[c][r]);
        } else {
#pragma unroll
            for (int e = 0; e < 8; ++e)
                if (row + e < g.m) dst[e] = buf[c][r + e];
        }
    }
    __syncwarp(); // read before the stage is refilled
}

/// 16-byte runs of a matrix in every batch: its pointer, leading dimension and batch stride
/// multiples of 16 bytes (the stride only where there is more than one batch).
template <class T>
__device__ __forceinline__ bool vectorizable(const T* X, int64_t ld, int64_t stride, int64_t batches) {
    constexpr int64_t kElems = 16 / int64_t(sizeof(T));
    return is_aligned(X, 16) && ld % kElems == 0 && (batches == 1 || stride % kElems == 0);
}

/// As small_kernel, each warp's tiles on the tensor cores: the warp walks its (tile, slice)
/// sequence with the next slice's copies in flight while it multiplies this one, and the next
/// tile's first slice in flight while it stores this tile's C (a 16-bit C with beta == 0 through
/// the stage just read, in whole sectors: store_tile_staged).
/// op(A)(r, p) = A[p + r lda] (TransA: k contiguous) or A[r + p lda]; op(B)(p, c) = B[p + c ldb]
/// (!TransB: k contiguous) or B[c + p ldb].
template <class Ops, bool TransA, bool TransB>
__global__ void __launch_bounds__(32 * kWarps, kMmaBlocksPerSm) small_mma_kernel(Ops g, BatchStrides strides,
                                                                int64_t batches) {
    using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(g.A)>>;
    constexpr bool kAKContig = TransA, kBKContig = !TransB;
    __shared__ __align__(16) WarpHalfStages<TIn> stages[kWarps];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    WarpHalfStages<TIn>& s = stages[warp];
    const int64_t tiles_m = (g.m + kTile - 1) / kTile, tiles_n = (g.n + kTile - 1) / kTile;
    const int64_t per_batch = tiles_m * tiles_n, items = per_batch * batches;
    const int64_t slices = (g.k + kSliceK - 1) / kSliceK;
    const int64_t step = int64_t(gridDim.x) * kWarps;
    const bool vec_a = vectorizable(g.A, g.lda, strides.a, batches);
    const bool vec_b = vectorizable(g.B, g.ldb, strides.b, batches);
    const auto issue = [&](int64_t item, int64_t slice, int stage) {
        const int64_t z = item / per_batch, t = item % per_batch;
        const int64_t row0 = (t % tiles_m) * kTile, col0 = (t / tiles_m) * kTile, p0 = slice * kSliceK;
        const TIn* a = g.A + z * strides.a;
        const TIn* b = g.B + z * strides.b;
        if constexpr (kAKContig) issue_slice(s.a[stage], a, g.lda, g.m, g.k, row0, p0, vec_a, lane);
        else issue_slice(s.a[stage], a, g.lda, g.k, g.m, p0, row0, vec_a, lane);
        if constexpr (kBKContig) issue_slice(s.b[stage], b, g.ldb, g.n, g.k, col0, p0, vec_b, lane);
        else issue_slice(s.b[stage], b, g.ldb, g.k, g.n, p0, col0, vec_b, lane);
    };
    int64_t w = int64_t(blockIdx.x) * kWarps + warp;
    int stage = 0;
    if (w < items && slices > 0) issue(w, 0, 0);
    ptx::cp_async_commit();
    for (; w < items; w += step) {
        float acc[2][4][4] = {};
        for (int64_t j = 0; j < slices; ++j) {
            if (j + 1 < slices) issue(w, j + 1, stage ^ 1);
            else if (w + step < items) issue(w + step, 0, stage ^ 1);
            ptx::cp_async_commit();
            ptx::cp_async_wait<1>(); // this slice's copies have landed
            __syncwarp();
            mma_slice<kAKContig, kBKContig>(acc, s.a[stage], s.b[stage], lane);
            __syncwarp(); // every lane has read the stage before it is refilled
            stage ^= 1;
        }
        const int64_t z = w / per_batch, t = w % per_batch;
        auto* c = g.C + z * strides.c;
        using TOut = std::remove_pointer_t<decltype(g.C)>;
        if constexpr (sizeof(TOut) == 2) {
            if (g.beta == 0.0f) {
                // The stage just read is free until the next slice is issued into it.
                store_tile_staged(g, c, (t % tiles_m) * kTile, (t / tiles_m) * kTile, acc,
                                  reinterpret_cast<TOut(&)[kTile][kHalfRow]>(s.a[stage ^ 1]),
                                  vectorizable(g.C, g.ldc, strides.c, batches), lane);
                continue;
            }
        }
        store_tile_mma(g, c, (t % tiles_m) * kTile, (t / tiles_m) * kTile, acc, lane);
    }
    ptx::cp_async_wait<0>();
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

/// Enqueues the kernel for GemmArgs<T> (FMAs in T) or HalfArgs<TIn, TOut> (mma.sync): one warp
/// per work item, the grid capped where a grid-stride loop takes over (items past 2^31 - 1
/// blocks).
template <class Args>
void launch_small_args(const Args& g, cudaStream_t stream) {
    using Ops = decltype(operands_of(g));
    const int64_t tiles = ((g.m + kTile - 1) / kTile) * ((g.n + kTile - 1) / kTile);
    const int64_t blocks = (tiles * g.batch.count + kWarps - 1) / kWarps;
    const unsigned grid = unsigned(blocks < kMaxGridX ? blocks : kMaxGridX);
    // Through the driver (driver_launch.cuh): a tiny product's call is mostly host time.
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        if constexpr (std::is_same_v<Args, GemmArgs<float>> || std::is_same_v<Args, GemmArgs<double>>) {
            using T = decltype(g.alpha);
            DriverLaunch<&small_kernel<Ops, T, TA, TB>>::run(grid, 32 * kWarps, 0, stream,
                                                              operands_of(g), g.batch.strides,
                                                              g.batch.count);
        } else {
            DriverLaunch<&small_mma_kernel<Ops, TA, TB>>::run(grid, 32 * kWarps, 0, stream,
                                                               operands_of(g), g.batch.strides,
                                                               g.batch.count);
        }
    });
}

} // namespace

template <class T>
void launch_small(const GemmArgs<T>& g, cudaStream_t stream) {
    launch_small_args(g, stream);
}

template <class TIn, class TOut>
void launch_small_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    launch_small_args(g, stream);
}

template void launch_small<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_small<double>(const GemmArgs<double>&, cudaStream_t);
GEMMLAB_INSTANTIATE_HALF(launch_small_half)

} // namespace gemmlab::detail
