// Rung 28: decode: a product with one skinny side (a few tokens against a wide weight) as the
// memory-bound stream it is.
//
// Idea: with m (or n) at 1-64 a GEMM does 2 * skinny flops per element of the wide operand, far
// below what the tensor cores or even the FMA pipes could take per byte of DRAM, so its speed is
// the rate at which the wide operand W streams from memory. A tile rung spends it on a handful
// of 128-row tiles: few blocks, and each reloads the skinny operand through a deep pipeline
// built for reuse that is not there. Here every block owns a slab of W's rows and reads each of
// its bytes exactly once, in 16-byte loads marked evict-first (W will not be read again), while
// the skinny operand S (a few KB to a few hundred KB) stays in L1/L2 and is read beside it.
// When the slabs are too few to keep every SM's loads in flight, k is cut into slices whose
// partial sums a second kernel adds in slice order (split_k.cuh): no atomics, the same bits on
// every run.
//
// Three kernels, one per way W can lie in memory and per engine:
// - mma_k_contiguous (BF16/FP16, rows of W and S contiguous along k and 16-byte aligned: how
//   PyTorch's Linear stores its weight and activations): mma.sync m16n8k16 with W as the
//   16-row A operand and S as the 8-column B operand (the product computed "transposed", so
//   the 16 rows the instruction needs come from the wide side). The fragments are loaded straight
//   from global memory, one 16-byte load per operand row and lane: the k order inside a dot
//   product is free, so each lane takes 8 consecutive k of its row and the same 8 k of its S
//   column, and hands them to two k16 steps in the order the fragment layout wants (see
//   mma_step). Four warps share a block's 16 rows along k (sixteen, in the wide blocks
//   a small weight gets, so that its few rows still keep every SM's loads in flight) and add
//   their sums in shared memory in warp order.
// - simt_k_contiguous (every type, W contiguous along k): each warp owns a few rows of W, lanes
//   walk k in vectors, every lane keeps rows x columns FMA sums (FP32, FP64 for double) and the
//   warp adds them with shuffles in a fixed tree.
// - simt_row_contiguous (every type, W contiguous along its rows, as a row-major x @ W stores a
//   [k, out] weight): lanes walk W's rows in vectors, S values are read once per k by the whole
//   warp (a broadcast), the block's warps share k and add in shared memory in warp order.
// The figure of merit is bytes of W per second against the DRAM bandwidth the `dram` probe
// measures (docs/ladder.md, rung 28). Accuracy: the same FP32 (FP64) sums of exact products as
// the tile rungs, in another order: the bounds of docs/precision.md hold unchanged.

#include <algorithm>
#include <type_traits>

#include "gemm/device_caps.hpp"
#include "gemm/element.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/split_k.cuh"
#include "gemm/workspace.hpp"

