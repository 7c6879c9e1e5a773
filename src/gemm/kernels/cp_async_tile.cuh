#pragma once
// The cp.async global -> shared tile loader shared by the pipelined rungs (14 and the
// tensor-core rungs 15-17): one (BMN, BK) operand tile per call, copied asynchronously into a
// stage of a multi-stage shared-memory ring, edge elements zero-filled by the copy.

#include <cstdint>

#include "gemm/kernels/ptx.cuh"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail::tile {

/// Issues the cp.async copies of one (BMN, BK) operand tile into shared memory, edge elements
/// zero-filled by the copy itself. Two layouts, each row padded by Pad elements:
/// - k-major (BK, BMN + Pad), rung 13's: each shared row is one k. An mn-contiguous operand
///   moves in 16-byte copies when aligned; a k-contiguous one must be transposed, element by
///   element (4- or 8-byte copies).
/// - MnMajor (BMN, BK + Pad): each shared row is one m (or n), k running along it. Only for a
///   k-contiguous operand, which thus keeps its global layout and moves in 16-byte copies too
///   (one element each when unaligned).
/// The caller picks Pad for its fragment reads (rung 14 and the tensor-core rungs read
/// differently), so the padding rule lives beside the read it serves.
/// EdgeBlockPath: an edge block's full-depth tiles take a path of their own (issue() says why);
/// off where its few registers would make the kernel spill (rung 14's float tiles).
template <class T, int BMN, int BK, int Threads, bool KContig, bool Vec, bool MnMajor, int Pad,
          bool EdgeBlockPath = false>
struct AsyncTileLoader {
    static_assert(!MnMajor || KContig, "only a k-contiguous operand is kept mn-major");
    static constexpr bool kTranspose = KContig && !MnMajor; // element-wise scatter into k-major
    static constexpr int V = (Vec && !kTranspose) ? kVecWidth<T> : 1; // elements per copy
    static constexpr int kCopyBytes = V * int(sizeof(T));
    static constexpr int kLine = KContig ? BK : BMN;
    static constexpr int kLines = KContig ? BMN : BK;
    static constexpr int kChunksPerLine = kLine / V;
    static constexpr int kLinesPerPass = Threads / kChunksPerLine;
    static constexpr int kPasses = kLines / kLinesPerPass;
    // Shared row stride (elements): rows run along mn (k-major) or along k (MnMajor).
    static constexpr int LD = (MnMajor ? BK : BMN) + Pad;
    static constexpr int kTileElems = (MnMajor ? BMN : BK) * LD; // one stage's tile, elements
    // Shared-memory distance between a thread's consecutive passes.
    static constexpr int kPassSmem =
        (kTranspose ? kLinesPerPass : kLinesPerPass * LD) * int(sizeof(T));

    static_assert(kLine % V == 0, "the contiguous tile extent must be a multiple of the copy width");
    static_assert(Threads % kChunksPerLine == 0,
                  "threads must cover whole lines of the tile (Threads % (line / V) == 0)");
    static_assert(kLines % kLinesPerPass == 0,
                  "the tile's lines must split evenly over passes of the thread block");
    static_assert((LD * sizeof(T)) % 16 == 0, "shared rows must stay 16-byte aligned");

    const T* ptr;     // this thread's first chunk in the next k tile to issue
    int64_t ld;       // leading dimension of the stored operand
    uint32_t dst_off; // byte offset of this thread's first chunk inside a stage
    int mn_rem;       // min(MN - block's mn origin, BMN)
    int line0, pos0;  // this thread's first line, and its first position along the line

    __device__ __forceinline__ AsyncTileLoader(const T* X, int64_t ld_, int64_t MN,
                                               int64_t mn_origin, int tid)
        : ld(ld_) {
        const int64_t rem = MN - mn_origin;
        mn_rem = rem < BMN ? int(rem) : BMN;
        line0 = tid / kChunksPerLine;
        pos0 = (tid % kChunksPerLine) * V;
        const int64_t mn = mn_origin + (KContig ? line0 : pos0);
        const int64_t kk = KContig ? pos0 : line0;
        ptr = KContig ? X + kk + mn * ld : X + mn + kk * ld;
        dst_off = uint32_t((kTranspose ? pos0 * LD + line0 : line0 * LD + pos0) * int(sizeof(T)));
    }

