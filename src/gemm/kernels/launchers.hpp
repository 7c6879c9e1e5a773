#pragma once
// Launchers of every rung; each is defined (and instantiated for the types it supports) in the
// rung's own file in this folder. The registry (src/gemm/registry.cu) is the one table that
// lists them.

#include "gemm/problem.hpp"

namespace gemmlab::detail {

void launch_cublas(const Problem&, cudaStream_t); // 00 (follows Problem::precision)
template <class T> void launch_naive(const GemmArgs<T>&, cudaStream_t);                   // 01
template <class T> void launch_coalesced(const GemmArgs<T>&, cudaStream_t);               // 02
template <class T> void launch_register_tile_global(const GemmArgs<T>&, cudaStream_t);    // 03
template <class T> void launch_register_prefetch_global(const GemmArgs<T>&, cudaStream_t);// 04
template <class T> void launch_smem_tile(const GemmArgs<T>&, cudaStream_t);               // 05
template <class T> void launch_smem_conflict_free(const GemmArgs<T>&, cudaStream_t);      // 06
template <class T> void launch_thread_tile_1d(const GemmArgs<T>&, cudaStream_t);          // 07
template <class T> void launch_vectorized(const GemmArgs<T>&, cudaStream_t);              // 08
template <class T> void launch_thread_tile_4x4(const GemmArgs<T>&, cudaStream_t);         // 09
template <class T> void launch_thread_tile_8x8(const GemmArgs<T>&, cudaStream_t);         // 10
template <class T> void launch_smem_interleaved_reads(const GemmArgs<T>&, cudaStream_t);  // 11
template <class T> void launch_double_buffer(const GemmArgs<T>&, cudaStream_t);           // 12
template <class T> void launch_warp_tile(const GemmArgs<T>&, cudaStream_t);               // 13
template <class T> void launch_async_pipeline(const GemmArgs<T>&, cudaStream_t);          // 14

template <class T> void launch_dmma(const GemmArgs<T>&, cudaStream_t);                    // 15
template <class T> void launch_tf32(const GemmArgs<T>&, cudaStream_t);                    // 16
template <class T> void launch_tf32x3(const GemmArgs<T>&, cudaStream_t);                  // 17
template <class T> void launch_wgmma_tf32(const GemmArgs<T>&, cudaStream_t);              // 25
template <class T> void launch_wgmma_tf32x3(const GemmArgs<T>&, cudaStream_t);            // 26

// Rung 31 (31_int8_emulation.cu): float and double emulated on INT8 tensor cores (Ozaki scheme
// II). Which elements it hands to FMAs instead of the emulation:
enum class EmulationFallback {
    OutsideBound, ///< those whose error it cannot promise within the type's bound (and Inf/NaN)
    Nonfinite,    ///< only rows and columns with Inf or NaN: a caller's own modulus count
    None,         ///< none: only where a test shows what the fallback prevents
};
struct Int8EmulationOptions {
    int moduli = 0; ///< INT8 GEMMs per k chunk, 1..20; 0: the fewest that meet T's precision
    EmulationFallback fallback = EmulationFallback::OutsideBound;
    /// Most workspace one product may take; 0: int8_emulation_budget(). A product whose
    /// workspace would be larger runs in blocks of C (int8_emulation_blocks).
    size_t workspace_budget = 0;
};
/// A call's options as GemmOptions::emulation_moduli sets them: 0 keeps the type's bound, a
/// count of the caller's own keeps only Inf and NaN.
constexpr Int8EmulationOptions int8_emulation_options(int moduli) {
    return {moduli, moduli == 0 ? EmulationFallback::OutsideBound : EmulationFallback::Nonfinite};
}
template <class T>
void launch_int8_emulation(const GemmArgs<T>&, cudaStream_t, const Int8EmulationOptions&); // 31
/// Rung 31 for the registry and auto: float or double, Problem::emulation_moduli moduli.
void launch_int8_emulation_call(const Problem&, cudaStream_t);
/// The workspace one call of rung 31 takes with its automatic modulus count.
size_t int8_emulation_workspace_bytes(bool is_double, int64_t m, int64_t n, int64_t k);
/// The workspace rung 31 lets one product take: what the pool keeps at most (1 /
/// kWorkspaceKeepShare of the device's memory).
size_t int8_emulation_budget();
/// How rung 31 cuts C so that each piece's workspace stays within `budget` bytes: blocks of
/// `rows` x `cols` (multiples of 128 but at the edges), each computed as a product of its own,
/// with the same bits as the whole product (the scaling is per row of op(A) and per column of
/// op(B), over all of k). Of the cuts into up to 64 x 64 blocks that fit, the one that splits
/// the operands least (each operand is split once per block of the other's side). rows == 0
/// where none fits.
struct EmulationBlocks {
    int64_t rows = 0, cols = 0;
};
EmulationBlocks int8_emulation_blocks(bool is_double, int64_t m, int64_t n, int64_t k, int moduli, size_t budget);

// Half precision (BF16/FP16 inputs, C in the input type or float, FP32 accumulation): each rung
// instantiates its launcher for the four (TIn, TOut) pairs of launch_half in its own file
// (GEMMLAB_INSTANTIATE_HALF).
template <class TIn, class TOut> void launch_half_simt(const HalfArgs<TIn, TOut>&, cudaStream_t);         // 18
/// Rung 18's block tile and its static shared memory ((BK, BMN + 1) float tiles of each operand).
inline constexpr int kHalfSimtBM = 64, kHalfSimtBN = 64, kHalfSimtBK = 16;
inline constexpr int kHalfSimtSmemBytes = kHalfSimtBK * (kHalfSimtBM + 1 + kHalfSimtBN + 1) * 4;
template <class TIn, class TOut> void launch_mma_sync_f16(const HalfArgs<TIn, TOut>&, cudaStream_t);      // 19
template <class TIn, class TOut> void launch_wgmma(const HalfArgs<TIn, TOut>&, cudaStream_t);             // 20
template <class TIn, class TOut> void launch_tma(const HalfArgs<TIn, TOut>&, cudaStream_t);               // 21
template <class TIn, class TOut> void launch_warp_specialized(const HalfArgs<TIn, TOut>&, cudaStream_t);  // 22
template <class TIn, class TOut> void launch_cluster_multicast(const HalfArgs<TIn, TOut>&, cudaStream_t); // 23
template <class TIn, class TOut> void launch_persistent(const HalfArgs<TIn, TOut>&, cudaStream_t);        // 24
/// Rung 24's kernel on one of auto's block tiles, Cfg hopper::PersistentConfig (128 x 256, the
/// rung's own: launch_persistent_split), PersistentNarrowConfig (128 x 128), PersistentSlimConfig
/// (128 x 64), PersistentSmallConfig (64 x 64), PersistentSkinnyConfig (64 x 16: B K-major;
/// an MN-major B runs on 64 x 64), PersistentTallConfig (192 x 192) or
/// PersistentTallNarrowConfig (192 x 128); splits > 1: split-K.
template <class Cfg, class TIn, class TOut>
void launch_persistent_tiles(const HalfArgs<TIn, TOut>&, cudaStream_t, int splits);
/// Whether launch_persistent_tiles runs a column-major m x n product (a strided batch of
/// `batches`, k in `splits` slices) on 128 x 64 tiles in 2-block clusters that share each A
/// tile by multicast (rung 23's pairs): one product in one slice, two or more column tiles (a
/// prefill of 65 tokens or more: each weight tile is read by two blocks), and tiles for three
/// quarters of the current device's SMs or more. With fewer tiles pairs tied or lost with the L2
/// flushed (docs/ladder.md, "Rung 24's 128 x 64 tiles in pairs").
bool persistent_slim_pairs(int64_t m, int64_t n, int64_t batches, int splits);
/// Rung 24's kernel on block tile Cfg (hopper::PersistentTransposedSlimConfig, 64 x 96,
/// PersistentTransposedNarrowConfig, 128 x 96, or PersistentTransposedWideConfig, 128 x 144) run
/// on the transposed product C^T = op(B)^T op(A)^T and storing C^T into C: the tile's 96 or 144
/// columns count op(A)'s rows (a prefill's weight rows). op(A) must be K-major (trans_a) and both operands TMA-readable; any other call runs on
/// 128 x 128 tiles untransposed. splits > 1: split-K, the partials in C's orientation.
template <class Cfg, class TIn, class TOut>
void launch_persistent_transposed(const HalfArgs<TIn, TOut>&, cudaStream_t, int splits);
/// Rung 24's kernel on block tile Cfg (hopper::PersistentConfig, PersistentNarrowConfig,
/// PersistentTallConfig or PersistentSlimConfig) with the tail-split schedule: the tiles past
/// the last whole wave cut along k (hopper/tail_split.cuh). One product; a strided batch runs
/// whole tiles.
template <class Cfg, class TIn, class TOut>
void launch_persistent_tail_split(const HalfArgs<TIn, TOut>&, cudaStream_t);
/// Rung 24's kernel on block tile Cfg (hopper::PersistentNarrowConfig, PersistentSlimConfig or
/// PersistentSmallConfig) with the cluster-split schedule: a product of fewer tiles than SMs,
/// each tile's k cut over a cluster of up to 8 blocks that add their pieces in distributed
/// shared memory (hopper/cluster_split.cuh). One product; a strided batch, or tiles enough to
/// fill the SMs, runs whole tiles, one block each.
template <class Cfg, class TIn, class TOut>
void launch_persistent_cluster_split(const HalfArgs<TIn, TOut>&, cudaStream_t);
/// Rung 24's persistent schedule on hopper::PersistentPingPongConfig's 64 x 64 tiles with two
/// consumer warpgroups in ping-pong, each on tiles of its own (hopper/pingpong.cuh): products
/// and strided batches of short-k tiles. Whole k only.
template <class TIn, class TOut>
void launch_persistent_pingpong(const HalfArgs<TIn, TOut>&, cudaStream_t);

// Rung 27 (27_small.cu): every type, float and double through launch_small, the four half pairs
// through launch_small_half. One warp computes a kSmallTile x kSmallTile tile of C.
inline constexpr int64_t kSmallTile = 32;
template <class T> void launch_small(const GemmArgs<T>&, cudaStream_t);                              // 27
template <class TIn, class TOut> void launch_small_half(const HalfArgs<TIn, TOut>&, cudaStream_t);    // 27

// Rung 28 (28_decode.cu): one skinny side (a few tokens against a wide weight), every type.
template <class T> void launch_decode(const GemmArgs<T>&, cudaStream_t);                             // 28
template <class TIn, class TOut> void launch_decode_half(const HalfArgs<TIn, TOut>&, cudaStream_t);   // 28

// Split-K forms for auto (k cut into `splits` slices, partial sums reduced in a fixed order;
// the warp-specialized kernel, 22_warp_specialized.cuh), in rungs 24, 25 and 26's files.

/// Split-K never cuts k finer than this (elements): each slice then keeps the error analysis of
/// docs/precision.md ("Split-K") and enough k tiles to fill the pipeline.
inline constexpr int64_t kMinSplitK = 256;

template <class TIn, class TOut>
void launch_persistent_split(const HalfArgs<TIn, TOut>&, cudaStream_t, int splits);
/// Rung 25 on block config Cfg (hopper/configs.hpp: Tf32Config and auto's narrower
/// Tf32NarrowConfig, Tf32SlimConfig, Tf32TallNarrowConfig).
template <class Cfg>
void launch_wgmma_tf32_tiles(const GemmArgs<float>&, cudaStream_t, int splits);
void launch_wgmma_tf32x3_split(const GemmArgs<float>&, cudaStream_t, int splits);

/// True when TMA (and 16-byte cp.async) can read an operand of `elem_bytes`-byte elements at
/// `x` with leading dimension `ld`: 16-byte-aligned base and columns.
inline bool tma_readable(const void* x, int64_t ld, int64_t elem_bytes) {
    return reinterpret_cast<uintptr_t>(x) % 16 == 0 && (ld * elem_bytes) % 16 == 0;
}

/// How rung 25 (TF32 on wgmma, hopper/tf32_pack.cuh) runs a problem: which of op(A) and op(B)
/// it packs first, and whether it computes C^T = op(B)^T op(A)^T instead, storing C transposed.
/// Its kernel reads the second operand K-major only, and the first either way (MN-major
/// through registers), so an MN-major op(B) is packed as given; swapped, op(B)^T is the first
/// operand and op(A) the second. It swaps where that packs fewer rows: none when op(A) is
/// K-major, the shorter side when both are MN-major. An operand TMA cannot read is packed in
/// either role. One rule for the launcher and for auto's model of its cost.
struct WgmmaTf32Plan {
    bool swap;           // run C^T = op(B)^T op(A)^T
    bool pack_a, pack_b; // op(A), op(B) packed, whichever role each takes
    bool first_in_registers; // the first operand unpacked and MN-major: wgmma's register path
};
inline WgmmaTf32Plan wgmma_tf32_plan(int64_t m, int64_t n, const void* A, int64_t lda,
                                     bool trans_a, const void* B, int64_t ldb, bool trans_b) {
    const bool a_readable = tma_readable(A, lda, sizeof(float));
    const bool b_readable = tma_readable(B, ldb, sizeof(float));
    // As given the first operand is op(A), MN-major unless trans_a; swapped it is op(B)^T,
    // MN-major where op(B) is (trans_b: the only case a swap packs fewer rows).
    const bool pack_a = !a_readable, pack_b = trans_b || !b_readable;
    const WgmmaTf32Plan given{false, pack_a, pack_b, !trans_a && !pack_a};
    const bool swap_pack_a = !trans_a || !a_readable, swap_pack_b = !b_readable;
    const WgmmaTf32Plan swapped{true, swap_pack_a, swap_pack_b, trans_b && !swap_pack_b};
    const auto rows = [&](const WgmmaTf32Plan& q) {
        return (q.pack_a ? m : 0) + (q.pack_b ? n : 0);
    };
    return rows(swapped) < rows(given) ? swapped : given;
}

/// Explicit instantiations of a half-precision split-K launcher for the four (TIn, TOut) pairs.
#define GEMMLAB_INSTANTIATE_HALF_SPLIT(launcher)                                                   \
    template void launcher<__nv_bfloat16, __nv_bfloat16>(                                          \
        const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t, int);                         \
    template void launcher<__nv_bfloat16, float>(const HalfArgs<__nv_bfloat16, float>&,            \
                                                 cudaStream_t, int);                               \
    template void launcher<__half, __half>(const HalfArgs<__half, __half>&, cudaStream_t, int);    \
    template void launcher<__half, float>(const HalfArgs<__half, float>&, cudaStream_t, int);

/// Explicit instantiations of a half-precision launcher for the four (TIn, TOut) pairs.
#define GEMMLAB_INSTANTIATE_HALF(launcher)                                                         \
    template void launcher<__nv_bfloat16, __nv_bfloat16>(                                          \
        const HalfArgs<__nv_bfloat16, __nv_bfloat16>&, cudaStream_t);                              \
    template void launcher<__nv_bfloat16, float>(const HalfArgs<__nv_bfloat16, float>&,            \
                                                 cudaStream_t);                                    \
    template void launcher<__half, __half>(const HalfArgs<__half, __half>&, cudaStream_t);         \
    template void launcher<__half, float>(const HalfArgs<__half, float>&, cudaStream_t);

/// `auto`: picks a rung and tile configuration by type, Problem::precision, the device and the
/// shape (src/gemm/auto_select.cu).
void launch_auto(const Problem&, cudaStream_t);

} // namespace gemmlab::detail