namespace gemmlab::detail {
namespace {

/// The product seen from its skinny side: C(r, c) = alpha * sum_p W(r, p) S(c, p) + beta * C(r, c)
/// for r < rows (the wide side), c < cols (the skinny side), p < k. Each operand is addressed by
/// two strides, one of which is 1 on the paths that vectorize; batch b adds b * the batch stride.
template <class TIn, class TOut, class TScalar>
struct SkinnyProduct {
    const TIn* W;
    int64_t w_row, w_k; // W(r, p) = W[r * w_row + p * w_k]
    const TIn* S;
    int64_t s_col, s_k; // S(c, p) = S[c * s_col + p * s_k]
    TOut* C;
    int64_t c_row, c_col; // C(r, c) = C[r * c_row + c * c_col]
    int64_t rows, cols, k;
    TScalar alpha, beta;
    int64_t w_batch, s_batch, c_batch;
    int64_t batches;
    /// Split k: slice y of gridDim.y covers [y * slice_k, (y + 1) * slice_k) and, with more than
    /// one slice, writes its sum to partial + y * partial_slice at (r * p_row + c * p_col)
    /// instead of applying the epilogue.
    int64_t slice_k;
    decltype(TScalar() * 1.0f)* partial;
    int64_t partial_slice, p_row, p_col;
    int64_t m, n, ldc; // the column-major C the slices are summed into
};

template <class T>
using AccOf = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// Stores one finished sum: the epilogue (alpha, beta read only when nonzero, one rounding to
/// C's type) or, under split k, the slice's partial.
template <class P, class TAcc>
__device__ __forceinline__ void finish(const P& g, int64_t b, int64_t r, int64_t c, TAcc sum) {
    if (r >= g.rows || c >= g.cols) return;
    if (gridDim.y > 1) {
        g.partial[blockIdx.y * g.partial_slice + r * g.p_row + c * g.p_col] = sum;
        return;
    }
    using TOut = std::remove_pointer_t<decltype(g.C)>;
    TOut* out = g.C + b * g.c_batch + r * g.c_row + c * g.c_col;
    TAcc v = TAcc(g.alpha) * sum;
    if (g.beta != decltype(g.beta)(0)) v += TAcc(g.beta) * widen<TAcc>(*out);
    *out = narrow<TOut>(v);
}

/// N consecutive elements from p (aligned to their size when Vector) or, past `valid`, zeros.
/// W's loads are streaming (evict-first: every byte is read once); S's stay cached.
template <int N, bool Vector, bool Stream, class T>
__device__ __forceinline__ void load_run(T (&out)[N], const T* p, int64_t stride, int64_t valid) {
    static_assert(!Vector || sizeof(T) * N == 16 || sizeof(T) * N == 8, "one 8- or 16-byte load");
    if (Vector && valid >= N) {
        using Word = std::conditional_t<sizeof(T) * N == 16, uint4, uint2>;
        const Word v = Stream ? __ldcs(reinterpret_cast<const Word*>(p)) : __ldg(reinterpret_cast<const Word*>(p));
        const T* e = reinterpret_cast<const T*>(&v);
#pragma unroll
        for (int i = 0; i < N; ++i) out[i] = e[i];
        return;
    }
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = i < valid ? p[i * stride] : T(0);
}

// -------------------------------------------------------------------- mma_k_contiguous

constexpr int kMmaWarps = 4;     // per block
constexpr int kWideWarps = 16;   // per block, all along k, for a small weight
constexpr int kMmaStepK = 32;    // k per warp step: 4 lanes x 8 k

/// The 16-bit word pair (elements 2w, 2w + 1) of a 16-byte run, as an mma register.
__device__ __forceinline__ uint32_t word(const uint4& v, int w) {
    return w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w;
}

/// One 32-k step of a warp: lane (g, t) = (lane / 4, lane % 4) holds k [8t, 8t + 8) of W rows g
/// and g + 8 and of S columns 8j + g. The m16n8k16 fragment wants k {2t, 2t + 1} in registers
/// a0/a1/b0 and {2t + 8, 2t + 9} in a2/a3/b1 (ptx.cuh); step s gives it our k {8t + 4s, +1} and
/// {8t + 4s + 2, +3}. A and B see the same permutation of k, so each product is summed once.
template <class TIn, int Tiles>
__device__ __forceinline__ void mma_step(float (&acc)[Tiles][4], const uint4& w_lo, const uint4& w_hi,
                                         const uint4 (&s)[Tiles]) {
#pragma unroll
    for (int step = 0; step < 2; ++step) {
        const uint32_t a[4] = {word(w_lo, 2 * step), word(w_hi, 2 * step), word(w_lo, 2 * step + 1),
                               word(w_hi, 2 * step + 1)};
#pragma unroll
        for (int j = 0; j < Tiles; ++j) {
            const uint32_t bfrag[2] = {word(s[j], 2 * step), word(s[j], 2 * step + 1)};
            ptx::mma_m16n8k16_half<TIn>(acc[j], a, bfrag);
        }
    }
}

/// 16-byte run of 8 elements at p, zeros past `valid` (or all zeros when !in). The ragged
/// case packs 16-bit words by hand so that the run stays in registers.
template <bool Stream, class TIn>
__device__ __forceinline__ uint4 load_8(const TIn* p, int64_t valid, bool in) {
    if (in && valid >= 8) return Stream ? __ldcs(reinterpret_cast<const uint4*>(p)) : __ldg(reinterpret_cast<const uint4*>(p));
    const unsigned short* u = reinterpret_cast<const unsigned short*>(p);
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        const uint32_t lo = in && 2 * i < valid ? u[2 * i] : 0u;
        const uint32_t hi = in && 2 * i + 1 < valid ? u[2 * i + 1] : 0u;
        w[i] = lo | hi << 16;
    }
    return uint4{w[0], w[1], w[2], w[3]};
}


/// A block's Warps warps: `warps_k` of them (a divisor of Warps) share each set of rows along k,
/// and the block covers (Warps / warps_k) sets of RG x 16 rows. Long k: 4 along k (rows
/// are few per block, more blocks); short k (attention heads): 1, each warp its own rows; a
/// small weight: 16 along k in one wide block (kWideWarps), so that its few row groups still
/// put many loads in flight on every SM.
/// RG: 16-row groups of W per warp; each S fragment a warp loads feeds all of them (S is read
/// from L1/L2 once per RG x 16 rows).
/// Split: how the warps sharing rows divide the block's k. true (the launcher's choice for more
/// than one warp along k): each warp a contiguous range, in turns of 128 contiguous bytes of
/// each of its rows (whole cache lines, in order, as one ld_stream_pair). false: the warps take
/// turns of 32 k in rotation (the same thing for one warp along k). The contiguous ranges
/// measured 5% faster over the decode rows with a cold L2, up to 25% on some; two 16-token rows
/// lost, their blocks now at 138 registers, three per SM instead of four (docs/ladder.md, rung 28).
/// The body of the kernel; mma_k_contiguous and mma_k_contiguous_capped below launch it.
template <class P, class TIn, int Tiles, int RG, int Warps, bool Split>
__device__ __forceinline__ void mma_k_contiguous_body(P g, int warps_k) {
    __shared__ float partial_sums[Warps][RG][Tiles][4][32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int gid = lane / 4, tid = lane % 4;
    const int row_slot = warp / warps_k, k_part = warp % warps_k;
    const int64_t rows_per_block = int64_t(Warps / warps_k) * RG * 16;
    const int64_t row0 = int64_t(blockIdx.x) * rows_per_block + int64_t(row_slot) * RG * 16 + gid;
    const int64_t k0 = int64_t(blockIdx.y) * g.slice_k, k1 = min(g.k, k0 + g.slice_k);
    const int64_t col_tiles = (g.cols + 8 * Tiles - 1) / (8 * Tiles);
    const int64_t k_stride = int64_t(kMmaStepK) * warps_k; // between one warp's steps, rotating
    for (int64_t z = blockIdx.z; z < g.batches * col_tiles; z += gridDim.z) {
        const int64_t b = z / col_tiles, col0 = (z % col_tiles) * 8 * Tiles;
        const TIn* w = g.W + b * g.w_batch + row0 * g.w_row;
        const TIn* s_base = g.S + b * g.s_batch;
        float acc[RG][Tiles][4] = {};
        // The loop runs on the warp's chunk start, the same on every lane: mma.sync needs the
        // whole warp, so a lane past its k loads zeros rather than leaving the loop. Two steps
        // per turn: 2 x RG x 2 x 16 bytes of W in flight per lane.
        int64_t first = k0 + kMmaStepK * k_part, end = k1;
        if constexpr (Split) {
            const int64_t span = ceil_div(ceil_div(k1 - k0, int64_t(warps_k)), 2 * kMmaStepK) * 2 * kMmaStepK;
            first = k0 + span * k_part, end = min(k1, first + span);
        }
        for (int64_t chunk = first; chunk < end; chunk += Split ? 2 * kMmaStepK : 2 * k_stride) {
            const int64_t p = chunk + 8 * tid, q = p + (Split ? kMmaStepK : k_stride);
            uint4 wp[RG][2], wq[RG][2];
#pragma unroll
            for (int r = 0; r < RG; ++r)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const bool in = row0 + 16 * r + 8 * h < g.rows;
                    const TIn* row = w + (16 * r + 8 * h) * g.w_row;
                    if (Split && in && end - q >= 8) {
                        ptx::ld_stream_pair(wp[r][h], wq[r][h], row + p);
                    } else {
                        wp[r][h] = load_8<true>(row + p, end - p, in);
                        wq[r][h] = load_8<true>(row + q, end - q, in);
                    }
                }
            uint4 sp[Tiles], sq[Tiles];
#pragma unroll
            for (int j = 0; j < Tiles; ++j) {
                const int64_t c = col0 + 8 * j + gid;
                const TIn* s = s_base + c * g.s_col;
                sp[j] = load_8<false>(s + p, end - p, c < g.cols);
                sq[j] = load_8<false>(s + q, end - q, c < g.cols);
            }
#pragma unroll
            for (int r = 0; r < RG; ++r) {
                mma_step<TIn>(acc[r], wp[r][0], wp[r][1], sp);
                mma_step<TIn>(acc[r], wq[r][0], wq[r][1], sq);
            }
        }
        // The warps sharing rows hand their sums to the first of them, which adds them in
        // warp order.
        if (k_part > 0) {
#pragma unroll
            for (int r = 0; r < RG; ++r)
#pragma unroll
                for (int j = 0; j < Tiles; ++j)
#pragma unroll
                    for (int i = 0; i < 4; ++i) partial_sums[warp][r][j][i][lane] = acc[r][j][i];
        }
        __syncthreads();
        if (k_part == 0) {
            for (int x = 1; x < warps_k; ++x)
#pragma unroll
                for (int r = 0; r < RG; ++r)
#pragma unroll
                    for (int j = 0; j < Tiles; ++j)
#pragma unroll
                        for (int i = 0; i < 4; ++i) acc[r][j][i] += partial_sums[warp + x][r][j][i][lane];
            // c[i] = C(g + 8 (i / 2), 2t + i % 2) of tile j.
#pragma unroll
            for (int r = 0; r < RG; ++r)
#pragma unroll
                for (int j = 0; j < Tiles; ++j)
#pragma unroll
                    for (int i = 0; i < 4; ++i)
                        finish(g, b, row0 + 16 * r + 8 * (i / 2), col0 + 8 * j + 2 * tid + i % 2, acc[r][j][i]);
        }
        __syncthreads(); // partial_sums is reused by the next z
    }
}

/// The kernel, its registers as the compiler likes them.
template <class P, class TIn, int Tiles, int RG, int Warps, bool Split>
__global__ void __launch_bounds__(32 * Warps) mma_k_contiguous(P g, int warps_k) {
    mma_k_contiguous_body<P, TIn, Tiles, RG, Warps, Split>(g, warps_k);
}

/// The same with an explicit minimum of MinBlocks blocks per SM (kDenseBlocks: registers capped
/// so that four fit). To ptxas a minimum of one is not the same as none: the 1-8 column kernels
/// built with it ran 15-25% slower, and 16 x 18944 x 3584's 9-16 column kernel 5-11% faster
/// (kMinBlocksOf; docs/ladder.md, rung 28).
template <class P, class TIn, int Tiles, int RG, int Warps, bool Split, int MinBlocks>
__global__ void __launch_bounds__(32 * Warps, MinBlocks) mma_k_contiguous_capped(P g, int warps_k) {
    mma_k_contiguous_body<P, TIn, Tiles, RG, Warps, Split>(g, warps_k);
}

/// The minimum each column tiling is built with where no cap is asked for: none for 1-8
/// columns, one for wider (each as measured faster, above).
template <int Tiles>
inline constexpr int kMinBlocksOf = Tiles == 1 ? 0 : 1;

/// mma_k_contiguous, or with MinBlocks > 0 mma_k_contiguous_capped.
template <class P, class TIn, int Tiles, int RG, int Warps, bool Split, int MinBlocks>
constexpr auto mma_kernel() {
    if constexpr (MinBlocks == 0) return &mma_k_contiguous<P, TIn, Tiles, RG, Warps, Split>;
    else return &mma_k_contiguous_capped<P, TIn, Tiles, RG, Warps, Split, MinBlocks>;
}

// -------------------------------------------------------------------- simt_k_contiguous

constexpr int kSimtWarps = 4;

/// Rows of W per warp: 4, and 2 for 16 float or double columns (where 4 rows spill: the
/// 16-byte vectors of 4-byte elements are 4 k per load, so each k step carries more loads).
template <class TIn, int Cols>
constexpr int kRowsPerWarp = Cols == 16 && sizeof(TIn) >= 4 ? 2 : 4;

template <class P, class TIn, class TAcc, int Cols, bool Vector>
__global__ void __launch_bounds__(32 * kSimtWarps) simt_k_contiguous(P g) {
    constexpr int R = kRowsPerWarp<TIn, Cols>;
    constexpr int V = Vector ? 16 / int(sizeof(TIn)) : 1; // k per lane per step
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t row0 = (int64_t(blockIdx.x) * kSimtWarps + warp) * R;
    const int64_t k0 = int64_t(blockIdx.y) * g.slice_k, k1 = min(g.k, k0 + g.slice_k);
    const int64_t col_tiles = (g.cols + Cols - 1) / Cols;
    for (int64_t z = blockIdx.z; z < g.batches * col_tiles; z += gridDim.z) {
        const int64_t b = z / col_tiles, col0 = (z % col_tiles) * Cols;
        const TIn* w = g.W + b * g.w_batch + row0 * g.w_row;
        const TIn* s = g.S + b * g.s_batch + col0 * g.s_col;
        TAcc acc[R][Cols] = {};
        // R rows x 16 bytes per step, two steps in flight where registers allow (ptxas spills
        // the 16-column forms and float's 4-column one when unrolled).
        constexpr int kUnroll = Cols == 1 || (Cols == 4 && sizeof(TIn) != 4) ? 2 : 1;
#pragma unroll kUnroll
        for (int64_t p = k0 + V * lane; p < k1; p += 32 * V) {
            TIn wv[R][V];
#pragma unroll
            for (int r = 0; r < R; ++r)
                load_run<V, Vector, true>(wv[r], w + r * g.w_row + p, 1, row0 + r < g.rows ? k1 - p : 0);
#pragma unroll
            for (int c = 0; c < Cols; ++c) {
                TIn sv[V];
                load_run<V, Vector, false>(sv, s + c * g.s_col + p * g.s_k, g.s_k,
                                           col0 + c < g.cols ? k1 - p : 0);
#pragma unroll
                for (int v = 0; v < V; ++v) {
                    const TAcc x = widen<TAcc>(sv[v]);
#pragma unroll
                    for (int r = 0; r < R; ++r) acc[r][c] = fma(widen<TAcc>(wv[r][v]), x, acc[r][c]);
                }
            }
        }
        // The same butterfly on every lane: every lane ends with every sum, in one order.
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < Cols; ++c) {
#pragma unroll
                for (int d = 16; d > 0; d /= 2) acc[r][c] += __shfl_xor_sync(0xffffffffu, acc[r][c], d);
            }
        // Lane l stores sums l, l + 32, ... of the R x Cols (spreading the stores).
#pragma unroll
        for (int r = 0; r < R; ++r)
#pragma unroll
            for (int c = 0; c < Cols; ++c)
                if ((r * Cols + c) % 32 == lane) finish(g, b, row0 + r, col0 + c, acc[r][c]);
    }
}

