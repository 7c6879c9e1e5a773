// Rung 14: cp.async multi-stage pipeline (sm_80+).
//
// Idea: let the copy engine, not the threads, move tiles from global to shared memory, and keep
// several tiles in flight. cp.async (LDGSTS) copies global -> shared without passing through
// registers, and its groups let a thread wait for "all but the newest N" copies. With S stages
// (3-4 shared buffers) the block keeps S-1 k tiles in flight while it multiplies the oldest
// one: memory latency up to S-1 tiles' worth of arithmetic is hidden, instead of rung 13's one
// tile, and the staging registers of rungs 12-13 (plus their STS instructions) disappear, which
// leaves the registers to the accumulators. Edge tiles use cp.async's zero fill: a copy with
// src-size < 16 reads only the bytes inside the matrix and writes zeros for the rest (src-size
// 0 reads nothing at all), so predication costs no extra instructions.
// Layouts: cp.async cannot scatter one 16-byte vector over four shared rows, so an operand
// that is k-contiguous in memory (B with op N: the NN hot path's B) is kept in its global
// layout, an mn-major (BN, BK + V) tile filled by 16-byte copies, and read as TN LDS.128 of V
// consecutive k per column (mma_warp_tile_nmajor_b); its columns are dealt to lanes one by one
// so that the 4 lane columns of a read are 4 consecutive padded rows (no bank conflict). A
// k-contiguous A (op T, off the hot path) is still transposed element by element (4- or 8-byte
// cp.async) into rung 13's (BK, BM + pad) layout; an mn-contiguous operand moves in 16-byte
// copies when aligned. The tile loader is cp_async_tile.cuh, shared with rungs 15-17.
// Changed from rung 13: the global -> shared stage (cp.async into S buffers instead of
// registers + stores into 2), one barrier per k tile kept; warp tiling, the A fragment reads,
// the outer product and the epilogue are rung 13's.
// Source (docs/sources.md): sm_80+ cp.async.
// Where this pays and where it does not: rung 12's one-tile register prefetch already hides the
// global latency of these shapes, so in float the pipeline's extra instructions (copy addresses,
// predicates, groups, stage rotation) cost issue slots that the FMAs need, while in double, where
// the FMAs leave issue slots free, it matches or passes rung 13. The measurements and the
// profiler counters behind this: docs/ladder.md.