    /// Issues the copies of the current k tile (depth k_rem = min(K - origin, BK) >= 1) into
    /// the stage at shared address `stage`. `X` is the operand's base pointer, the always-valid
    /// source address given to copies that read nothing.
    __device__ __forceinline__ void issue(uint32_t stage, int k_rem, const T* X) const {
        // One branch for the whole tile, uniform across the block: an interior tile (all but
        // the last k tile and the edge blocks) takes the path with no per-copy arithmetic.
        // Branching per copy let the compiler predicate both paths into every iteration,
        // which cost the tensor-core rungs ~18 instructions per 16-byte copy (SASS).
        if (mn_rem == BMN && k_rem == BK) [[likely]] {
            const int64_t pass_stride = int64_t(kLinesPerPass) * ld;
#pragma unroll
            for (int p = 0; p < kPasses; ++p)
                ptx::cp_async<kCopyBytes>(stage + dst_off + uint32_t(p * kPassSmem), ptr + p * pass_stride);
            return;
        }
        // An edge block's full-depth tile (only m or n runs out), every k tile of the edge
        // blocks: which copies read, and how much, takes one compare per pass (rows along k:
        // the row against mn_rem) or none (chunks along mn: the thread's position, the same in
        // every pass). In a single wave the edge blocks set the kernel's time: f64 1000^3 on
        // 64x64 tiles ran in 64.1 us through the loop below, 61.8 us here (H100; 1024^3, with
        // more work and no edge blocks, 56.6 us; docs/ladder.md).
        if (EdgeBlockPath && k_rem == BK) {
            const int mn_left = mn_rem - pos0; // along mn, when the lines run along k
            const int n_chunk = mn_left <= 0 ? 0 : (mn_left < V ? mn_left : V);
#pragma unroll
            for (int p = 0; p < kPasses; ++p) {
                const int n = KContig ? (line0 + p * kLinesPerPass < mn_rem ? V : 0) : n_chunk;
                copy_part(stage, p, n, X);
            }
            return;
        }
        // The last k tile (and without EdgeBlockPath every tile of an edge block): a rolled
        // loop. Unrolled, the compiler may if-convert this rare path into the common one, every
        // copy then issued twice (once predicated off) with its edge arithmetic (rung 15's
        // rotating mainloop: 24 copies and ~150 extra instructions per k tile, SASS).
#pragma unroll 1
        for (int p = 0; p < kPasses; ++p) {
            const int line = line0 + p * kLinesPerPass;
            const int c_left = (KContig ? k_rem : mn_rem) - pos0; // elements left in the line
            const int o_left = (KContig ? mn_rem : k_rem) - line; // lines left
            copy_part(stage, p, (o_left > 0 && c_left > 0) ? (c_left < V ? c_left : V) : 0, X);
        }
    }

    /// Pass p's copy of the two edge paths: its first n elements (0..V) read, the rest of the
    /// 16 bytes zero-filled; n = 0 reads nothing, from the always-valid address X.
    __device__ __forceinline__ void copy_part(uint32_t stage, int p, int n, const T* X) const {
        const T* src = ptr + p * (int64_t(kLinesPerPass) * ld);
        ptx::cp_async_zfill<kCopyBytes>(stage + dst_off + uint32_t(p * kPassSmem),
                                        n > 0 ? static_cast<const void*>(src) : X,
                                        n * int(sizeof(T)));
    }

    /// Steps to the next k tile.
    __device__ __forceinline__ void advance() { ptr += KContig ? int64_t(BK) : int64_t(BK) * ld; }
};

} // namespace gemmlab::detail::tile
