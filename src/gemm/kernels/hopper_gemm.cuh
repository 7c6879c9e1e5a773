#pragma once
// The warpgroup-MMA GEMM of rungs 20-24 (BF16/FP16 inputs, FP32 accumulation) and 25-26 (TF32 and
// 3xTF32 on float inputs). The rungs are one kernel with the Hopper features switched on one at a
// time (a Plan per rung):
//
//   20 wgmma             wgmma m64nNk16 from 128-byte-swizzled shared tiles; all threads copy
//                        the tiles with cp.async (the swizzle computed per 16-byte chunk).
//   21 tma               the tiles arrive by TMA (one thread issues a box per panel, the copy
//                        engine swizzles), completion counted on mbarriers: no thread spends
//                        instructions or registers on the copies.
//   22 warp_specialized  a producer warpgroup only issues TMA (registers given back with
//                        setmaxnreg), two consumer warpgroups only issue wgmma (more registers),
//                        128x256 block tiles; full/empty barriers decouple the two.
//   23 cluster_multicast two blocks of a cluster side by side along n share the A tile: each
//                        loads half and multicasts it to both, halving A's L2 traffic.
//   24 persistent        one block per SM loops over the tiles in a grouped order; the
//                        producer already loads the next tile while the consumers store this
//                        one.
//   25-26 (float)        rung 24's plan on TF32 operands, rounded by TMA as they land or by a
//                        pack step that also lays them out K-major (tf32_wgmma.cuh). TF32 reads
//                        an MN-major A from shared memory into registers (wgmma's register-A
//                        form: the shared forms take TF32 K-major only); 3xTF32 loads a big and
//                        a small part of each operand per stage and issues three wgmma per k
//                        step.
//
// Shared tiles (BK = 128 bytes: 64 16-bit or 32 TF32 elements, kTileK). An operand whose k index is contiguous in memory
// (K-major: A with op T, B with op N) is one panel of R rows (R = BM or BN) of 128 bytes, row =
// the m or n index. An operand contiguous along m or n (MN-major) is R / 64 panels of 64 rows
// (row = k) of 128 bytes (64 consecutive m or n). Either way the 16-byte chunk c of row r sits
// at chunk c ^ (r % 8) of its row: the 128-byte swizzle that TMA writes (SWIZZLE_128B) and
// wgmma reads, so that the eight rows of an 8x8 core matrix fall in eight different bank
// groups. Every panel starts on a 1024-byte boundary (the swizzle pattern repeats every 8 rows).
//
// wgmma reads a 64-row slice (A) or the whole tile (B) through a descriptor: K-major, the next
// 8 rows are 1024 bytes on (SBO) and a k step of 16 advances 32 bytes inside the swizzled row;
// MN-major, the next 8 k rows are 1024 bytes on (SBO), the next 64 m/n a panel on (LBO), and a
// k step of 16 is 16 rows (2048 bytes).
//
// Edges: TMA zero-fills rows and columns outside the matrices (the cp.async path zero-fills by
// hand), so partial tiles in m, n and k add zeros; the epilogue stores only inside m x n.

#include <cstdint>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/hopper_ptx.cuh"
#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/split_k.cuh"
#include "gemm/kernels/tile_common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::hopper {

enum class Feed { CpAsync, Tma };

/// TF32 operands of the float rungs 25 (Tf32) and 26 (Tf32x3: a big and a small part per
/// operand): float storage, rounded to TF32 by TMA or by the pack step (tf32_wgmma.cuh). The
/// 16-bit input types are their own storage, one part.
struct Tf32 {};
struct Tf32x3 {};

template <class TIn>
struct Input {
    using Storage = TIn;
    static constexpr int kParts = 1;
    static constexpr bool kTf32 = false;
};
template <>
struct Input<Tf32> {
    using Storage = float;
    static constexpr int kParts = 1;
    static constexpr bool kTf32 = true;
};
template <>
struct Input<Tf32x3> {
    using Storage = float;
    static constexpr int kParts = 2;
    static constexpr bool kTf32 = true;
};

/// Elements of a k tile: 128 bytes of the input (64 16-bit values, 32 TF32 values).
template <class TIn>
inline constexpr int kTileK = 128 / int(sizeof(typename Input<TIn>::Storage));

/// One rung's choice of features. BM = 64 per consumer warpgroup; the k tile is kTileK.
template <int BM_, int BN_, int Stages_, Feed Feed_, bool Specialized_, int Cluster_,
          bool Persistent_>
struct Plan {
    static constexpr int BM = BM_, BN = BN_, kStages = Stages_;
    static constexpr Feed kFeed = Feed_;
    static constexpr bool kSpecialized = Specialized_;
    static constexpr int kCluster = Cluster_; // blocks along n sharing A
    static constexpr bool kPersistent = Persistent_;
    static constexpr int kConsumers = BM / 64; // warpgroups issuing wgmma
    static constexpr int kThreads = 128 * (kConsumers + (kSpecialized ? 1 : 0));
    static constexpr int kGroupM = 8; // tile rows per raster group (L2 reuse of B)
    /// The persistent plan stores 16-bit C through shared memory by TMA (one 16 KB buffer per
    /// consumer warpgroup: 64 rows x 128 columns, half of its slice at a time).
    static constexpr bool kStoreTma = kPersistent;
    static constexpr int kStoreCols = 128;
    static constexpr int kStoreBytes = kStoreTma ? kConsumers * 64 * kStoreCols * 2 : 0;