#include <cstdint>

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/cp_async_tile.cuh"
#include "gemm/kernels/tile_common.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {
namespace {

// --------------------------------------------------------------------------------- the kernel

/// Fragment read + multiply-accumulate over one (BK) deep stage when op(B) is stored mn-major,
/// (BN, BK + V): each 16-byte read of a B row gives V consecutive k of one column n, so the
/// thread first reads its TN columns for k .. k+V-1 (TN LDS.128, the same count per k tile as
/// the k-major read), then runs V outer products with A fragments read per k as in rung 13.
/// The thread's columns are n_off + j * LanesN (j < TN): at a given j the warp's 4 distinct
/// lane_n read 4 consecutive rows, which the V-element row padding puts on different banks.
template <class Cfg, class T, int LDA, int LDB>
__device__ __forceinline__ void mma_warp_tile_nmajor_b(T (&acc)[Cfg::TM][Cfg::TN], const T* a_row,
                                                       const T* b_row) {
    using Map = tile::WarpTileMap<Cfg, T>;
    constexpr int V = tile::kVecWidth<T>;
#pragma unroll
    for (int kc = 0; kc < Cfg::BK; kc += V) {
        T bk[Cfg::TN][V]; // (TN, V): columns x k of this k chunk
#pragma unroll
        for (int j = 0; j < Cfg::TN; ++j)
            tile::vec_load(b_row + j * Cfg::kLanesN * LDB + kc, bk[j]);
#pragma unroll
        for (int v = 0; v < V; ++v) {
            T a[Cfg::TM], b[Cfg::TN];
            tile::load_fragment<T, Cfg::TM, Map::kRun, Map::kStrideM>(a, a_row + (kc + v) * LDA);
#pragma unroll
            for (int j = 0; j < Cfg::TN; ++j) b[j] = bk[j][v];
            tile::outer_product(acc, a, b);
        }
    }
}

template <class Cfg, class T, bool TransA, bool TransB, bool Vec>
struct AsyncPipelineKernel {
    // op(B) is k-contiguous when B is not transposed: keep it mn-major (16-byte copies).
    static constexpr bool kBMnMajor = !TransB;
    // Row padding: rung 13's for the (BK, BM + pad) A tile; V elements for an mn-major B tile,
    // which puts 4 consecutive rows on 4 different 16-byte bank groups (the fragment read,
    // mma_warp_tile_nmajor_b, needs that to be conflict-free).
    using LoadA = tile::AsyncTileLoader<T, Cfg::BM, Cfg::BK, Cfg::kThreads, /*KContig=*/TransA, Vec,
                                        /*MnMajor=*/false, tile::kSmemPad<T, TransA>>;
    using LoadB = tile::AsyncTileLoader<T, Cfg::BN, Cfg::BK, Cfg::kThreads, /*KContig=*/!TransB, Vec,
                                        kBMnMajor, kBMnMajor ? tile::kVecWidth<T> : 0>;
    static constexpr int kSizeA = LoadA::kTileElems; // one (BK, BM + pad) tile, elements
    static constexpr int kSizeB = LoadB::kTileElems; // (BK, BN) k-major or (BN, BK + V) mn-major
    static constexpr int kStageBytes = (kSizeA + kSizeB) * int(sizeof(T));
    static constexpr int kSmemBytes = Cfg::kStages * kStageBytes;
    static_assert((kSizeA * sizeof(T)) % 16 == 0, "B tiles must start 16-byte aligned");
    static_assert(kStageBytes % 16 == 0, "stages must start 16-byte aligned");
    static_assert(kSmemBytes <= 227 * 1024, "the pipeline must fit in 227 KB of shared memory");
    static_assert(kSmemBytes <= kAsyncPipelineSmemBytes<Cfg, T>,
                  "the family's exported figure (what auto reads) must cover every variant");
};

/// Resident blocks per SM for __launch_bounds__: rung 13's, except when both operands are
/// k-contiguous (op(A) = A^T scattered element by element plus the mn-major B fragments), which
/// needs a few registers more than the 2-block cap of 128 leaves (ptxas -warn-spills); that
/// off-hot-path case gets one block fewer.
template <class Cfg, class T, bool TransA, bool TransB, bool Vec>
inline constexpr int kPipelineMinBlocks = [] {
    const int b = tile::kMinBlocksPerSm<Cfg, T, Vec>;
    return (TransA && !TransB && b > 1) ? b - 1 : b;
}();

template <class Cfg, class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(Cfg::kThreads, (kPipelineMinBlocks<Cfg, T, TransA, TransB, Vec>))
    async_pipeline_kernel(GemmOperands<T> g, bool swapped, BatchStrides batch) {
    using K = AsyncPipelineKernel<Cfg, T, TransA, TransB, Vec>;
    using Map = tile::WarpTileMap<Cfg, T>;
    constexpr int BK = Cfg::BK, S = Cfg::kStages;
    // Stage s holds an op(A) tile (BK, BM + pad) followed by an op(B) tile.
    extern __shared__ __align__(16) unsigned char smem_raw[];
    T* const smem = reinterpret_cast<T*>(smem_raw);
    const uint32_t smem_u32 = uint32_t(__cvta_generic_to_shared(smem_raw));

    const int tid = threadIdx.x;
    const Map map(tid);
    // First column of this thread: rung 13's run start, or (mn-major B) one column per lane,
    // the thread's TN columns then stepping by LanesN.
    const int lane_n = (tid % 32) / Cfg::kLanesM;
    const int n_off = K::kBMnMajor ? map.n_off - lane_n * Map::V + lane_n : map.n_off;
    int64_t row0, col0;
    tile::block_tile_origin(swapped, Cfg::BM, Cfg::BN, row0, col0);

    typename K::LoadA load_a(batch_a(g, batch), g.lda, g.m, row0, tid); // this block's batch
    typename K::LoadB load_b(batch_b(g, batch), g.ldb, g.n, col0, tid);
    T acc[Cfg::TM][Cfg::TN] = {}; // (TM, TN) accumulators

    // gmem -> smem, asynchronously: one commit group per k tile (possibly empty, so that
    // "group t is tile t" holds for the wait count below).
    // issue_left: k elements from the next tile to issue to the end of k. g.A and g.B (batch 0 of
    // the launch, memory the call reads) are the source of copies that read nothing.
    const auto issue_next = [&](int stage, int64_t issue_left) {
        if (issue_left > 0) {
            const uint32_t base = smem_u32 + uint32_t(stage * K::kStageBytes);
            const int depth = tile::tile_depth<BK>(issue_left);
            load_a.issue(base, depth, g.A);
            load_b.issue(base + uint32_t(K::kSizeA * sizeof(T)), depth, g.B);
            load_a.advance();
            load_b.advance();
        }
        ptx::cp_async_commit();
    };

    // Prologue: tiles 0 .. S-2 in flight.
#pragma unroll
    for (int s = 0; s < S - 1; ++s) issue_next(s, g.k - int64_t(s) * BK);

    int read_stage = 0, write_stage = S - 1;
    for (int64_t k_left = g.k;; k_left -= BK) {
        ptx::cp_async_wait<S - 2>(); // this thread's copies of the current tile have landed
        __syncthreads();        // everyone's have; and everyone is done with the previous tile
        issue_next(write_stage, k_left - int64_t(S - 1) * BK); // refill the stage just retired
        // smem -> registers -> FMA on the current tile
        const T* a = smem + read_stage * (K::kStageBytes / int(sizeof(T)));
        if constexpr (K::kBMnMajor)
            mma_warp_tile_nmajor_b<Cfg, T, K::LoadA::LD, K::LoadB::LD>(
                acc, a + map.m_off, a + K::kSizeA + n_off * K::LoadB::LD);
        else
            tile::mma_warp_tile<Cfg, T, K::LoadA::LD, K::LoadB::LD>(acc, a + map.m_off,
                                                                    a + K::kSizeA + n_off);
        if (k_left <= BK) break;
        read_stage = read_stage == S - 1 ? 0 : read_stage + 1;
        write_stage = write_stage == S - 1 ? 0 : write_stage + 1;
    }
    ptx::cp_async_wait<0>(); // leave no copy in flight (only empty groups can remain here)

    // epilogue: columns are runs of V (k-major B) or single columns LanesN apart (mn-major B)
    constexpr int kRunN = K::kBMnMajor ? 1 : Map::kRun;
    constexpr int kStrideN = K::kBMnMajor ? Cfg::kLanesN : Map::kStrideN;
    tile::store_tile<T, Vec, Cfg::TM, Cfg::TN, Map::kRun, Map::kStrideM, kRunN, kStrideN>(
        with_batch_c(g, batch), acc, row0 + map.m_off, col0 + n_off);
}

/// The kernel and its shared memory for one op/alignment combination (tile::launch_block_tiled).
template <class Cfg, class T>
struct AsyncPipelineEntry {
    template <bool TA, bool TB, bool Vec>
    struct Of {
        static constexpr auto kKernel = &async_pipeline_kernel<Cfg, T, TA, TB, Vec>;
        static constexpr int kSmemBytes = AsyncPipelineKernel<Cfg, T, TA, TB, Vec>::kSmemBytes;
    };
};

} // namespace

