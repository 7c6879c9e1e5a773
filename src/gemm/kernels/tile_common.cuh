#pragma once
// Device building blocks of the block-tiled rungs (9-14): tile shapes as types, the global ->
// shared-memory tile loader (vector or scalar, direct or transposing, edge-predicated), the
// shared-memory -> register fragment load, the register outer product, and the vectorized
// alpha/beta epilogue. Each rung composes these in its own mainloop, so a rung file shows only
// the idea it adds.
//
// Shared-memory tiles are stored k-major: a (BK, BMN + pad) array whose rows are one k and whose
// columns run along m (for A) or n (for B). The inner loop then reads, for one k, a run of
// consecutive m (or n) values with one 16-byte load, whatever the operand's storage order.
//
// Operands are seen through one lens: op(A) is an (m, k) matrix and op(B)^T an (n, k) matrix,
// each either "mn-contiguous" (A with op N, B with op T: consecutive m/n are adjacent in memory)
// or "k-contiguous" (A with op T, B with op N). Only the loader cares which: an mn-contiguous
// operand is copied straight into its (BK, BMN) tile, a k-contiguous one is transposed while it
// is stored. The internal NN hot path has one of each (A mn-contiguous, B k-contiguous).

#include <cstdint>
#include <mutex>
#include <string>

#include "gemm/kernels/common.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail::tile {

// ---------------------------------------------------------------------------------- shapes

using ::gemmlab::detail::GemmShape; // (M, N, K) tile shape type, see tile_configs.hpp

/// The 16-byte vector of T (float4 / double2) and how many T it holds.
template <class T> struct Vec16;
template <> struct Vec16<float> {
    using type = float4;
    static constexpr int kWidth = 4;
};
template <> struct Vec16<double> {
    using type = double2;
    static constexpr int kWidth = 2;
};
template <class T>
inline constexpr int kVecWidth = Vec16<T>::kWidth;

/// Shared-memory row padding (elements) of an operand tile. A k-contiguous operand is
/// transposed while stored: threads that share an m (or n) write V consecutive k rows, and
/// 16 bytes of padding shift those rows onto different banks. Reads stay 16-byte aligned.
template <class T, bool KContig>
inline constexpr int kSmemPad = KContig ? kVecWidth<T> : 0;

// ------------------------------------------------------------------ 16-byte register moves

/// One 16-byte load into V registers; p must be 16-byte aligned. The compiler emits LDG.E.128
/// for global and LDS.128 for shared addresses.
template <class T>
__device__ __forceinline__ void vec_load(const T* p, T* out) {
    if constexpr (sizeof(T) == 4) {
        const float4 v = *reinterpret_cast<const float4*>(p);
        out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    } else {
        const double2 v = *reinterpret_cast<const double2*>(p);
        out[0] = v.x, out[1] = v.y;
    }
}

/// One 16-byte store of V registers; p must be 16-byte aligned.
template <class T>
__device__ __forceinline__ void vec_store(T* p, const T* in) {
    if constexpr (sizeof(T) == 4) *reinterpret_cast<float4*>(p) = make_float4(in[0], in[1], in[2], in[3]);
    else *reinterpret_cast<double2*>(p) = make_double2(in[0], in[1]);
}

// ------------------------------------------------------------- global -> shared tile loader

/// Copies one (BMN, BK) tile of an operand from global memory into a (BK, LD) shared tile,
/// through registers: `load` issues the global reads into `regs`, `store` writes them to shared
/// memory, `advance` steps to the next k tile. Splitting load from store is what lets rung 12
/// overlap the next tile's global latency with the current tile's arithmetic.
///
/// The tile is cut into chunks of V = 16 bytes / sizeof(T) elements along the operand's
/// contiguous dimension; consecutive threads take consecutive chunks, so a warp reads whole
/// 32-byte sectors. With Vec a chunk is one 16-byte load (LDG.128); without (unaligned pointer
/// or leading dimension) it is V scalar loads from the same place, so both paths share one
/// thread mapping, one shared-memory layout and the same few address registers. Every element
/// outside the matrix is loaded as zero: edge tiles then add nothing to the sum.
///
/// Vec = true requires (checked by the launcher) a 16-byte aligned base pointer and ld % V == 0,
/// so that every chunk start is 16-byte aligned; chunks that straddle the edge fall back to
/// guarded scalar reads. The state kept across the k loop is small on purpose (a pointer, ld
/// and three ints): it competes with the accumulators for registers.
template <class T, int BMN, int BK, int Threads, bool KContig, bool Vec>
struct GmemTileLoader {
    static constexpr int V = kVecWidth<T>;
    static constexpr int kLine = KContig ? BK : BMN;  // tile extent along the contiguous dim
    static constexpr int kLines = KContig ? BMN : BK; // number of such lines in the tile
    static constexpr int kChunksPerLine = kLine / V;
    static constexpr int kLinesPerPass = Threads / kChunksPerLine;
    static constexpr int kPasses = kLines / kLinesPerPass;
    static constexpr int kRegs = kPasses * V; // elements each thread holds between load and store
    static constexpr int LD = BMN + kSmemPad<T, KContig>; // shared row stride (elements)

