#pragma once
// The CUDA-core passes of rung 31 (31_int8_emulation.cu) around its INT8 GEMMs:
//   split        per operand: each row's range (largest |x|, Inf/NaN), then every residue
//                plane (K-major int8, k padded to 16 with zeros) and the magnitude plane (the
//                sampled chunks of k only), and each row's scale; blocks of 32 rows by a chunk
//                of k;
//   reconstruct  the CRT of the bytes (in doubles), the scale back, alpha and beta; elements
//                whose inputs break the precision promise are marked instead and their tiles
//                listed;
//   native       the listed tiles recomputed with FMAs in double (32-long partial sums), only
//                the marked elements written.
// The arithmetic they share with the CPU test lives in crt.hpp.

#include <cfloat>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "gemm/kernels/common.cuh"
#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/ozaki/crt.hpp"

namespace gemmlab::detail::ozaki {

/// The CRT constants of every modulus count (the GEMM epilogue's inverses, read uniformly by a
/// warp), and 1/m_l in three parts for the reconstruction's CRT in doubles (operands of its FMAs).
__constant__ CrtTable kCrtTable = make_crt_table();
__constant__ CrtFractions kCrtFractions = make_crt_fractions();

inline constexpr int kThreads = 256;
/// The split pass's tile: kSplitRows rows x kSplitK values of k through shared memory, each
/// thread then owning 8 consecutive k of one row (one 8-byte store per plane).
inline constexpr int kSplitRows = 32, kSplitK = 64;
static_assert(kSplitRows * kSplitK / 8 == kThreads, "one 8-value run per thread");
/// The reconstruction's and the native pass's tile of C, four elements per thread.
inline constexpr int kTile = 32;
static_assert(kTile * kTile / 4 == kThreads, "four elements per thread");

/// Calls f(std::integral_constant<int, L>) for L = First .. count-1: the modulus a compile-time
/// constant in each call, so that every % by it is a multiply-high.
template <int First = 0, class F>
__device__ __forceinline__ void for_each_modulus(int count, F&& f) {
    if constexpr (First < kMaxModuli) {
        if (First < count) {
            f(std::integral_constant<int, First>{});
            for_each_modulus<First + 1>(count, f);
        }
    }
}

// ------------------------------------------------------------------ split

/// Shared tiles in the split pass's ring: kSplitStages tiles of op(X) in flight per block.
/// With one tile fetched ahead into registers, ncu counted the pass's warps waiting on those
/// loads 2.6 cycles per issued instruction at 60% of DRAM's rate; the ring halved that wait and
/// holds no registers, though the pass gained only 2% (float 8192^3: docs/ladder.md, "Rung 31").
inline constexpr int kSplitStages = 4;
template <class T>
using SplitTile = T[kSplitRows][kSplitK + 1]; // (row, k), padded
template <class T>
inline constexpr size_t kSplitSmemBytes = kSplitStages * sizeof(SplitTile<T>);

/// One thread's share of the split tiles, rows [r0, r0 + 32) x k [p0, p0 + 64) of the operand,
/// copied by cp.async into a tile of the ring (zeros outside rows x k): no registers held while
/// they are in flight. Reads run along X's contiguous dimension: k when k_major, rows
/// otherwise. The thread's values are a pointer and a stride apart, and the tiles one pointer
/// step: with the index recomputed for every value in 64 bits, the loads took 15 instructions
/// a value.
template <class T>
struct SplitTileCopies {
    const T* at;       // value 0 of the next tile to copy
    int64_t step;      // value j to j + 1: four rows (k_major) or eight values of k
    int64_t tile_step; // one tile to the next: kSplitK values of k
    uint32_t to;       // value 0's shared address in ring tile 0
    uint32_t to_step;  // value j to j + 1 in a tile, bytes

    __device__ __forceinline__ static int row_of(int j, bool k_major) {
        return k_major ? int(threadIdx.x) / kSplitK + 4 * j : int(threadIdx.x) % kSplitRows;
    }
    __device__ __forceinline__ static int k_of(int j, bool k_major) {
        return k_major ? int(threadIdx.x) % kSplitK : int(threadIdx.x) / kSplitRows + 8 * j;
    }
    /// Points at the tile of rows from r0 and k from p0, and at the ring.
    __device__ __forceinline__ void start(const T* X, int64_t ld, bool k_major, int64_t r0,
                                          int64_t p0, SplitTile<T>* ring) {
        const int64_t r = r0 + row_of(0, k_major), p = p0 + k_of(0, k_major);
        at = k_major ? X + p + r * ld : X + r + p * ld;
        step = (k_major ? 4 : 8) * ld;
        tile_step = k_major ? kSplitK : kSplitK * ld;
        to = uint32_t(__cvta_generic_to_shared(&ring[0][row_of(0, k_major)][k_of(0, k_major)]));
        to_step = uint32_t(&ring[0][row_of(1, k_major)][k_of(1, k_major)] -
                           &ring[0][row_of(0, k_major)][k_of(0, k_major)]) * sizeof(T);
    }
    /// Issues the copies of the tile at p0 (the one after the last issued, or start's) into
    /// ring tile `slot`.
    __device__ __forceinline__ void issue(int slot, bool k_major, int64_t rows, int64_t k,
                                          int64_t r0, int64_t p0) {
        const uint32_t dst = to + uint32_t(slot * sizeof(SplitTile<T>));
        if (r0 + kSplitRows <= rows && p0 + kSplitK <= k) {
            const T* src = at;
#pragma unroll
            for (int j = 0; j < 8; ++j, src += step) ptx::cp_async<sizeof(T)>(dst + j * to_step, src);
        } else {
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const bool in = r0 + row_of(j, k_major) < rows && p0 + k_of(j, k_major) < k;
                // Out of range the copy reads nothing (source size 0) and writes zeros; its
                // address is never dereferenced (memcheck clean on the edge tests).
                ptx::cp_async_zfill<sizeof(T)>(dst + j * to_step, at + j * step,
                                               in ? int(sizeof(T)) : 0);
            }
        }
        at += tile_step;
    }
};

