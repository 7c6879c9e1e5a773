// Rung 6: conflict-free shared-memory layout.
//
// Idea: lay the shared tiles out so that every warp-wide shared access touches 32 distinct banks
// (or one address, a broadcast). Shared memory has 32 banks of 4 bytes; word w sits in bank
// w % 32. In rung 5 the 32 lanes of a warp read As[lane][p], 32 elements apart: one bank, 32-way
// conflict, 32 serialized wavefronts per read. Two changes remove every conflict:
//  - A is stored transposed, As[p][i] ("shared memory turned column-major"), so the lanes' reads
//    As[p][lane] are consecutive words. B's reads Bs[col][p] stay a broadcast.
//  - Both tiles get one padding element per row ([32][33]), so a row is 33 words long.
//    The global->shared loads of a transposed operand walk the tile's *row* index with the lane
//    (the contiguous side of op T storage), so they store 33 words apart: bank (33 * lane) % 32
//    = lane, all distinct. Without the pad those stores would be 32-way conflicts.
// For double (8-byte words) the hardware serves a warp in two half-warp wavefronts; consecutive
// doubles and a 33-double stride are conflict-free within each half.
// Changed from rung 5: only the shared layout and the indices that address it.
// Source (docs/sources.md): SGEMM v4, shared-memory talk.
// Measurements and the bank-conflict counters of rungs 5 and 6: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kBM = 32;              // C rows per block
constexpr int kBN = 32;              // C columns per block
constexpr int kBK = 32;              // k depth of one shared tile
constexpr int kPad = 1;              // one extra word per shared row: [32][33]
constexpr int kThreads = kBM * kBN;  // one thread per C element: 1024
constexpr int kWarp = 32;            // also the number of shared-memory banks

static_assert(kBM == kWarp, "a warp must cover one column of the C tile (row = lane)");
static_assert(kBK == kWarp && kBN == kWarp,
              "the loaders give each thread one element: lane walks the 32-long contiguous side");
static_assert(kBM * kBK == kThreads && kBK * kBN == kThreads,
              "each tile of op(A) (BM, BK) and op(B) (BK, BN) must hold one element per thread");
static_assert((kBM + kPad) % kWarp == 1 && (kBK + kPad) % kWarp == 1,
              "a padded row must be 1 word (mod 32 banks) longer, so column walks change bank");

// Stage 1, global -> shared: the (BM, BK) tile of op(A) at (i0, p0), zero outside m x k, stored
// transposed as As[p][i]. The lane walks the side that is contiguous in global memory (i for
// op N: consecutive words; p for op T: 33 words apart thanks to the pad).
template <bool TransA, class T>
__device__ __forceinline__ void load_a_tile(T (&As)[kBK][kBM + kPad], const GemmArgs<T>& g,
                                            int64_t i0, int64_t p0, int lane, int warp) {
    const int i = TransA ? warp : lane;
    const int p = TransA ? lane : warp;
    As[p][i] = op_at_or_zero<TransA>(g.A, g.lda, g.m, g.k, i0 + i, p0 + p);
}

// Stage 1, global -> shared: the (BK, BN) tile of op(B) at (p0, j0), zero outside k x n, stored
// as Bs[j][p]. The lane walks p for op N (consecutive words) and j for op T (33 words apart).
template <bool TransB, class T>
__device__ __forceinline__ void load_b_tile(T (&Bs)[kBN][kBK + kPad], const GemmArgs<T>& g,
                                            int64_t p0, int64_t j0, int lane, int warp) {
    const int p = TransB ? warp : lane;
    const int j = TransB ? lane : warp;
    Bs[j][p] = op_at_or_zero<TransB>(g.B, g.ldb, g.k, g.n, p0 + p, j0 + j);
}

// Stages 2 + 3, shared -> registers and multiply-accumulate over one k tile: row r of op(A)
// times column c of op(B). Across a warp As[p][r] is 32 consecutive words and Bs[c][p] one
// broadcast word: no conflict.
template <class T>
__device__ __forceinline__ T dot_tile(const T (&As)[kBK][kBM + kPad],
                                      const T (&Bs)[kBN][kBK + kPad], int r, int c, T acc) {
#pragma unroll
    for (int p = 0; p < kBK; ++p) acc += As[p][r] * Bs[c][p];
    return acc;
}

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads) smem_conflict_free_kernel(GemmArgs<T> g, bool swapped) {
    __shared__ T As[kBK][kBM + kPad]; // (BK, BM) op(A) tile, transposed: As[p][i], padded
    __shared__ T Bs[kBN][kBK + kPad]; // (BN, BK) op(B) tile, transposed: Bs[j][p], padded

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
void launch_smem_conflict_free(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    launch_rung(g, grid, dim3(kThreads), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return smem_conflict_free_kernel<T, TA, TB>;
                });
}

template void launch_smem_conflict_free<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_smem_conflict_free<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
