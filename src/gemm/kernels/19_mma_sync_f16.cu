// Rung 19: BF16/FP16 tensor cores, mma.sync m16n8k16 fed by ldmatrix: the Ampere-style baseline.
//
// Idea: half-precision inputs, FP32 accumulation. One mma.sync m16n8k16 .bf16/.f16 (SASS:
// HMMA.16816.F32[.BF16]) does 2048 multiply-adds, twice rung 16's tf32 m16n8k8, from the same four
// A and two B registers, because a 32-bit register now holds two elements. Rungs 15-17 load their
// fragments one element per shared load; at two elements per register that would take twice the
// loads per MMA, and half-words at that. ldmatrix loads whole 8x8 matrices of 16-bit elements for
// the warp instead: one ldmatrix.x4 fills a warp's m16k16 A fragment, or the k16 B fragments of
// two n8 tiles, and its .trans form transposes in flight, so an operand stored mn-contiguous needs
// no transposing copy. Per k16 step a 64x32 warp tile issues 4 + 2 ldmatrix.x4 for 16 HMMAs.
// Because ldmatrix reads 16-byte rows, the shared tiles need no padding: an XOR swizzle of
// 16-byte chunks (below) makes both its reads and the cp.async writes bank-conflict free.
//
// Changed from rung 17's pipeline (mma_tile.cuh): the cp.async ring is the same schedule (Stages
// stages, one commit group per k tile, wait_group<Stages - 2>, one barrier per k tile, the next
// tile issued before the current one is multiplied). New: (1) operand tiles are unpadded and
// XOR-swizzled, kept in their global orientation for every op combination (k-contiguous: rows
// are m or n; mn-contiguous: rows are k); (2) fragments come from ldmatrix, .trans for the
// mn-contiguous operand; (3) the 16-byte copy is chosen per operand (pointer 16-byte aligned and
// ld % 8 == 0); the other operand's tile is filled by element loads and a 16-byte shared store
// in the same swizzled layout (correct, slower: its loads are not asynchronous); (4) the epilogue
// computes alpha * acc + beta * C in float and rounds once to the output type (RN).
//
// Tiles: 128x128x32 blocks of 8 warps with 64x32 warp tiles (4 x 4 m16n8 tiles, 64 FP32
// accumulators per lane), 4 stages. Per k16 step a warp issues 4 + 2 ldmatrix.x4 for 16 HMMAs.
// The default asks for 2 blocks per SM (__launch_bounds__: <= 128 registers, no spills), so that
// 16 warps hide each other's barrier and load waits; unconstrained it takes ~140 and one block.
// 128x256x32 with 64x64 warp tiles (8 ldmatrix.x4 per 32 HMMAs, ~220 registers, one block per SM,
// 3 stages) is instantiated beside it for comparison (tests/dev/test_mma_sync_f16_dev.cu times
// both against cuBLAS).
//
// Shared layout, per stage (BM = BN = 128, BK = 32, 2-byte elements), no padding:
//   op(A) k-contiguous (op T):  (BM, BK)  rows m, 4 chunks of 16 bytes along k   8 KB
//   op(A) mn-contiguous (op N): (BK, BM)  rows k, 16 chunks along m             8 KB
//   op(B) likewise with n; 4 stages = 64 KB.
// Swizzle: chunk c of row r is stored at chunk c ^ ((r / R) % X) of its row, where C = chunks per
// row, R = max(1, 8 / C) rows share one 128-byte line of the 32 banks, X = min(C, 8). Why:
// - ldmatrix: each 8x8 matrix is 8 consecutive rows r0 + u (r0 a multiple of 8) of one logical
//   chunk c, 16 bytes each; conflict-free iff the 8 land on the 8 different 16-byte bank groups
//   of a 128-byte line. Bank group of (r, c) = ((r % R) * C + stored chunk) % 8.
//   C >= 8 (rows k, 256 bytes): R = 1, group = (c ^ u) % 8 = (c % 8) ^ u: 8 distinct u, 8 groups.
//     Unswizzled every row starts at a multiple of 128 bytes: all 8 rows in one group, 8-way.
//   C = 4 (rows m/n, 64 bytes): R = 2, group = (u % 2) * 4 + (c ^ (u / 2)): u % 2 picks the
//     half, u / 2 in 0..3 the group inside it: 8 distinct. Unswizzled: 4-way.
//   (C = 2, BK = 16: R = 4, group = (u % 4) * 2 + (c ^ (u / 4)), again distinct.)
// - cp.async: thread i copies chunk i (+ Threads per pass) of the tile, row by row, so the 8
//   threads of one 128-byte store phase write R whole rows (C < 8) or 8 aligned chunks of one row
//   (C >= 8); the XOR with a value fixed per row permutes chunks inside the row: 8 distinct groups.
// - The swizzle repeats every 8 rows, so stepping 16 rows (the next m16 tile) or 16 k (the next
//   k16 step of a rows-are-k tile) adds a constant; on a rows-are-m/n tile the next k16 step XORs
//   the chunk with 2 (the lane's own chunk is 0 or 1). Lane addresses are computed once.
// The ncu counters that check this (l1tex shared bank conflicts) go in docs/ladder.md.
//
// Edges: tiles are zero-filled past m, n and k by the copy itself (cp.async src-size, or guarded
// element loads), so every ragged k, m, n is a full-tile MMA on zeros; the epilogue guards rows
// and columns. Offsets into A, B and C are 64-bit; the grid swaps axes past 65535 tiles.
// SASS (cuobjdump --dump-sass / --dump-resource-usage of this file's object): per k tile the
// bf16 NN mainloop is 4 LDGSTS.E.BYPASS.128, 12 LDSM.16.MT88.4 / LDSM.16.M88.4 and 32
// HMMA.16816.F32.BF16; the default configuration uses 122-128 registers, 128x256 210-222, and
// no local memory (0 spill bytes) in any of the 64 kernels.
// Measured: docs/ladder.md (half precision): mma.sync reaches only part of the tensor cores'
// bf16 rate on sm_90, which is the step rungs 20-24 take.
// Source (docs/sources.md): none (sm_80+ hardware); the multistage design of public Ampere GEMMs.

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail {
namespace f16 {

// ------------------------------------------------------------------------------ types

/// A float rounded once to the output type, to nearest even.
template <class TOut>
__device__ __forceinline__ TOut round_out(float x) {
    if constexpr (std::is_same_v<TOut, __nv_bfloat16>) return __float2bfloat16_rn(x);
    else if constexpr (std::is_same_v<TOut, __half>) return __float2half_rn(x);
    else return x;
}

/// An output element read back for beta * C (exact: every bf16 and f16 is a float).
__device__ __forceinline__ float widen(float x) { return x; }
__device__ __forceinline__ float widen(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ __forceinline__ float widen(__half x) { return __half2float(x); }

// ------------------------------------------------------------------- the swizzled tile

/// A (Rows, RowElems) tile of 16-bit elements in shared memory, unpadded, its 16-byte chunks
/// XOR-swizzled: chunk c of row r sits at chunk c ^ ((r / kRowsPerLine) % kXor) of row r, which
/// makes 8-row ldmatrix reads and row-ordered 16-byte writes conflict-free (file header).
template <int Rows, int RowElems>
struct SwizzledTile {
    static constexpr int kRows = Rows, kRowElems = RowElems;
    static constexpr int kRowBytes = RowElems * 2;
    static constexpr int kChunks = kRowBytes / 16;                     // 16-byte chunks per row
    static constexpr int kRowsPerLine = kChunks >= 8 ? 1 : 8 / kChunks; // rows per 128-byte line
    static constexpr int kXor = kChunks >= 8 ? 8 : kChunks;            // chunks the XOR permutes
    static constexpr int kPeriodRows = kRowsPerLine * kXor;            // the swizzle repeats (8)
    static constexpr int kBytes = Rows * kRowBytes;

    static_assert(RowElems % 16 == 0 && (kChunks & (kChunks - 1)) == 0,
                  "a row must be a power-of-two number (>= 2) of 16-byte chunks");
    static_assert(kPeriodRows == 8, "the swizzle must repeat every 8 rows (one ldmatrix matrix)");
    static_assert(Rows % 16 == 0, "ldmatrix.x4 reads rows in groups of 16");

    /// Byte offset of chunk `chunk` (elements 8 chunk .. 8 chunk + 7) of row `row`.
    __device__ __forceinline__ static uint32_t offset(int row, int chunk) {
        return uint32_t(row * kRowBytes + ((chunk ^ ((row / kRowsPerLine) % kXor)) * 16));
    }
};

/// One operand's shared tile, (BMN, BK) of op(A) or op(B)^T, in its global orientation: rows
/// are m (or n) with k along them when the operand is k-contiguous (A with op T, B with op N),
/// rows are k with m (or n) along them otherwise.
template <int BMN, int BK, bool KContig>
using OperandTile = SwizzledTile<KContig ? BMN : BK, KContig ? BK : BMN>;

// ---------------------------------------------------------------------- gmem -> smem

/// Copies one operand tile per k tile into its swizzled shared tile, elements outside the
/// matrix zero-filled. Thread `tid` takes chunks tid, tid + Threads, ... in row-major chunk
/// order (consecutive lanes read consecutive 16 bytes of a global row). The tile's element
/// (row, col) is X[col + row * ld] from the block's origin: (mn, k) for a k-contiguous operand,
/// (k, mn) otherwise.
/// Vec (base 16-byte aligned and ld % 8 == 0, so every chunk is): one 16-byte cp.async per
/// chunk, partial chunks at the edge by cp.async's src-size zero-fill. Otherwise each chunk is
/// 8 two-byte loads, packed, and one 16-byte shared store into the same layout.
template <class TIn, class Tile, int Threads, bool KContig, bool Vec>
struct SwizzledLoader {
    static constexpr int kChunks = Tile::kChunks;
    static constexpr int kBMN = KContig ? Tile::kRows : Tile::kRowElems;
    static constexpr int kBK = KContig ? Tile::kRowElems : Tile::kRows;
    static constexpr int kRowsPerPass = Threads / kChunks;
    static constexpr int kPasses = (Tile::kBytes / 16) / Threads;
    static constexpr uint32_t kPassBytes = uint32_t(kRowsPerPass * Tile::kRowBytes);

    static_assert(Threads % kChunks == 0, "the block must copy whole rows per pass");
    static_assert((Tile::kBytes / 16) % Threads == 0, "the tile's chunks must split evenly over the block");
    static_assert(kRowsPerPass % Tile::kPeriodRows == 0,
                  "a pass must step whole swizzle periods, so that every pass has the first one's swizzle");

    const TIn* ptr;   // this thread's first chunk in the next k tile to issue
    int64_t ld;       // leading dimension of the stored operand
    uint32_t dst_off; // swizzled byte offset of that chunk in the tile
    int row0, col0;   // its row, and its first element along the row
    int mn_rem;       // min(MN - block's mn origin, BMN)

    __device__ __forceinline__ SwizzledLoader(const TIn* X, int64_t ld_, int64_t MN, int64_t mn_origin,
                                              int tid)
        : ld(ld_) {
        const int64_t rem = MN - mn_origin;
        mn_rem = rem < kBMN ? int(rem) : kBMN;
        row0 = tid / kChunks;
        const int chunk = tid % kChunks;
        col0 = chunk * 8;
        ptr = X + (KContig ? mn_origin * ld : mn_origin) + col0 + int64_t(row0) * ld;
        dst_off = Tile::offset(row0, chunk);
    }

    /// Issues the copies of the current k tile (depth k_rem = min(K - origin, BK) >= 1) into the
    /// tile at shared address `tile`. `X`, the operand's base pointer, is the source address of
    /// copies that read nothing.
    __device__ __forceinline__ void issue(uint32_t tile, int k_rem, const TIn* X) const {
        const int rows_rem = KContig ? mn_rem : k_rem;
        const int cols_rem = KContig ? k_rem : mn_rem;
        const int64_t pass_stride = int64_t(kRowsPerPass) * ld;
        // One branch for the whole tile, uniform across the block (as AsyncTileLoader).
        if (rows_rem == Tile::kRows && cols_rem == Tile::kRowElems) [[likely]] {
            if constexpr (Vec) {
#pragma unroll
                for (int p = 0; p < kPasses; ++p)
                    ptx::cp_async<16>(tile + dst_off + p * kPassBytes, ptr + p * pass_stride);
            } else {
                uint32_t v[kPasses][4];
#pragma unroll
                for (int p = 0; p < kPasses; ++p) load_chunk(v[p], ptr + p * pass_stride, 8);
#pragma unroll
                for (int p = 0; p < kPasses; ++p)
                    ptx::st_shared_v4(tile + dst_off + p * kPassBytes, v[p][0], v[p][1], v[p][2], v[p][3]);
            }
            return;
        }
        // Edge tile: n = elements of the chunk inside the matrix (0..8), the rest zero.
        const int left = cols_rem - col0; // elements of the row from the chunk's first one
        const int n_in_row = left < 0 ? 0 : left > 8 ? 8 : left;
        if constexpr (Vec) {
#pragma unroll
            for (int p = 0; p < kPasses; ++p) {
                const int n = row0 + p * kRowsPerPass < rows_rem ? n_in_row : 0;
                const TIn* src = ptr + p * pass_stride;
                ptx::cp_async_zfill<16>(tile + dst_off + p * kPassBytes, n > 0 ? src : X, 2 * n);
            }
        } else {
            uint32_t v[kPasses][4];
#pragma unroll
            for (int p = 0; p < kPasses; ++p)
                load_chunk(v[p], ptr + p * pass_stride, row0 + p * kRowsPerPass < rows_rem ? n_in_row : 0);
#pragma unroll
            for (int p = 0; p < kPasses; ++p)
                ptx::st_shared_v4(tile + dst_off + p * kPassBytes, v[p][0], v[p][1], v[p][2], v[p][3]);
        }
    }

    /// Steps to the next k tile.
    __device__ __forceinline__ void advance() { ptr += KContig ? int64_t(kBK) : int64_t(kBK) * ld; }

private:
    /// The first n (0..8) elements at src, zeros after them, packed two per word (lower first).
    __device__ __forceinline__ static void load_chunk(uint32_t (&v)[4], const TIn* src, int n) {
        const uint16_t* s = reinterpret_cast<const uint16_t*>(src);
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            const uint32_t lo = 2 * w < n ? uint32_t(s[2 * w]) : 0u;
            const uint32_t hi = 2 * w + 1 < n ? uint32_t(s[2 * w + 1]) : 0u;
            v[w] = lo | (hi << 16);
        }
    }
};

// ---------------------------------------------------------------------- smem -> regs

/// One warp's ldmatrix.x4 addresses into an operand tile. Load f covers mn rows
/// mn0 + 16 f .. + 15 of the warp tile and k step s the k range 16 s .. 16 s + 15; lane
/// L = 8 q + r addresses row r of matrix q, which sits at mn offset 8 * (MnHigh ? q / 2 : q % 2)
/// and k offset 8 * (MnHigh ? q % 2 : q / 2). A uses MnHigh = false (matrices in the order of
/// the A fragment a0..a3: (m, k) = (0, 0), (8, 0), (0, 8), (8, 8)); B uses MnHigh = true
/// (b0, b1 of n8 tile 2 f, then of tile 2 f + 1). On a k-contiguous tile (rows mn) ldmatrix
/// reads the fragment as stored; on an mn-contiguous one (rows k) .trans turns the stored (k, mn)
/// matrix into the fragment's (mn, k) layout.
template <class Tile, bool KContig, int Loads, bool MnHigh>
struct FragmentAddress {
    // Rows-are-mn tile: one offset, steps add 16 rows (constant) and XOR the chunk with 2 s.
    // Rows-are-k tile: one offset per load (the chunk changes under the swizzle), steps add 16
    // rows (constant).
    static constexpr int kOffsets = KContig ? 1 : Loads;
    uint32_t off[kOffsets];

    __device__ __forceinline__ FragmentAddress(int mn0, int lane) {
        const int r = lane % 8, q = lane / 8;
        const int dmn = 8 * (MnHigh ? q / 2 : q % 2) + (KContig ? r : 0);
        const int dk = 8 * (MnHigh ? q % 2 : q / 2) + (KContig ? 0 : r);
#pragma unroll
        for (int f = 0; f < kOffsets; ++f) {
            const int mn = mn0 + 16 * f + dmn;
            off[f] = KContig ? Tile::offset(mn, dk / 8) : Tile::offset(dk, mn / 8);
        }
    }

    /// Byte offset in the tile of this lane's row for load f at k step s.
    __device__ __forceinline__ uint32_t at(int f, int s) const {
        if constexpr (KContig) return (off[0] ^ uint32_t(32 * s)) + uint32_t(16 * f * Tile::kRowBytes);
        else return off[f] + uint32_t(16 * s * Tile::kRowBytes);
    }

    /// ldmatrix.x4 of load f at k step s from the tile at shared address `tile`.
    __device__ __forceinline__ void load(uint32_t (&r)[4], uint32_t tile, int f, int s) const {
        if constexpr (KContig) ptx::ldmatrix_x4(r, tile + at(f, s));
        else ptx::ldmatrix_x4_trans(r, tile + at(f, s));
    }
};

// -------------------------------------------------------------------------- the kernel

/// The kernel's compile-time plan: tiles, loaders, fragment addressing, shared memory.
template <class TIn, class Cfg, bool TransA, bool TransB, bool VecA, bool VecB>
struct Plan {
    static constexpr bool kKContigA = TransA, kKContigB = !TransB;
    using TileA = OperandTile<Cfg::BM, Cfg::BK, kKContigA>;
    using TileB = OperandTile<Cfg::BN, Cfg::BK, kKContigB>;
    using LoaderA = SwizzledLoader<TIn, TileA, Cfg::kThreads, kKContigA, VecA>;
    using LoaderB = SwizzledLoader<TIn, TileB, Cfg::kThreads, kKContigB, VecB>;
    static constexpr int MT = Cfg::kTilesM, NT = Cfg::kTilesN; // m16 and n8 MMA tiles per warp
    using FragA = FragmentAddress<TileA, kKContigA, MT, /*MnHigh=*/false>;
    using FragB = FragmentAddress<TileB, kKContigB, NT / 2, /*MnHigh=*/true>;
    static constexpr int kSteps = Cfg::BK / 16; // k16 MMA steps per k tile
    static constexpr int kStageBytes = TileA::kBytes + TileB::kBytes;
    static constexpr int kSmemBytes = Cfg::kStages * kStageBytes;

    static_assert(sizeof(TIn) == 2, "16-bit inputs");
    static_assert(Cfg::BK % 16 == 0, "the k tile must be whole k16 MMA steps");
    static_assert(NT % 2 == 0, "one ldmatrix.x4 loads the B fragments of two n8 tiles");
    static_assert(TileA::kBytes % 1024 == 0, "B tiles must keep the stage's alignment");
    static_assert(kSmemBytes <= 227 * 1024, "the pipeline must fit in 227 KB of shared memory");
    static_assert(kSmemBytes <= mma::kMmaSyncF16SmemBytes<Cfg>,
                  "the family's exported figure (what auto reads) must cover every variant");
};

template <class TIn, class TOut, class Cfg, bool TransA, bool TransB, bool VecA, bool VecB>
__global__ void __launch_bounds__(Cfg::kThreads, Cfg::kMinBlocks)
    mma_sync_f16_kernel(HalfOperands<TIn, TOut> g, bool swapped, BatchStrides batch) {
    using P = Plan<TIn, Cfg, TransA, TransB, VecA, VecB>;
    constexpr int BK = Cfg::BK, S = Cfg::kStages, MT = P::MT, NT = P::NT;
    // Stage s: the op(A) tile then the op(B) tile, swizzled (header). Tiles are whole KBs, so a
    // 128-byte aligned base puts every swizzle row group on one 128-byte line of banks.
    extern __shared__ __align__(128) unsigned char smem_raw[];
    const uint32_t smem = uint32_t(__cvta_generic_to_shared(smem_raw));

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const int warp_m = warp % Cfg::kWarpsM, warp_n = warp / Cfg::kWarpsM;
    const int m0 = warp_m * Cfg::WM, n0 = warp_n * Cfg::WN; // warp tile origin in the block tile
    int64_t row0, col0;
    tile::block_tile_origin(swapped, Cfg::BM, Cfg::BN, row0, col0);

    typename P::LoaderA load_a(batch_a(g, batch), g.lda, g.m, row0, tid); // this block's batch
    typename P::LoaderB load_b(batch_b(g, batch), g.ldb, g.n, col0, tid);
    const typename P::FragA frag_a(m0, lane);
    const typename P::FragB frag_b(n0, lane);
    float acc[MT][NT][4] = {}; // (MT, NT) m16n8 tiles of 4 FP32 accumulators each

    // gmem -> smem: one commit group per k tile, empty past the end, so that "group t is tile t".
    // g.A and g.B (batch 0 of the launch, memory the call reads) source the copies that read
    // nothing.
    const auto issue_next = [&](int stage, int64_t issue_left) {
        if (issue_left > 0) {
            const uint32_t base = smem + uint32_t(stage * P::kStageBytes);
            const int depth = tile::tile_depth<BK>(issue_left);
            load_a.issue(base, depth, g.A);
            load_b.issue(base + uint32_t(P::TileA::kBytes), depth, g.B);
            load_a.advance();
            load_b.advance();
        }
        ptx::cp_async_commit();
    };

#pragma unroll
    for (int s = 0; s < S - 1; ++s) issue_next(s, g.k - int64_t(s) * BK);

    int read_stage = 0, write_stage = S - 1;
#pragma unroll 1
    for (int64_t k_left = g.k; k_left > 0; k_left -= BK) {
        ptx::cp_async_wait<S - 2>(); // this thread's copies of the current tile have landed
        __syncthreads();             // everyone's have, and the stage to refill is retired
        issue_next(write_stage, k_left - int64_t(S - 1) * BK);

        const uint32_t tile_a = smem + uint32_t(read_stage * P::kStageBytes);
        const uint32_t tile_b = tile_a + uint32_t(P::TileA::kBytes);
#pragma unroll
        for (int s = 0; s < P::kSteps; ++s) {
            // smem -> regs: the warp's MT A fragments and NT B fragments of this k16 step.
            uint32_t a[MT][4], b[NT][2];
#pragma unroll
            for (int i = 0; i < MT; ++i) frag_a.load(a[i], tile_a, i, s);
#pragma unroll
            for (int f = 0; f < NT / 2; ++f) {
                uint32_t r[4];
                frag_b.load(r, tile_b, f, s);
                b[2 * f][0] = r[0], b[2 * f][1] = r[1], b[2 * f + 1][0] = r[2], b[2 * f + 1][1] = r[3];
            }
            // mma: every A row tile against every B column tile.
#pragma unroll
            for (int i = 0; i < MT; ++i)
#pragma unroll
                for (int j = 0; j < NT; ++j) ptx::mma_m16n8k16_half<TIn>(acc[i][j], a[i], b[j]);
        }
        read_stage = read_stage == S - 1 ? 0 : read_stage + 1;
        write_stage = write_stage == S - 1 ? 0 : write_stage + 1;
    }
    ptx::cp_async_wait<0>(); // only empty groups can remain; leave none in flight

    // epilogue: acc[i][j][e] is C(m0 + 16 i + g + 8 (e / 2), n0 + 8 j + 2 t + e % 2); computed in
    // float, rounded once to TOut; C read only when beta != 0.
    const float alpha = g.alpha, beta = g.beta;
    TOut* const C = batch_c(g, batch);
    const int gq = lane / 4, tq = lane % 4;
#pragma unroll
    for (int i = 0; i < MT; ++i)
#pragma unroll
        for (int e2 = 0; e2 < 2; ++e2) {
            const int64_t r = row0 + m0 + 16 * i + gq + 8 * e2;
            if (r >= g.m) continue;
#pragma unroll
            for (int j = 0; j < NT; ++j)
#pragma unroll
                for (int e1 = 0; e1 < 2; ++e1) {
                    const int64_t c = col0 + n0 + 8 * j + 2 * tq + e1;
                    if (c >= g.n) continue;
                    TOut* out = C + r + c * g.ldc;
                    const float v = alpha * acc[i][j][2 * e2 + e1];
                    *out = round_out<TOut>(beta == 0.f ? v : v + beta * widen(*out));
                }
        }
}

} // namespace f16

namespace mma {

/// Launches rung 19 with configuration Cfg; the 16-byte copy path is chosen per operand.
template <class Cfg, class TIn, class TOut>
void launch_mma_sync_f16_cfg(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    if (g.m <= 0 || g.n <= 0) return;
    // 16-byte cp.async needs every chunk start 16-byte aligned: the base pointer, ld * 2 bytes
    // and, for a batch, stride * 2 bytes.
    const Batch& b = g.batch;
    const bool vec_a = is_aligned(g.A, 16) && g.lda % 8 == 0 && stride_keeps_alignment(b, b.strides.a, 8);
    const bool vec_b = is_aligned(g.B, 16) && g.ldb % 8 == 0 && stride_keeps_alignment(b, b.strides.b, 8);
    for_each_batch_chunk(g, [&](const HalfArgs<TIn, TOut>& chunk) { // batches on gridDim.z
        const LaunchGrid tg = tile::make_tile_grid(chunk.m, chunk.n, Cfg::BM, Cfg::BN, chunk.batch.count);
        const auto launch = [&]<bool TA, bool TB, bool VA, bool VB>() {
            constexpr auto kKernel = &f16::mma_sync_f16_kernel<TIn, TOut, Cfg, TA, TB, VA, VB>;
            constexpr int kSmem = f16::Plan<TIn, Cfg, TA, TB, VA, VB>::kSmemBytes;
            tile::set_max_dynamic_smem<kKernel>(kSmem);
            kKernel<<<tg.dims, Cfg::kThreads, kSmem, stream>>>(chunk, tg.swapped, chunk.batch.strides);
            GEMMLAB_CHECK_LAUNCH();
        };
        const auto with_ops = [&]<bool TA, bool TB>() {
            if (vec_a && vec_b) launch.template operator()<TA, TB, true, true>();
            else if (vec_a) launch.template operator()<TA, TB, true, false>();
            else if (vec_b) launch.template operator()<TA, TB, false, true>();
            else launch.template operator()<TA, TB, false, false>();
        };
        if (!g.trans_a && !g.trans_b) with_ops.template operator()<false, false>();
        else if (!g.trans_a) with_ops.template operator()<false, true>();
        else if (!g.trans_b) with_ops.template operator()<true, false>();
        else with_ops.template operator()<true, true>();
    });
}

// The configurations that exist (mma_configs.hpp names them): the default, 128x128 with two
// blocks per SM (<= 128 registers), 128x256 with one (twice the MMAs per ldmatrix of B), and
// 64x64 with four warps, for batches of small products (a 64 x 64 C is one tile, not a quarter
// of one).
#define GEMMLAB_F16_CFG(Cfg)                                                                        \
    template void launch_mma_sync_f16_cfg<Cfg>(const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t); \
    template void launch_mma_sync_f16_cfg<Cfg>(const HalfArgs<__nv_bfloat16, float>&, cudaStream_t);         \
    template void launch_mma_sync_f16_cfg<Cfg>(const HalfArgs<__half, __half>&, cudaStream_t);               \
    template void launch_mma_sync_f16_cfg<Cfg>(const HalfArgs<__half, float>&, cudaStream_t);
GEMMLAB_F16_CFG(Cfg128x128w64x32s4b2<32>)
GEMMLAB_F16_CFG(Cfg128x256w64x64s3<32>)
GEMMLAB_F16_CFG(Cfg64x64w32x32s4<32>)
#undef GEMMLAB_F16_CFG

} // namespace mma

// The rung's launcher runs the default configuration.
template <class TIn, class TOut>
void launch_mma_sync_f16(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    mma::launch_mma_sync_f16_cfg<mma::Cfg128x128w64x32s4b2<32>>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_mma_sync_f16)

} // namespace gemmlab::detail