    static_assert(kLine % V == 0, "the contiguous tile extent must be a multiple of the vector width");
    static_assert(Threads % kChunksPerLine == 0,
                  "threads must cover whole lines of the tile (Threads % (line / V) == 0)");
    static_assert(kLines % kLinesPerPass == 0,
                  "the tile's lines must split evenly over passes of the thread block");

    const T* ptr;    // this thread's first chunk in the current k tile
    int64_t ld;      // leading dimension of the stored operand
    int mn_rem;      // min(MN - block's mn origin, BMN): extent of the tile inside the matrix
    int line0, pos0; // this thread's first line, and its first position along the line

    /// op_x(mn, kk) lives at X[mn + kk * ld] (mn-contiguous) or X[kk + mn * ld] (k-contiguous).
    __device__ __forceinline__ GmemTileLoader(const T* X, int64_t ld_, int64_t MN,
                                              int64_t mn_origin, int tid)
        : ld(ld_) {
        const int64_t rem = MN - mn_origin;
        mn_rem = rem < BMN ? int(rem) : BMN;
        line0 = tid / kChunksPerLine;
        pos0 = (tid % kChunksPerLine) * V;
        const int64_t mn = mn_origin + (KContig ? line0 : pos0);
        const int64_t kk = KContig ? pos0 : line0;
        ptr = KContig ? X + kk + mn * ld : X + mn + kk * ld;
    }

    /// Global reads of the current k tile into regs; k_rem = min(K - tile origin, BK) >= 1.
    /// Elements outside the matrix read as zero.
    __device__ __forceinline__ void load(T (&regs)[kRegs], int k_rem) const {
        // A tile fully inside the matrix (the common case) takes the branch-free path; the
        // test is uniform across the block.
        const bool full = mn_rem == BMN && k_rem == BK;
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
            const T* src = ptr + p * (int64_t(kLinesPerPass) * ld);
            T* dst = regs + p * V;
            if (full) {
                load_chunk(src, dst);
            } else {
                // Elements left before the matrix edge from this chunk's first element, along
                // the contiguous dimension (c_left) and across lines (o_left).
                const int line = line0 + p * kLinesPerPass;
                const int c_left = (KContig ? k_rem : mn_rem) - pos0;
                const int o_left = (KContig ? mn_rem : k_rem) - line;
                if (o_left > 0 && c_left >= V) {
                    load_chunk(src, dst);
                } else {
#pragma unroll
                    for (int v = 0; v < V; ++v) dst[v] = (o_left > 0 && v < c_left) ? src[v] : T(0);
                }
            }
        }
    }

    /// Writes regs into the (BK, LD) shared tile `s`: straight (vector store) for an
    /// mn-contiguous operand, transposed (V scalar stores) for a k-contiguous one.
    __device__ __forceinline__ void store(T* s, const T (&regs)[kRegs]) const {
#pragma unroll
        for (int p = 0; p < kPasses; ++p) {
            const int line = line0 + p * kLinesPerPass;
            if constexpr (KContig) {
#pragma unroll
                for (int v = 0; v < V; ++v) s[(pos0 + v) * LD + line] = regs[p * V + v];
            } else {
                vec_store(s + line * LD + pos0, regs + p * V);
            }
        }
    }

    /// Steps to the next k tile.
    __device__ __forceinline__ void advance() { ptr += KContig ? int64_t(BK) : int64_t(BK) * ld; }

private:
    __device__ __forceinline__ static void load_chunk(const T* src, T* dst) {
        if constexpr (Vec) {
            vec_load(src, dst);
        } else {
#pragma unroll
            for (int v = 0; v < V; ++v) dst[v] = src[v];
        }
    }
};

/// Depth of the k tile that starts `k_left` elements before the end of k: min(k_left, BK).
template <int BK>
__device__ __forceinline__ int tile_depth(int64_t k_left) {
    return k_left < BK ? int(k_left) : BK;
}

// ------------------------------------------------------- shared -> register fragment loads

