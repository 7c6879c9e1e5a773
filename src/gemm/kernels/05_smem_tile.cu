// Rung 5: shared-memory tiles, one C element per thread.
//
// Idea: stage operands through shared memory. A block of 32 x 32 threads owns a 32 x 32 tile of
// C; for every 32-deep slice of k it copies a 32 x 32 tile of op(A) and one of op(B) from global
// memory into shared memory (each thread one element of each, coalesced), waits at a barrier, and
// then every thread reads its row of the A tile and its column of the B tile from shared memory.
// Each global element is now loaded once per block instead of once per thread that uses it: a
// 32x cut in global loads. Tile elements outside m, n or k are zero-filled, so they add nothing
// and any shape works.
// The shared layout is the textbook's first one: As[i][p] and Bs[j][p]. The B reads of a warp are
// one broadcast, but its 32 A reads As[0..31][p] lie 32 elements apart: all in one bank, a 32-way
// conflict for float. Rung 6 fixes only that.
// Changed from rung 4: operands come from shared-memory tiles, not straight from global memory,
// and each thread is back to one C element (tiling is introduced before register blocking on the
// GPU; rungs 7-8 bring register reuse back on top of the tiles). Threads are a 1-D block of
// 1024, split into (row, col) once.
// Source (docs/sources.md): SGEMM v2-v3, shared-memory talk, DCU GEMM 3.5.6.
// Measurements and the comparison with rung 4: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kBM = 32;              // C rows per block
constexpr int kBN = 32;              // C columns per block
constexpr int kBK = 32;              // k depth of one shared tile
constexpr int kThreads = kBM * kBN;  // one thread per C element: 1024
constexpr int kWarp = 32;

static_assert(kBM == kWarp, "a warp must cover one column of the C tile (row = lane)");
static_assert(kBK == kWarp && kBN == kWarp,
              "the loaders give each thread one element: lane walks the 32-long contiguous side");
static_assert(kBM * kBK == kThreads && kBK * kBN == kThreads,
              "each tile of op(A) (BM, BK) and op(B) (BK, BN) must hold one element per thread");

// Stage 1, global -> shared: the (BM, BK) tile of op(A) at (i0, p0), zero outside m x k. The lane
// walks the side that is contiguous in global memory (i for op N, p for op T), so the warp's
// read is coalesced either way; only this index choice depends on the op.
template <bool TransA, class T>
__device__ __forceinline__ void load_a_tile(T (&As)[kBM][kBK], const GemmArgs<T>& g, int64_t i0,
                                            int64_t p0, int lane, int warp) {
    const int i = TransA ? warp : lane;
    const int p = TransA ? lane : warp;
    As[i][p] = op_at_or_zero<TransA>(g.A, g.lda, g.m, g.k, i0 + i, p0 + p);
}

// Stage 1, global -> shared: the (BK, BN) tile of op(B) at (p0, j0), zero outside k x n, stored
// transposed as Bs[j][p]. The lane walks p for op N and j for op T (the contiguous side).
template <bool TransB, class T>
__device__ __forceinline__ void load_b_tile(T (&Bs)[kBN][kBK], const GemmArgs<T>& g, int64_t p0,
                                            int64_t j0, int lane, int warp) {
    const int p = TransB ? warp : lane;
    const int j = TransB ? lane : warp;
    Bs[j][p] = op_at_or_zero<TransB>(g.B, g.ldb, g.k, g.n, p0 + p, j0 + j);
}

// Stages 2 + 3, shared -> registers and multiply-accumulate over one k tile: row r of As times
// column c of Bs. Lanes differ in r: As[r][p] is 32 elements apart across the warp (conflict).
template <class T>
__device__ __forceinline__ T dot_tile(const T (&As)[kBM][kBK], const T (&Bs)[kBN][kBK], int r,
                                      int c, T acc) {
#pragma unroll
    for (int p = 0; p < kBK; ++p) acc += As[r][p] * Bs[c][p];
    return acc;
}

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads) smem_tile_kernel(GemmArgs<T> g, bool swapped) {
    __shared__ T As[kBM][kBK]; // (BM, BK) op(A) tile, row-major: As[i][p]
    __shared__ T Bs[kBN][kBK]; // (BN, BK) op(B) tile, transposed: Bs[j][p]

    const int lane = threadIdx.x % kWarp; // row of C in the tile; fast index of the loaders
    const int warp = threadIdx.x / kWarp; // column of C in the tile; slow index of the loaders
    int64_t tile_m, tile_n;
    block_tile(swapped, tile_m, tile_n);
    const int64_t i0 = tile_m * kBM;
    const int64_t j0 = tile_n * kBN;

    // No early exit: threads outside C still load their tile elements and meet every barrier.
    T acc = 0;
    for (int64_t p0 = 0; p0 < g.k; p0 += kBK) {
        load_a_tile<TransA>(As, g, i0, p0, lane, warp);
        load_b_tile<TransB>(Bs, g, p0, j0, lane, warp);
        __syncthreads(); // tiles complete before anyone reads them
        acc = dot_tile(As, Bs, lane, warp, acc);
        __syncthreads(); // everyone done reading before the next tile overwrites them
    }
    // Stage 4, epilogue.
    store_c_guarded(g.C, g.ldc, g.m, g.n, i0 + lane, j0 + warp, acc, g.alpha, g.beta);
}

} // namespace

template <class T>
void launch_smem_tile(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    launch_rung(g, grid, dim3(kThreads), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return smem_tile_kernel<T, TA, TB>;
                });
}

template void launch_smem_tile<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_smem_tile<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
