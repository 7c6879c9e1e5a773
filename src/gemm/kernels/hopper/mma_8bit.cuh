#pragma once
// The math policies of the 8-bit rungs 29 (FP8) and 30 (INT8) for the warp-specialized kernel
// (22_warp_specialized.cuh), with the members Mma16Bit lists. A k tile is 128 bytes of k, as for
// every Hopper rung: 128 FP8 or INT8 values, four wgmma m64nNk32 (32 bytes of k each). wgmma
// reads 8-bit operands K-major only (no transposing form), so both tiles are K-major: the
// launchers pack any other layout first (pack_8bit.cuh).
//
// FP8 (MmaFp8): the tensor cores sum FP8 products in a short accumulator (public measurements,
// and the issue's premise: about 14 significant bits kept, not FP32's 24), so a long k would
// lose most of its low bits. The policy therefore lets wgmma sum only PromoteK values of k
// (default 128: one k tile; 64 or 32 split a tile) into an interval sum started from zero, and
// adds each finished interval into the FP32 accumulators with ordinary round-to-nearest adds
// ("promotion"); the bound this gives is derived in docs/precision.md ("FP8"). Two interval sums
// alternate, so that one interval's wgmma run on the tensor cores while the interval before it,
// finished, is added: the policy commits each interval's wgmma and waits only for the one
// before. Which sum an interval writes must be a constant for ptxas to see which registers each
// wgmma in flight writes (with a run-time choice it serializes the wgmma: C7514), so the kernel
// passes the k tile's parity as a template argument (22_warp_specialized.cuh runs its k loop in
// pairs for such a policy).
// Block-wise scales (DeepSeek-V3's recipe: op(A) per row and 128 k, op(B) per 128 x 128 block)
// ride on the promotion: an interval is one 128-value k block, so its sum is multiplied by the
// block's two factors as it is added (one FMA); without block scales that factor is 1 and the
// FMA is exactly the add. A k block's scales are loaded two intervals before the promotion
// that reads them, right after the promotion that frees their registers.
// INT8 (MmaInt8): s32 accumulators, exact while |sum| < 2^31 (docs/precision.md, "INT8").

#include <cstdint>

#include <cuda_fp8.h>

#include "gemm/kernels/hopper/params.hpp"
#include "gemm/kernels/hopper/tile_layout.cuh"
#include "gemm/quantized_problem.hpp"

namespace gemmlab::detail::hopper {

/// The 8-bit policies' arguments: what the epilogue applies (scaled_epilogue.cuh), and FP8's
/// block scales, applied in the mainloop.
struct QuantScales {
    OutputScales output;
    BlockScales blocks;
};

/// Both 8-bit policies: byte storage (TMA moves bytes), one part, 128 values of k per tile, and
/// the scale factors as the policy's arguments.
struct Mma8BitBase {
    using Storage = uint8_t;
    static constexpr int kParts = 1;
    static constexpr int kTileK = 128; // 128 bytes
    using Args = QuantScales;
    __host__ __device__ static constexpr int part_row_a(const Args&, int) { return 0; }
    __host__ __device__ static constexpr int part_row_b(const Args&, int) { return 0; }
};

/// FP8 A (TA) and B (TB), FP32 accumulators, wgmma's sums promoted every PromoteK values of k;
/// BlockScaled: with DeepSeek-V3's block scales (p.math.blocks), else none (the promotion is
/// then a plain add, and the kernel carries no code for the scales: its consumers issue every
/// instruction of a k tile in sequence, so each one left out shortens the tile).
template <class TA, class TB, int PromoteK = 128, bool BlockScaled = false>
struct MmaFp8 : Mma8BitBase {
    static constexpr int kPromoteK = PromoteK;
    static constexpr int kIntervalsPerTile = kTileK / PromoteK;
    static_assert(PromoteK % 32 == 0 && kTileK % PromoteK == 0,
                  "an interval is whole wgmma k steps (32) within one k tile (128)");
    static_assert(!BlockScaled || PromoteK == kTileK, "a block scale's interval is its k block");