/// Reduces v over the 8 lanes that share a row (consecutive lanes 8r .. 8r + 7).
template <class V, class Op>
__device__ __forceinline__ V reduce8(V v, Op op) {
#pragma unroll
    for (int s = 1; s < 8; s <<= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, s));
    return v;
}

/// What the split passes learn of one row of op(X) before its RowScale: its largest |x| (as
/// the double's bits: nonnegative doubles order as their bit patterns, so atomicMax joins the
/// blocks' maxima), whether it holds Inf or NaN and whether its scaling rounded anything.
/// Zero before the first pass.
struct RowRange {
    unsigned long long largest;
    int nonfinite;
    int inexact;
};

/// Values of k per block of the split passes: a block takes 32 rows by one such chunk, so that
/// even a few rows give every SM blocks to run (a block walking all of k in turn waits on one
/// load after another).
inline constexpr int kSplitChunk = 8 * kSplitK;
static_assert(kSplitChunk == kMagnitudeBlock, "a split block writes one sampled block or none");
/// Blocks of the split passes per SM, for ptxas's register budget: left free, it once gave the
/// residue pass 148 registers (one block per SM), and an earlier form spilled at 64. That pass
/// gets one fewer (its wide form holds byte products; double's narrow one spilled 8 bytes at
/// three), but float's narrow form three: it spilled 26 bytes at four (64 registers) with the
/// cp.async ring's state (with registers as the staging, four had timed 582-587 us against
/// 592-595 at three: float 8192^3, both operands; docs/ladder.md).
inline constexpr int kSplitBlocksPerSm = 3;
template <class T, bool Narrow>
inline constexpr int kSplitBlocks =
    Narrow && std::is_same_v<T, float> ? kSplitBlocksPerSm : kSplitBlocksPerSm - 1;

/// The low bytes of v[0..3] in one word, in order (three byte permutes).
__device__ __forceinline__ uint32_t low_bytes(const uint32_t* v) {
    return __byte_perm(__byte_perm(v[0], v[1], 0x0040), __byte_perm(v[2], v[3], 0x0040), 0x5410);
}

/// Eight residues given as r + 128 in [0, 256), as their int8 bytes in order (r's byte is
/// (r + 128) ^ 0x80).
__device__ __forceinline__ uint2 pack_residues(const uint32_t (&r)[8]) {
    return make_uint2(low_bytes(r) ^ 0x80808080u, low_bytes(r + 4) ^ 0x80808080u);
}

/// Calls f(std::integral_constant<int, L>) for L = 1, 3, 5, ... below count: the pairs of
/// moduli (L, L + 1) of residue_pair; L + 1 may be count, whose residues are then not stored.
template <int L = 1, class F>
__device__ __forceinline__ void for_each_modulus_pair(int count, F&& f) {
    if constexpr (L < kMaxModuli) {
        if (L < count) {
            f(std::integral_constant<int, L>{});
            for_each_modulus_pair<L + 2>(count, f);
        }
    }
}

/// The wide residues (crt.hpp, residue) of a thread's eight values a[0..7] modulo moduli L and
/// L + 1, packed one byte per value in order: packed[0] for L, packed[1] for L + 1. The byte sums
/// sum_i u_i (2^(8i) mod M) + offset come from four u8 products mma.m16n8k32 of the warp. A's
/// row g (lanes 4g .. 4g + 3) holds one value of each of those lanes: lane t's u in bytes
/// [4t, 4t + 4) (low word) and [4t + 16, 4t + 20) (high word). B's column c holds the weights
/// of lane c / 2's bytes, of modulus L when c is even and L + 1 when odd, zeros elsewhere; C
/// holds the offsets. So each lane gets back its own value's sums for both moduli (D's row g,
/// columns 2t and 2t + 1; row g + 8 for its second value), with no shuffles. What is left per
/// value and modulus is reduce24 and the packing: half the integer multiplies of the 21-bit
/// pieces this replaced, on the pipe that bounded the pass (docs/ladder.md, "Rung 31").
template <int L>
__device__ __forceinline__ void residue_pair(const int64_t (&a)[8], uint2 (&packed)[2]) {
    constexpr uint32_t MA = modulus(L), MB = modulus(L + 1 < kMaxModuli ? L + 1 : L);
    using WA = ByteWeights<MA, false>;
    using WB = ByteWeights<MB, false>;
    const int lane = int(threadIdx.x % 32);
    const bool weighs = (lane & 3) == (lane >> 3); // B's column lane / 4 is lane % 4's
    const bool odd = (lane >> 2) & 1;              // an odd column: modulus L + 1
    const uint32_t b0 = weighs ? (odd ? WB::low : WA::low) : 0u;
    const uint32_t b1 = weighs ? (odd ? WB::high : WA::high) : 0u;
    uint32_t r[2][8];
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        const int64_t x = a[2 * s], y = a[2 * s + 1];
        uint32_t d0, d1, d2, d3;
        asm("mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
            : "=r"(d0), "=r"(d1), "=r"(d2), "=r"(d3)
            : "r"(WA::low_word(x)), "r"(WA::low_word(y)), "r"(WA::high_word(x)),
              "r"(WA::high_word(y)), "r"(b0), "r"(b1), "r"(WA::offset), "r"(WB::offset),
              "r"(WA::offset), "r"(WB::offset));
        r[0][2 * s] = reduce24(d0, runtime_modulus(MA));
        r[1][2 * s] = reduce24(d1, runtime_modulus(MB));
        r[0][2 * s + 1] = reduce24(d2, runtime_modulus(MA));
        r[1][2 * s + 1] = reduce24(d3, runtime_modulus(MB));
    }
    packed[0] = pack_residues(r[0]);
    packed[1] = pack_residues(r[1]);
}