// -------------------------------------------------------------------- simt_row_contiguous

/// Rows of W per lane on the row-contiguous path: 16 bytes of float or double, 8 of the 16-bit
/// types (16 would need 8 x 16 sums per lane and spill).
template <class TIn>
constexpr int kRowVector = sizeof(TIn) == 2 ? 4 : 16 / int(sizeof(TIn));

template <class P, class TIn, class TAcc, int Cols, bool Vector>
__global__ void __launch_bounds__(32 * kSimtWarps) simt_row_contiguous(P g) {
    constexpr int V = Vector ? kRowVector<TIn> : 1; // rows per lane
    constexpr int kBlockRows = 32 * V;
    __shared__ TAcc partial_sums[kSimtWarps - 1][V * Cols][32];
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t row0 = int64_t(blockIdx.x) * kBlockRows + V * lane;
    const int64_t k0 = int64_t(blockIdx.y) * g.slice_k, k1 = min(g.k, k0 + g.slice_k);
    const int64_t col_tiles = (g.cols + Cols - 1) / Cols;
    const int64_t valid_rows = g.rows - row0;
    for (int64_t z = blockIdx.z; z < g.batches * col_tiles; z += gridDim.z) {
        const int64_t b = z / col_tiles, col0 = (z % col_tiles) * Cols;
        const TIn* w = g.W + b * g.w_batch + row0;
        const TIn* s = g.S + b * g.s_batch + col0 * g.s_col;
        TAcc acc[V][Cols] = {};
#pragma unroll 4
        for (int64_t p = k0 + warp; p < k1; p += kSimtWarps) {
            TIn wv[V];
            load_run<V, Vector, true>(wv, w + p * g.w_k, 1, valid_rows);
#pragma unroll
            for (int c = 0; c < Cols; ++c) {
                const TAcc x = col0 + c < g.cols ? widen<TAcc>(s[c * g.s_col + p * g.s_k]) : TAcc(0);
#pragma unroll
                for (int v = 0; v < V; ++v) acc[v][c] = fma(widen<TAcc>(wv[v]), x, acc[v][c]);
            }
        }
        if (warp > 0) {
#pragma unroll
            for (int v = 0; v < V; ++v)
#pragma unroll
                for (int c = 0; c < Cols; ++c) partial_sums[warp - 1][v * Cols + c][lane] = acc[v][c];
        }
        __syncthreads();
        if (warp == 0) {
#pragma unroll
            for (int v = 0; v < V; ++v)
#pragma unroll
                for (int c = 0; c < Cols; ++c) {
#pragma unroll
                    for (int x = 0; x < kSimtWarps - 1; ++x) acc[v][c] += partial_sums[x][v * Cols + c][lane];
                    finish(g, b, row0 + v, col0 + c, acc[v][c]);
                }
        }
        __syncthreads();
    }
}