    template <class Layout>
    struct Consumer {
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(A::kKMajor && B::kKMajor, "FP8 wgmma reads both operands K-major");
        static constexpr int kN = B::kPanelRows; // BN
        static_assert(kN == 128, "wrapped for n128 (64 accumulators and two sets of 64 interval "
                                 "sums: 192 of a consumer's 232 registers)");
        static constexpr int kStepsPerInterval = PromoteK / 32;
        static constexpr bool kOverlapsTiles = true; // 22_warp_specialized.cuh
        static constexpr bool kHidesEpilogue = true; // wgmma write interval_sum only

        /// The two interval sums (sum s holds every other interval), which one holds the last
        /// interval issued, and whether it still waits for its promotion.
        float interval_sum[2][kN / 2];
        int last_sum = 0;
        bool pending = false;
        int tiles = 0; // k tiles of the current unit issued so far: the k block of block scales
        /// Block-wise scales, with BlockScaled only: those of the next k block to load for this
        /// thread's rows r0 and r0 + 8 (next_a, + second_row; rows past m read row m - 1: their
        /// sums are zero and never stored) and for the unit's 128 columns (next_b), and the k
        /// blocks (k_blocks) there are. `scale_a[s]` holds a(row, kb) for the two rows and
        /// `scale_b[s]` b(kb, jb), kb the k block of the interval in sum s; they are multiplied
        /// only by the promotion that reads them, as a use of a load waits for it to arrive.
        /// (ptxas still moves b, the same in every thread, into a uniform register right after
        /// its load, and that move waits: docs/ladder.md, "Fewer instructions per k tile".)
        const float* next_a = nullptr;
        int64_t block_a_step = 0; // lda: the next k block
        int second_row = 8;
        const float* next_b = nullptr;
        int k_blocks = 0;
        float scale_a[2][2] = {}, scale_b[2] = {};

        /// A new unit at (m0, n0): where its block scales are, and the first k block's scales
        /// (22_warp_specialized.cuh calls this before the unit's first k tile, after the last
        /// unit's promotions).
        template <class P>
        __device__ __forceinline__ void start_unit(const P& p, int64_t m0, int64_t n0) {
            if constexpr (!BlockScaled) return;
#ifdef GEMMLAB_SM90A
            const BlockScales& s = p.math.blocks;
            const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4, wg = threadIdx.x / 128;
            const int64_t r0 = min(m0 + 64 * wg + 16 * warp + lane / 4, p.m - 1);
            next_a = s.a + r0;
            block_a_step = s.lda;
            second_row = int(min(r0 + 8, p.m - 1) - r0);
            next_b = s.b + (n0 / kN) * s.ldb; // a 128-column tile is one block of columns
            k_blocks = int((p.k + kTileK - 1) / kTileK);
            load_scales<0>(); // k block 0 runs in sum 0
#endif
        }

#ifdef GEMMLAB_SM90A
        /// acc += a * b * the finished interval's sum S (one FMA per element, round to
        /// nearest; without block scales one add): the promotion.
        template <int S>
        __device__ __forceinline__ void promote(float (&acc)[kN / 2]) {
            pin_accumulators(interval_sum[S]); // read only after the wait that retired its wgmma
            float factor[2] = {1.0f, 1.0f};
            if constexpr (BlockScaled)
                factor[0] = scale_a[S][0] * scale_b[S], factor[1] = scale_a[S][1] * scale_b[S];
#pragma unroll
            for (int i = 0; i < kN / 2; ++i)
                acc[i] = BlockScaled ? __fmaf_rn(interval_sum[S][i], factor[(i / 2) % 2], acc[i])
                                     : __fadd_rn(interval_sum[S][i], acc[i]);
        }

        /// The next k block's scales, for the interval that will run in sum S.
        template <int S>
        __device__ __forceinline__ void load_scales() {
            if constexpr (!BlockScaled) return;
            scale_b[S] = __ldg(next_b);
            scale_a[S][0] = __ldg(next_a);
            scale_a[S][1] = __ldg(next_a + second_row);
            next_a += block_a_step;
            ++next_b;
        }
#endif