/// V consecutive values of X: one 16-byte load (the caller has checked X and ld for 16-byte
/// alignment) or one value; with `valid`, only that many are in range (zeros after).
template <class T, int V>
struct Run {
    T v[V];
    __device__ __forceinline__ void load(const T* __restrict__ p) {
        if constexpr (V * sizeof(T) == 16) {
            const auto x = *reinterpret_cast<const uint4*>(p);
            memcpy(v, &x, sizeof v);
        } else {
            static_assert(V == 1, "a 16-byte vector or one value");
            v[0] = *p;
        }
    }
    __device__ __forceinline__ void load(const T* __restrict__ p, int64_t valid) {
        if (valid >= V) return load(p);
#pragma unroll
        for (int i = 0; i < V; ++i) v[i] = i < valid ? p[i] : T(0);
    }
};

/// The largest finite |x| and whether any x is Inf or NaN, kept in T (zero-initialized: `{}`).
template <class T>
struct Range {
    T largest;
    bool nonfinite;
    __device__ __forceinline__ void add(T x) {
        const T a = fabs(x);
        const bool finite = a <= T(sizeof(T) == 4 ? FLT_MAX : DBL_MAX); // false for NaN too
        nonfinite |= !finite;
        largest = fmax(largest, finite ? a : T(0));
    }
    __device__ __forceinline__ void join(const Range& o) {
        largest = fmax(largest, o.largest);
        nonfinite |= o.nonfinite;
    }
    __device__ __forceinline__ Range shuffled(int mask) const {
        return {__shfl_xor_sync(0xffffffffu, largest, mask),
                bool(__shfl_xor_sync(0xffffffffu, int(nonfinite), mask))};
    }
    /// Joins this row's range into ranges[r] (atomics: other chunks of k add theirs).
    __device__ __forceinline__ void publish(RowRange* ranges, int64_t r) const {
        if (largest > 0)
            atomicMax(&ranges[r].largest,
                      (unsigned long long)__double_as_longlong(double(largest)));
        if (nonfinite) atomicOr(&ranges[r].nonfinite, 1);
    }
};

/// Pass 1 where op(X) is K-major (row r's k values contiguous, X[p + r ld]): warp w takes rows
/// r0 + 4w .. r0 + 4w + 3 of the chunk [first, last), its lanes side by side along k, kBatch
/// loads issued before their values are used. Whole: the block's 32 rows and 512 values all in
/// range, so no load is checked.
template <class T, int V, int kBatch, bool Whole>
__device__ __forceinline__ void row_ranges_k_major(const T* __restrict__ X, int64_t ld,
                                                   int64_t rows, int64_t r0, int64_t first,
                                                   int64_t last, RowRange* __restrict__ ranges) {
    constexpr int kRowsPerWarp = kSplitRows / (kThreads / 32);
    constexpr int kRuns = kSplitChunk / (32 * V); // per lane and row
    const int warp = int(threadIdx.x) / 32, lane = int(threadIdx.x) % 32;
    const int64_t rw = r0 + kRowsPerWarp * warp;
    const T* base = X + rw * ld + first + V * lane;
    // One row at a time, one batch's loads in flight at a time: with the loops unrolled, ptxas
    // hoisted all of a thread's loads and spilled; a range per row indexed in a rolled loop
    // went to local memory.
    constexpr int kBatchRuns = kBatch < kRuns ? kBatch : kRuns;
#pragma unroll 1
    for (int row = 0; row < kRowsPerWarp; ++row) {
        Range<T> range{};
#pragma unroll 1
        for (int j0 = 0; j0 < kRuns; j0 += kBatchRuns) {
            Run<T, V> run[kBatchRuns];
#pragma unroll
            for (int j = 0; j < kBatchRuns; ++j) {
                const T* at = base + row * ld + 32 * V * (j0 + j);
                if constexpr (Whole) run[j].load(at);
                else
                    run[j].load(at, rw + row < rows ? last - (first + V * (lane + 32 * (j0 + j)))
                                                    : 0);
            }
#pragma unroll
            for (int j = 0; j < kBatchRuns; ++j)
#pragma unroll
                for (int e = 0; e < V; ++e) range.add(run[j].v[e]);
        }
#pragma unroll
        for (int s = 16; s >= 1; s >>= 1) range.join(range.shuffled(s));
        if (lane == 0 && rw + row < rows) range.publish(ranges, rw + row);
    }
}

