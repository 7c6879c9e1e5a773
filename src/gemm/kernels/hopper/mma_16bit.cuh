#pragma once
// The math policy of the 16-bit rungs 20-24: BF16 or FP16 operands as stored, FP32
// accumulation, one k tile of 64 = four wgmma m64nNk16 reading both operands from shared memory
// (K-major or MN-major: the 16-bit forms transpose on the fly). Rungs 25 and 26 bring their own
// policies (TF32, 3xTF32) with the same members:
//   Storage, kParts, kTileK, Args      what the operands are and what the kernel must pass
//   Consumer<Layout>::k_tile(...)       one consumer warpgroup's products of one k tile
//   Consumer<Layout>::finish(acc)       after the last k tile of a unit (3xTF32: the last step)
//   Consumer<Layout>::replaces_epilogue a tile the policy finishes itself (3xTF32's guard)

#include "gemm/kernels/hopper/params.hpp"
#include "gemm/kernels/hopper/tile_layout.cuh"

namespace gemmlab::detail::hopper {

template <class TIn>
struct Mma16Bit {
    using Storage = TIn;
    static constexpr int kParts = 1;
    static constexpr int kTileK = 64; // 128 bytes
    struct Args {};
    /// The row of a part inside the operand's tensor map (one part: none past the first).
    __host__ __device__ static constexpr int part_row_a(const Args&, int) { return 0; }
    __host__ __device__ static constexpr int part_row_b(const Args&, int) { return 0; }

    template <class Layout>
    struct Consumer {
        /// acc (+)= this warpgroup's 64 rows of A x B for the k tile in the stage at (a, b);
        /// `accumulate` false starts a new sum. The caller commits the group.
        template <int BN>
        __device__ __forceinline__ void k_tile(float (&acc)[BN / 2], uint32_t a, uint32_t b,
                                               int wg, bool accumulate) {
#ifdef GEMMLAB_SM90A
            using A = typename Layout::ShapeA;
            using B = typename Layout::ShapeB;
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < 4; ++ks) // 4 k steps of 16
                wgmma<TIn, BN, A::kKMajor ? 0 : 1, B::kKMajor ? 0 : 1>(
                    acc, operand_descriptor<A>(a, 64 * wg, ks), operand_descriptor<B>(b, 0, ks),
                    (accumulate || ks > 0) ? 1 : 0);
#endif
        }
        /// After the last k tile: acc already holds the sum.
        template <int N>
        __device__ __forceinline__ void finish(float (&)[N]) {}
        template <class P>
        __device__ __forceinline__ bool replaces_epilogue(const P&, int64_t, int64_t, int, int64_t,
                                                          int64_t, float*) {
            return false;
        }
    };
};

} // namespace gemmlab::detail::hopper
