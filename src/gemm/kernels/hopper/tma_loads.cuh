#pragma once
// The producer's step "load a stage" for rungs 21-26: one thread announces the stage's bytes on
// its full barrier and issues one TMA box per operand tile (K-major: 128 bytes of k x R rows) or
// per panel (MN-major: R / kTileK panels of kTileK x kTileK), for each part of the math policy.
// TMA swizzles as the tensor map says and zero-fills outside the matrix, so edge tiles need no
// code. Rung 23 replaces this step with its multicast form (23_cluster_multicast.cuh).

#include <cstdint>

#include "gemm/kernels/hopper/pipeline.cuh"
#include "gemm/kernels/hopper/tile_layout.cuh"

namespace gemmlab::detail::hopper {

#ifdef GEMMLAB_SM90A

/// One operand tile of shape Shape whose m or n origin is `mn0`, k origin `k0`, of product
/// `batch` (0 for an operand every product shares), into `dst`.
template <class Shape>
__device__ __forceinline__ void tma_load_tile(uint32_t dst, const void* map, uint32_t bar, int mn0,
                                              int k0, int batch) {
    if constexpr (Shape::kKMajor) {
        tma_load_3d(dst, map, bar, k0, mn0, batch);
    } else {
#pragma unroll
        for (int pa = 0; pa < Shape::kPanels; ++pa)
            tma_load_3d(dst + pa * Shape::kPanelBytes, map, bar, mn0 + Shape::kRowElems * pa, k0,
                        batch);
    }
}

#endif // GEMMLAB_SM90A

/// Loads k tile kt of block tile (m0, n0) of products batch_a (of A) and batch_b (of B) into
/// the stage at `state` (one thread).
template <class Cfg, class Math, class Layout>
struct TmaLoads {
    template <class Pipeline, class Args>
    __device__ __forceinline__ static void issue(const Pipeline& pipe,
                                                 const typename Pipeline::State& state,
                                                 uint32_t base, const void* map_a, const void* map_b,
                                                 int m0, int n0, int kt, int batch_a,
                                                 int batch_b, const Args& args) {
#ifdef GEMMLAB_SM90A
        using A = typename Layout::ShapeA;
        using B = typename Layout::ShapeB;
        const int k0 = kt * Math::kTileK;
        const uint32_t bar = pipe.full(state);
        pipe.producer_expect(state, Cfg::kStageBytes);
        const uint32_t a = Layout::a_tile(base, state.stage), b = Layout::b_tile(base, state.stage);
#pragma unroll
        for (int part = 0; part < Cfg::kParts; ++part) {
            tma_load_tile<A>(a + part * A::kBytes, map_a, bar, m0 + Math::part_row_a(args, part), k0,
                             batch_a);
            tma_load_tile<B>(b + part * B::kBytes, map_b, bar, n0 + Math::part_row_b(args, part), k0,
                             batch_b);
        }
#endif
    }
};

} // namespace gemmlab::detail::hopper
