#pragma once
// Shared tiles of the Hopper rungs and the wgmma descriptors that read them.
//
// A k tile is 128 bytes of k: 64 16-bit values or 32 TF32 values (Math::kTileK). An operand
// whose k index is contiguous in memory (K-major: A with op T, B with op N) is one panel of R
// rows (R = BM or BN) of 128 bytes, row = the m or n index. An operand contiguous along m or n
// (MN-major) is R / kTileK panels of kTileK rows (row = k), each row kTileK consecutive m or n.
// Either way the 16-byte chunk c of row r sits at chunk c ^ (r % 8) of its row: the 128-byte
// swizzle that TMA writes (SWIZZLE_128B) and wgmma reads, so that the eight rows of an 8x8 core
// matrix fall in eight different bank groups. Every panel starts on a 1024-byte boundary (the
// swizzle pattern repeats every 8 rows).

#include <cstdint>

#include "gemm/kernels/hopper/configs.hpp"
#include "gemm/kernels/hopper_ptx.cuh"

namespace gemmlab::detail::hopper {

/// One operand's tile of R (m or n) rows x 128 bytes of k; RowElems elements fill a 128-byte row,
/// so an MN-major panel is RowElems m or n wide and RowElems k rows deep.
template <int R, bool KMajor, int RowElems>
struct TileShape {
    static constexpr bool kKMajor = KMajor;
    static constexpr int kRowElems = RowElems;
    static constexpr int kBytes = R * 128;
    static constexpr int kPanels = KMajor ? 1 : R / RowElems;
    static constexpr int kPanelRows = KMajor ? R : RowElems;
    static constexpr int kPanelBytes = kPanelRows * 128;
    static constexpr int kChunks = kBytes / 16; // 16-byte chunks
    static_assert(kPanelBytes % 1024 == 0, "panels keep the 1024-byte swizzle alignment");
    static_assert(KMajor || R % RowElems == 0, "an MN-major tile is whole panels");
};

/// Shared memory of block config Cfg for math policy Math (its k tile and parts): per stage A's
/// parts (big, then small), then B's; after the stages, C's staging buffer and the barriers.
/// KMajorA / KMajorB: which operands have k contiguous.
template <class Cfg, class Math, bool KMajorA, bool KMajorB>
struct SharedLayout {
    using ShapeA = TileShape<Cfg::BM, KMajorA, Math::kTileK>;
    using ShapeB = TileShape<Cfg::BN, KMajorB, Math::kTileK>;
    static_assert(Math::kParts == Cfg::kParts, "the config reserves the math policy's parts");
    static_assert(Cfg::kStageBytes == Cfg::kParts * (ShapeA::kBytes + ShapeB::kBytes),
                  "the config's stage size is the tiles' size");

    /// The 1024-byte-aligned start of the dynamic shared memory.
    __device__ __forceinline__ static uint32_t base(const void* smem_raw) {
        return (smem_addr(smem_raw) + 1023) & ~1023u;
    }
    __device__ __forceinline__ static uint32_t a_tile(uint32_t base, int stage) {
        return base + stage * Cfg::kStageBytes;
    }
    __device__ __forceinline__ static uint32_t b_tile(uint32_t base, int stage) {
        return base + stage * Cfg::kStageBytes + Cfg::kParts * ShapeA::kBytes;
    }
    __device__ __forceinline__ static uint32_t store_buffers(uint32_t base) {
        return base + Cfg::kStoreOffset;
    }
    __device__ __forceinline__ static uint32_t barriers(uint32_t base) {
        return base + Cfg::kBarrierOffset;
    }
};

#ifdef GEMMLAB_SM90A

/// The wgmma operand of one k step `ks` (32 bytes of k) from the tile at `tile`: A's 64-row slice
/// starting at m `mn0` (a multiple of 64), or B's whole tile (mn0 = 0). K-major: the next 8 rows
/// are 1024 bytes on (stride byte offset) and a k step advances 32 bytes inside the swizzled
/// row. MN-major: the next 8 k rows are 1024 bytes on (stride), the next 64 m/n a panel on
/// (leading byte offset), and a k step of 16 is 16 rows (2048 bytes).
template <class Shape>
__device__ __forceinline__ uint64_t operand_descriptor(uint32_t tile, int mn0, int ks) {
    if constexpr (Shape::kKMajor) return sw128_descriptor(tile + mn0 * 128 + ks * 32, 16, 1024);
    else
        return sw128_descriptor(tile + (mn0 / 64) * Shape::kPanelBytes + ks * 2048,
                                Shape::kPanelBytes, 1024);
}

/// The descriptor of k step `ks` from that of step 0 (operand_descriptor(tile, mn0, 0)): only
/// the start address field (bits 0-13, address / 16) moves, by the step's bytes / 16, and no
/// carry can leave it as shared memory ends below 2^18 bytes. One add on the low word instead of
/// building each step's descriptor again (masks and shifts ptxas cannot fold): the 8-bit rungs
/// issue a wgmma per 32 bytes of k, and every instruction of their k loop costs tensor time.
template <class Shape>
__device__ __forceinline__ uint64_t at_k_step(uint64_t step0, int ks) {
    constexpr uint32_t kStep = Shape::kKMajor ? 32 / 16 : 2048 / 16;
    return (step0 & 0xFFFFFFFF00000000ull) | uint32_t(uint32_t(step0) + uint32_t(ks) * kStep);
}

#endif // GEMMLAB_SM90A

} // namespace gemmlab::detail::hopper
