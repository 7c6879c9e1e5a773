// Rung 21: operands loaded by the Tensor Memory Accelerator (TMA), stages handed over on
// mbarriers.
//
// Idea: in rung 20 every thread spends instructions and registers computing swizzled addresses
// and issuing 16-byte cp.async, and a block-wide barrier per k tile makes the MMA wait for the
// slowest copy. TMA moves a whole 2-D box (64 k x BM rows of A, or 64 m x 64 k for an MN-major
// panel) with one instruction issued by one thread, swizzles it on the way (the tensor map says
// SWIZZLE_128B) and zero-fills whatever lies outside the matrix, so edge tiles need no code.
// Tensor maps are built on the host per call (hopper/launch.cuh) and passed as __grid_constant__
// parameters. The stages become a ring of mbarriers (hopper/pipeline.cuh): TMA completes its
// bytes on a stage's "full" barrier; consumers release a stage on its "empty" barrier once the
// wgmma reading it has retired (wait_group 1), and thread 0 refills it. No block barrier in the
// main loop, and one wgmma group stays in flight across iterations.
// Changed from rung 20: the copies (TMA instead of cp.async), the synchronization (mbarriers
// instead of __syncthreads), wgmma overlapped with the next stage's wait.
// Measured: docs/ladder.md.

#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/kernels/hopper/launch.cuh"
#include "gemm/kernels/hopper/mma_16bit.cuh"
#include "gemm/kernels/hopper/pipeline.cuh"
#include "gemm/kernels/hopper/scheduler.cuh"
#include "gemm/kernels/hopper/tma_loads.cuh"

namespace gemmlab::detail {

namespace hopper {

/// Rung 21's kernel: the consumer warpgroups wait for a stage, multiply, release it, and thread
/// 0 (a consumer too) refills each released stage with the k tile Stages ahead.
template <class Math, class TOut, bool TransA, bool TransB>
__global__ void __launch_bounds__(TmaConfig::kConsumers * 128, 1)
    tma_kernel(const __grid_constant__ CUtensorMap map_a, const __grid_constant__ CUtensorMap map_b,
               const __grid_constant__ CUtensorMap, const Params<Math, TOut> p) {
#ifdef GEMMLAB_SM90A
    using Cfg = TmaConfig;
    using Layout = SharedLayout<Cfg, Math, /*KMajorA=*/TransA, /*KMajorB=*/!TransB>;
    using Loads = TmaLoads<Cfg, Math, Layout>;
    using Pipeline = StagePipeline<Cfg::kStages>;
    constexpr int kTK = Math::kTileK;

    extern __shared__ unsigned char smem_raw[];
    const uint32_t base = Layout::base(smem_raw);
    const Pipeline pipe{Layout::barriers(base)};
    if (threadIdx.x == 0) {
        tma_prefetch_map(&map_a);
        tma_prefetch_map(&map_b);
        pipe.init(Cfg::kConsumerWarps);
    }
    __syncthreads();

    const WorkUnit w = WorkUnits<1>(p.tiles_m, p.tiles_n, int((p.k + kTK - 1) / kTK), 1,
                                    p.k_tiles_per_split)[blockIdx.x];
    const int m0 = w.tm * Cfg::BM, n0 = w.tn * Cfg::BN;
    // k >= 1 here (the API scales C itself when k == 0): told so, the compiler keeps a single
    // path into the k loop instead of zeroing the accumulators again on a path around it, which
    // ptxas would count as writes inside the wgmma pipeline and serialize the wgmma for.
    __builtin_assume(w.kt0 < w.kt1);
    const auto load = [&](const typename Pipeline::State& at, int kt) {
        Loads::issue(pipe, at, base, &map_a, &map_b, m0, n0, kt, 0, 0, p.math); // one product
    };
    const int wg = threadIdx.x / 128;
    float acc[Cfg::BN / 2] = {};
    typename Math::template Consumer<Layout> mma;

    // Prologue: thread 0 fills every stage (fresh barriers: nothing to wait for).
    typename Pipeline::State load_at;
    if (threadIdx.x == 0)
        for (int kt = w.kt0; kt < w.kt1 && kt < w.kt0 + Cfg::kStages; ++kt, ++load_at) load(load_at, kt);
    typename Pipeline::State read, previous;
    for (int kt = w.kt0; kt < w.kt1; ++kt) {
        pipe.consumer_wait(read);
        mma.template k_tile<Cfg::BN>(acc, Layout::a_tile(base, read.stage),
                                     Layout::b_tile(base, read.stage), wg, kt > w.kt0);
        wgmma_commit();
        wgmma_wait<1>(); // the previous k tile's wgmma retired: its stage is free
        if (kt > w.kt0) {
            pipe.consumer_release(previous);
            const int next = kt - 1 + Cfg::kStages;
            if (threadIdx.x == 0 && next < w.kt1) {
                pipe.producer_acquire(load_at); // every consumer warp released it
                load(load_at, next);
                ++load_at;
            }
        }
        previous = read;
        ++read;
    }
    wgmma_wait<0>();
    pin_accumulators(acc);
    store_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C, p.ldc, p.alpha, p.beta, m0, n0, wg);
#endif
}

} // namespace hopper

namespace {
struct TmaRung {
    using Config = hopper::TmaConfig;
    using Schedule = hopper::OneTilePerBlock;
    using Epilogue = hopper::RegisterEpilogue;
    static constexpr int kClusterBlocks = 1;
    static constexpr int kThreads = Config::kConsumers * 128;
    template <class Math, class TOut, bool TA, bool TB>
    static constexpr auto kernel() { return &hopper::tma_kernel<Math, TOut, TA, TB>; }
};
} // namespace

template <class TIn, class TOut>
void launch_tma(const HalfArgs<TIn, TOut>& g, cudaStream_t stream) {
    hopper::launch_half<TmaRung>(g, stream);
}

GEMMLAB_INSTANTIATE_HALF(launch_tma)

} // namespace gemmlab::detail
