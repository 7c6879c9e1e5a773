// Rung 7: 1-D thread tile, each thread computes a column of TM = 8 results.
//
// Idea: bring register reuse (rungs 3-4) on top of the shared tiles. A block of 512 threads owns a
// 64 x 64 tile of C and walks k in slices of BK = 8. Each thread computes 8 consecutive rows of
// one column of C: per k step it reads one op(B) value from shared memory into a register and
// reuses it for 8 multiply-adds against 8 op(A) values. Shared loads per multiply-add fall from
// 2 (rungs 5-6) to 9/8 (BK * (1 + TM) loads per BK * TM multiply-adds), and global loads per
// multiply-add from 1/16 to 1/32 (2 elements per thread per 64 multiply-adds).
// Mapping: a warp is 32 consecutive columns of one row group (threadCol = tid % BN), so its
// op(B) reads Bs[p][col] are 32 consecutive words and its op(A) reads As[p][row .. row+7] are one
// address for the whole warp: a broadcast, which the compiler issues as 128-bit shared loads
// because the 8 values are contiguous (LDS.128 in the SASS).
// The shared layout keeps rung 6's rule (every warp access conflict-free or a broadcast) for the
// new shapes: both tiles are k-major, [BK][BM + 4] and [BK][BN + 4]. The pad of 4 (not 1) keeps
// every row 16-byte aligned for those vector reads and still spreads the stores of a load whose
// lanes walk k (8 rows x 4 columns per warp) over 32 distinct banks.
// Changed from rung 6: tile 64 x 64 x 8 instead of 32 x 32 x 32, 512 threads with an 8-element
// register accumulator each instead of 1024 with one, and the B value cached in a register.
// Source (docs/sources.md): 1-D thread tile, SGEMM v5.
// Measurements and the comparison with rung 6: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kBM = 64;                     // C rows per block
constexpr int kBN = 64;                     // C columns per block
constexpr int kBK = 8;                      // k depth of one shared tile
constexpr int kTM = 8;                      // C rows per thread (one column)
constexpr int kRowGroups = kBM / kTM;       // 8 groups of TM rows
constexpr int kThreads = kRowGroups * kBN;  // 512
constexpr int kPad = 4;                     // extra elements per shared row
constexpr int kWarp = 32;                   // also the number of shared-memory banks

static_assert(kBM % kTM == 0, "BM must be a multiple of TM (whole row groups)");
static_assert(kThreads == kBM * kBN / kTM, "one thread per TM x 1 column sliver of the C tile");
static_assert(kBN % kWarp == 0,
              "a warp must sit inside one row group so that its op(A) reads are one broadcast");
static_assert((kBM * kBK) % kThreads == 0 && (kBK * kBN) % kThreads == 0,
              "the loaders give every thread the same number of tile elements");
static_assert((kBM + kPad) % kWarp * kBK == kWarp && (kBN + kPad) % kWarp * kBK == kWarp,
              "the BK rows of a padded tile must start in BK distinct 4-bank groups, so a load "
              "whose lanes walk k stores conflict-free");
static_assert((kBM + kPad) % 4 == 0 && kTM % 4 == 0,
              "rows and each thread's TM values must be 16-byte aligned for 128-bit shared reads");

// Stage 1, global -> shared: the (BM, BK) tile of op(A) at (i0, p0), zero outside m x k, stored
// k-major as As[p][i]. Consecutive threads walk the side contiguous in global memory: i for op N,
// p for op T. Only these two index lines depend on the op.
template <bool TransA, class T>
__device__ __forceinline__ void load_a_tile(T (&As)[kBK][kBM + kPad], const GemmArgs<T>& g,
                                            int64_t i0, int64_t p0, int tid) {
#pragma unroll
    for (int s = 0; s < kBM * kBK / kThreads; ++s) {
        const int e = tid + s * kThreads;
        const int i = TransA ? e / kBK : e % kBM;
        const int p = TransA ? e % kBK : e / kBM;
        As[p][i] = op_at_or_zero<TransA>(g.A, g.lda, g.m, g.k, i0 + i, p0 + p);
    }
}

// Stage 1, global -> shared: the (BK, BN) tile of op(B) at (p0, j0), zero outside k x n, stored
// as Bs[p][j]. Consecutive threads walk p for op N, j for op T.
template <bool TransB, class T>
__device__ __forceinline__ void load_b_tile(T (&Bs)[kBK][kBN + kPad], const GemmArgs<T>& g,
                                            int64_t p0, int64_t j0, int tid) {
#pragma unroll
    for (int s = 0; s < kBK * kBN / kThreads; ++s) {
        const int e = tid + s * kThreads;
        const int p = TransB ? e / kBN : e % kBK;
        const int j = TransB ? e % kBN : e / kBK;
        Bs[p][j] = op_at_or_zero<TransB>(g.B, g.ldb, g.k, g.n, p0 + p, j0 + j);
    }
}

// Stages 2 + 3, shared -> registers and multiply-accumulate over one k tile: one op(B) value per
// k step cached in a register and reused for the TM results of the column.
template <class T>
__device__ __forceinline__ void mac_tile(T (&acc)[kTM], const T (&As)[kBK][kBM + kPad],
                                         const T (&Bs)[kBK][kBN + kPad], int row, int col) {
#pragma unroll
    for (int p = 0; p < kBK; ++p) {
        const T b = Bs[p][col]; // warp: 32 consecutive words
#pragma unroll
        for (int t = 0; t < kTM; ++t) acc[t] += As[p][row + t] * b; // warp: one broadcast
    }
}

// Stage 4, epilogue: alpha/beta and the guarded store of the thread's TM x 1 column sliver.
template <class T>
__device__ __forceinline__ void store_column(const GemmArgs<T>& g, int64_t i, int64_t j,
                                             const T (&acc)[kTM]) {
#pragma unroll
    for (int t = 0; t < kTM; ++t)
        store_c_guarded(g.C, g.ldc, g.m, g.n, i + t, j, acc[t], g.alpha, g.beta);
}

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads) thread_tile_1d_kernel(GemmArgs<T> g, bool swapped) {
    alignas(16) __shared__ T As[kBK][kBM + kPad]; // (BK, BM) op(A) tile, k-major: As[p][i]
    alignas(16) __shared__ T Bs[kBK][kBN + kPad]; // (BK, BN) op(B) tile: Bs[p][j]

    const int col = threadIdx.x % kBN;         // column of C in the tile
    const int row = threadIdx.x / kBN * kTM;   // first of this thread's TM rows in the tile
    int64_t tile_m, tile_n;
    block_tile(swapped, tile_m, tile_n);
    const int64_t i0 = tile_m * kBM;
    const int64_t j0 = tile_n * kBN;

    // No early exit: threads outside C still load their tile elements and meet every barrier.
    T acc[kTM] = {}; // (TM) the thread's column sliver of C
    for (int64_t p0 = 0; p0 < g.k; p0 += kBK) {
        load_a_tile<TransA>(As, g, i0, p0, threadIdx.x);
        load_b_tile<TransB>(Bs, g, p0, j0, threadIdx.x);
        __syncthreads(); // tiles complete before anyone reads them
        mac_tile(acc, As, Bs, row, col);
        __syncthreads(); // everyone done reading before the next tile overwrites them
    }
    store_column(g, i0 + row, j0 + col, acc);
}

} // namespace

template <class T>
void launch_thread_tile_1d(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    launch_rung(g, grid, dim3(kThreads), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return thread_tile_1d_kernel<T, TA, TB>;
                });
}

template void launch_thread_tile_1d<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_thread_tile_1d<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