// -------------------------------------------------------------------- host side

/// The skinny-side view of a column-major problem: its narrower side (n, else m) is S's.
template <class Args>
auto skinny_view(const Args& g) {
    using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(g.A)>>;
    using TOut = std::remove_pointer_t<decltype(g.C)>;
    using TScalar = decltype(g.alpha);
    SkinnyProduct<TIn, TOut, TScalar> v{};
    const auto& st = g.batch.strides;
    if (g.n <= g.m) { // C(r, c) = op(A)(r, :) . op(B)(:, c): W = op(A), S = op(B)^T
        v.W = g.A, v.w_row = g.trans_a ? g.lda : 1, v.w_k = g.trans_a ? 1 : g.lda;
        v.S = g.B, v.s_col = g.trans_b ? 1 : g.ldb, v.s_k = g.trans_b ? g.ldb : 1;
        v.c_row = 1, v.c_col = g.ldc;
        v.p_row = 1, v.p_col = g.m; // partials in C's column-major order, ld = m
        v.rows = g.m, v.cols = g.n;
        v.w_batch = st.a, v.s_batch = st.b;
    } else { // C^T = op(B)^T op(A)^T: W = op(B)^T, S = op(A)
        v.W = g.B, v.w_row = g.trans_b ? 1 : g.ldb, v.w_k = g.trans_b ? g.ldb : 1;
        v.S = g.A, v.s_col = g.trans_a ? g.lda : 1, v.s_k = g.trans_a ? 1 : g.lda;
        v.c_row = g.ldc, v.c_col = 1;
        v.p_row = g.m, v.p_col = 1;
        v.rows = g.n, v.cols = g.m;
        v.w_batch = st.b, v.s_batch = st.a;
    }
    v.C = g.C, v.c_batch = st.c;
    v.k = g.k, v.alpha = g.alpha, v.beta = g.beta;
    v.batches = g.batch.count;
    v.slice_k = g.k;
    v.m = g.m, v.n = g.n, v.ldc = g.ldc;
    return v;
}