/// Pass 1 where op(X)'s rows are contiguous (X[r + p ld]): thread t takes rows r0 + V (t % G)
/// .. + V - 1 (G runs span the 32 rows) and k from first + t / G in steps of 256 / G; the
/// threads of one run of rows then join in shared memory.
template <class T, int V, int kBatch, bool Whole>
__device__ __forceinline__ void row_ranges_rows_contiguous(const T* __restrict__ X, int64_t ld,
                                                           int64_t rows, int64_t r0, int64_t first,
                                                           int64_t last,
                                                           RowRange* __restrict__ ranges) {
    constexpr int kGroups = kSplitRows / V, kStride = kThreads / kGroups;
    constexpr int kSteps = kSplitChunk / kStride;
    static_assert(kSteps % kBatch == 0, "whole batches");
    const int g = int(threadIdx.x) % kGroups;
    const int64_t r = r0 + V * g, p = first + int(threadIdx.x) / kGroups;
    const T* base = X + r + p * ld;
    const int64_t step = kStride * ld;
    Range<T> range[V]{};
#pragma unroll 1
    for (int b = 0; b < kSteps; b += kBatch) {
        Run<T, V> run[kBatch];
#pragma unroll
        for (int u = 0; u < kBatch; ++u) {
            const T* at = base + (b + u) * step;
            if constexpr (Whole) run[u].load(at);
            else run[u].load(at, p + kStride * (b + u) < last ? rows - r : 0);
        }
#pragma unroll
        for (int u = 0; u < kBatch; ++u)
#pragma unroll
            for (int i = 0; i < V; ++i) range[i].add(run[u].v[i]);
    }
    __shared__ Range<T> partial[kThreads / kGroups][kSplitRows];
#pragma unroll
    for (int i = 0; i < V; ++i) partial[threadIdx.x / kGroups][V * g + i] = range[i];
    __syncthreads();
    if (threadIdx.x < kSplitRows && r0 + threadIdx.x < rows) {
        Range<T> row = partial[0][threadIdx.x];
        for (int s = 1; s < kThreads / kGroups; ++s) row.join(partial[s][threadIdx.x]);
        row.publish(ranges, r0 + threadIdx.x);
    }
}

/// Pass 1, a block per 32 rows and chunk of k of op(X) (rows x k, element (r, p) at
/// X[p + r ld] when k_major, else X[r + p ld]): each row's largest |x| and whether it holds
/// Inf or NaN, joined into `ranges` by atomics. No shared-memory tile (a maximum needs no
/// transpose): each thread reads runs of V values along X's contiguous dimension, V = 16 bytes
/// where X and ld are 16-byte aligned, else 1, kBatch loads in flight at a time. Through the
/// split's tile, float's reads here ran at half of DRAM's rate (docs/ladder.md, "Rung 31").
template <class T, int V, int kBatch = 8, int kMinBlocks = 4>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    row_range_kernel(const T* __restrict__ X, int64_t ld, bool k_major, int64_t rows, int64_t k,
                     RowRange* __restrict__ ranges) {
    const int64_t r0 = int64_t(blockIdx.x) * kSplitRows;
    const int64_t first = int64_t(blockIdx.y) * kSplitChunk, last = min(k, first + kSplitChunk);
    const bool whole = r0 + kSplitRows <= rows && last - first == kSplitChunk;
    // The edges' checked loads four at a time: they would otherwise set the registers of all.
    if (k_major) {
        if (whole) row_ranges_k_major<T, V, kBatch, true>(X, ld, rows, r0, first, last, ranges);
        else row_ranges_k_major<T, V, 4, false>(X, ld, rows, r0, first, last, ranges);
    } else {
        if (whole)
            row_ranges_rows_contiguous<T, V, kBatch, true>(X, ld, rows, r0, first, last, ranges);
        else row_ranges_rows_contiguous<T, V, 4, false>(X, ld, rows, r0, first, last, ranges);
    }
}

