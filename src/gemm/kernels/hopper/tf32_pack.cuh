#pragma once
// TF32 on warpgroup MMA for rungs 25 (wgmma_tf32) and 26 (wgmma_tf32x3): a pack step for the
// operands that need one, then the warp-specialized kernel (22_warp_specialized.cuh) with the
// rung's math policy.
//
// Why a pack step: wgmma reads TF32 operands from shared memory K-major only (the transposing
// forms exist for 16-bit types alone), and its inputs must already be TF32: fed raw floats, the
// tensor cores drop the low 13 mantissa bits (truncation, u = 2^-10; measured on the H100 for
// both wgmma forms) where TF32 mode promises round to nearest (u = 2^-11). Two ways round:
//  - TMA itself, for an operand with 16-byte-aligned base and rows: a tensor map of data type
//    TFLOAT32 rounds each float to nearest (ties to even, measured) as it lands in shared
//    memory, so TF32 (one part) loads such an operand from the caller's array at no cost. A
//    K-major one is read by wgmma from shared memory; an MN-major op(A) by the consumers into
//    registers, for wgmma's register-A form (25_wgmma_tf32.cu, MmaTf32). op(B) has no
//    register form, so an MN-major op(B) is packed, unless the kernel computes C^T =
//    op(B)^T op(A)^T instead, where op(B)^T takes the register path and only an MN-major op(A)
//    is packed: it does where that packs fewer rows (wgmma_tf32_plan in launchers.hpp), and
//    stores C transposed;
//  - the pack: an operand is read once, in any layout and alignment, rounded (cvt.rna: to
//    nearest, ties away from zero), and written K-major to a workspace (op(A) as m rows of k,
//    op(B) as n rows of k, rows 16-byte aligned for TMA); 3xTF32 always packs both and writes
//    the small part (tf32(x - big)) as rows m.. / n.. of the same array.
// Both are round to nearest, which is all the TF32 bound needs (docs/precision.md). The GEMM
// kernel then loads everything by TMA. A packed operand is written once and read by every tile
// of its row or column, so the pack costs (rows) k (4 + 4 parts) bytes of traffic against
// 2 m n k FLOPs (docs/ladder.md has what that costs).
//
// 3xTF32's range guard: while packing, each 64-row group of an operand records whether it holds
// a value the split cannot carry (mma_configs.hpp: kTf32x3SmallestBits, kTf32x3LargestBits);
// the kernel recomputes tiles that meet a flagged group with FP32 FMAs (26_wgmma_tf32x3.cu), so
// only such data pays, and the result keeps the FP32 bound.
//
// The workspace comes from the library's pool (workspace.hpp); when the pool cannot supply it,
// or a dimension passes TMA's 32-bit coordinates, the launcher returns false and the rung takes
// its mma.sync counterpart (16 or 17).

#include <cstdint>

#include "gemm/kernels/hopper/launch.cuh"
#include "gemm/kernels/hopper/params.hpp"
#include "gemm/kernels/mma_configs.hpp"
#include "gemm/kernels/ptx.cuh"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::hopper {

/// Rows of the pack kernel's tile (and of its k extent): 32 x 32 floats through shared memory.
inline constexpr int kPackTile = 32;

/// True when the 3xTF32 split does not carry x (see mma_configs.hpp).
__device__ __forceinline__ bool outside_split_range(float x) {
    const uint32_t bits = __float_as_uint(x) & 0x7FFFFFFFu;
    return (bits != 0u && bits < mma::kTf32x3SmallestBits) || bits >= mma::kTf32x3LargestBits;
}