/// k slices that keep every SM streaming: about 4 blocks per SM, slices of at least
/// kMinSliceBytes of each row (shorter ones cost their second kernel and partial traffic more
/// than they hide: BF16 rows of 2048 split in two measured slower than whole, docs/ladder.md).
constexpr int64_t kMinSliceBytes = 4096, kSliceAlign = 256;
int slices_for(int64_t blocks, int64_t k, int64_t element_bytes, int sm_count) {
    const int64_t want = ceil_div(int64_t(4) * sm_count, std::max<int64_t>(blocks, 1));
    return int(std::clamp<int64_t>(std::min(want, k * element_bytes / kMinSliceBytes), 1, 16));
}

/// The mma path's k slices: as many as one wave of resident blocks holds, so that no second,
/// partial wave runs on a few SMs while the rest wait (16 tokens against 8192 x 8192 cut in
/// three was 768 blocks where 528 fit), each slice at least kMinSliceBytes of a row.
int slices_for_one_wave(int64_t blocks, int64_t k, int64_t element_bytes, int64_t resident) {
    const int64_t fit = resident / std::max<int64_t>(blocks, 1);
    return int(std::clamp<int64_t>(std::min(fit, k * element_bytes / kMinSliceBytes), 1, 16));
}

/// Blocks of Kernel (Threads each) that one SM holds at once. Cached per kernel: every GPU
/// this library runs on (sm_90) has the same registers and shared memory per SM.
template <auto Kernel, int Threads>
int64_t resident_blocks_per_sm() {
    static const int blocks = [] {
        int n = 0;
        GEMMLAB_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, Kernel, Threads, 0));
        return std::max(n, 1);
    }();
    return blocks;
}