/// Pass 2, a block per 32 rows and chunk of kp: each element split (split_value: a' =
/// rint(x 2^e), e from row_factors of the row's largest |x|), its residue (crt.hpp, residue)
/// mod each of the `count` moduli into planes[l] (rows x kp int8, K-major, zeros past k: the
/// residue of 0 is 0), and where `sample` holds the chunk the magnitude digit into
/// planes[count] (rows x sample.k, K-major); the chunk's part of the row's scaled 1-norm into
/// norms[chunk rows + r], whether it rounded anything into `ranges`. A row with Inf or NaN
/// gets zeros (the reconstruction sends its outputs to the native pass). Narrow: bits <= 30;
/// float's narrow form splits in 32-bit arithmetic (split_value_narrow). Dynamic shared
/// memory: kSplitSmemBytes<T>.
template <class T, bool Narrow>
__global__ void __launch_bounds__(kThreads, kSplitBlocks<T, Narrow>)
    split_kernel(const T* __restrict__ X, int64_t ld, bool k_major, int64_t rows, int64_t k,
                 int64_t kp, int count, int bits, int8_t* __restrict__ planes, int64_t plane_bytes,
                 MagnitudeSample sample, RowRange* __restrict__ ranges, double* __restrict__ norms) {
    constexpr bool kFloat32 = Narrow && std::is_same_v<T, float>;
    extern __shared__ __align__(16) unsigned char split_smem[];
    SplitTile<T>* ring = reinterpret_cast<SplitTile<T>*>(split_smem); // kSplitStages tiles
    const bool sampled = sample.holds_block(blockIdx.y);
    const int row = threadIdx.x / 8, run = threadIdx.x % 8; // this thread: k [8 run, 8 run + 8)
    const int64_t r0 = int64_t(blockIdx.x) * kSplitRows, r = r0 + row;
    const int64_t first = int64_t(blockIdx.y) * kSplitChunk, last = min(kp, first + kSplitChunk);
    const double largest = r < rows ? __longlong_as_double((long long)ranges[r].largest) : 0.0;
    const bool nonfinite = r < rows && ranges[r].nonfinite;
    const RowFactors factors = row_factors(largest, bits);
    const double magnitude_scale = ldexp(1.0, kMagnitudeBits - bits);

    double norm = 0;
    int inexact = 0;
    // The ring: tile t in ring[t % kSplitStages]; kSplitStages - 1 tiles' copies in flight
    // while one is split. A group is committed for every tile, empty past k, so that
    // wait<kSplitStages - 2> always means "tile t has landed".
    SplitTileCopies<T> copies;
    copies.start(X, ld, k_major, r0, first, ring);
    const int64_t loaded_end = min(k, last); // tiles from here on are past k: nothing to copy
    const int tiles = int((last - first + kSplitK - 1) / kSplitK);
#pragma unroll 1
    for (int t = 0; t < kSplitStages - 1; ++t) {
        if (first + t * kSplitK < loaded_end) copies.issue(t, k_major, rows, k, r0, first + t * kSplitK);
        ptx::cp_async_commit();
    }
    for (int t = 0; t < tiles; ++t) {
        const int64_t p0 = first + int64_t(t) * kSplitK;
        ptx::cp_async_wait<kSplitStages - 2>();
        __syncthreads(); // tile t landed for all; tile t - 1's slot read by all
        const int64_t ahead = p0 + (kSplitStages - 1) * kSplitK;
        if (ahead < loaded_end)
            copies.issue((t + kSplitStages - 1) % kSplitStages, k_major, rows, k, r0, ahead);
        ptx::cp_async_commit();
        // The values read whatever the tile holds, then zeroed (past k, or Inf/NaN in the row):
        // read under that condition, each load recomputed its shared address.
        const T* mine = &ring[t % kSplitStages][row][8 * run]; // this thread's 8 values of k
        const bool live = p0 < k && !nonfinite;
        T x[8];
#pragma unroll
        for (int q = 0; q < 8; ++q) x[q] = live ? mine[q] : T(0);
        const int64_t p = p0 + 8 * run;
        const bool stores = r < rows && p < kp;
        int8_t* out = planes + r * kp + p; // plane 0; the next ones plane_bytes on
        // A narrow plan's residues of the moduli after 256, from u = a' + 2^30: one reduction each.
        const auto store_narrow_residues = [&](const uint32_t (&u)[8]) {
            for_each_modulus<1>(count, [&](auto l) {
                constexpr uint32_t M = modulus(decltype(l)::value);
                uint32_t biased[8];
#pragma unroll
                for (int q = 0; q < 8; ++q) biased[q] = narrow_biased_residue<M>(u[q]);
                out += plane_bytes;
                if (stores) *reinterpret_cast<uint2*>(out) = pack_residues(biased);
            });
        };
        uint2 magnitude;
        if constexpr (kFloat32) {
            const float f1 = float(factors.f1), f2 = float(factors.f2);
            uint32_t u[8], digit[8]; // u = a' + 2^30: its low byte is a''s (modulus 256)
#pragma unroll
            for (int q = 0; q < 8; ++q) {
                const SplitValueNarrow v = split_value_narrow(x[q], f1, f2, float(magnitude_scale));
                inexact |= v.inexact ? 1 : 0;
                norm += double(v.scaled_abs);
                u[q] = uint32_t(v.integer) + (1u << 30);
                digit[q] = v.magnitude;
            }
            magnitude = make_uint2(low_bytes(digit), low_bytes(digit + 4));
            if (stores) *reinterpret_cast<uint2*>(out) = make_uint2(low_bytes(u), low_bytes(u + 4));
            store_narrow_residues(u);
        } else {
            int64_t a[8];
            uint64_t digits = 0;
#pragma unroll
            for (int q = 0; q < 8; ++q) {
                const SplitValue v = split_value(double(x[q]), factors, magnitude_scale);
                inexact |= v.inexact ? 1 : 0;
                norm += v.scaled_abs;
                a[q] = v.integer;
                digits |= uint64_t(v.magnitude) << (8 * q);
            }
            magnitude = make_uint2(uint32_t(digits), uint32_t(digits >> 32));
            if (stores) { // modulus 256: the low bytes
                uint64_t packed = 0;
#pragma unroll
                for (int q = 0; q < 8; ++q) packed |= uint64_t(uint8_t(uint64_t(a[q]))) << (8 * q);
                *reinterpret_cast<uint64_t*>(out) = packed;
            }
            if constexpr (Narrow) {
                uint32_t u[8];
#pragma unroll
                for (int q = 0; q < 8; ++q) u[q] = uint32_t(a[q]) + (1u << 30);
                store_narrow_residues(u);
            } else { // two at a time, every lane of the warp taking part (mma.sync)
                for_each_modulus_pair(count, [&](auto l) {
                    constexpr int L = decltype(l)::value;
                    uint2 packed[2];
                    residue_pair<L>(a, packed);
                    out += plane_bytes;
                    if (stores) *reinterpret_cast<uint2*>(out) = packed[0];
                    out += plane_bytes;
                    if (stores && L + 1 < count) *reinterpret_cast<uint2*>(out) = packed[1];
                });
            }
        }
        if (stores && sampled)
            *reinterpret_cast<uint2*>(planes + count * plane_bytes + r * sample.k +
                                      sample.position(p)) = magnitude;
    }
    norm = reduce8(norm, [](double a, double b) { return a + b; });
    inexact = reduce8(inexact, [](int a, int b) { return a | b; });
    if (run == 0 && r < rows) {
        norms[int64_t(blockIdx.y) * rows + r] = norm;
        if (inexact) atomicOr(&ranges[r].inexact, 1);
    }
}

