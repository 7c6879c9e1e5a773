#pragma once
// Rung 23's part that other rungs reuse (rung 29, FP8): the producer's load of one stage in a
// pair of blocks, A's tile shared by TMA multicast (the idea: 23_cluster_multicast.cu).

#include "gemm/kernels/22_warp_specialized.cuh"

namespace gemmlab::detail::hopper {

/// The producer's load of one stage in a block pair: this block's half of A (rows when A is
/// K-major, every other panel when MN-major) lands in both blocks; B is this block's own.
template <class Cfg, class Math, class Layout>
struct MulticastLoads {
    template <class Pipeline, class Args>
    __device__ __forceinline__ static void issue(const Pipeline& pipe,
                                                 const typename Pipeline::State& state,
                                                 uint32_t base, const void* map_a, const void* map_b,
                                                 int m0, int n0, int kt, int batch_a,
                                                 int batch_b, const Args&) {
#ifdef GEMMLAB_SM90A
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        static_assert(Cfg::kParts == 1, "the multicast rung loads one part per operand");
        constexpr uint16_t kBoth = 0x3;
        const int k0 = kt * Math::kTileK;
        const uint32_t bar = pipe.full(state);
        const uint32_t rank = BlockPair::rank();
        pipe.producer_expect(state, Cfg::kStageBytes); // both halves of A arrive here
        const uint32_t a = Layout::a_tile(base, state.stage);
        if constexpr (A::kKMajor) {
            const uint32_t half = rank * (Cfg::BM / 2);
            tma_load_3d_multicast(a + half * 128, map_a, bar, k0, int(m0 + half), batch_a, kBoth);
        } else {
            for (int pa = int(rank); pa < A::kPanels; pa += 2)
                tma_load_3d_multicast(a + pa * A::kPanelBytes, map_a, bar, m0 + A::kRowElems * pa,
                                      k0, batch_a, kBoth);
        }
        tma_load_tile<B>(Layout::b_tile(base, state.stage), map_b, bar, n0, k0, batch_b);
#endif
    }
};

} // namespace gemmlab::detail::hopper
