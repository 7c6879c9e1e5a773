// Rung 26: 3xTF32 on warpgroup MMA: FP32 accuracy (the default precision) from TF32 wgmma.
//
// Idea: rung 17's split (x = big + small, both TF32; small*big + big*small + big*big summed in
// FP32, small*small dropped) on rung 25's wgmma machinery. The pack step (hopper/tf32_pack.cuh)
// writes both parts of op(A) and op(B), K-major, and flags every 64 rows or columns that hold a
// value the split cannot carry; each stage brings four tiles (A big and small, B big and small)
// by TMA and each k step issues three wgmma m64n128k8, the small products first as in rung 17
// (MmaTf32x3 below). Tiles that meet a flagged row or column are recomputed with FP32 FMAs
// (MmaTf32x3's epilogue), so wide-range data, values near FLT_MIN, Inf and NaN keep the FP32
// bound and IEEE results; below kTf32x3MinK = 40 the split's error would pass the bound
// (docs/precision.md), so small k runs on the CUDA cores, as in rung 17.
// Changed from rung 25: two parts per operand, three wgmma per k step, the range guard, and
// 128 x 128 tiles (three stages of 64 KB fit in shared memory; 128 x 256 would leave two).
// Where TMA cannot address the problem or no workspace is left: rung 17.
// Measured: docs/ladder.md.

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/tf32_pack.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {

namespace hopper {

/// k steps of 8 whose products the tensor cores sum before the sum is promoted into FP32 with
/// round-to-nearest adds (MmaTf32x3): 16 k a promotion. docs/precision.md ("3xTF32") derives
/// the bound from it and gives the error measured beside SGEMM's.
inline constexpr int kTf32x3PromoteSteps = 2;

/// 3xTF32 math: a big and a small TF32 part of each operand, both K-major (the pack step writes
/// the small parts as rows m.. of A's array and n.. of B's), three wgmma per k step.
struct MmaTf32x3 {
    using Storage = float;
    static constexpr int kParts = 2;
    static constexpr int kTileK = 32; // 128 bytes
    /// The rows where the small parts start, and the range guard: one flag per 64 rows of op(A)
    /// / columns of op(B) holding an input the split cannot carry, and the caller's operands
    /// from which flagged tiles are recomputed.
    struct Args {
        int a_small_row, b_small_row;
        const uint32_t* unsafe_a;
        const uint32_t* unsafe_b;
        const float* orig_a;
        int64_t orig_lda;
        bool orig_trans_a;
        const float* orig_b;
        int64_t orig_ldb;
        bool orig_trans_b;
    };
    __host__ __device__ static constexpr int part_row_a(const Args& a, int part) {
        return part * a.a_small_row;
    }
    __host__ __device__ static constexpr int part_row_b(const Args& a, int part) {
        return part * a.b_small_row;
    }

    template <class Layout>
    struct Consumer {
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(A::kKMajor && B::kKMajor, "3xTF32 reads both packed operands K-major");

        static constexpr int kN = B::kPanelRows; // BN
        /// The tensor cores sum in FP32 without rounding to nearest (their error grows with
        /// the length of a sum, and faster for same-sign data), so the products of
        /// kPromoteSteps k steps of 8 are summed from zero into one of two interval sums, and
        /// the interval before it, finished, is added into the caller's accumulators with
        /// ordinary round-to-nearest adds: the tensor cores never sum more than 8 x
        /// kPromoteSteps k of products, and the two interval sums let one interval's wgmma run
        /// while the other's is added (docs/precision.md, "3xTF32", derives the bound from the
        /// interval's length).
        static constexpr int kPromoteSteps = kTf32x3PromoteSteps;
        static_assert(kPromoteSteps == 1 || kPromoteSteps == 2,
                      "a k tile's 4 steps must make an even number of intervals, so that the "
                      "two interval sums alternate at fixed registers");
        float step_sum[2][kN / 2];
        bool pending = false; // step_sum[1] holds the last interval of the previous k tile
        /// k_tile commits each interval itself and returns with the tile's last interval still
        /// on the tensor cores, so the next tile's first interval overlaps it (the kernel then
        /// adds no commit and wait of its own; 22_warp_specialized.cuh).
        static constexpr bool kOverlapsTiles = true;

        __device__ __forceinline__ static void add_step(float (&acc)[kN / 2],
                                                        float (&step)[kN / 2]) {
#ifdef GEMMLAB_SM90A
            pin_accumulators(step); // read only after the wait that finished it
#pragma unroll
            for (int i = 0; i < kN / 2; ++i) acc[i] = __fadd_rn(acc[i], step[i]);
#endif
        }

        /// One k tile (its parity does not matter: a tile holds an even number of intervals,
        /// so each interval's sum is fixed).
        template <int BN, int Parity>
        __device__ __forceinline__ void k_tile(float (&acc)[BN / 2], uint32_t a, uint32_t b, int wg,
                                               bool accumulate) {
#ifdef GEMMLAB_SM90A
            static_assert(BN == kN, "the interval sums are the block tile's width");
            if (!accumulate) pending = false; // a new unit (the kernel zeroed acc)
#pragma unroll
            for (int ks = 0; ks < 4; ++ks) { // 4 k steps of 8
                const int interval = ks / kPromoteSteps;
                const bool opens = ks % kPromoteSteps == 0, closes = ks % kPromoteSteps == kPromoteSteps - 1;
                float(&step)[BN / 2] = step_sum[interval % 2];
                const uint64_t da = operand_descriptor<A>(a, 64 * wg, ks);
                const uint64_t db = operand_descriptor<B>(b, 0, ks);
                const uint64_t da_small = operand_descriptor<A>(a + A::kBytes, 64 * wg, ks);
                const uint64_t db_small = operand_descriptor<B>(b + B::kBytes, 0, ks);
                // The small products first (as rung 17): they add to a small partial sum
                // before the big product joins it.
                wgmma_fence();
                wgmma_tf32<BN>(step, da_small, db, opens ? 0 : 1);
                wgmma_tf32<BN>(step, da, db_small, 1);
                wgmma_tf32<BN>(step, da, db, 1);
                if (!closes) continue;
                wgmma_commit();
                wgmma_wait<1>(); // the interval before this one is done
                if (interval > 0 || pending) add_step(acc, step_sum[(interval + 1) % 2]);
            }
            pending = true;
#endif
        }

        /// After the last k tile (its wgmma all retired): the last step's sum joins acc.
        template <int N>
        __device__ __forceinline__ void finish(float (&acc)[N]) {
            if (pending) add_step(acc, step_sum[1]);
            pending = false;
        }

        /// The range guard: a tile that meets a flagged 64-row group of op(A) or 64-column group
        /// of op(B) is recomputed here, each of this thread's elements (the accumulator positions
        /// of store_tile) a dot product of FP32 FMAs over the caller's operands, as the CUDA-core
        /// rungs compute it (IEEE Inf and NaN, no split). Slow, and only taken by such tiles;
        /// the element loop stays rolled so that this path does not cost the fast one code size.
        /// With split-K, the sum runs over the slice's k range and goes to its partial raw.
        template <class P>
        __device__ __forceinline__ bool replaces_epilogue(const P& p, int64_t m0, int64_t n0, int wg,
                                                          int64_t k_begin, int64_t k_end,
                                                          float* partial) {
#ifdef GEMMLAB_SM90A
            constexpr int BM = A::kPanelRows, BN = B::kPanelRows;
            const Args& x = p.math;
            bool unsafe = false;
#pragma unroll
            for (int i = 0; i < BM / 64; ++i)
                if (m0 + 64 * i < p.m) unsafe |= x.unsafe_a[m0 / 64 + i] != 0u;
#pragma unroll
            for (int j = 0; j < BN / 64; ++j)
                if (n0 + 64 * j < p.n) unsafe |= x.unsafe_b[n0 / 64 + j] != 0u;
            if (!unsafe) return false;

            const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
            const int64_t r0 = m0 + 64 * wg + 16 * warp + lane / 4;
            const int64_t c0 = n0 + 2 * (lane % 4);
#pragma unroll 1
            for (int i = 0; i < BN / 2; ++i) {
                const int64_t row = r0 + 8 * ((i / 2) % 2), col = c0 + 8 * (i / 4) + i % 2;
                if (row >= p.m || col >= p.n) continue;
                float sum = 0.0f;
                for (int64_t kk = k_begin; kk < k_end; ++kk) {
                    const float av = x.orig_trans_a ? x.orig_a[kk + row * x.orig_lda]
                                                    : x.orig_a[row + kk * x.orig_lda];
                    const float bv = x.orig_trans_b ? x.orig_b[col + kk * x.orig_ldb]
                                                    : x.orig_b[kk + col * x.orig_ldb];
                    sum = fmaf(av, bv, sum);
                }
                if (partial) {
                    partial[row + col * p.m] = sum;
                    continue;
                }
                float* c = p.C + row + col * p.ldc;
                float v = p.alpha * sum;
                if (p.beta != 0.0f) v += p.beta * *c;
                *c = v;
            }
#endif
            return true;
        }
    };
};

} // namespace hopper

namespace {
struct WgmmaTf32x3Rung {
    using Config = hopper::Tf32x3Config;
    using Cluster = hopper::SingleBlock;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::TmaLoads<Cfg, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = hopper::RegisterEpilogue;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<WgmmaTf32x3Rung, Math, TOut, TA, TB>;
    }
};
} // namespace

template <class T>
void launch_wgmma_tf32x3(const GemmArgs<T>& g, cudaStream_t stream) {
    if (g.k < mma::kTf32x3MinK) launch_warp_tile_cfg<Cfg64x64x8>(g, stream);
    else if (!hopper::launch_packed<WgmmaTf32x3Rung, hopper::MmaTf32x3>(g, stream))
        launch_tf32x3(g, stream);
}

template void launch_wgmma_tf32x3<float>(const GemmArgs<float>&, cudaStream_t);

void launch_wgmma_tf32x3_split(const GemmArgs<float>& g, cudaStream_t stream, int splits) {
    if (g.k < mma::kTf32x3MinK) launch_warp_tile_cfg<Cfg64x64x8>(g, stream);
    else if (!hopper::launch_packed<WgmmaTf32x3Rung, hopper::MmaTf32x3>(g, stream, splits))
        launch_tf32x3(g, stream);
}

} // namespace gemmlab::detail