/// Each row's RowScale from its range and its chunks' norms, added in chunk order (so the
/// result does not depend on which block finished first).
__global__ void __launch_bounds__(kThreads)
    row_scale_kernel(int64_t rows, int chunks, int bits, const RowRange* __restrict__ ranges,
                     const double* __restrict__ norms, RowScale* __restrict__ scales) {
    const int64_t r = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    const RowRange range = ranges[r];
    double norm = 0;
    for (int c = 0; c < chunks; ++c) norm += norms[int64_t(c) * rows + r];
    const RowFactors factors = row_factors(__longlong_as_double((long long)range.largest), bits);
    scales[r] = RowScale{factors.exponent,
                         (range.nonfinite ? kNonfinite : 0) | (range.inexact ? kInexact : 0), norm};
}

// ------------------------------------------------------------------ reconstruct

/// *out = alpha v + beta *out in double, rounded once to T (C read only when beta != 0): the one
/// store of both the reconstruction and the native pass, so an element is written alike by
/// whichever owns it. alpha and beta are the call's, in double (the reconstruction of float
/// passes alpha 2^(-e_i - f_j), exact, with C' as v: the same product, rounded once).
template <bool BetaIsZero, class T>
__device__ __forceinline__ void store_result(T* out, double alpha, double beta, double v) {
    *out = BetaIsZero ? T(alpha * v) : T(fma(alpha, v, beta * double(*out)));
}
template <class T>
__device__ __forceinline__ void store_result(T* out, double alpha, double beta, double v) {
    if (beta == 0) store_result<true>(out, alpha, beta, v);
    else store_result<false>(out, alpha, beta, v);
}

/// Where the reconstruction leaves the work of the native pass: W(i, j) = kNativeMark for each
/// element it did not write, and the index of each 32 x 32 tile holding one.
inline constexpr int32_t kNativeMark = -1;
struct NativeList {
    int* tiles; ///< ceil(m/32) * ceil(n/32) entries
    int* count; ///< zeroed before the reconstruction
};

/// The reconstruction's 16 x 8 blocks of residues per thread, one word of each plane for each:
/// two where there are at most eight planes (float), so that a thread's index arithmetic,
/// column scales and loads of alpha and beta serve eight elements; one for more (registers).
template <int Count>
inline constexpr int kReconstructBlocks = Count <= 8 ? 2 : 1;
template <int Count>
inline constexpr int kReconstructThreads = kThreads / kReconstructBlocks<Count>;