    static_assert(BM == 64 || BM == 128, "one or two consumer warpgroups of m64");
    static_assert(BN == 128 || BN == 256, "wgmma n128 or n256");
    static_assert(kFeed == Feed::Tma || (!kSpecialized && kCluster == 1 && !kPersistent),
                  "producer specialization, clusters and persistence build on TMA");
    static_assert(kCluster == 1 || kCluster == 2, "clusters of 1 or 2 blocks");
};

/// Geometry of one operand's shared tile of R (m or n) x 128 bytes of k; RowElems elements fill
/// a 128-byte row (64 16-bit values, 32 TF32), so an MN-major panel is RowElems m or n wide and
/// RowElems k rows deep.
template <int R, bool KMajor, int RowElems = 64>
struct TileShape {
    static constexpr int kBytes = R * 128;
    static constexpr int kPanels = KMajor ? 1 : R / RowElems;
    static constexpr int kPanelRows = KMajor ? R : RowElems;
    static constexpr int kPanelBytes = kPanelRows * 128;
    static constexpr int kChunks = kBytes / 16; // 16-byte chunks
    static_assert(kPanelBytes % 1024 == 0, "panels keep the 1024-byte swizzle alignment");
};

/// The problem as the kernel sees it (column-major, as detail::HalfArgs).
template <class TIn, class TOut>
struct Params {
    using Storage = typename Input<TIn>::Storage;
    int64_t m, n, k;
    float alpha, beta;
    const Storage* A;
    int64_t lda;
    const Storage* B;
    int64_t ldb;
    TOut* C;
    int64_t ldc;
    int tiles_m, tiles_n;    // tiles_n rounded up to the cluster size
    uint32_t mn_lbo, mn_sbo; // MN-major descriptor strides (bytes)
    bool tma_store;          // C through shared memory by TMA (plans with kStoreTma)
    // Packed TF32 operands (rungs 25-26): the small parts are rows a_small_row.. of A's map
    // and b_small_row.. of B's (after the big parts).
    int a_small_row, b_small_row;
    // 3xTF32's range guard: one flag per 64 rows of op(A) / columns of op(B) that hold an input
    // the split cannot carry (tf32_wgmma.cuh); tiles meeting one are recomputed with FP32 FMAs
    // from the caller's operands.
    const uint32_t* unsafe_a;
    const uint32_t* unsafe_b;
    const float* orig_a;
    int64_t orig_lda;
    bool orig_trans_a;
    const float* orig_b;
    int64_t orig_ldb;
    bool orig_trans_b;
    // Split-K: the k tiles are cut into k_splits slices of k_tiles_per_split; work unit u is
    // tile u % tiles of slice u / tiles, and writes its FP32 partial tile to
    // partial + slice * m * n (column-major, ld = m) for sum_slices_kernel (split_k.cuh) to add.
    int k_splits;
    int k_tiles_per_split;
    float* partial;
};

/// Tile index -> (tile row, tile column): groups of kGroupM tile rows, m fastest inside a
/// group, so blocks running together share B columns and a compact set of A rows; blocks of
/// one cluster take neighbouring columns of the same row.
template <class P>
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int cl = t % P::kCluster;
    const int q = t / P::kCluster;
    const int super_n = tiles_n / P::kCluster;
    const int per_group = P::kGroupM * super_n;
    const int group = q / per_group;
    const int first_m = group * P::kGroupM;
    const int rows = min(P::kGroupM, tiles_m - first_m);
    const int in_group = q - group * per_group;
    tm = first_m + in_group % rows;
    tn = (in_group / rows) * P::kCluster + cl;
}

/// The shared-memory plan: Stages x (A tile per part, B tile per part), then the C buffers and
/// the barriers.
template <class P, class TIn, bool TransA, bool TransB>
struct Smem {
    using ShapeA = TileShape<P::BM, /*KMajor=*/TransA, kTileK<TIn>>;
    using ShapeB = TileShape<P::BN, /*KMajor=*/!TransB, kTileK<TIn>>;
    static constexpr int kParts = Input<TIn>::kParts;
    static constexpr int kStageBytes = kParts * (ShapeA::kBytes + ShapeB::kBytes);
    static constexpr int kStoreOffset = P::kStages * kStageBytes; // 1024-aligned
    static constexpr int kBarrierOffset = kStoreOffset + P::kStoreBytes;
    static constexpr int kBytes = kBarrierOffset + 2 * P::kStages * 8 + 1024; // +1024: alignment
    static_assert(kBytes <= 227 * 1024, "the pipeline must fit in 227 KB of shared memory");
};

#ifdef GEMMLAB_SM90A

/// cp.async feed: the whole block copies one operand tile, chunk by chunk, into the swizzled
/// layout, zero-filling outside the matrix. (inner, outer) are the operand's contiguous and
/// strided extents; inner0/outer0 the tile's origin in them (the MN origin for MN-major
/// panels, k for K-major rows).
template <class TIn, class Shape, bool KMajor, int Threads>
__device__ __forceinline__ void copy_tile_cp_async(uint32_t dst, const TIn* X, int64_t ld,
                                                   int64_t inner, int64_t outer, int64_t mn0,
                                                   int64_t k0) {
    for (int chunk = threadIdx.x; chunk < Shape::kChunks; chunk += Threads) {
        const int panel = chunk / (Shape::kPanelRows * 8);
        const int row = (chunk / 8) % Shape::kPanelRows;
        const int c = chunk % 8;
        const int64_t in = KMajor ? k0 + 8 * c : mn0 + 64 * panel + 8 * c;
        const int64_t out = KMajor ? mn0 + row : k0 + row;
        const int64_t left = (out < outer && in < inner) ? inner - in : 0;
        const int bytes = int(left < 8 ? left : 8) * 2;
        const TIn* src = bytes > 0 ? X + in + out * ld : X;
        const uint32_t at = dst + panel * Shape::kPanelBytes + row * 128 + ((c ^ (row % 8)) * 16);
        ptx::cp_async_zfill<16>(at, src, bytes);
    }
}

