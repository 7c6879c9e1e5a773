// Rung 13: warp tiling, a warp owns a sub-tile of the block tile.
//
// Idea: add the level of the hardware that rungs 9-12 ignore, the warp. The block tile is cut
// into warp tiles (e.g. 128x128 into 2 x 4 warp tiles of 64x32) and each warp's 32 lanes tile
// their warp tile as 8 x 4 thread tiles of 8x8, interleaved in 16-byte runs as in rung 11.
// A warp's fragment read of A now covers 8 adjacent 16-byte vectors (128 bytes: one
// shared-memory wavefront, the other 24 lanes get broadcasts) and of B 4 vectors (one
// wavefront), where rung 11's flat 16 x 2 thread arrangement read 16 vectors of A (two
// wavefronts): per k and warp, 4 wavefronts instead of 6 for the same 64 FMAs per thread.
// The warp tile is also the unit a tuner varies: block, warp and thread tile shapes are
// types (TileConfig<GemmShape<BM,BN,BK>, GemmShape<WM,WN,1>, GemmShape<TM,TN,1>, Stages> in
// tile_configs.hpp), and the configurations are the explicit instantiations at the end of this
// file: `auto` picks among them by shape, the registry row runs the default configuration of
// each type (128x256x16 for float, 128x64x8 for double).
// Changed from rung 12: the thread -> C-element mapping (block -> warp -> lane instead of a
// flat 16 x 16 grid) and tile shapes as template parameters; the register-staged double
// buffer and its single barrier per k tile are rung 12's.
// Source (docs/sources.md): public warp-tiling designs (CUTLASS's GemmShape hierarchy).
// Why warp tiles pay through the larger shapes they make expressible (a 64x64 warp tile of 8x16
// thread tiles reads 24 operands per 128 FMAs instead of 16 per 64, and BK = 16 halves the
// barriers of a one-block-per-SM kernel) rather than on rung 12's own 128x128x8 shape, with the
// sweep and the profiler counters: docs/ladder.md.
// Every listed configuration builds without spills or local memory (-Xptxas=-warn-spills); float
// 128x128x16 spilled in its TT instantiation and is not listed.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tile_common.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {
namespace {

template <class Cfg, class T, bool TransA, bool TransB, bool Vec>
struct WarpTileKernel {
    using Map = tile::WarpTileMap<Cfg, T>;
    using LoadA = tile::GmemTileLoader<T, Cfg::BM, Cfg::BK, Cfg::kThreads, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, Cfg::BN, Cfg::BK, Cfg::kThreads, /*KContig=*/!TransB, Vec>;
    static constexpr int kSizeA = Cfg::BK * LoadA::LD; // one (BK, BM + pad) tile, elements
    static constexpr int kSizeB = Cfg::BK * LoadB::LD; // one (BK, BN + pad) tile, elements
    static constexpr int kSmemBytes = 2 * (kSizeA + kSizeB) * int(sizeof(T));
    static_assert(kSmemBytes <= kWarpTileSmemBytes<Cfg, T>, "the family's exported figure (what auto reads) must cover every variant");
    static_assert((kSizeA * sizeof(T)) % 16 == 0, "B tiles must start 16-byte aligned");
};

template <class Cfg, class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(Cfg::kThreads, (tile::kMinBlocksPerSm<Cfg, T, Vec>))
    warp_tile_kernel(GemmOperands<T> g, bool swapped, BatchStrides batch) {
    using K = WarpTileKernel<Cfg, T, TransA, TransB, Vec>;
    using LoadA = typename K::LoadA;
    using LoadB = typename K::LoadB;
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const As = reinterpret_cast<T*>(smem_raw); // 2 x (BK, BM + pad): op(A) tiles, k-major
    T* const Bs = As + 2 * K::kSizeA;             // 2 x (BK, BN + pad): op(B) tiles, k-major

    const int tid = threadIdx.x;
    const typename K::Map map(tid);
    int64_t row0, col0;
    tile::block_tile_origin(swapped, Cfg::BM, Cfg::BN, row0, col0);

    LoadA load_a(batch_a(g, batch), g.lda, g.m, row0, tid); // this block's batch (blockIdx.z)
    LoadB load_b(batch_b(g, batch), g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // next tile, in flight from global memory
    T acc[Cfg::TM][Cfg::TN] = {};         // (TM, TN) accumulators

    // Prologue: tile 0 into buffer 0.
    constexpr int BK = Cfg::BK;
    int64_t k_left = g.k; // k elements from the current tile's origin to the end of k
    load_a.load(ra, tile::tile_depth<BK>(k_left));
    load_b.load(rb, tile::tile_depth<BK>(k_left));
    load_a.store(As, ra);
    load_b.store(Bs, rb);
    __syncthreads();

    for (int cur = 0;; cur ^= 1) {
        k_left -= BK; // now counted from the next tile's origin
        const bool has_next = k_left > 0;
        if (has_next) { // gmem -> registers for the next tile
            load_a.advance();
            load_b.advance();
            load_a.load(ra, tile::tile_depth<BK>(k_left));
            load_b.load(rb, tile::tile_depth<BK>(k_left));
        }
        // smem -> registers -> FMA on the current tile
        tile::mma_warp_tile<Cfg, T, LoadA::LD, LoadB::LD>(acc, As + cur * K::kSizeA + map.m_off,
                                                          Bs + cur * K::kSizeB + map.n_off);
        if (!has_next) break;
        // registers -> the other buffer (its readers finished before the previous barrier)
        load_a.store(As + (cur ^ 1) * K::kSizeA, ra);
        load_b.store(Bs + (cur ^ 1) * K::kSizeB, rb);
        __syncthreads();
    }

    // epilogue
    using Map = typename K::Map;
    tile::store_tile<T, Vec, Cfg::TM, Cfg::TN, Map::kRun, Map::kStrideM, Map::kRun, Map::kStrideN>(
        with_batch_c(g, batch), acc, row0 + map.m_off, col0 + map.n_off);
}

/// The kernel and its shared memory for one op/alignment combination (tile::launch_block_tiled).
template <class Cfg, class T>
struct WarpTileEntry {
    template <bool TA, bool TB, bool Vec>
    struct Of {
        static constexpr auto kKernel = &warp_tile_kernel<Cfg, T, TA, TB, Vec>;
        static constexpr int kSmemBytes = WarpTileKernel<Cfg, T, TA, TB, Vec>::kSmemBytes;
    };
};

} // namespace

template <class Cfg, class T>
void launch_warp_tile_cfg(const GemmArgs<T>& g, cudaStream_t stream) {
    tile::launch_block_tiled<Cfg, WarpTileEntry<Cfg, T>::template Of>(g, stream);
}

// The registry row runs the configuration measured fastest at 4096^3 (see the header).
template <class T>
void launch_warp_tile(const GemmArgs<T>& g, cudaStream_t stream) {
    if constexpr (sizeof(T) == 4) launch_warp_tile_cfg<Cfg128x256x16>(g, stream);
    else launch_warp_tile_cfg<Cfg128x64x8>(g, stream);
}

// The configurations that exist (tile_configs.hpp names them).
template void launch_warp_tile_cfg<Cfg128x128x8, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x256x8, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x64x8, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg64x64x8, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg64x64x16, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x256x16, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x64x16, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x64x8, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x128x16, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg64x64x16, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg128x128x8, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_warp_tile_cfg<Cfg64x64x8, double>(const GemmArgs<double>&, cudaStream_t);

template void launch_warp_tile<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_warp_tile<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
