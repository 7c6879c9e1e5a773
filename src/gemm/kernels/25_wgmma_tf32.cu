// Rung 25: TF32 on warpgroup MMA (opt-in precision, like rung 16).
//
// Idea: rung 16's arithmetic (inputs rounded to TF32 to nearest, exact products, FP32 sums;
// u = 2^-11) on rung 24's machinery: wgmma m64n256k8 .tf32 fed by TMA, a producer warpgroup and
// two consumer warpgroups, one persistent block per SM. wgmma reads TF32 only K-major and only
// already rounded. TMA rounds a 16-byte-aligned operand itself as it lands (a TFLOAT32 tensor
// map); wgmma reads it from shared memory where it is K-major, and an MN-major op(A) goes from
// shared memory into registers (wgmma's register-A form: MmaTf32 below). Anything else (an
// MN-major op(B) that swapping the operands would not spare, an unaligned operand) is first
// rounded and written K-major to a workspace by a pack step (hopper/tf32_pack.cuh says why and
// what it costs). Like rung 16 it runs when named or under `auto` with Precision::Tf32.
// Changed from rung 24: float inputs, rounded by TMA or the pack step, the TF32 wgmma with a
// 32-float k tile (register-A for an MN-major op(A)), C in float stored from registers, and
// for an MN-major op(B) the transposed product C^T = op(B)^T op(A)^T where that packs less
// (op(B)^T then takes the register path; C is stored transposed). auto also runs it on 128 x
// 128, 128 x 64 and 192 x 128 tiles (Tf32NarrowConfig, Tf32SlimConfig, Tf32TallNarrowConfig)
// for products whose 128 x 256 tiles leave SMs idle. Where TMA cannot address the problem or
// no workspace is left: rung 16.
// Measured: docs/ladder.md.

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/tf32_pack.cuh"

namespace gemmlab::detail {

namespace hopper {

/// TF32 math: one part, 32 floats per k tile, four wgmma m64nNk8 per k tile. B is K-major in
/// shared memory; A too, or MN-major in 32 x 32 panels that the consumers read into wgmma's
/// register fragments.
struct MmaTf32 {
    using Storage = float;
    static constexpr int kParts = 1;
    static constexpr int kTileK = 32; // 128 bytes
    struct Args {};
    __host__ __device__ static constexpr int part_row_a(const Args&, int) { return 0; }
    __host__ __device__ static constexpr int part_row_b(const Args&, int) { return 0; }

    template <class Layout>
    struct Consumer {
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(B::kKMajor, "TF32 wgmma reads B K-major only");
        /// An MN-major A: each k tile's four steps of A fragments are loaded before any of its
        /// wgmma, into one of two register sets by the tile's parity, and the tile's wgmma are
        /// one group that k_tile leaves in flight: the next tile's loads (into the other set)
        /// then run beside it instead of waiting for each step's group (22_warp_specialized.cuh,
        /// OverlapsTiles: the kernel zeroes acc per unit and drains every four tiles).
        static constexpr bool kOverlapsTiles = !A::kKMajor;
        uint32_t a_frag[2][4][4];

#ifdef GEMMLAB_SM90A
        /// Warpgroup wg's A fragment of k step ks (0..3) from the stage's A tile at `tile`
        /// (panels of 32 m x 32 k rows, 128-byte swizzled, already rounded to TF32 by TMA) in
        /// wgmma's m64nNk8 register layout: rows g and g + 8 of the warp's 16, k t and t + 4
        /// (g = lane / 4, t = lane % 4). Element (m, k) of a panel is float m % 4 of chunk
        /// (m / 4) ^ (k % 8) of row k.
        __device__ __forceinline__ static void load_a_fragments(uint32_t (&frag)[4], uint32_t tile,
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
#endif

        /// One k tile. K-major A: four wgmma from shared memory, committed and waited on by the
        /// kernel. MN-major A (kOverlapsTiles): the tile's fragments into set Parity (the
        /// group that read that set, two tiles back, has retired: the previous call returned
        /// with only its own group in flight), then its wgmma as one group, left in flight.
        template <int BN, int Parity = 0>
        __device__ __forceinline__ void k_tile(float (&acc)[BN / 2], uint32_t a, uint32_t b, int wg,
                                               bool accumulate) {
#ifdef GEMMLAB_SM90A
            if constexpr (A::kKMajor) {
                wgmma_fence();
#pragma unroll
                for (int ks = 0; ks < 4; ++ks) // 4 k steps of 8
                    wgmma_tf32<BN>(acc, operand_descriptor<A>(a, 64 * wg, ks),
                                   operand_descriptor<B>(b, 0, ks), (accumulate || ks > 0) ? 1 : 0);
            } else {
                (void)accumulate; // acc was zeroed when the unit started
#pragma unroll
                for (int ks = 0; ks < 4; ++ks) load_a_fragments(a_frag[Parity][ks], a, wg, ks);
                wgmma_fence();
#pragma unroll
                for (int ks = 0; ks < 4; ++ks)
                    wgmma_tf32_register_a<BN>(acc, a_frag[Parity][ks], operand_descriptor<B>(b, 0, ks), 1);
                wgmma_commit();
                wgmma_wait<1>(); // the previous tile's group is done: its stage may go
            }
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

} // namespace hopper

namespace {
/// Rung 25 on block config Cfg; TransposedC: the kernel for C^T = op(B)^T op(A)^T, storing C
/// transposed (launch_packed takes it where that packs fewer rows).
template <class Cfg, bool TransposedC>
struct WgmmaTf32RungOf {
    using Config = Cfg;
    using Cluster = hopper::SingleBlock;
    template <class C, class Math, class Layout>
    using Loads = hopper::TmaLoads<C, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = hopper::RegisterEpilogueOf<TransposedC>;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() {
        return &hopper::warp_specialized_kernel<WgmmaTf32RungOf, Math, TOut, TA, TB>;
    }
};

/// Rung 25 on Cfg's tiles, in either orientation; rung 16 where it cannot run.
template <class Cfg>
void launch_tf32_on(const GemmArgs<float>& g, cudaStream_t stream, int splits) {
    if (!hopper::launch_packed<WgmmaTf32RungOf<Cfg, false>, hopper::MmaTf32,
                               WgmmaTf32RungOf<Cfg, true>>(g, stream, splits))
        launch_tf32(g, stream);
}
} // namespace

template <class T>
void launch_wgmma_tf32(const GemmArgs<T>& g, cudaStream_t stream) {
    launch_tf32_on<hopper::Tf32Config>(g, stream, 1);
}

template void launch_wgmma_tf32<float>(const GemmArgs<float>&, cudaStream_t);

template <class Cfg>
void launch_wgmma_tf32_tiles(const GemmArgs<float>& g, cudaStream_t stream, int splits) {
    launch_tf32_on<Cfg>(g, stream, splits);
}

template void launch_wgmma_tf32_tiles<hopper::Tf32Config>(const GemmArgs<float>&, cudaStream_t,
                                                          int);
template void launch_wgmma_tf32_tiles<hopper::Tf32NarrowConfig>(const GemmArgs<float>&,
                                                                cudaStream_t, int);
template void launch_wgmma_tf32_tiles<hopper::Tf32SlimConfig>(const GemmArgs<float>&,
                                                              cudaStream_t, int);
template void launch_wgmma_tf32_tiles<hopper::Tf32TallNarrowConfig>(const GemmArgs<float>&,
                                                                    cudaStream_t, int);

} // namespace gemmlab::detail