/// Loads N elements of one shared-memory tile row into registers: N / Run runs of Run
/// consecutive elements, run r starting r * Stride elements after `row` (Run a multiple of the
/// vector width, so each run is Run / V 16-byte loads: LDS.128).
template <class T, int N, int Run, int Stride>
__device__ __forceinline__ void load_fragment(T (&frag)[N], const T* row) {
    constexpr int V = kVecWidth<T>;
    static_assert(N % Run == 0, "a fragment must be whole runs");
    static_assert(Run % V == 0, "a run must be whole 16-byte vectors");
#pragma unroll
    for (int r = 0; r < N / Run; ++r)
#pragma unroll
        for (int v = 0; v < Run; v += V) vec_load(row + r * Stride + v, frag + r * Run + v);
}

// ---------------------------------------------------------------- multiply-accumulate stage

/// acc(i, j) += a(i) * b(j): the register outer product (MAC_4x4 of the DCU GEMM walk-through),
/// TM * TN FMAs on TM + TN operands.
template <class T, int TM, int TN>
__device__ __forceinline__ void outer_product(T (&acc)[TM][TN], const T (&a)[TM], const T (&b)[TN]) {
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] += a[i] * b[j];
}

// ------------------------------------------------------------------ warp-tiled thread layout

/// Rung 13's thread layout (used by 13, and by 14 for A and for an mn-contiguous B; 14 deals
/// the columns of a k-contiguous B to lanes one by one, see mma_warp_tile_nmajor_b): the block
/// tile is cut into (WM, WN) warp tiles,
/// warp w taking warp tile (w % WarpsM, w / WarpsM); inside a warp tile, lane l owns a
/// (TM, TN) thread tile made of 16-byte runs (V elements), interleaved across the lanes:
///   rows    m_off + r * LanesM * V + (0 .. V-1),  r = 0 .. TM/V - 1,  m_off = lane_m * V
///   columns n_off + c * LanesN * V + (0 .. V-1),  c = 0 .. TN/V - 1,  n_off = lane_n * V
/// with lane_m = l % LanesM, lane_n = l / LanesM. One 16-byte fragment read of A by a warp then
/// touches LanesM adjacent vectors (128 bytes for LanesM = 8: a single shared-memory wavefront,
/// the other lanes get a broadcast), and B likewise: every read is conflict-free.
template <class Cfg, class T>
struct WarpTileMap {
    static constexpr int V = kVecWidth<T>;
    static constexpr int kRun = V;
    static constexpr int kStrideM = Cfg::kLanesM * V;
    static constexpr int kStrideN = Cfg::kLanesN * V;
    static_assert(Cfg::TM % V == 0 && Cfg::TN % V == 0,
                  "thread tile sides must be whole 16-byte vectors (4 floats, 2 doubles)");

    int m_off; // first row of this thread inside the block tile
    int n_off; // first column of this thread inside the block tile

    __device__ __forceinline__ explicit WarpTileMap(int tid) {
        const int warp = tid / 32, lane = tid % 32;
        const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
        const int lane_m = lane % Cfg::kLanesM, lane_n = lane / Cfg::kLanesM;
        m_off = warp_m * Cfg::WM + lane_m * V;
        n_off = warp_n * Cfg::WN + lane_n * V;
    }
};

/// Multiply-accumulate stage of the warp-tiled rungs over one (BK) deep shared tile pair:
/// per k, TM/V + TN/V fragment reads (LDS.128) and one (TM, TN) outer product. `a_row` and
/// `b_row` point at this thread's first element of row k = 0.
template <class Cfg, class T, int LDA, int LDB>
__device__ __forceinline__ void mma_warp_tile(T (&acc)[Cfg::TM][Cfg::TN], const T* a_row,
                                              const T* b_row) {
    using Map = WarpTileMap<Cfg, T>;
#pragma unroll
    for (int k = 0; k < Cfg::BK; ++k) {
        T a[Cfg::TM], b[Cfg::TN];
        load_fragment<T, Cfg::TM, Map::kRun, Map::kStrideM>(a, a_row + k * LDA);
        load_fragment<T, Cfg::TN, Map::kRun, Map::kStrideN>(b, b_row + k * LDB);
        outer_product(acc, a, b);
    }
}

