// Rung 17: 3xTF32, FP32 accuracy from TF32 tensor cores (error-compensated split).
//
// Idea: write each float x as big + small, big = tf32(x) and small = tf32(x - big): big holds
// x's top 11 significant bits, small the next 11, so big + small is x to within 2^-22 |x|
// (x - big is exact in FP32). Then
//   a * b = a_big b_big + a_big b_small + a_small b_big + a_small b_small + (split remainders),
// and the first three products, each exact on the tensor cores and summed in FP32, carry all
// but O(2^-22) of a * b: 3 TF32 MMAs give an FP32-accurate product (the 4th, a_small b_small,
// is below FP32's own rounding and is dropped). The two small terms go first, so they add to
// a small accumulator before the large one. Three HMMAs per product can outrun FP32 FMA: TF32
// mma.sync peaks at 5.3x the FFMA rate (tensor probe); this rung reaches 0.92x cuBLAS SGEMM at
// 4096^3 on an H100, level with rung 13 (docs/ladder.md says where it stops).
// The result must meet the FP32 bound of the CUDA-core rungs with the same constant, so the
// split's limits are handled, not hidden (docs/ladder.md derives them):
// - Range. small must be a normal TF32 number for the split to keep its 22 bits: for nonzero
//   |x| < 2^-115 it is subnormal or zero and the split loses bits; for |x| >= 2^126 big can
//   round up to Inf. Inf and NaN inputs would turn into NaN (Inf - Inf) where IEEE gives Inf.
//   Each thread watches the exponents of the operands it splits (Tf32x3Guard); a block whose
//   tile saw any such value recomputes that tile with FP32 FMAs (mma_tile.cuh), so the answer
//   is right and only such data pays.
// - Small k. The split's worst case is 12 u per product, and the tensor cores truncate the FP32
//   accumulation (the tensor probe measures it), up to 4 u of the partial sum per MMA, against a
//   bound of 2 (k + 3) u: it holds for k >= kTf32x3MinK = 40 (mma_configs.hpp). Below that this
//   rung computes with the CUDA cores (rung 13), so its FP32 promise holds for every k.
// - Bias. The tensor cores truncate: each MMA's loss leans toward zero, in proportion to the
//   sum in its accumulator. Kept in the accumulators over all of k, the losses add up with k
//   (on same-sign data the error grows linearly in k, where SGEMM's grows like sqrt(k)). So
//   the three MMAs of each k step start from zero in four temporary registers, and their sum is
//   promoted into the accumulator with round-to-nearest FP32 adds (__fadd_rn), as FP8 GEMMs
//   promote their short tensor-core sums: each truncation then acts on one k step's sum, and
//   the sum over k is FP32 rounded to nearest, as SGEMM's is. Every k step (kTf32x3PromoteK =
//   8) because a second set of accumulators, for a longer interval, does not fit beside the
//   128x128 tiles' registers; the cost is one FADD per accumulator per k step
//   (docs/precision.md, "Promotion"). The 128x128 kernels that were already at the register
//   limit take one k step per loop trip (Tf32x3MathOneStep) to make room for it.
// Changed from rung 16: each operand split into two TF32 parts, three MMAs per tile pair from
// zero and their sum promoted, and the range guard; pipeline, layouts and epilogue are rungs
// 15-16's.
// Seeds: none; the error-compensated 3xTF32 scheme is known from CUTLASS.

