// Rung 3: register tile, each thread computes a 4x4 block of C from global memory.
//
// Idea: reuse every loaded operand from a register. Per k step a thread loads 4 values of op(A)
// (rows of its block) and 4 of op(B) (columns of its block) and forms their outer product: 16
// multiply-adds for 8 loads, where rungs 1-2 paid 2 loads per multiply-add: operand loads fall
// from 2MNK to MNK/2 for a 4x4 block with the sums kept in registers.
// The k loop is unrolled by 8: 8 independent load groups per trip give the scheduler room to
// overlap them, and the loop branch runs once per 8 steps.
// Changed from rung 2: 4x4 C elements per thread instead of one, so 256 threads cover a 64x64 C
// tile. The thread's 4 rows (and 4 columns) are strided by 16, not adjacent, so each load and
// store instruction of a warp still touches 16 consecutive rows of column-major storage: rung 2's
// coalescing is kept. Operands still come straight from global memory (L1/L2).
// Source (docs/sources.md): DCU GEMM 3.5.3-3.5.4.
// Measurements and the comparison with rung 2: docs/ladder.md.

#include "gemm/kernels/cuda_core_launch.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kThreadsM = 16;                   // threads of a block along m
constexpr int kThreadsN = 16;                   // threads of a block along n
constexpr int kThreads = kThreadsM * kThreadsN; // 256
constexpr int kTM = 4;                          // C rows per thread
constexpr int kTN = 4;                          // C columns per thread
constexpr int kBM = kThreadsM * kTM;            // C rows per block: 64
constexpr int kBN = kThreadsN * kTN;            // C columns per block: 64
constexpr int kDepth = 8;                       // k steps per unrolled loop trip

static_assert(kThreads == 256, "the 16 x 16 thread grid is 256 threads");
static_assert(kBM == 64 && kBN == 64,
              "16 x 16 threads times the 4 x 4 thread tile must give a 64 x 64 C tile");
static_assert(kThreadsM % 16 == 0, "16 consecutive lanes must walk consecutive rows (coalescing)");

// Stage 1, global -> registers: op(A)(row + r * kThreadsM, p) for r < TM, zero outside m x k.
template <bool TransA, class T>
__device__ __forceinline__ void load_a_frag(T (&a)[kTM], const GemmArgs<T>& g, int64_t row,
                                            int64_t p) {
#pragma unroll
    for (int r = 0; r < kTM; ++r)
        a[r] = op_at_or_zero<TransA>(g.A, g.lda, g.m, g.k, row + r * kThreadsM, p);
}

// Stage 1, global -> registers: op(B)(p, col + c * kThreadsN) for c < TN, zero outside k x n.
template <bool TransB, class T>
__device__ __forceinline__ void load_b_frag(T (&b)[kTN], const GemmArgs<T>& g, int64_t p,
                                            int64_t col) {
#pragma unroll
    for (int c = 0; c < kTN; ++c)
        b[c] = op_at_or_zero<TransB>(g.B, g.ldb, g.k, g.n, p, col + c * kThreadsN);
}

// Stage 2, multiply-accumulate: the 4x4 outer product of one k step.
template <class T>
__device__ __forceinline__ void mac_4x4(T (&acc)[kTM][kTN], const T (&a)[kTM], const T (&b)[kTN]) {
#pragma unroll
    for (int r = 0; r < kTM; ++r)
#pragma unroll
        for (int c = 0; c < kTN; ++c) acc[r][c] += a[r] * b[c];
}

// Stage 3, epilogue: alpha/beta and the guarded store of the thread's 4x4 block.
template <class T>
__device__ __forceinline__ void store_tile(const GemmArgs<T>& g, int64_t row, int64_t col,
                                           const T (&acc)[kTM][kTN]) {
#pragma unroll
    for (int c = 0; c < kTN; ++c)
#pragma unroll
        for (int r = 0; r < kTM; ++r)
            store_c_guarded(g.C, g.ldc, g.m, g.n, row + r * kThreadsM, col + c * kThreadsN,
                            acc[r][c], g.alpha, g.beta);
}

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads) register_tile_global_kernel(GemmArgs<T> g, bool swapped) {
    // This thread owns rows row + r * 16 and columns col + c * 16 of C (r, c < 4).
    int64_t tile_m, tile_n;
    block_tile(swapped, tile_m, tile_n);
    const int64_t row = tile_m * kBM + threadIdx.x % kThreadsM;
    const int64_t col = tile_n * kBN + threadIdx.x / kThreadsM;
    if (row >= g.m || col >= g.n) return; // its first row / column is already outside C

    T acc[kTM][kTN] = {}; // (TM, TN) accumulators
    T a[kTM];             // (TM) one k step of op(A): rA[4]
    T b[kTN];             // (TN) one k step of op(B): rB[4]

    int64_t p = 0;
    for (; p + kDepth <= g.k; p += kDepth) {
#pragma unroll
        for (int d = 0; d < kDepth; ++d) {
            load_a_frag<TransA>(a, g, row, p + d);
            load_b_frag<TransB>(b, g, p + d, col);
            mac_4x4(acc, a, b);
        }
    }
    for (; p < g.k; ++p) { // k % 8 remainder
        load_a_frag<TransA>(a, g, row, p);
        load_b_frag<TransB>(b, g, p, col);
        mac_4x4(acc, a, b);
    }
    store_tile(g, row, col, acc);
}

} // namespace

template <class T>
void launch_register_tile_global(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    launch_rung(g, grid, dim3(kThreads), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return register_tile_global_kernel<T, TA, TB>;
                });
}

template void launch_register_tile_global<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_register_tile_global<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