/// Packs one operand as the GEMM reads it, `rows` (m for A, n for B) x k: element (r, kk) is
/// X[kk + r ld] when k is contiguous (k_major) and X[r + kk ld] otherwise. Writes
/// out[kk + r ldp] = tf32(x) and, with Parts == 2, out[kk + (rows + r) ldp] = tf32(x - big);
/// unsafe[r / 64] = 1 where a row holds a value outside the split's range (the array must be
/// zeroed before). Tiles of 32 x 32 go through shared memory so that reads and writes are both
/// coalesced whatever the layout; 256 threads, grid-stride over the tiles.
template <int Parts>
__global__ void __launch_bounds__(256)
    pack_tf32_kernel(const float* __restrict__ X, int64_t ld, bool k_major, int64_t rows,
                     int64_t k, float* __restrict__ out, int64_t ldp, uint32_t* __restrict__ unsafe) {
    __shared__ float tile[kPackTile][kPackTile + 1]; // (row, k), padded: conflict-free both ways
    const int tx = threadIdx.x % kPackTile, ty = threadIdx.x / kPackTile; // 32 x 8
    const int64_t tiles_k = ceil_div(k, int64_t(kPackTile));
    const int64_t tiles = tiles_k * ceil_div(rows, int64_t(kPackTile));
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int64_t r0 = (t / tiles_k) * kPackTile, k0 = (t % tiles_k) * kPackTile;
        __syncthreads(); // the previous tile's reads of `tile` are done
        for (int j = ty; j < kPackTile; j += 8) {
            // Lanes run along the contiguous dimension of X.
            const int64_t r = k_major ? r0 + j : r0 + tx, kk = k_major ? k0 + tx : k0 + j;
            const float v = (r < rows && kk < k) ? (k_major ? X[kk + r * ld] : X[r + kk * ld]) : 0.0f;
            if (k_major) tile[j][tx] = v;
            else tile[tx][j] = v;
        }
        __syncthreads();
        bool outside = false;
        for (int j = ty; j < kPackTile; j += 8) {
            const int64_t r = r0 + j, kk = k0 + tx;
            if (r >= rows || kk >= k) continue;
            const float x = tile[j][tx];
            const float big = __uint_as_float(ptx::cvt_rna_tf32(x));
            out[kk + r * ldp] = big;
            if constexpr (Parts == 2) {
                out[kk + (rows + r) * ldp] = __uint_as_float(ptx::cvt_rna_tf32(x - big));
                outside |= outside_split_range(x);
            }
        }
        if constexpr (Parts == 2)
            if (__syncthreads_or(outside) && threadIdx.x == 0) unsafe[r0 / 64] = 1u;
    }
}

/// Where the pack step puts things in the workspace.
struct PackLayout {
    int64_t ldp;                   // packed row length (k rounded up to 16 bytes)
    size_t a_offset, b_offset;     // bytes: packed op(A), packed op(B)
    size_t flags_a, flags_b;       // bytes: the guard's flags (3xTF32)
    size_t bytes;                  // total

    PackLayout(int64_t m, int64_t n, int64_t k, int parts) {
        const auto round256 = [](size_t x) { return (x + 255) / 256 * 256; };
        ldp = (k + 3) / 4 * 4;
        a_offset = 0;
        b_offset = round256(size_t(parts) * size_t(m) * size_t(ldp) * sizeof(float));
        flags_a = b_offset + round256(size_t(parts) * size_t(n) * size_t(ldp) * sizeof(float));
        flags_b = flags_a + round256(size_t(ceil_div(m, int64_t(64))) * sizeof(uint32_t));
        bytes = flags_b + round256(size_t(ceil_div(n, int64_t(64))) * sizeof(uint32_t));
    }
};

/// Enqueues the pack of one operand (see pack_tf32_kernel).
template <int Parts>
void pack_operand(const float* X, int64_t ld, bool k_major, int64_t rows, int64_t k, float* out,
                  int64_t ldp, uint32_t* unsafe, cudaStream_t stream) {
    const int64_t tiles = ceil_div(rows, int64_t(kPackTile)) * ceil_div(k, int64_t(kPackTile));
    // Enough blocks to fill every SM several times over; each loops over the rest.
    const int64_t cap = int64_t(current_device_caps().sm_count) * 16;
    const unsigned grid = unsigned(tiles < cap ? tiles : cap);
    pack_tf32_kernel<Parts><<<grid, 256, 0, stream>>>(X, ld, k_major, rows, k, out, ldp, unsafe);
    GEMMLAB_CHECK_LAUNCH();
}