/// C = alpha 2^(-e_i - f_j) C' + beta C (C read only when beta != 0), C' from the `count`
/// residue planes Q (ResidueLayout, planes `plane_bytes` apart); one block per 32 x 32 tile, a
/// warp per 32 x 8 (two row blocks) or 16 x 8 of it, and a thread per word of Q in each of its
/// kReconstructBlocks blocks: rows r, r + 8 (, r + 16, r + 24) by columns c, c + 1. W holds the
/// magnitude GEMM's sums on entry. With `promise` (off only for tests), elements that
/// needs_native rejects are marked in W instead. C' comes from crt_fast_path (for double the CRT
/// in doubles; for float with P < 2^64 the CRT in 64-bit integers, exact: the result is rounded
/// to float after), and where that cannot answer (double: small C' and near ties) from the
/// integer CRT in crt_limbs(Count) limbs: crt_rounded_sized's arithmetic, which the CPU tests
/// run. Count, the number of moduli, is a constant: the integer CRT's weights are immediates, the doubles' parts of 1/m_l
/// come from constant memory (kCrtFractions). (512 threads per SM in the bounds, two blocks of
/// 256 or four of 128: left free, ptxas held the float, 16-moduli form to 79 registers and
/// spilled.)
template <class T, int Count>
__global__ void __launch_bounds__(kReconstructThreads<Count>, 2 * kReconstructBlocks<Count>)
    reconstruct_kernel(int64_t m, int64_t n, T alpha, T beta, T* __restrict__ C, int64_t ldc,
                       NativeRule rule, bool promise,
                       const uint8_t* __restrict__ Q, ResidueLayout layout,
                       int32_t* __restrict__ W, int64_t ld, const RowScale* __restrict__ row_scales,
                       const RowScale* __restrict__ col_scales, NativeList native) {
    constexpr int R = kReconstructBlocks<Count>; // row blocks per thread
    static_assert(kTile == 32 && kThreads == 256, "a tile: 2 x 4 blocks of 16 x 8");
    // A grid of at most 2^32 tiles: the tile's row in 32-bit arithmetic.
    const uint32_t tiles_m = uint32_t((m + kTile - 1) / kTile);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int64_t bi = int64_t(blockIdx.x % tiles_m) * 2 + (R == 2 ? 0 : warp % 2);
    const int64_t bj = int64_t(blockIdx.x / tiles_m) * 4 + (R == 2 ? warp : warp / 2);
    const int64_t r = bi * 16 + lane / 4, c = bj * 8 + 2 * (lane % 4);
    constexpr CrtConstants crt = make_crt_constants(Count);
    bool marked = false;
    if (bi * 16 < m && bj * 8 < n) {
        const int64_t word = (bi + bj * layout.blocks_m) * 32 + lane;
        const int64_t plane_words = layout.plane_bytes() / 4;
        const auto* words = reinterpret_cast<const uint32_t*>(Q);
        uint32_t quad[R][kMaxModuli];
#pragma unroll
        for (int b = 0; b < R; ++b)
#pragma unroll
            for (int l = 0; l < kMaxModuli; ++l)
                quad[b][l] = l < Count && (bi + b) * 16 < m
                                 ? words[l * plane_words + word + 32 * b]
                                 : 0u;
        // Every load of the elements before any of them is used: issued one element at a time,
        // they left the pass waiting on memory (ncu's long-scoreboard stalls).
        RowScale rows[2 * R] = {}, cols[2] = {};
        int32_t sums[4 * R] = {};
#pragma unroll
        for (int h = 0; h < 2 * R; ++h)
            if (r + 8 * h < m) rows[h] = row_scales[r + 8 * h];
#pragma unroll
        for (int h = 0; h < 2; ++h)
            if (c + h < n) cols[h] = col_scales[c + h];
#pragma unroll
        for (int v = 0; v < 4 * R; ++v) {
            const int64_t i = r + 8 * (v / 2), j = c + v % 2;
            if (promise && i < m && j < n) sums[v] = W[i + j * ld];
        }
        // Float's eight elements a thread (R = 2) ask needs_native all first, from terms formed
        // once per row and column: per element they had cost about 20 of its 146 instructions
        // (ncu), and they are dead before the CRT's registers are taken (float 8192^3: 458 ->
        // 417 us). Double's four ask it per element beside the CRT, as before: asked first, its
        // 4096^3 pass took 222 us against 206 (docs/ladder.md, "Rung 31"). For float also the
        // scale back with alpha: alpha 2^(-e_i) per row, 2^(-f_j) per column (crt.hpp).
        constexpr bool kRounded = std::is_same_v<T, double>;
        constexpr bool kNativeFirst = R == 2;
        uint32_t native_mask = 0;
        if (kNativeFirst && promise) {
            NativeRowTerms row_terms[2 * R];
            NativeColumnTerms col_terms[2];
#pragma unroll
            for (int h = 0; h < 2 * R; ++h) row_terms[h] = native_row_terms(rows[h], rule);
#pragma unroll
            for (int h = 0; h < 2; ++h) col_terms[h] = native_column_terms(cols[h], rule);
#pragma unroll
            for (int v = 0; v < 4 * R; ++v)
                if (needs_native(row_terms[v / 2], col_terms[v % 2], sums[v], rule))
                    native_mask |= 1u << v;
        }
        double row_alpha[2 * R], col_scale[2];
        if constexpr (!kRounded) {
#pragma unroll
            for (int h = 0; h < 2 * R; ++h) row_alpha[h] = float_row_alpha(double(alpha), rows[h].exponent);
#pragma unroll
            for (int h = 0; h < 2; ++h) col_scale[h] = float_column_scale(cols[h].exponent);
        }
        // One copy of the elements' loop for each of: every element in range or not, beta zero
        // or not. Tested per element, each was a branch and its reconvergence (ncu: about 17
        // control instructions per element). Per element: whether it goes native, else C' by
        // crt_fast_path (classify), then the store, with the integer CRT (crt_rounded_sized's on
        // the CPU) apart, only where the fast one could not answer. classify leaves its answers
        // in masks and `fast` rather than locals of the loop: so written, double's pass took
        // 208 us at 4096^3; the same steps inline took 239 (ptxas allocated them otherwise;
        // docs/ladder.md, "Rung 31").
        const auto residues_of = [&](int v, uint32_t (&q)[kMaxModuli]) {
#pragma unroll
            for (int l = 0; l < kMaxModuli; ++l) q[l] = (quad[v / 4][l] >> (8 * (v % 4))) & 0xFF;
        };
        const auto elements = [&](auto whole, auto beta_is_zero) {
            double fast[4 * R]; // C' where crt_fast_path answers
            uint32_t doubt_mask = 0;
            const auto classify = [&](int v) {
                if (!kNativeFirst && promise &&
                    needs_native(rows[v / 2], cols[v % 2], sums[v], rule))
                    native_mask |= 1u << v;
                if (native_mask >> v & 1u) return;
                uint32_t q[kMaxModuli];
                residues_of(v, q);
                if (!crt_fast_path<kRounded>(q, crt, kCrtFractions, &fast[v])) doubt_mask |= 1u << v;
            };
#pragma unroll
            for (int v = 0; v < 4 * R; ++v) { // block v / 4, byte v % 4: row r + 8 (v / 2)
                const int64_t i = r + 8 * (v / 2), j = c + v % 2;
                if (!whole && (i >= m || j >= n)) continue;
                classify(v);
                if (native_mask >> v & 1u) {
                    W[i + j * ld] = kNativeMark;
                    marked = true;
                    continue;
                }
                Scaled cv{fast[v], 0};
                if (doubt_mask >> v & 1u) {
                    uint32_t q[kMaxModuli];
                    residues_of(v, q);
                    cv = crt_value<crt_limbs(Count)>(q, crt);
                }
                constexpr bool kBetaIsZero = decltype(beta_is_zero)::value;
                T* out = C + i + j * ldc;
                if constexpr (kRounded) {
                    const RowScale row = rows[v / 2], col = cols[v % 2];
                    store_result<kBetaIsZero>(out, double(alpha), double(beta),
                                              unscale(cv, row.exponent, col.exponent));
                } else {
                    store_result<kBetaIsZero>(out, row_alpha[v / 2] * col_scale[v % 2],
                                              double(beta), float_c_prime(cv));
                }
            }
        };
        using Yes = std::true_type;
        using No = std::false_type;
        const bool whole = r + 8 * (2 * R - 1) < m && c + 1 < n;
        if (whole) beta == T(0) ? elements(Yes{}, Yes{}) : elements(Yes{}, No{});
        else beta == T(0) ? elements(No{}, Yes{}) : elements(No{}, No{});
    }
    if (__syncthreads_or(marked) && threadIdx.x == 0)
        native.tiles[atomicAdd(native.count, 1)] = int(blockIdx.x);
}

// ------------------------------------------------------------------ native