/// Lower bound on resident blocks per SM handed to __launch_bounds__: sized from the
/// accumulators (TM * TN values of T) plus ~64 registers of fragments, addresses and loader
/// state, so that ptxas aims for the occupancy the tile can actually have. The scalar path
/// (!Vec) of the 4-warp tiles needs a few registers more than that cap leaves (checked with
/// -Xptxas=-warn-spills), so it gets one block fewer.
template <class Cfg, class T, bool Vec>
inline constexpr int kMinBlocksPerSm = [] {
    const int regs = Cfg::TM * Cfg::TN * int(sizeof(T) / 4) + 64;
    int blocks = 65536 / (Cfg::kThreads * regs);
    if (!Vec && Cfg::kThreads < 256) --blocks;
    return blocks < 1 ? 1 : blocks;
}();

// ------------------------------------------------------------------------------- epilogue

/// C(i, j) = alpha * acc + beta * C(i, j) for one element at `c`, reading C only when
/// beta != 0 so that NaN or Inf already in C never leaks into a beta == 0 result.
template <class T>
__device__ __forceinline__ void store_one(T* c, T acc, T alpha, T beta) {
    *c = (beta == T(0)) ? alpha * acc : alpha * acc + beta * *c;
}

/// Writes one thread's (TM, TN) accumulators: C(i, j) = alpha * acc + beta * C(i, j) for
///   i = row0 + (r / RunM) * StrideM + r % RunM,   j = col0 + (c / RunN) * StrideN + c % RunN.
/// A run of rows is stored as 16-byte vectors (column-major C: rows are contiguous) when Vec
/// (C 16-byte aligned, ldc % V == 0) and the vector lies inside m; otherwise element by element,
/// guarded. C is read only when beta != 0.
template <class T, bool Vec, int TM, int TN, int RunM, int StrideM, int RunN, int StrideN>
__device__ __forceinline__ void store_tile(const GemmOperands<T>& g, const T (&acc)[TM][TN],
                                           int64_t row0, int64_t col0) {
    constexpr int V = kVecWidth<T>;
    static_assert(TM % RunM == 0 && TN % RunN == 0, "thread tile must be whole runs");
    static_assert(!Vec || RunM % V == 0, "a vector store needs runs of whole vectors");
    const T alpha = g.alpha, beta = g.beta;
    // Rows of the thread tile still inside m, counted from row0 (may be <= 0 or > the tile).
    const int64_t m_left = g.m - row0;
#pragma unroll
    for (int c = 0; c < TN; ++c) {
        const int64_t j = col0 + (c / RunN) * StrideN + c % RunN;
        if (j >= g.n) continue;
        T* cj = g.C + row0 + j * g.ldc; // C(row0, j)
#pragma unroll
        for (int r = 0; r < TM; r += (Vec ? V : 1)) {
            const int di = (r / RunM) * StrideM + r % RunM; // row offset from row0
            if constexpr (Vec) {
                if (di + V <= m_left) {
                    T out[V];
                    if (beta == T(0)) {
#pragma unroll
                        for (int v = 0; v < V; ++v) out[v] = alpha * acc[r + v][c];
                    } else {
                        T old[V];
                        vec_load(cj + di, old);
#pragma unroll
                        for (int v = 0; v < V; ++v) out[v] = alpha * acc[r + v][c] + beta * old[v];
                    }
                    vec_store(cj + di, out);
                } else {
#pragma unroll
                    for (int v = 0; v < V; ++v)
                        if (di + v < m_left) store_one(cj + di + v, acc[r + v][c], alpha, beta);
                }
            } else {
                if (di < m_left) store_one(cj + di, acc[r][c], alpha, beta);
            }
        }
    }
}

// ------------------------------------------------------------------------ launch helpers

/// The grid of BM x BN block tiles of an m x n C: m tiles on x, n tiles on y unless they need
/// more than 65535 blocks (tile_grid.hpp); the kernel gets `swapped` and calls block_tile_origin.
/// `batches` > 1: one z slice per batch (at most 65535: for_each_batch_chunk splits more), for a
/// kernel that finds its batch's operands with batch_a / batch_b / batch_c.
inline LaunchGrid make_tile_grid(int64_t m, int64_t n, int bm, int bn, int64_t batches = 1) {
    LaunchGrid grid = tile_grid(ceil_div(m, bm), ceil_div(n, bn));
    grid.dims.z = batch_grid_z(batches);
    return grid;
}

/// Origin (row, column) of this block's tile in C.
__device__ __forceinline__ void block_tile_origin(bool swapped, int bm, int bn, int64_t& row,
                                                  int64_t& col) {
    int64_t tile_m, tile_n;
    block_tile(swapped, tile_m, tile_n);
    row = tile_m * bm;
    col = tile_n * bn;
}