/// launch_packed in one orientation: g as the kernel computes it (op(A) the first operand,
/// op(B) the second), packing what `pack_a` / `pack_b` say and reading an unpacked MN-major
/// op(A) through registers where `a_in_registers` (wgmma_tf32_plan's first_in_registers);
/// Rung's epilogue stores the result (transposed, for a swapped g).
template <class Rung, class Math>
bool launch_oriented(const GemmArgs<float>& g, bool pack_a, bool pack_b, bool a_in_registers,
                     cudaStream_t stream, int splits) {
    using Cfg = typename Rung::Config;
    constexpr int kParts = Math::kParts;
    // In TF32 (one part) an operand that is not packed is loaded from the caller's array and
    // rounded by TMA as it lands (see the top of this file).
    const bool direct_a = kParts == 1 && !pack_a;
    const bool direct_b = kParts == 1 && !pack_b;
    const PackLayout layout(direct_a ? 0 : g.m, direct_b ? 0 : g.n, g.k, kParts);
    Workspace ws(layout.bytes, stream); // nothing to pack: no workspace (bytes 0, data null)
    if (layout.bytes > 0 && !ws.data()) return false;
    auto* base = static_cast<unsigned char*>(ws.data());
    float* a_packed = reinterpret_cast<float*>(base + layout.a_offset);
    float* b_packed = reinterpret_cast<float*>(base + layout.b_offset);
    uint32_t* unsafe_a = reinterpret_cast<uint32_t*>(base + layout.flags_a);
    uint32_t* unsafe_b = reinterpret_cast<uint32_t*>(base + layout.flags_b);
    if constexpr (kParts == 2)
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(base + layout.flags_a, 0, layout.bytes - layout.flags_a, stream));
    if (!direct_a)
        pack_operand<kParts>(g.A, g.lda, g.trans_a, g.m, g.k, a_packed, layout.ldp, unsafe_a, stream);
    if (!direct_b)
        pack_operand<kParts>(g.B, g.ldb, !g.trans_b, g.n, g.k, b_packed, layout.ldp, unsafe_b, stream);
    const float* a_k_major = direct_a ? g.A : a_packed;
    const float* b_k_major = direct_b ? g.B : b_packed;
    const int64_t lda = direct_a ? g.lda : layout.ldp, ldb = direct_b ? g.ldb : layout.ldp;

    Params<Math, float> p{};
    p.m = g.m, p.n = g.n, p.k = g.k, p.alpha = g.alpha, p.beta = g.beta;
    p.A = a_k_major, p.lda = lda, p.B = b_k_major, p.ldb = ldb;
    p.C = g.C, p.ldc = g.ldc;
    p.c_transposed = TransposesC<typename Rung::Epilogue>;
    if constexpr (kParts == 2)
        p.math = {int(g.m), int(g.n), unsafe_a, unsafe_b, g.A, g.lda, g.trans_a, g.B, g.ldb, g.trans_b};
    // K-major maps over (k, parts x rows): rows beyond m (or n) inside a part are the next
    // part's, read only into tile rows the epilogue never stores; beyond the array, zeros.
    // A direct operand's map rounds to TF32 (data type TFLOAT32); a packed one is rounded already.
    const CUtensorMap map_b = make_operand_map(b_k_major, g.k, kParts * g.n, ldb, Cfg::BN, direct_b);
    const auto launch = [&]<bool TA>(const CUtensorMap& map_a) {
        launch_tiles<Cfg, typename Rung::Schedule, 1, Rung::kThreads,
                     Rung::template kernel<Math, float, TA, /*TB=*/false>()>(map_a, map_b, CUtensorMap{},
                                                                          p, stream, splits);
    };
    if constexpr (kParts == 1) {
        if (a_in_registers) {
            launch.template operator()<false>(make_operand_map(g.A, g.m, g.k, g.lda, Math::kTileK, true));
            return true;
        }
    }
    launch.template operator()<true>(make_operand_map(a_k_major, g.k, kParts * g.m, lda, Cfg::BM, direct_a));
    return true; // ws is freed on the stream after the kernel
}

/// Runs Rung (a TF32 composition of the warp-specialized kernel) with math policy Math (one part:
/// TF32, two: 3xTF32) on float operands: pack what needs it, then the kernel (k in `splits`
/// slices: split-K). TF32 follows wgmma_tf32_plan (launchers.hpp), running SwappedRung (the
/// same kernel storing C transposed) on C^T = op(B)^T op(A)^T where that packs less; 3xTF32
/// packs both. Returns false, having enqueued nothing, when the problem does not fit TMA's
/// coordinates or the workspace is not available; the caller then takes another rung.
template <class Rung, class Math, class SwappedRung = void>
bool launch_packed(const GemmArgs<float>& g, cudaStream_t stream, int splits = 1) {
    constexpr int kParts = Math::kParts;
    constexpr int64_t kCoordLimit = int64_t(1) << 31; // TMA coordinates are int32
    if (kParts * g.m >= kCoordLimit || kParts * g.n >= kCoordLimit || g.k >= kCoordLimit)
        return false;
    if constexpr (kParts == 2) {
        return launch_oriented<Rung, Math>(g, true, true, false, stream, splits);
    } else {
        static_assert(TransposesC<typename SwappedRung::Epilogue>, "the swapped rung stores C^T");
        const WgmmaTf32Plan plan = wgmma_tf32_plan(g.m, g.n, g.A, g.lda, g.trans_a, g.B, g.ldb, g.trans_b);
        if (!plan.swap)
            return launch_oriented<Rung, Math>(g, plan.pack_a, plan.pack_b, plan.first_in_registers,
                                               stream, splits);
        return launch_oriented<SwappedRung, Math>(transposed_product(g), plan.pack_b, plan.pack_a,
                                                  plan.first_in_registers, stream, splits);
    }
}

} // namespace gemmlab::detail::hopper