#include <type_traits>

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_tile.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {
namespace mma {

/// Watches the magnitudes a thread splits. Bits are compared as unsigned integers, which orders
/// non-negative floats: |x| is safe when 2^-115 <= |x| < 2^126 or x == 0. Kept as a running
/// minimum of (|x| bits - 1), where 0 wraps to the top and so never lowers it, and a running
/// maximum of |x| bits, NaN and Inf included: two integer min/max per element.
struct Tf32x3Guard {
    static constexpr bool kCanFail = true;
    static constexpr uint32_t kSmallest = kTf32x3SmallestBits;
    static constexpr uint32_t kLargest = kTf32x3LargestBits;
    uint32_t min_minus_1 = 0xFFFFFFFFu;
    uint32_t max_bits = 0;

    __device__ __forceinline__ void see(float x) {
        const uint32_t bits = __float_as_uint(x) & 0x7FFFFFFFu;
        min_minus_1 = min(min_minus_1, bits - 1u);
        max_bits = max(max_bits, bits);
    }
    __device__ __forceinline__ bool failed() const {
        return min_minus_1 < kSmallest - 1u || max_bits >= kLargest;
    }
};

/// 3xTF32 math: big/small split, small*big + big*small + big*big per tile pair.
struct Tf32x3Math {
    using Element = float;
    using Acc = float;
    static constexpr int kK = 8;
    static constexpr int kUnrollK = 2; // k steps unrolled (see mma_tile.cuh): 4 would spill
    struct BOperands {
        uint32_t big[2], small[2];
    };
    using Guard = Tf32x3Guard;

    __device__ __forceinline__ static void split(float x, uint32_t& big, uint32_t& small, Guard& guard) {
        guard.see(x);
        big = ptx::cvt_rna_tf32(x);
        small = ptx::cvt_rna_tf32(x - __uint_as_float(big));
    }

    __device__ __forceinline__ static void prepare_b(BOperands& b, const float (&raw)[2], Guard& guard) {
        split(raw[0], b.big[0], b.small[0], guard);
        split(raw[1], b.big[1], b.small[1], guard);
    }

    static_assert(kTf32x3PromoteK == kK, "mma_row promotes the sums of one k step");

    /// One k step of A row tile (raw) against the warp's B tiles: per tile, the three MMAs
    /// from zero (the small products first), then the promotion of their sum into acc.
    template <int NT>
    __device__ __forceinline__ static void mma_row(float (&acc)[NT][4], const float (&raw)[4],
                                                   const BOperands (&b)[NT], Guard& guard) {
        uint32_t big[4], small[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) split(raw[e], big[e], small[e], guard);
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            float step[4] = {0.0f, 0.0f, 0.0f, 0.0f}; // this k step's sum, in the MMAs' own rounding
            ptx::mma_m16n8k8_tf32(step, small, b[j].big);
            ptx::mma_m16n8k8_tf32(step, big, b[j].small);
            ptx::mma_m16n8k8_tf32(step, big, b[j].big);
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[j][e] = __fadd_rn(acc[j][e], step[e]);
        }
    }
};

/// Tf32x3Math one k step per trip of the tile's k loop (kUnrollK = 1, see mma_tile.cuh), for
/// the kernels that ptxas fills to the register limit: there the promotion's temporaries fit
/// only if the next step's fragments are not loaded ahead.
struct Tf32x3MathOneStep : Tf32x3Math {
    static constexpr int kUnrollK = 1;
};

/// Rung 17's kernel and shared memory for one op/alignment combination (as mma::Entry). The
/// tiles of 64 accumulators per thread (128x128) take Tf32x3MathOneStep where ptxas used
/// 240-255 registers before the promotion: an unaligned operand (element-wise copies, more
/// addresses) or A transposed with B not (both operands mn-major in shared memory).
template <class Cfg>
struct Tf32x3Entry {
    template <bool TA, bool TB, bool Vec>
    struct Of {
        static constexpr bool kOneStep = Cfg::kTilesM * Cfg::kTilesN * 4 >= 64 && (!Vec || (TA && !TB));
        using M = std::conditional_t<kOneStep, Tf32x3MathOneStep, Tf32x3Math>;
        static constexpr auto kKernel = &mma_gemm_kernel<Cfg, M, TA, TB, Vec>;
        static constexpr int kSmemBytes = MmaKernel<Cfg, M, TA, TB, Vec>::kSmemBytes;
    };
};

template <class Cfg>
void launch_tf32x3_cfg(const GemmArgs<float>& g, cudaStream_t stream) {
    tile::launch_block_tiled<Cfg, Tf32x3Entry<Cfg>::template Of>(g, stream);
}

// The configurations that exist (mma_configs.hpp names them).
template void launch_tf32x3_cfg<Cfg128x128w64x32s3<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32x3_cfg<Cfg64x64w32x32s4<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32x3_cfg<Cfg64x32w32x16s4<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32x3_cfg<Cfg32x32w16x16s5<32>>(const GemmArgs<float>&, cudaStream_t);

} // namespace mma

// The registry row runs the default configuration, or the CUDA cores below kTf32x3MinK.
template <class T>
void launch_tf32x3(const GemmArgs<T>& g, cudaStream_t stream) {
    if (g.k < mma::kTf32x3MinK) launch_warp_tile_cfg<Cfg64x64x8>(g, stream);
    else mma::launch_tf32x3_cfg<mma::Cfg128x128w64x32s3<32>>(g, stream);
}

template void launch_tf32x3<float>(const GemmArgs<float>&, cudaStream_t);

} // namespace gemmlab::detail
