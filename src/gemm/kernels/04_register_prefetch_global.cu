// Rung 4: register prefetch, the next k step's operands load while the current one multiplies.
//
// Idea: double the operand registers. Two sets alternate: while the 16 multiply-adds of k step p
// run on one set, the loads of step p + 1 are already in flight into the other. The multiply
// never waits for the loads issued right before it, so global-memory latency hides behind
// arithmetic. The first step is loaded before the loop ("preload"); each step then issues the
// next step's loads before its own 4x4 outer product. The cost is 8 more live registers (16 for
// double), which can hurt where registers are scarce.
// Changed from rung 3: a second register set for op(A) and op(B) and the load/multiply order
// (load p + 1, then multiply p). Tiles, thread mapping, depth-8 unroll and epilogue are rung 3's.
// Source (docs/sources.md): DCU GEMM 3.5.5.
// Measurements and the comparison with rung 3 (why it can be slower in float): docs/ladder.md.

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

// Stage 1 for one k step: both fragments. Past the end of k it yields zeros and reads nothing.
template <bool TransA, bool TransB, class T>
__device__ __forceinline__ void load_frags(T (&a)[kTM], T (&b)[kTN], const GemmArgs<T>& g,
                                           int64_t row, int64_t col, int64_t p) {
    load_a_frag<TransA>(a, g, row, p);
    load_b_frag<TransB>(b, g, p, col);
}

template <class T, bool TransA, bool TransB>
__global__ void __launch_bounds__(kThreads) register_prefetch_global_kernel(GemmArgs<T> g, bool swapped) {
    // This thread owns rows row + r * 16 and columns col + c * 16 of C (r, c < 4).
    int64_t tile_m, tile_n;
    block_tile(swapped, tile_m, tile_n);
    const int64_t row = tile_m * kBM + threadIdx.x % kThreadsM;
    const int64_t col = tile_n * kBN + threadIdx.x / kThreadsM;
    if (row >= g.m || col >= g.n) return; // its first row / column is already outside C

    T acc[kTM][kTN] = {}; // (TM, TN) accumulators
    T a[2][kTM];          // (2, TM) two register sets of op(A): rA[0..3] and rA[4..7]
    T b[2][kTN];          // (2, TN) two register sets of op(B): rB[0..3] and rB[4..7]

    // Step p lives in set p % 2. Every trip starts at a multiple of kDepth (even), so the set of
    // each unrolled step is a compile-time index and the arrays stay in registers.
    static_assert(kDepth % 2 == 0, "the unroll depth must be even so set = step % 2 is static");
    load_frags<TransA, TransB>(a[0], b[0], g, row, col, 0); // preload step 0 (k >= 1)
    int64_t p = 0;
    for (; p + kDepth <= g.k; p += kDepth) {
#pragma unroll
        for (int d = 0; d < kDepth; ++d) {
            load_frags<TransA, TransB>(a[(d + 1) % 2], b[(d + 1) % 2], g, row, col, p + d + 1);
            mac_4x4(acc, a[d % 2], b[d % 2]);
        }
    }
#pragma unroll
    for (int d = 0; d < kDepth - 1; ++d) { // k % 8 remainder; step p is in set 0
        if (p + d >= g.k) break;
        load_frags<TransA, TransB>(a[(d + 1) % 2], b[(d + 1) % 2], g, row, col, p + d + 1);
        mac_4x4(acc, a[d % 2], b[d % 2]);
    }
    store_tile(g, row, col, acc);
}

} // namespace

template <class T>
void launch_register_prefetch_global(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    launch_rung(g, grid, dim3(kThreads), stream,
                []<bool TA, bool TB>(OpFlags<TA, TB>) -> RungKernel<T> {
                    return register_prefetch_global_kernel<T, TA, TB>;
                });
}

template void launch_register_prefetch_global<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_register_prefetch_global<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