/// Launches `kernel` over grid (x, slices, z); with more than one slice (one product only: a
/// batch fills the GPU through z) the partials go through the workspace and a second kernel
/// adds them in slice order.
template <class P, class Kernel, class... Extra>
void launch_sliced(P v, Kernel kernel, int64_t blocks_x, int64_t col_tiles, unsigned threads, int slices,
                   cudaStream_t stream, Extra... extra) {
    const int64_t z = std::min<int64_t>(v.batches * col_tiles, 65535);
    if (v.batches > 1) slices = 1;
    using TPartial = std::remove_pointer_t<decltype(v.partial)>;
    const int64_t m = v.m, n = v.n;
    Workspace ws(slices > 1 ? size_t(slices * m * n) * sizeof(TPartial) : 0, stream);
    if (slices > 1 && !ws.data()) slices = 1;
    if (slices > 1) {
        v.slice_k = ceil_div(ceil_div(v.k, slices), kSliceAlign) * kSliceAlign;
        slices = int(ceil_div(v.k, v.slice_k));
        v.partial = static_cast<TPartial*>(ws.data());
        v.partial_slice = m * n;
    }
    kernel<<<dim3(unsigned(blocks_x), unsigned(slices), unsigned(z)), threads, 0, stream>>>(v, extra...);
    GEMMLAB_CHECK_LAUNCH();
    if (slices > 1)
        enqueue_sum_slices(v.partial, slices, m * n, m, m, n, v.alpha, v.beta, v.C, v.ldc,
                           current_device_caps().sm_count, stream);
}

/// launch_sliced with the FMA paths' slices (about 4 blocks per SM).
template <class P, class Kernel>
void launch_simt(P v, Kernel kernel, int64_t blocks_x, int64_t col_tiles, cudaStream_t stream) {
    using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(v.W)>>;
    const int64_t z = std::min<int64_t>(v.batches * col_tiles, 65535);
    const int slices = slices_for(blocks_x * z, v.k, int64_t(sizeof(TIn)), current_device_caps().sm_count);
    launch_sliced(v, kernel, blocks_x, col_tiles, 32 * kSimtWarps, slices, stream);
}

/// The columns of S one pass covers: 1, 4 or 16 (more columns are more passes over W).
template <class F>
void with_cols(int64_t cols, F&& f) {
    if (cols <= 1) f.template operator()<1>();
    else if (cols <= 4) f.template operator()<4>();
    else f.template operator()<16>();
}

/// How the 16-bit mma path cuts the work: 16-row groups per warp and warps sharing rows along k.
struct DecodePlan {
    int row_groups = 1;
    int warps_k = 4;
};

/// Measured on an H200 against each other (docs/ladder.md, rung 28): with long k, 4 warps
/// along k and one row group (two from 9 columns on, where S's loads start to weigh); with
/// short k (attention heads, k < 512) each warp its own rows, four groups of them.
DecodePlan decode_plan(int64_t cols, int64_t k) {
    DecodePlan p;
    p.warps_k = k >= 2048 ? 4 : k >= 512 ? 2 : 1;
    p.row_groups = p.warps_k == 1 ? 4 : cols <= 8 ? 1 : 2;
    return p;
}

