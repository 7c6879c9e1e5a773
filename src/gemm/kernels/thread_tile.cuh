#pragma once
// The kernel of rungs 9 and 10: a (BM, BN, BK) block tile of C computed by (BM/TM) x (BN/TN)
// threads, each owning a (TM, TN) thread tile of consecutive rows and columns. Per k a thread
// reads TM values of op(A) and TN of op(B) from shared memory (16-byte loads) and does TM * TN
// FMAs with them: a register outer product. The two rungs are this one kernel at two shapes
// (rung 9: 64x64x16 with 4x4 per thread, rung 10: 128x128x8 with 8x8), so each rung file holds
// only its idea and its shape.
//
// Thread t owns rows TM*(t % (BM/TM)) .. +TM-1 and columns TN*(t / (BM/TM)) .. +TN-1 of the
// block tile. The stages are one barrier-bracketed k tile at a time: gmem -> smem (through
// registers, tile::GmemTileLoader), smem -> registers -> FMA (mma_tile), then the epilogue.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/tile_common.cuh"

namespace gemmlab::detail::thread_tile {

/// A block tile (Block = GemmShape<BM, BN, BK>) cut into (TM, TN) thread tiles.
template <class Block, int TM_, int TN_>
struct Shape {
    static constexpr int BM = Block::kM, BN = Block::kN, BK = Block::kK;
    static constexpr int TM = TM_, TN = TN_;
    static constexpr int kThreadsM = BM / TM; // threads along m
    static constexpr int kThreads = kThreadsM * (BN / TN);
    static_assert(BM % TM == 0 && BN % TN == 0, "the block tile must be whole thread tiles");
};

// The device code has internal linkage, as each rung's own kernel does: every rung file that
// includes this header instantiates it at its own shape.
namespace {

/// Multiply-accumulate stage over one (BK) deep shared tile pair: per k, TM consecutive m and
/// TN consecutive n values (16-byte loads) and one (TM, TN) outer product. `a_row` / `b_row`
/// point at this thread's first value in row k = 0.
template <class S, class T, int LDA, int LDB>
__device__ __forceinline__ void mma_tile(T (&acc)[S::TM][S::TN], const T* a_row, const T* b_row) {
#pragma unroll
    for (int k = 0; k < S::BK; ++k) {
        T a[S::TM], b[S::TN];
        tile::load_fragment<T, S::TM, S::TM, S::TM>(a, a_row + k * LDA); // TM consecutive m
        tile::load_fragment<T, S::TN, S::TN, S::TN>(b, b_row + k * LDB); // TN consecutive n
        tile::outer_product(acc, a, b);
    }
}

template <class S, class T, bool TransA, bool TransB, bool Vec>
__global__ void __launch_bounds__(S::kThreads) thread_tile_kernel(GemmArgs<T> g, bool swapped) {
    constexpr int BM = S::BM, BN = S::BN, BK = S::BK;
    using LoadA = tile::GmemTileLoader<T, BM, BK, S::kThreads, /*KContig=*/TransA, Vec>;
    using LoadB = tile::GmemTileLoader<T, BN, BK, S::kThreads, /*KContig=*/!TransB, Vec>;
    __shared__ __align__(16) T As[BK * LoadA::LD]; // (BK, BM + pad): op(A) tile, k-major
    __shared__ __align__(16) T Bs[BK * LoadB::LD]; // (BK, BN + pad): op(B) tile, k-major

    const int tid = threadIdx.x;
    const int tm = tid % S::kThreadsM; // rows tm*TM .. tm*TM+TM-1 of the block tile
    const int tn = tid / S::kThreadsM; // columns tn*TN .. tn*TN+TN-1
    int64_t row0, col0;
    tile::block_tile_origin(swapped, BM, BN, row0, col0);

    LoadA load_a(g.A, g.lda, g.m, row0, tid);
    LoadB load_b(g.B, g.ldb, g.n, col0, tid);
    T ra[LoadA::kRegs], rb[LoadB::kRegs]; // staged global values
    T acc[S::TM][S::TN] = {};             // (TM, TN) accumulators

    for (int64_t k_left = g.k; k_left > 0; k_left -= BK) {
        // gmem -> smem
        const int depth = tile::tile_depth<BK>(k_left);
        load_a.load(ra, depth);
        load_b.load(rb, depth);
        load_a.store(As, ra);
        load_b.store(Bs, rb);
        __syncthreads();
        // smem -> registers -> FMA
        mma_tile<S, T, LoadA::LD, LoadB::LD>(acc, As + tm * S::TM, Bs + tn * S::TN);
        __syncthreads(); // the tile may be overwritten only after everyone has read it
        load_a.advance();
        load_b.advance();
    }

    // epilogue
    tile::store_tile<T, Vec, S::TM, S::TN, S::TM, S::TM, S::TN, S::TN>(g, acc, row0 + tm * S::TM,
                                                                       col0 + tn * S::TN);
}

} // namespace

/// Launches the kernel at shape S: the 16-byte paths when tile::vector_ok allows them.
template <class S, class T>
void launch(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile::make_tile_grid(g.m, g.n, S::BM, S::BN);
    const bool vec = tile::vector_ok(g);
    launch_rung(g, grid, dim3(S::kThreads), stream,
                [vec]<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    if (vec) return thread_tile_kernel<S, T, TA, TB, true>;
                    return thread_tile_kernel<S, T, TA, TB, false>;
                });
}

} // namespace gemmlab::detail::thread_tile