template <class Cfg, class T>
void launch_async_pipeline_cfg(const GemmArgs<T>& g, cudaStream_t stream) {
    tile::launch_block_tiled<Cfg, AsyncPipelineEntry<Cfg, T>::template Of>(g, stream);
}

// The registry row runs the configuration measured fastest at 4096^3 (see the header).
template <class T>
void launch_async_pipeline(const GemmArgs<T>& g, cudaStream_t stream) {
    if constexpr (sizeof(T) == 4) launch_async_pipeline_cfg<WithStages<Cfg128x256x16, 3>>(g, stream);
    else launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>>(g, stream);
}

// The configurations that exist (tile_configs.hpp names them).
template void launch_async_pipeline_cfg<WithStages<Cfg128x128x8, 4>, float>(const GemmArgs<float>&, cudaStream_t);

template void launch_async_pipeline_cfg<WithStages<Cfg128x256x8, 3>, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x64x8, 4>, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg64x64x16, 3>, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x256x16, 3>, float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x64x16, 3>, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x64x8, 4>, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x128x16, 3>, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg64x64x16, 3>, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg128x128x8, 4>, double>(const GemmArgs<double>&, cudaStream_t);
template void launch_async_pipeline_cfg<WithStages<Cfg64x64x8, 4>, double>(const GemmArgs<double>&, cudaStream_t);

template void launch_async_pipeline<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_async_pipeline<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