/// The 64 x 16 (A) or 16 x N (B) operand of one wgmma: the slice starting at m/n `mn0`
/// (a multiple of 64) and k step `ks` (0..3) of the tile at `tile`.
template <bool KMajor>
__device__ __forceinline__ uint64_t operand_descriptor(uint32_t tile, int mn0, int ks,
                                                       int panel_bytes, uint32_t mn_lbo,
                                                       uint32_t mn_sbo) {
    if constexpr (KMajor) return sw128_descriptor(tile + mn0 * 128 + ks * 32, 16, 1024);
    else return sw128_descriptor(tile + (mn0 / 64) * panel_bytes + ks * 2048, mn_lbo, mn_sbo);
}

/// TF32 with an MN-major A (kRegisterA): warpgroup wg's A fragment of k step ks (0..3) from the
/// stage's A tile at `tile` (panels of 32 m x 32 k rows, 128-byte swizzled, already rounded to
/// TF32 by TMA) in wgmma's m64nNk8 register layout: rows g and g + 8 of the warp's 16, k t and
/// t + 4 (g = lane / 4, t = lane % 4). Element (m, k) of a panel is float m % 4 of chunk
/// (m / 4) ^ (k % 8) of row k.
__device__ __forceinline__ void load_a_fragments_mn_major(uint32_t (&frag)[4], uint32_t tile,
                                                          int wg, int ks) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int g = lane / 4, t = lane % 4;
    const int m = 64 * wg + 16 * warp + g; // rows m and m + 8 share a panel
    const uint32_t panel = tile + (m / 32) * (32 * 128);
    const int c = (m % 32) / 4, e = m % 4;
#pragma unroll
    for (int h = 0; h < 2; ++h) { // k = 8 ks + t + 4 h, so k % 8 = t + 4 h
        const int k = 8 * ks + t + 4 * h, sw = t + 4 * h;
        const uint32_t row = panel + k * 128 + e * 4;
        frag[2 * h + 0] = ld_shared_b32(row + ((c ^ sw) * 16));
        frag[2 * h + 1] = ld_shared_b32(row + (((c + 2) ^ sw) * 16));
    }
}

/// Rounds one FP32 result to the output type (round to nearest even).
template <class TOut>
__device__ __forceinline__ TOut to_out(float v) {
    if constexpr (std::is_same_v<TOut, float>) return v;
    else if constexpr (std::is_same_v<TOut, __nv_bfloat16>) return __float2bfloat16_rn(v);
    else return __float2half_rn(v);
}

/// C = alpha * acc + beta * C for consumer warpgroup `wg`'s 64 x BN slice of tile (m0, n0) of
/// an m x n column-major C (a split-K partial: alpha 1, beta 0, C the slice's FP32 buffer).
/// Register i of a thread is row r0 + 8 ((i / 2) % 2), column c0 + 8 (i / 4) + i % 2 (see
/// wgmma in hopper_ptx.cuh): per group of 8 columns the thread writes two rows of two
/// neighbouring columns, so two pointers one column apart serve all four. Whole tiles skip the
/// bounds checks; beta == 0 never reads C.
template <class P, class TOut>
__device__ __forceinline__ void store_tile(const float (&acc)[P::BN / 2], int64_t m, int64_t n,
                                           TOut* C, int64_t ldc, float alpha, float beta,
                                           int64_t m0, int64_t n0, int wg) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
    const int64_t c0 = n0 + 2 * (lane % 4);
    const bool whole = m0 + P::BM <= m && n0 + P::BN <= n;
    const bool read_c = beta != 0.0f;
    TOut* col = C + r0 + c0 * ldc;
    const int64_t col_step = 8 * ldc;
#pragma unroll
    for (int j = 0; j < P::BN / 8; ++j, col += col_step) {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            const int i = 4 * j + e;
            const int dr = 8 * (e / 2), dc = e % 2;
            TOut* c = col + dr + dc * ldc;
            if (!whole && !(r0 + dr < m && c0 + 8 * j + dc < n)) continue;
            float v = alpha * acc[i];
            if (read_c) v += beta * float(*c);
            *c = to_out<TOut>(v);
        }
    }
}