/// A long-k product with at most 16 columns runs in wide blocks of kWideWarps warps along k
/// where the 4-warp grid (slices counted) has fewer than this many warps per SM, or needs k
/// slices where the wide grid does not: each warp then walks a fraction of the k, so more loads
/// are in flight at once, a small weight takes fewer DRAM latencies one after another, and no
/// second kernel adds slices (docs/ladder.md, rung 28).
constexpr int64_t kWideBelowWarpsPerSm = 16;

/// The 9-16 column blocks with k split across their warps (Tiles 2, RG 2, Split) take 138
/// registers, three blocks per SM; capped at 128 they fit four without spilling. Neither wins
/// everywhere: 448 blocks are one wave of four a SM but 1.1 waves of three, 592 blocks 1.1 waves
/// of four but 1.5 of three. So both are compiled and the launcher takes the one whose waves of
/// resident blocks are fuller (docs/ladder.md, rung 28, has the measurements).
constexpr int kDenseBlocks = 4;
template <int Tiles, int RG, int Warps, bool Split>
constexpr bool kHasDenseVariant = Tiles == 2 && RG == 2 && Warps == kMmaWarps && Split;

/// The grid of one mma_k_contiguous launch: Warps-warp blocks with warps_k along k, k slices
/// for one wave of resident blocks, the warps per SM that makes, and how full its waves are
/// (all blocks over the slots of the waves they take).
struct MmaGrid {
    int64_t blocks_x, col_tiles;
    int slices;
    int64_t warps_per_sm;
    double wave_fill;
};

template <class P, class TIn, int Tiles, int RG, int Warps, bool Split, int MinBlocks = kMinBlocksOf<Tiles>>
MmaGrid mma_grid(const P& v, int warps_k) {
    const int64_t sms = current_device_caps().sm_count;
    MmaGrid grid{};
    grid.blocks_x = ceil_div(v.rows, int64_t(Warps / warps_k) * RG * 16);
    grid.col_tiles = ceil_div(v.cols, int64_t(8 * Tiles));
    const int64_t blocks = grid.blocks_x * std::min<int64_t>(v.batches * grid.col_tiles, 65535);
    const int64_t resident =
        resident_blocks_per_sm<mma_kernel<P, TIn, Tiles, RG, Warps, Split, MinBlocks>(), 32 * Warps>() * sms;
    grid.slices = v.batches == 1 ? slices_for_one_wave(blocks, v.k, int64_t(sizeof(TIn)), resident) : 1;
    grid.warps_per_sm = blocks * grid.slices * Warps / sms;
    const int64_t launched = blocks * grid.slices;
    grid.wave_fill = double(launched) / double(ceil_div(launched, resident) * resident);
    return grid;
}

template <class P, class TIn, int Tiles, int RG, int Warps, bool Split, int MinBlocks = kMinBlocksOf<Tiles>>
void launch_mma(const P& v, const MmaGrid& grid, int warps_k, cudaStream_t stream) {
    launch_sliced(v, mma_kernel<P, TIn, Tiles, RG, Warps, Split, MinBlocks>(), grid.blocks_x, grid.col_tiles,
                  32 * Warps, grid.slices, stream, warps_k);
}

/// The wide blocks' warps along k (16, 8 or 4; the rest of a block's warps take more rows): the
/// most that keep the row groups' blocks within one wave of resident blocks, or 0 where none
/// does (a grid that large is not small).
template <class P, class TIn, int Tiles, bool Split>
int wide_warps_k(const P& v) {
    const int64_t resident = resident_blocks_per_sm<mma_kernel<P, TIn, Tiles, 1, kWideWarps, Split, kMinBlocksOf<Tiles>>(),
                                                    32 * kWideWarps>() *
                             current_device_caps().sm_count;
    for (int warps_k = kWideWarps; warps_k >= kMmaWarps; warps_k /= 2)
        if (ceil_div(v.rows, int64_t(kWideWarps / warps_k) * 16) <= resident) return warps_k;
    return 0;
}

