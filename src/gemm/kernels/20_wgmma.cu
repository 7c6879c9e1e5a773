// Rung 20: warpgroup MMA (wgmma), the first BF16/FP16 rung on Hopper's own tensor-core path.
//
// Idea: mma.sync (rung 19) has each warp load its operand fragments into registers and issue
// 16x8x16 products; on sm_90 that path reaches only part of the tensor cores' rate. wgmma has a
// warpgroup (4 warps, 128 threads) issue one 64 x N x 16 product (here N = 128) that reads A
// and B straight from shared memory through 64-bit matrix descriptors, runs asynchronously
// (wgmma.fence / commit_group / wait_group) and accumulates in registers. The shared tiles use
// the 128-byte swizzle the descriptors describe (hopper/tile_layout.cuh): 16-byte chunk c of
// row r at c ^ (r % 8).
// This rung keeps everything else simple so that the MMA is the one change: two consumer
// warpgroups (128 x 128 block tile, each 64 x 128), all 256 threads copy the next tiles with
// 16-byte cp.async into a 4-stage ring, computing the swizzled address of every chunk, and a
// block barrier per k tile hands stages from copies to wgmma.
// Changed from rung 19: the MMA instruction and its operand path (descriptors instead of
// ldmatrix fragments), the swizzled layout. Operands whose base or columns are not 16-byte
// aligned take rung 19's kernel.
// Measured: docs/ladder.md (the ncu evidence: HGMMA in SASS, tensor pipe utilisation).

#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/kernels/hopper/launch.cuh"
#include "gemm/kernels/hopper/mma_16bit.cuh"
#include "gemm/kernels/hopper/scheduler.cuh"

namespace gemmlab::detail {

namespace hopper {

#ifdef GEMMLAB_SM90A

/// The whole block copies one operand tile of Shape, chunk by chunk, into the swizzled layout,
/// zero-filling outside the matrix. (inner, outer) are the operand's contiguous and strided
/// extents; mn0 and k0 the tile's origin.
template <class TIn, class Shape, int Threads>
__device__ __forceinline__ void copy_tile_cp_async(uint32_t dst, const TIn* X, int64_t ld,
                                                   int64_t inner, int64_t outer, int64_t mn0,
                                                   int64_t k0) {
    constexpr bool kKMajor = Shape::kKMajor;
    for (int chunk = threadIdx.x; chunk < Shape::kChunks; chunk += Threads) {
        const int panel = chunk / (Shape::kPanelRows * 8);
        const int row = (chunk / 8) % Shape::kPanelRows;
        const int c = chunk % 8;
        const int64_t in = kKMajor ? k0 + 8 * c : mn0 + 64 * panel + 8 * c;
        const int64_t out = kKMajor ? mn0 + row : k0 + row;
        const int64_t left = (out < outer && in < inner) ? inner - in : 0;
        const int bytes = int(left < 8 ? left : 8) * 2;
        const TIn* src = bytes > 0 ? X + in + out * ld : X;
        const uint32_t at = dst + panel * Shape::kPanelBytes + row * 128 + ((c ^ (row % 8)) * 16);
        ptx::cp_async_zfill<16>(at, src, bytes);
    }
}

#endif // GEMMLAB_SM90A

/// Rung 20's kernel: a cp.async ring of Stages k tiles, a block barrier per k tile, and the
/// 16-bit wgmma of both consumer warpgroups on the stage that landed.
template <class Math, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(WgmmaConfig::kConsumers * 128, 1)
    wgmma_cp_async_kernel(const __grid_constant__ CUtensorMap, const __grid_constant__ CUtensorMap,
                          const __grid_constant__ CUtensorMap, const Params<Math, TOut> p) {
#ifdef GEMMLAB_SM90A
    using Cfg = WgmmaConfig;
    using Layout = SharedLayout<Cfg, Math, /*KMajorA=*/TransA, /*KMajorB=*/!TransB>;
    using ShapeA = typename Layout::ShapeA;
    using ShapeB = typename Layout::ShapeB;
    using TIn = typename Math::Storage;
    constexpr int kStages = Cfg::kStages, kThreads = Cfg::kConsumers * 128, kTK = Math::kTileK;

    extern __shared__ unsigned char smem_raw[];
    const uint32_t base = Layout::base(smem_raw);
    const WorkUnit w = WorkUnits<1>(p.tiles_m, p.tiles_n, int((p.k + kTK - 1) / kTK), 1,
                                    p.k_tiles_per_split)[blockIdx.x];
    const int64_t m0 = int64_t(w.tm) * Cfg::BM, n0 = int64_t(w.tn) * Cfg::BN;
    const auto load_stage = [&](int stage, int kt) {
        copy_tile_cp_async<TIn, ShapeA, kThreads>(Layout::a_tile(base, stage), p.A, p.lda,
                                                  TransA ? p.k : p.m, TransA ? p.m : p.k, m0,
                                                  int64_t(kt) * kTK);
        copy_tile_cp_async<TIn, ShapeB, kThreads>(Layout::b_tile(base, stage), p.B, p.ldb,
                                                  TransB ? p.n : p.k, TransB ? p.k : p.n, n0,
                                                  int64_t(kt) * kTK);
    };

    // Prologue: stages 0 .. Stages-2 in flight.
    for (int s = 0; s < kStages - 1; ++s) {
        if (w.kt0 + s < w.kt1) load_stage(s, w.kt0 + s);
        ptx::cp_async_commit();
    }
    const int wg = threadIdx.x / 128;
    float acc[Cfg::BN / 2] = {};
    typename Math::template Consumer<Layout> mma;
    for (int kt = w.kt0; kt < w.kt1; ++kt) {
        const int s = (kt - w.kt0) % kStages;
        ptx::cp_async_wait<kStages - 2>();
        fence_proxy_async(); // the copies are generic-proxy writes that wgmma reads
        __syncthreads();     // stage kt landed; every warpgroup is done with kt - 1
        const int next = kt + kStages - 1;
        if (next < w.kt1) load_stage((next - w.kt0) % kStages, next);
        ptx::cp_async_commit();
        mma.template k_tile<Cfg::BN>(acc, Layout::a_tile(base, s), Layout::b_tile(base, s), wg,
                                     kt > w.kt0);
        wgmma_commit();
        wgmma_wait<0>(); // the next iteration's copies overwrite stage kt - 1
    }
    pin_accumulators(acc);
    store_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C, p.ldc, p.alpha, p.beta, m0, n0, wg);
#endif
}

} // namespace hopper

template <class TIn, class TOut>
void launch_wgmma(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    using namespace hopper;
    using Cfg = WgmmaConfig;
    using Math = Mma16Bit<TIn>;
    if (!feedable(g)) {
        launch_mma_sync_f16(g, stream);
        return;
    }
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        launch_tiles<Cfg, OneTilePerBlock, 1, Cfg::kConsumers * 128,
                     &wgmma_cp_async_kernel<Math, TOut, TA, TB>>(CUtensorMap{}, CUtensorMap{},
                                                                 CUtensorMap{}, half_params<Math>(g),
                                                                 stream);
    });
}

GEMMLAB_INSTANTIATE_HALF(launch_wgmma)

} // namespace gemmlab::detail