/// C = alpha * acc (beta == 0, 16-bit C) through shared memory: the warpgroup transposes its
/// accumulators into a 64 x 128 buffer with stmatrix (.trans: each 16-byte row of the buffer is
/// 8 consecutive rows of one column of C, 128-byte swizzled so that the eight stores of a
/// matrix hit eight different bank groups), then one thread stores the buffer by TMA, which
/// clips at the matrix edges. The store runs on while the warpgroup starts the next tile; the
/// buffer is reused only after the store has read it (bulk_wait_read).
template <class P, class TIn, class TOut>
__device__ __forceinline__ void store_tile_tma(const Params<TIn, TOut>& p, const float (&acc)[P::BN / 2],
                                               const void* map_c, uint32_t buffers, int64_t m0,
                                               int64_t n0, int wg) {
    static_assert(sizeof(TOut) == 2, "the TMA store path is for 16-bit C");
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const bool leader = threadIdx.x % 128 == 0;
    const uint32_t buffer = buffers + wg * (64 * P::kStoreCols * 2);
    // This lane's stored row: matrix q = lane / 8 (q % 2: rows 0-7 or 8-15 of the warp's 16,
    // q / 2: first or second 8-column group of the pair), row r = lane % 8 (a column of C).
    const int q = lane / 8, r = lane % 8;
    const int mchunk = 2 * warp + q % 2; // which 8 of the warpgroup's 64 rows
    constexpr int kChunks = P::BN / P::kStoreCols;
#pragma unroll
    for (int chunk = 0; chunk < kChunks; ++chunk) {
        if (leader) bulk_wait_read<0>(); // the previous store has read the buffer
        named_barrier(1 + wg, 128);
#pragma unroll
        for (int jp = 0; jp < P::kStoreCols / 16; ++jp) { // pairs of 8-column groups
            const int j = chunk * (P::kStoreCols / 8) + 2 * jp; // first group of the pair
            uint32_t regs[4];
#pragma unroll
            for (int mq = 0; mq < 4; ++mq) {
                const int i = 4 * (j + mq / 2) + 2 * (mq % 2);
                const float lo = p.alpha * acc[i], hi = p.alpha * acc[i + 1];
                if constexpr (std::is_same_v<TOut, __nv_bfloat16>) {
                    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
                    regs[mq] = *reinterpret_cast<const uint32_t*>(&v);
                } else {
                    const __half2 v = __floats2half2_rn(lo, hi);
                    regs[mq] = *reinterpret_cast<const uint32_t*>(&v);
                }
            }
            const int col = 16 * jp + 8 * (q / 2) + r; // column inside the buffer
            stmatrix_x4_trans(buffer + col * 128 + ((mchunk ^ (col % 8)) * 16), regs[0], regs[1],
                              regs[2], regs[3]);
        }
        fence_proxy_async();
        named_barrier(1 + wg, 128);
        if (leader) {
            tma_store_2d(map_c, buffer, int(m0 + 64 * wg), int(n0 + chunk * P::kStoreCols));
            bulk_commit();
        }
    }
}

/// 3xTF32's range guard: true when tile (m0, n0) meets a 64-row group of op(A) or a 64-column
/// group of op(B) that the pack step flagged.
template <class P, class TIn, class TOut>
__device__ __forceinline__ bool tile_unsafe(const Params<TIn, TOut>& p, int64_t m0, int64_t n0) {
    bool unsafe = false;
#pragma unroll
    for (int i = 0; i < P::BM / 64; ++i)
        if (m0 + 64 * i < p.m) unsafe |= p.unsafe_a[m0 / 64 + i] != 0u;
#pragma unroll
    for (int j = 0; j < P::BN / 64; ++j)
        if (n0 + 64 * j < p.n) unsafe |= p.unsafe_b[n0 / 64 + j] != 0u;
    return unsafe;
}

/// The guard's way out: C = alpha * op(A) op(B) + beta * C for this thread's elements of the
/// tile (the accumulator positions of store_tile), each a dot product of FP32 FMAs over the
/// caller's operands, as the CUDA-core rungs compute it (IEEE Inf and NaN, no split). Slow,
/// and only taken by tiles whose inputs the split cannot carry. The loop over the elements is
/// kept rolled: this path must not cost the fast one code size (and, inlined, no call frame).
/// With split-K, the sum runs over the slice's k range and goes to its partial buffer raw.
template <class P, class TIn, class TOut>
__device__ __forceinline__ void store_tile_fma(const Params<TIn, TOut>& p, int64_t m0, int64_t n0,
                                               int wg, int64_t k_begin, int64_t k_end,
                                               float* partial) {
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
    const int64_t c0 = n0 + 2 * (lane % 4);
#pragma unroll 1
    for (int i = 0; i < P::BN / 2; ++i) {
        const int64_t row = r0 + 8 * ((i / 2) % 2), col = c0 + 8 * (i / 4) + i % 2;
        if (row >= p.m || col >= p.n) continue;
        float sum = 0.0f;
        for (int64_t kk = k_begin; kk < k_end; ++kk) {
            const float a = p.orig_trans_a ? p.orig_a[kk + row * p.orig_lda] : p.orig_a[row + kk * p.orig_lda];
            const float b = p.orig_trans_b ? p.orig_b[col + kk * p.orig_ldb] : p.orig_b[kk + col * p.orig_ldb];
            sum = fmaf(a, b, sum);
        }
        if (partial) {
            partial[row + col * p.m] = sum;
            continue;
        }
        TOut* c = p.C + row + col * p.ldc;
        float v = p.alpha * sum;
        if (p.beta != 0.0f) v += p.beta * float(*c);
        *c = to_out<TOut>(v);
    }
}

#endif // GEMMLAB_SM90A