/// As block_tile_origin, with the blocks taking their tiles in groups of G rows of the launch's
/// x dimension (G x all of y, x fastest inside a group) instead of row by row: the blocks that
/// run at once then cover a G x (resident / G) patch of C and read G x-panels and as many
/// y-panels, where a plain raster reads every x-panel for a few y-panels. A bijection of the
/// grid onto itself (the last group is narrower), so every tile is still computed once.
template <int64_t G>
__device__ __forceinline__ void grouped_block_tile_origin(bool swapped, int bm, int bn,
                                                          int64_t& row, int64_t& col) {
    int64_t bx, by;
    grouped_tile_of_block(G, gridDim.x, gridDim.y, blockIdx.x, blockIdx.y, bx, by);
    row = (swapped ? by : bx) * bm;
    col = (swapped ? bx : by) * bn;
}

/// True when the operand X (leading dimension ld, batch stride `stride` of g's batch) can be read
/// in 16-byte vectors: its base 16-byte aligned, ld and stride multiples of the vector width.
template <class T>
inline bool operand_vector_ok(const T* X, int64_t ld, int64_t stride, const Batch& batch) {
    constexpr int V = kVecWidth<T>;
    return is_aligned(X, 16) && ld % V == 0 && stride_keeps_alignment(batch, stride, V);
}

/// True when both operands can be read in 16-byte vectors (what a kernel that stores C element
/// by element needs: the tensor-core rungs 15-17).
template <class T>
inline bool operands_vector_ok(const GemmArgs<T>& g) {
    return operand_vector_ok(g.A, g.lda, g.batch.strides.a, g.batch) &&
           operand_vector_ok(g.B, g.ldb, g.batch.strides.b, g.batch);
}

/// True when the vector paths may be used: both operands (operands_vector_ok) and C too.
template <class T>
inline bool vector_ok(const GemmArgs<T>& g) {
    return operands_vector_ok(g) && operand_vector_ok<T>(g.C, g.ldc, g.batch.strides.c, g.batch);
}

/// Opts `Kernel` into `bytes` of dynamic shared memory (required above 48 KB), once per device
/// and kernel instantiation; thread-safe. A failed attempt is retried on the next launch.
template <auto Kernel>
void set_max_dynamic_smem(int bytes) {
    if (bytes <= 48 * 1024) return;
    constexpr int kMaxDevices = 64;
    static std::once_flag flags[kMaxDevices];
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const auto set = [&] {
        GEMMLAB_CUDA_CHECK(
            cudaFuncSetAttribute(Kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes));
    };
    if (device < 0 || device >= kMaxDevices) set();
    else std::call_once(flags[device], set); // an exception leaves the flag unset
}

/// Launches the block-tiled kernel that fits the call: Entry<TransA, TransB, Vec> for the call's
/// op flags and for whether the 16-byte paths are allowed (vector_ok), over a grid of
/// Cfg::BM x Cfg::BN tiles with Cfg::kThreads threads, one z slice per batch (launches of at
/// most 65535 batches). Entry supplies `kKernel`, a __global__ taking (GemmOperands<T>, bool
/// swapped, BatchStrides) that reads its batch's operands through batch_a / batch_b / batch_c,
/// and `kSmemBytes`, its dynamic shared memory. Every block-tiled rung (13 onwards) launches
/// through here, so a rung file holds only its kernel.
/// `vec`: whether Entry's vector paths may run; by default vector_ok (C included).
template <class Cfg, template <bool, bool, bool> class Entry, class T>
void launch_block_tiled(const GemmArgs<T>& g, cudaStream_t stream, bool vec) {
    for_each_batch_chunk(g, [&](const GemmArgs<T>& chunk) {
        const LaunchGrid tg = make_tile_grid(chunk.m, chunk.n, Cfg::BM, Cfg::BN, chunk.batch.count);
        const auto launch = [&]<bool TA, bool TB, bool Vec>() {
            using E = Entry<TA, TB, Vec>;
            set_max_dynamic_smem<E::kKernel>(E::kSmemBytes);
            E::kKernel<<<tg.dims, Cfg::kThreads, E::kSmemBytes, stream>>>(chunk, tg.swapped,
                                                                          chunk.batch.strides);
            GEMMLAB_CHECK_LAUNCH();
        };
        dispatch_ops(chunk, [&]<bool TA, bool TB>() {
            if (vec) launch.template operator()<TA, TB, true>();
            else launch.template operator()<TA, TB, false>();
        });
    });
}

template <class Cfg, template <bool, bool, bool> class Entry, class T>
void launch_block_tiled(const GemmArgs<T>& g, cudaStream_t stream) {
    launch_block_tiled<Cfg, Entry>(g, stream, vector_ok(g));
}

} // namespace gemmlab::detail::tile