        /// One k tile, of parity Parity within its unit: each interval runs from zero into its
        /// sum (interval j of the tile in sum (Parity * kIntervalsPerTile + j) % 2, alternating
        /// over the unit), is committed as one wgmma group, and once every group but it has
        /// retired, the interval before it is promoted while its own wgmma still run.
        template <int BN, int Parity>
        __device__ __forceinline__ void k_tile(float (&acc)[BN / 2], uint32_t a, uint32_t b, int wg,
                                               bool accumulate) {
#ifdef GEMMLAB_SM90A
            static_assert(BN == kN, "the interval sums are the block tile's width");
            if (!accumulate) { // a new unit (the kernel zeroed acc)
                pending = false;
                tiles = 0;
            }
            // The warpgroup index through a shuffle from lane 0: ptxas then knows it is the
            // same in every lane and builds A's descriptors in uniform registers, as B's,
            // instead of moving each from ordinary registers (R2UR) before its wgmma.
            const int wg_uniform = __shfl_sync(0xFFFFFFFFu, wg, 0);
            const uint64_t desc_a = operand_descriptor<A>(a, 64 * wg_uniform, 0);
            const uint64_t desc_b = operand_descriptor<B>(b, 0, 0);
#pragma unroll
            for (int j = 0; j < kIntervalsPerTile; ++j) {
                constexpr int kFirstSum = Parity * kIntervalsPerTile % 2;
                const int s = (kFirstSum + j) % 2; // a constant once unrolled
                auto run = [&]<int S>() {
                    wgmma_fence(); // sum S was last read by ordinary instructions (its promotion)
#pragma unroll
                    for (int ks = 0; ks < kStepsPerInterval; ++ks)
                        wgmma_fp8_n128<TA, TB>(interval_sum[S],
                                               at_k_step<A>(desc_a, j * kStepsPerInterval + ks),
                                               at_k_step<B>(desc_b, j * kStepsPerInterval + ks),
                                               ks == 0 ? 0 : 1);
                    wgmma_commit();
                    wgmma_wait<1>(); // all but this interval's wgmma retired
                    if (pending) promote<1 - S>(acc);
                    pending = true;
                    last_sum = S;
                    // the scales of sum 1 - S are free again: the next k block runs in it
                    if constexpr (BlockScaled)
                        if (tiles + 1 < k_blocks) load_scales<1 - S>();
                };
                if (s == 0) run.template operator()<0>();
                else run.template operator()<1>();
            }
            ++tiles;
#endif
        }

        /// After the last k tile (every wgmma retired): the last interval's sum.
        template <int N>
        __device__ __forceinline__ void finish(float (&acc)[N]) {
#ifdef GEMMLAB_SM90A
            if (pending) {
                if (last_sum == 0) promote<0>(acc);
                else promote<1>(acc);
            }
            pending = false;
#endif
        }
        template <class P>
        __device__ __forceinline__ bool replaces_epilogue(const P&, int64_t, int64_t, int, int64_t,
                                                          int64_t, float*) {
            return false;
        }
    };
};

/// INT8 A and B, s32 accumulators (exact): four wgmma m64n256k32 per k tile.
struct MmaInt8 : Mma8BitBase {
    using Accumulator = int32_t;

    template <class Layout>
    struct Consumer {
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(A::kKMajor && B::kKMajor, "INT8 wgmma reads both operands K-major");

        /// Nothing per unit: INT8 has no block scales.
        template <class P>
        __device__ __forceinline__ void start_unit(const P&, int64_t, int64_t) {}

        template <int BN>
        __device__ __forceinline__ void k_tile(int32_t (&acc)[BN / 2], uint32_t a, uint32_t b,
                                               int wg, bool accumulate) {
#ifdef GEMMLAB_SM90A
            static_assert(BN == 256, "wrapped for n256");
            const uint64_t desc_a = operand_descriptor<A>(a, 64 * wg, 0);
            const uint64_t desc_b = operand_descriptor<B>(b, 0, 0);
            wgmma_fence();
#pragma unroll
            for (int ks = 0; ks < 4; ++ks) // 4 k steps of 32
                wgmma_s8_n256(acc, at_k_step<A>(desc_a, ks), at_k_step<B>(desc_b, ks),
                              (accumulate || ks > 0) ? 1 : 0);
#endif
        }
        /// After the last k tile: acc already holds the (exact) sum.
        template <int N>
        __device__ __forceinline__ void finish(int32_t (&)[N]) {}
        template <class P>
        __device__ __forceinline__ bool replaces_epilogue(const P&, int64_t, int64_t, int, int64_t,
                                                          int64_t, float*) {
            return false;
        }
    };
};

} // namespace gemmlab::detail::hopper