/// The kernel. Template parameters fix the plan, the types and the op flags.
template <class P, class TIn, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(P::kThreads, 1)
    wgmma_gemm_kernel(const __grid_constant__ CUtensorMap map_a,
                      const __grid_constant__ CUtensorMap map_b,
                      const __grid_constant__ CUtensorMap map_c, const Params<TIn, TOut> p) {
#ifdef GEMMLAB_SM90A
    using S = Smem<P, TIn, TransA, TransB>;
    using ShapeA = typename S::ShapeA;
    using ShapeB = typename S::ShapeB;
    using Storage = typename Input<TIn>::Storage;
    constexpr bool kAK = TransA, kBK = !TransB; // K-major operands
    constexpr int kStages = P::kStages;
    constexpr int kTK = kTileK<TIn>;
    constexpr int kParts = S::kParts;
    constexpr bool kTf32 = Input<TIn>::kTf32;
    // TF32 wgmma reads shared operands K-major only; an MN-major A (one part) goes through
    // registers instead (kRegisterA).
    static_assert(!kTf32 || (kBK && (kAK || kParts == 1)),
                  "TF32: B K-major, A K-major or (TF32, one part) through registers");
    constexpr bool kRegisterA = kTf32 && !kAK;
    static_assert(!kTf32 || (P::kFeed == Feed::Tma && P::kCluster == 1),
                  "TF32 operands arrive by TMA into single blocks");

    extern __shared__ unsigned char smem_raw[];
    const uint32_t base = (smem_addr(smem_raw) + 1023) & ~1023u;
    // Stage s: A's parts (big, then small), then B's.
    const auto a_tile = [&](int s) { return base + s * S::kStageBytes; };
    const auto b_tile = [&](int s) { return base + s * S::kStageBytes + kParts * ShapeA::kBytes; };
    const uint32_t full = base + S::kBarrierOffset;      // full[s] at full + 8 s
    const uint32_t empty = full + 8 * kStages;            // empty[s] at empty + 8 s

    const int warpgroup = threadIdx.x / 128;
    // Consumers are warpgroups 0 .. kConsumers-1; the producer (if any) is the last one.
    const bool producer_wg = P::kSpecialized && warpgroup == P::kConsumers;
    const int k_tiles = int((p.k + kTK - 1) / kTK);
    const uint32_t rank = P::kCluster > 1 ? cluster_rank() : 0;
    // Arrivals that free a stage: lane 0 of every consumer warp of every block that writes it.
    constexpr int kEmptyArrivals = 4 * P::kConsumers * P::kCluster;
    constexpr uint32_t kStageTx = S::kStageBytes;

    if constexpr (P::kFeed == Feed::Tma) {
        if (threadIdx.x == 0) {
            tma_prefetch_map(&map_a);
            tma_prefetch_map(&map_b);
            for (int s = 0; s < kStages; ++s) {
                mbar_init(full + 8 * s, 1);
                mbar_init(empty + 8 * s, kEmptyArrivals);
            }
            fence_barrier_init();
        }
        if constexpr (P::kCluster > 1) cluster_sync();
        else __syncthreads();
    }

    const int num_tiles = p.tiles_m * p.tiles_n;
    const int num_units = num_tiles * p.k_splits; // (tile, k slice) pairs, slice-major
    const int first_unit = int(blockIdx.x);
    const int unit_step = P::kPersistent ? int(gridDim.x) : num_units; // one trip unless persistent
    // Unit u's tile and k tiles [kt0, kt1).
    const auto unit_work = [&](int u, int& tm, int& tn, int& kt0, int& kt1) {
        tile_coords<P>(u % num_tiles, p.tiles_m, p.tiles_n, tm, tn);
        kt0 = (u / num_tiles) * p.k_tiles_per_split;
        kt1 = min(k_tiles, kt0 + p.k_tiles_per_split);
    };

    // Loads tile (m0, n0)'s k tile kt into stage s (TMA; one thread).
    const auto issue_loads = [&](int s, int64_t m0, int64_t n0, int kt) {
        const int k0 = kt * kTK;
        mbar_arrive_expect_tx(full + 8 * s, kStageTx);
        if constexpr (kRegisterA) {
            for (int pa = 0; pa < ShapeA::kPanels; ++pa)
                tma_load_2d(a_tile(s) + pa * ShapeA::kPanelBytes, &map_a, full + 8 * s,
                            int(m0) + kTK * pa, k0);
            tma_load_2d(b_tile(s), &map_b, full + 8 * s, k0, int(n0));
            return;
        }
        if constexpr (kTf32) {
            for (int part = 0; part < kParts; ++part) {
                tma_load_2d(a_tile(s) + part * ShapeA::kBytes, &map_a, full + 8 * s, k0,
                            int(m0) + part * p.a_small_row);
                tma_load_2d(b_tile(s) + part * ShapeB::kBytes, &map_b, full + 8 * s, k0,
                            int(n0) + part * p.b_small_row);
            }
            return;
        }
        if constexpr (P::kCluster == 1) {
            for (int pa = 0; pa < ShapeA::kPanels; ++pa) {
                if constexpr (kAK) tma_load_2d(a_tile(s), &map_a, full + 8 * s, k0, int(m0));
                else tma_load_2d(a_tile(s) + pa * ShapeA::kPanelBytes, &map_a, full + 8 * s,
                                 int(m0) + 64 * pa, k0);
            }
        } else {
            // Each block of the pair loads half of A (rows or panels) into both blocks.
            constexpr uint16_t kBoth = 0x3;
            if constexpr (kAK) {
                const uint32_t half = rank * (P::BM / 2);
                tma_load_2d_multicast(a_tile(s) + half * 128, &map_a, full + 8 * s, k0,
                                      int(m0 + half), kBoth);
            } else {
                for (int pa = int(rank); pa < ShapeA::kPanels; pa += 2)
                    tma_load_2d_multicast(a_tile(s) + pa * ShapeA::kPanelBytes, &map_a,
                                          full + 8 * s, int(m0) + 64 * pa, k0, kBoth);
            }
        }
        for (int pb = 0; pb < ShapeB::kPanels; ++pb) {
            if constexpr (kBK) tma_load_2d(b_tile(s), &map_b, full + 8 * s, k0, int(n0));
            else tma_load_2d(b_tile(s) + pb * ShapeB::kPanelBytes, &map_b, full + 8 * s,
                             int(n0) + 64 * pb, k0);
        }
    };

    if (producer_wg) {
        setmaxnreg_dec<40>();
        if (threadIdx.x % 128 == 0) {
            int it = 0; // k tiles issued so far, across all of this block's tiles
            for (int u = first_unit; u < num_units; u += unit_step) {
                int tm, tn, kt0, kt1;
                unit_work(u, tm, tn, kt0, kt1);
                for (int kt = kt0; kt < kt1; ++kt, ++it) {
                    const int s = it % kStages;
                    if (it >= kStages) mbar_wait(empty + 8 * s, ((it / kStages) - 1) & 1);
                    issue_loads(s, int64_t(tm) * P::BM, int64_t(tn) * P::BN, kt);
                }
            }
        }
    } else {
        if constexpr (P::kSpecialized) setmaxnreg_inc<232>();
        const int wg = warpgroup;
        float acc[P::BN / 2] = {};
        // kRegisterA: two sets of A fragments, alternating by k step (one wgmma group each): a
        // set is reloaded only after the group that read it has completed.
        uint32_t a_frag[2][4];
        int it = 0; // k tiles consumed so far
        for (int u = first_unit; u < num_units; u += unit_step) {
            int tm, tn, kt0, kt1;
            unit_work(u, tm, tn, kt0, kt1);
            const int64_t m0 = int64_t(tm) * P::BM, n0 = int64_t(tn) * P::BN;

            if constexpr (P::kFeed == Feed::CpAsync) {
                // Prologue: stages 0 .. S-2 in flight.
                for (int s = 0; s < kStages - 1; ++s) {
                    if (kt0 + s < kt1) {
                        copy_tile_cp_async<Storage, ShapeA, kAK, P::kThreads>(
                            a_tile(s), p.A, p.lda, kAK ? p.k : p.m, kAK ? p.m : p.k, m0,
                            int64_t(kt0 + s) * kTK);
                        copy_tile_cp_async<Storage, ShapeB, kBK, P::kThreads>(
                            b_tile(s), p.B, p.ldb, kBK ? p.k : p.n, kBK ? p.n : p.k, n0,
                            int64_t(kt0 + s) * kTK);
                    }
                    ptx::cp_async_commit();
                }
            } else if constexpr (!P::kSpecialized) {
                if (threadIdx.x == 0)
                    for (int s = 0; s < kStages && kt0 + s < kt1; ++s) issue_loads(s, m0, n0, kt0 + s);
            }

            for (int kt = kt0; kt < kt1; ++kt, ++it) {
                const int s = it % kStages;
                if constexpr (P::kFeed == Feed::CpAsync) {
                    ptx::cp_async_wait<kStages - 2>();
                    fence_proxy_async();
                    __syncthreads(); // stage kt landed; every warpgroup is done with kt - 1
                    const int next = kt + kStages - 1;
                    if (next < kt1) {
                        const int ns = (next - kt0) % kStages;
                        copy_tile_cp_async<Storage, ShapeA, kAK, P::kThreads>(
                            a_tile(ns), p.A, p.lda, kAK ? p.k : p.m, kAK ? p.m : p.k, m0,
                            int64_t(next) * kTK);
                        copy_tile_cp_async<Storage, ShapeB, kBK, P::kThreads>(
                            b_tile(ns), p.B, p.ldb, kBK ? p.k : p.n, kBK ? p.n : p.k, n0,
                            int64_t(next) * kTK);
                    }
                    ptx::cp_async_commit();
                } else {
                    mbar_wait(full + 8 * s, (it / kStages) & 1);
                }

                if constexpr (kRegisterA) {
                    // One group per k step; the end of the previous k tile left only its last
                    // step's group (set 1) in flight, so set 0 is free at ks = 0.
#pragma unroll
                    for (int ks = 0; ks < 4; ++ks) {
                        if (ks > 0) wgmma_wait<1>(); // step ks - 2, the last reader of this set
                        load_a_fragments_mn_major(a_frag[ks % 2], a_tile(s), wg, ks);
                        wgmma_fence();
                        wgmma_tf32_register_a<P::BN>(
                            acc, a_frag[ks % 2],
                            operand_descriptor<true>(b_tile(s), 0, ks, 0, 0, 0),
                            (kt > kt0 || ks > 0) ? 1 : 0);
                        if (ks < 3) wgmma_commit();
                    }
                } else {
                    wgmma_fence();
#pragma unroll
                    for (int ks = 0; ks < 4; ++ks) { // 4 k steps of 32 bytes (k16, or k8 for TF32)
                        const uint64_t da = operand_descriptor<kAK>(
                            a_tile(s), 64 * wg, ks, ShapeA::kPanelBytes, p.mn_lbo, p.mn_sbo);
                        const uint64_t db = operand_descriptor<kBK>(
                            b_tile(s), 0, ks, ShapeB::kPanelBytes, p.mn_lbo, p.mn_sbo);
                        const int accumulate = (kt > kt0 || ks > 0) ? 1 : 0;
                        if constexpr (kParts == 2) {
                            // 3xTF32, the small products first (as rung 17): they add to a small
                            // partial sum before the big product joins it.
                            const uint64_t da_small = operand_descriptor<true>(
                                a_tile(s) + ShapeA::kBytes, 64 * wg, ks, 0, 0, 0);
                            const uint64_t db_small = operand_descriptor<true>(
                                b_tile(s) + ShapeB::kBytes, 0, ks, 0, 0, 0);
                            wgmma_tf32<P::BN>(acc, da_small, db, accumulate);
                            wgmma_tf32<P::BN>(acc, da, db_small, 1);
                            wgmma_tf32<P::BN>(acc, da, db, 1);
                        } else if constexpr (kTf32) {
                            wgmma_tf32<P::BN>(acc, da, db, accumulate);
                        } else {
                            wgmma<TIn, P::BN, kAK ? 0 : 1, kBK ? 0 : 1>(acc, da, db, accumulate);
                        }
                    }
                }
                wgmma_commit();

                if constexpr (P::kFeed == Feed::CpAsync) {
                    wgmma_wait<0>(); // the next iteration's copies overwrite stage kt - 1
                } else {
                    wgmma_wait<1>(); // stage it - 1 is no longer read: free it
                    if (kt > kt0) {
                        const int freed = (it - 1) % kStages;
                        if (threadIdx.x % 32 == 0) {
                            if constexpr (P::kCluster == 1) mbar_arrive(empty + 8 * freed);
                            else
                                for (uint32_t c = 0; c < P::kCluster; ++c)
                                    mbar_arrive_cluster(empty + 8 * freed, c);
                        }
                        if constexpr (!P::kSpecialized) {
                            // Thread 0 refills the freed stage with k tile kt - 1 + Stages.
                            const int next = kt - 1 + kStages;
                            if (threadIdx.x == 0 && next < kt1) {
                                mbar_wait(empty + 8 * freed, ((it - 1) / kStages) & 1);
                                issue_loads(freed, m0, n0, next);
                            }
                        }
                    }
                }
            }
            wgmma_wait<0>();
            pin_accumulators(acc);
            if constexpr (P::kFeed == Feed::Tma) {
                // The last stage is free too (the producer waits for it on the next tile).
                const int freed = (it - 1) % kStages;
                if (threadIdx.x % 32 == 0) {
                    if constexpr (P::kCluster == 1) mbar_arrive(empty + 8 * freed);
                    else
                        for (uint32_t c = 0; c < P::kCluster; ++c)
                            mbar_arrive_cluster(empty + 8 * freed, c);
                }
            }
            float* partial = p.k_splits > 1 ? p.partial + int64_t(u / num_tiles) * p.m * p.n : nullptr;
            if constexpr (kParts == 2) {
                if (tile_unsafe<P>(p, m0, n0)) {
                    store_tile_fma<P>(p, m0, n0, wg, int64_t(kt0) * kTK,
                                      min(p.k, int64_t(kt1) * kTK), partial);
                    continue;
                }
            }
            if (partial) {
                store_tile<P>(acc, p.m, p.n, partial, p.m, 1.0f, 0.0f, m0, n0, wg);
                continue;
            }
            if constexpr (P::kStoreTma && sizeof(TOut) == 2) {
                if (p.tma_store) {
                    store_tile_tma<P>(p, acc, &map_c, base + S::kStoreOffset, m0, n0, wg);
                    continue;
                }
            }
            store_tile<P>(acc, p.m, p.n, p.C, p.ldc, p.alpha, p.beta, m0, n0, wg);
        }
        if constexpr (P::kStoreTma && sizeof(TOut) == 2)
            if (threadIdx.x % 128 == 0) bulk_wait<0>(); // the last stores have read their buffer
    }
    // A block's shared memory must outlive its cluster partner's multicasts and arrivals.
    if constexpr (P::kCluster > 1) cluster_sync();
#endif
}