/// The listed tiles of C = alpha op(A) op(B) + beta C (the elements the emulation may not
/// promise), written only where W holds kNativeMark, in double on the FP64 tensor cores (DMMA,
/// as rung 15; float inputs widened to double, so their products are exact). Each 32-long k
/// tile is summed on its own and then added to the running sum with its rounding error carried
/// beside it (an error-free sum), so a term meets about 32 roundings whatever k, where a
/// chain's meet k; a float call's sums are far below float's rounding. These are the elements
/// the emulation would have got wrong, wide-range ones, where DGEMM's long chain sets the
/// largest errors. Blocks walk the list; with an empty list each exits at once.
///
/// Each of the 8 warps owns a 16 x 8 block of the 32 x 32 tile: one m16n8k8 DMMA per 8 of k.
/// The next k tile's loads are issued before this one's products (held in registers, stored
/// after the barrier), so that their latency passes under the products; two blocks share an
/// SM (three or four spilled at 80 or 64 registers).
template <class T>
__global__ void __launch_bounds__(kThreads, 2)
    native_kernel(GemmOperands<T> g, const int32_t* __restrict__ W, int64_t ld, NativeList native) {
    static_assert(kThreads == 256 && kTile == 32, "8 warps of 16 x 8 cover the 32 x 32 tile");
    __shared__ double a_tile[kTile][kTile + 1]; // (i, p)
    __shared__ double b_tile[kTile][kTile + 1]; // (p, j)
    const int64_t tiles_m = (g.m + kTile - 1) / kTile;
    const int listed = *native.count;
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    const int group = lane / 4, in_group = lane % 4; // the fragments' g and t (ptx.cuh)
    const int wm = 16 * (warp % 2), wn = 8 * (warp / 2);
    // Thread (lane, warp) stages A(i = lane, p = warp + 8 s) and B(p = lane, j = warp + 8 s)
    // of each 32 x 32 k tile, s < 4: lanes run along i (A) and p (B). Its element steps, so that
    // a k tile costs a pointer add, and only the last one of k checks it.
    const int64_t a_step_i = g.trans_a ? g.lda : 1, a_step_p = g.trans_a ? 1 : g.lda;
    const int64_t b_step_p = g.trans_b ? g.ldb : 1, b_step_j = g.trans_b ? 1 : g.ldb;
    for (int idx = blockIdx.x; idx < listed; idx += gridDim.x) {
        const int tile = native.tiles[idx];
        const int64_t ti = (tile % tiles_m) * kTile, tj = (tile / tiles_m) * kTile;
        const bool a_row = ti + lane < g.m;
        bool b_col[4];
#pragma unroll
        for (int s = 0; s < 4; ++s) b_col[s] = tj + warp + 8 * s < g.n;
        const T* a_at = g.A + (ti + lane) * a_step_i + warp * a_step_p;
        const T* b_at = g.B + lane * b_step_p + (tj + warp) * b_step_j;
        T a_next[4], b_next[4]; // the k tile at p0, loaded one tile ahead
        const auto load = [&](int64_t p0) {
            const bool whole_k = p0 + kTile <= g.k;
#pragma unroll
            for (int s = 0; s < 4; ++s) {
                const int y = warp + 8 * s;
                const bool a_in = a_row && (whole_k || p0 + y < g.k);
                const bool b_in = b_col[s] && (whole_k || p0 + lane < g.k);
                a_next[s] = a_in ? a_at[8 * s * a_step_p] : T(0);
                b_next[s] = b_in ? b_at[8 * s * b_step_j] : T(0);
            }
            a_at += kTile * a_step_p;
            b_at += kTile * b_step_p;
        };
        load(0);
        double acc[4] = {0, 0, 0, 0}, carried[4] = {0, 0, 0, 0}; // the sum and its lost bits
        for (int64_t p0 = 0; p0 < g.k; p0 += kTile) {
#pragma unroll
            for (int s = 0; s < 4; ++s) {
                a_tile[lane][warp + 8 * s] = double(a_next[s]);
                b_tile[lane][warp + 8 * s] = double(b_next[s]);
            }
            __syncthreads();
            if (p0 + kTile < g.k) load(p0 + kTile);
            double part[4] = {0, 0, 0, 0}; // this k tile's sums, added to acc once
#pragma unroll
            for (int q = 0; q < kTile; q += 8) {
                double a[4], b[2];
#pragma unroll
                for (int f = 0; f < 4; ++f)
                    a[f] = a_tile[wm + group + 8 * (f % 2)][q + in_group + 4 * (f / 2)];
#pragma unroll
                for (int f = 0; f < 2; ++f) b[f] = b_tile[q + in_group + 4 * f][wn + group];
                ptx::mma_m16n8k8_f64(part, a, b);
            }
#pragma unroll
            for (int v = 0; v < 4; ++v) { // acc + part = sum + lost exactly (Knuth's two-sum)
                const double sum = acc[v] + part[v], part_in_sum = sum - acc[v];
                carried[v] += (acc[v] - (sum - part_in_sum)) + (part[v] - part_in_sum);
                acc[v] = sum;
            }
            __syncthreads();
        }
#pragma unroll
        for (int v = 0; v < 4; ++v) { // element (group + 8 (v / 2), 2 in_group + v % 2)
            const int64_t i = ti + wm + group + 8 * (v / 2), j = tj + wn + 2 * in_group + v % 2;
            if (i >= g.m || j >= g.n || W[i + j * ld] != kNativeMark) continue;
            // An Inf in the sum makes its lost bits Inf - Inf = NaN: then the sum is the answer.
            const double sum = isfinite(acc[v]) ? acc[v] + carried[v] : acc[v];
            store_result(g.C + i + j * g.ldc, double(g.alpha), double(g.beta), sum);
        }
    }
}

} // namespace gemmlab::detail::ozaki