template <class Args>
void launch_decode_args(const Args& g, cudaStream_t stream) {
    using TIn = std::remove_cv_t<std::remove_pointer_t<decltype(g.A)>>;
    using TAcc = AccOf<TIn>;
    auto v = skinny_view(g);
    using P = decltype(v);
    constexpr int64_t kVec = 16 / int64_t(sizeof(TIn));
    const bool w_k_contig = v.w_k == 1;
    const bool s_k_contig = v.s_k == 1;
    if constexpr (is_half_v<TIn>) {
        // mma path: both operands k-contiguous, 16-byte rows.
        const bool fits = w_k_contig && s_k_contig && is_aligned(v.W, 16) && is_aligned(v.S, 16) &&
                          v.w_row % kVec == 0 && v.s_col % kVec == 0 &&
                          (v.batches == 1 || (v.w_batch % kVec == 0 && v.s_batch % kVec == 0));
        const DecodePlan plan = decode_plan(v.cols, v.k);
        if (fits) {
            auto run_split = [&]<int Tiles, int RG, bool Split>() {
                const MmaGrid narrow = mma_grid<P, TIn, Tiles, RG, kMmaWarps, Split>(v, plan.warps_k);
                if constexpr (Tiles <= 2) {
                    const int wide_k =
                        plan.warps_k == kMmaWarps && v.batches == 1 ? wide_warps_k<P, TIn, Tiles, Split>(v) : 0;
                    if (wide_k) {
                        const MmaGrid wide = mma_grid<P, TIn, Tiles, 1, kWideWarps, Split>(v, wide_k);
                        if (narrow.warps_per_sm < kWideBelowWarpsPerSm || (narrow.slices > 1 && wide.slices == 1)) {
                            launch_mma<P, TIn, Tiles, 1, kWideWarps, Split>(v, wide, wide_k, stream);
                            return;
                        }
                    }
                }
                if constexpr (kHasDenseVariant<Tiles, RG, kMmaWarps, Split>) {
                    const MmaGrid dense = mma_grid<P, TIn, Tiles, RG, kMmaWarps, Split, kDenseBlocks>(v, plan.warps_k);
                    if (dense.wave_fill >= narrow.wave_fill) {
                        launch_mma<P, TIn, Tiles, RG, kMmaWarps, Split, kDenseBlocks>(v, dense, plan.warps_k, stream);
                        return;
                    }
                }
                launch_mma<P, TIn, Tiles, RG, kMmaWarps, Split>(v, narrow, plan.warps_k, stream);
            };
            auto run = [&]<int Tiles, int RG>() {
                if (plan.warps_k > 1) run_split.template operator()<Tiles, RG, true>();
                else run_split.template operator()<Tiles, RG, false>();
            };
            auto with_rg = [&]<int Tiles>() {
                if (plan.row_groups == 1) run.template operator()<Tiles, 1>();
                else if (plan.row_groups == 2 || Tiles == 8) run.template operator()<Tiles, 2>();
                else run.template operator()<Tiles, (Tiles < 8 ? 4 : 2)>(); // 8 tiles x 4 groups spill
            };
            if (v.cols <= 8) with_rg.template operator()<1>();
            else if (v.cols <= 16) with_rg.template operator()<2>();
            else if (v.cols <= 32) with_rg.template operator()<4>();
            else with_rg.template operator()<8>();
            return;
        }
    }
    if (w_k_contig) {
        const bool vec = is_aligned(v.W, 16) && v.w_row % kVec == 0 && s_k_contig && is_aligned(v.S, 16) &&
                         v.s_col % kVec == 0 &&
                         (v.batches == 1 || (v.w_batch % kVec == 0 && v.s_batch % kVec == 0));
        with_cols(v.cols, [&]<int Cols>() {
            const int64_t blocks_x = ceil_div(v.rows, int64_t(kSimtWarps) * kRowsPerWarp<TIn, Cols>);
            const int64_t col_tiles = ceil_div(v.cols, Cols);
            if (vec)
                launch_simt(v, &simt_k_contiguous<P, TIn, TAcc, Cols, true>, blocks_x, col_tiles, stream);
            else
                launch_simt(v, &simt_k_contiguous<P, TIn, TAcc, Cols, false>, blocks_x, col_tiles, stream);
        });
        return;
    }
    constexpr int64_t kRowVec = kRowVector<TIn>;
    const bool vec = reinterpret_cast<uintptr_t>(v.W) % (kRowVec * sizeof(TIn)) == 0 &&
                     v.w_k % kRowVec == 0 && (v.batches == 1 || v.w_batch % kRowVec == 0);
    with_cols(v.cols, [&]<int Cols>() {
        const int64_t col_tiles = ceil_div(v.cols, Cols);
        if (vec)
            launch_simt(v, &simt_row_contiguous<P, TIn, TAcc, Cols, true>, ceil_div(v.rows, 32 * kRowVec),
                        col_tiles, stream);
        else
            launch_simt(v, &simt_row_contiguous<P, TIn, TAcc, Cols, false>, ceil_div(v.rows, int64_t(32)),
                        col_tiles, stream);
    });
}

} // namespace

template <class T>
void launch_decode(const GemmArgs<T>& g, cudaStream_t stream) {
    launch_decode_args(g, stream);
}

template <class TIn, class TOut>
void launch_decode_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    launch_decode_args(g, stream);
}

template void launch_decode<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_decode<double>(const GemmArgs<double>&, cudaStream_t);
GEMMLAB_INSTANTIATE_HALF(launch_decode_half)

} // namespace gemmlab::detail