// ---------------------------------------------------------------------------------- host side

/// cuTensorMapEncodeTiled from the driver, found once through the runtime (no link-time
/// dependency on libcuda).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
EncodeTiled encode_tiled_entry();

/// A 2-D tensor map over a column-major operand: `inner` contiguous elements per column,
/// `outer` columns `ld` apart; boxes of 128 bytes x box_outer, 128-byte swizzle, zeros outside.
/// With to_tf32 (float only) TMA rounds each element to TF32 as it lands (data type TFLOAT32).
template <class T>
CUtensorMap make_operand_map(const T* X, int64_t inner, int64_t outer, int64_t ld, int box_outer,
                             bool to_tf32 = false) {
    CUtensorMap map;
    const cuuint64_t dims[2] = {cuuint64_t(inner), cuuint64_t(outer)};
    const cuuint64_t strides[1] = {cuuint64_t(ld) * sizeof(T)};
    const cuuint32_t box[2] = {cuuint32_t(128 / sizeof(T)), cuuint32_t(box_outer)};
    const cuuint32_t elem_strides[2] = {1, 1};
    const auto type = std::is_same_v<T, float>    ? (to_tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
                      : std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                                                  : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const CUresult r = encode_tiled_entry()(
        &map, type, 2, const_cast<T*>(X), dims, strides, box, elem_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw CudaFailure("cuTensorMapEncodeTiled rejected an operand map (error " +
                          std::to_string(int(r)) + ")");
    return map;
}

/// True when TMA / 16-byte cp.async can read the operand: 16-byte-aligned base and columns.
template <class TIn>
bool operand_feedable(const TIn* X, int64_t ld) {
    return tma_readable(X, ld, int64_t(sizeof(TIn)));
}

/// True when every Hopper rung can run this problem (the caller falls back otherwise).
template <class TIn, class TOut>
bool feedable(const HalfArgs<TIn, TOut>& g) {
    return operand_feedable(g.A, g.lda) && operand_feedable(g.B, g.ldb) && g.m < (int64_t(1) << 31) &&
           g.n < (int64_t(1) << 31) && g.k < (int64_t(1) << 31);
}

/// Default MN-major descriptor strides: LBO = the next 64 m/n (a panel), SBO = the next 8 k.
inline constexpr uint32_t kMnLbo = 64 * 128, kMnSbo = 1024;

/// The slices split-K really makes of k for plan P when asked for `splits` (fewer when k is
/// short: every slice gets at least kMinSplitK and whole k tiles, none is empty).
template <class P, class TIn>
int split_count(int64_t k, int splits, int& k_tiles_per_split) {
    const int64_t k_tiles = ceil_div(k, int64_t(kTileK<TIn>));
    const int64_t min_tiles = ceil_div(kMinSplitK, int64_t(kTileK<TIn>));
    int64_t per = ceil_div(k_tiles, int64_t(splits > 1 ? splits : 1));
    if (per < min_tiles) per = min_tiles;
    k_tiles_per_split = int(per);
    return int(ceil_div(k_tiles, per));
}

/// Launches plan P's kernel for op flags TA, TB on maps and parameters the caller prepared
/// (everything but the tile counts and the split, set here). splits > 1 (TMA plans): split-K,
/// the slices' FP32 partials in a workspace, then enqueue_sum_slices (split_k.cuh) adds them
/// and applies alpha and beta.
template <class P, class TIn, class TOut, bool TA, bool TB>
void launch_kernel(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_c,
                   Params<TIn, TOut> p, cudaStream_t stream, int splits = 1) {
    using S = Smem<P, TIn, TA, TB>;
    constexpr auto kernel = &wgmma_gemm_kernel<P, TIn, TOut, TA, TB>;
    p.tiles_m = int(ceil_div(p.m, P::BM));
    p.tiles_n = int(ceil_div(ceil_div(p.n, P::BN), P::kCluster) * P::kCluster);
    p.k_splits = split_count<P, TIn>(p.k, splits, p.k_tiles_per_split);
    // The partials: one m x n FP32 buffer per slice. Without workspace, no split.
    const size_t partial_bytes = size_t(p.k_splits) * size_t(p.m) * size_t(p.n) * sizeof(float);
    Workspace ws(p.k_splits > 1 ? partial_bytes : 0, stream);
    if (p.k_splits > 1 && !ws.data()) p.k_splits = split_count<P, TIn>(p.k, 1, p.k_tiles_per_split);
    p.partial = static_cast<float*>(ws.data());
    if (p.k_splits > 1) p.tma_store = false;
    const int64_t tiles = int64_t(p.tiles_m) * p.tiles_n * p.k_splits;
    tile::set_max_dynamic_smem<kernel>(S::kBytes);
    int grid = int(tiles);
    if constexpr (P::kPersistent) {
        const int sms = current_device_caps().sm_count; // cached per device
        grid = int(std::min<int64_t>(tiles, sms / P::kCluster * P::kCluster));
    }
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(grid));
    cfg.blockDim = dim3(P::kThreads);
    cfg.dynamicSmemBytes = S::kBytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = P::kCluster;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = P::kCluster > 1 ? 1 : 0;
    GEMMLAB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, kernel, map_a, map_b, map_c, p));
    if (p.k_splits > 1)
        enqueue_sum_slices<float, TOut, float>(p.partial, p.k_splits, p.m * p.n, p.m, p.m, p.n,
                                               p.alpha, p.beta, p.C, p.ldc,
                                               current_device_caps().sm_count, stream);
}

/// Launches plan P on the 16-bit problem (which must be feedable), k cut into `splits` slices
/// (split-K, TMA plans) when more than 1.
template <class P, class TIn, class TOut>
void launch_plan(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, uint32_t mn_lbo = kMnLbo,
                 uint32_t mn_sbo = kMnSbo, int splits = 1) {
    Params<TIn, TOut> p{};
    p.m = g.m, p.n = g.n, p.k = g.k, p.alpha = g.alpha, p.beta = g.beta;
    p.A = g.A, p.lda = g.lda, p.B = g.B, p.ldb = g.ldb, p.C = g.C, p.ldc = g.ldc;
    p.mn_lbo = mn_lbo, p.mn_sbo = mn_sbo;

    const auto go = [&]<bool TA, bool TB>() {
        CUtensorMap map_a{}, map_b{}, map_c{};
        if constexpr (P::kFeed == Feed::Tma) {
            // A K-major: (k, m) boxes of 64 x BM (or BM/2 per cluster block); MN-major (m, k)
            // boxes of 64 x 64. B likewise with n.
            map_a = TA ? make_operand_map(g.A, g.k, g.m, g.lda, P::BM / P::kCluster)
                       : make_operand_map(g.A, g.m, g.k, g.lda, 64);
            map_b = TB ? make_operand_map(g.B, g.n, g.k, g.ldb, 64)
                       : make_operand_map(g.B, g.k, g.n, g.ldb, P::BN);
        }
        if constexpr (P::kStoreTma && sizeof(TOut) == 2) {
            // m % 8: the store clips at the tensor's bounds only in 16-byte steps along the
            // contiguous dimension (measured on the H100, 2026-11-23: with m = 7 it wrote row 7,
            // outside C), so the last rows must end on a 16-byte boundary.
            p.tma_store = g.beta == 0.0f && operand_feedable(g.C, g.ldc) && g.m % 8 == 0;
            if (p.tma_store) map_c = make_operand_map(g.C, g.m, g.n, g.ldc, P::kStoreCols);
        }
        launch_kernel<P, TIn, TOut, TA, TB>(map_a, map_b, map_c, p, stream,
                                            P::kFeed == Feed::Tma ? splits : 1);
    };
    if (!g.trans_a && !g.trans_b) go.template operator()<false, false>();
    else if (!g.trans_a && g.trans_b) go.template operator()<false, true>();
    else if (g.trans_a && !g.trans_b) go.template operator()<true, false>();
    else go.template operator()<true, true>();
}

/// A rung's launcher: plan P where TMA and 16-byte copies can read both operands (16-byte-aligned
/// base and columns), k cut into `splits` slices; anything else takes rung 19's kernel, which
/// handles any alignment.
template <class P, class TIn, class TOut>
void launch_or_fallback(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits = 1) {
    if (feedable(g)) launch_plan<P>(g, stream, kMnLbo, kMnSbo, splits);
    else launch_mma_sync_f16(g, stream);
}

} // namespace gemmlab::detail::hopper
