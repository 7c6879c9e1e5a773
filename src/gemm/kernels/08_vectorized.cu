// Rung 8: vectorized global loads, 128 bits (float4 / double2) per load instruction.
//
// Idea: move each tile from global into shared memory with 16-byte loads. One LDG.128 brings 4
// floats (2 doubles) where rung 7 issued 4 (2) separate 32-bit (64-bit) loads: a quarter (half)
// of the load instructions and address computations for the same bytes, and fewer requests in
// the memory pipeline. A vector runs along the side of the tile that is contiguous in global
// memory, whatever the op: down a column of op(A) for op N (i .. i + 3), along k for op T, along
// k for op(B) with op N and along n for op T. When the vector also runs along the shared row
// (op N for A, op T for B) it is stored with one 128-bit shared store; otherwise it is scattered
// into 4 (2) shared rows, which the padded layout keeps conflict-free for float.
// Fewer loads mean fewer threads needed to fill a tile: the op(A) vectors are loaded by the first
// warps of the block and the op(B) vectors by the last warps (all 512 threads for double).
// When vectors are allowed: a 16-byte load needs a 16-byte aligned address, so the operand's
// pointer must be 16-byte aligned and its leading dimension a multiple of 4 floats (2 doubles);
// the launcher checks both at run time (is_aligned) and picks, per operand, the vector kernel or
// the scalar one (rung 7's loader) through a template bool. Within a tile a vector must also lie
// inside the matrix: a vector that would cross the m, n or k edge is loaded element by element
// with guards and zero fill, so an edge tile never reads outside the operand.
// Changed from rung 7: only the global->shared load stage (and its run-time choice).
// Source (docs/sources.md): SGEMM v6.
// Measurements, the LDG.128 count and why float can be slower than rung 7: docs/ladder.md.

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

// Stage 1 (scalar path, rung 7's), global -> shared: the (BM, BK) tile of op(A) at (i0, p0),
// zero outside m x k, stored k-major as As[p][i]. Consecutive threads walk the side contiguous in
// global memory: i for op N, p for op T.
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

// Stage 1 (scalar path, rung 7's), global -> shared: the (BK, BN) tile of op(B) at (p0, j0),
// zero outside k x n, stored as Bs[p][j]. Consecutive threads walk p for op N, j for op T.
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

// 128-bit vectors: 4 floats or 2 doubles.
template <class T>
constexpr int kVec = 16 / int(sizeof(T));

__device__ __forceinline__ void load_vec(const float* src, float (&x)[4]) {
    const float4 v = *reinterpret_cast<const float4*>(src); // one LDG.E.128
    x[0] = v.x, x[1] = v.y, x[2] = v.z, x[3] = v.w;
}
__device__ __forceinline__ void load_vec(const double* src, double (&x)[2]) {
    const double2 v = *reinterpret_cast<const double2*>(src);
    x[0] = v.x, x[1] = v.y;
}
__device__ __forceinline__ void store_vec(float* dst, const float (&x)[4]) {
    *reinterpret_cast<float4*>(dst) = make_float4(x[0], x[1], x[2], x[3]); // one STS.128
}
__device__ __forceinline__ void store_vec(double* dst, const double (&x)[2]) {
    *reinterpret_cast<double2*>(dst) = make_double2(x[0], x[1]);
}

// Vectors per tile, and which threads load them: op(A) by threads [0, kVecsA), op(B) by threads
// [kThreads - kVecsB, kThreads). Both counts are whole warps, so no warp is split by the test.
template <class T>
constexpr int kVecsA = kBM * kBK / kVec<T>;
template <class T>
constexpr int kVecsB = kBK * kBN / kVec<T>;
static_assert(kVecsA<float> + kVecsB<float> <= kThreads &&
                  kVecsA<double> + kVecsB<double> <= kThreads,
              "the op(A) and op(B) vector loaders must fit side by side in the block");
static_assert(kVecsA<float> % kWarp == 0 && kVecsB<float> % kWarp == 0 &&
                  kVecsA<double> % kWarp == 0 && kVecsB<double> % kWarp == 0,
              "each vector loader must be whole warps");
static_assert(kBM % 4 == 0 && kBN % 4 == 0 && kBK % 4 == 0,
              "every tile side must hold whole 128-bit vectors, so tile origins stay aligned");
static_assert((kBM + kPad) % 4 == 0 && (kBN + kPad) % 4 == 0,
              "padded shared rows must stay 16-byte aligned for 128-bit shared stores");

// Stage 1 (vector path), global -> shared: vector v of the (BM, BK) op(A) tile at (i0, p0).
// Alignment: i0, p0 and the vector's offset in the tile are multiples of V, and the launcher
// checked A and lda, so the vector's address is 16-byte aligned.
template <bool TransA, class T>
__device__ __forceinline__ void load_a_vec(T (&As)[kBK][kBM + kPad], const GemmArgs<T>& g,
                                           int64_t i0, int64_t p0, int v) {
    constexpr int V = kVec<T>;
    T x[V];
    if constexpr (!TransA) { // op N: A(i .. i+V-1, p) runs down a column of A
        const int i = v % (kBM / V) * V;
        const int p = v / (kBM / V);
        const int64_t gi = i0 + i, gp = p0 + p;
        if (gi + V <= g.m && gp < g.k) {
            load_vec(g.A + gi + gp * g.lda, x);
        } else { // crosses the m edge (or lies past k): element by element
#pragma unroll
            for (int e = 0; e < V; ++e)
                x[e] = op_at_or_zero<false>(g.A, g.lda, g.m, g.k, gi + e, gp);
        }
        store_vec(&As[p][i], x); // also contiguous in the shared row
    } else { // op T: op(A)(i, p .. p+V-1) = A(p .. p+V-1, i) runs along k
        const int p = v % (kBK / V) * V;
        const int i = v / (kBK / V);
        const int64_t gi = i0 + i, gp = p0 + p;
        if (gp + V <= g.k && gi < g.m) {
            load_vec(g.A + gp + gi * g.lda, x);
        } else { // crosses the k edge (or lies past m): element by element
#pragma unroll
            for (int e = 0; e < V; ++e)
                x[e] = op_at_or_zero<true>(g.A, g.lda, g.m, g.k, gi, gp + e);
        }
#pragma unroll
        for (int e = 0; e < V; ++e) As[p + e][i] = x[e]; // one element in each of V rows
    }
}

// Stage 1 (vector path), global -> shared: vector v of the (BK, BN) op(B) tile at (p0, j0).
template <bool TransB, class T>
__device__ __forceinline__ void load_b_vec(T (&Bs)[kBK][kBN + kPad], const GemmArgs<T>& g,
                                           int64_t p0, int64_t j0, int v) {
    constexpr int V = kVec<T>;
    T x[V];
    if constexpr (!TransB) { // op N: B(p .. p+V-1, j) runs down a column of B, along k
        const int p = v % (kBK / V) * V;
        const int j = v / (kBK / V);
        const int64_t gp = p0 + p, gj = j0 + j;
        if (gp + V <= g.k && gj < g.n) {
            load_vec(g.B + gp + gj * g.ldb, x);
        } else { // crosses the k edge (or lies past n): element by element
#pragma unroll
            for (int e = 0; e < V; ++e)
                x[e] = op_at_or_zero<false>(g.B, g.ldb, g.k, g.n, gp + e, gj);
        }
#pragma unroll
        for (int e = 0; e < V; ++e) Bs[p + e][j] = x[e]; // one element in each of V rows
    } else { // op T: op(B)(p, j .. j+V-1) = B(j .. j+V-1, p) runs along n
        const int j = v % (kBN / V) * V;
        const int p = v / (kBN / V);
        const int64_t gp = p0 + p, gj = j0 + j;
        if (gj + V <= g.n && gp < g.k) {
            load_vec(g.B + gj + gp * g.ldb, x);
        } else { // crosses the n edge (or lies past k): element by element
#pragma unroll
            for (int e = 0; e < V; ++e)
                x[e] = op_at_or_zero<true>(g.B, g.ldb, g.k, g.n, gp, gj + e);
        }
        store_vec(&Bs[p][j], x); // also contiguous in the shared row
    }
}

// Stage 1, global -> shared, both operands: each through its vector loader when the launcher
// allowed it (VecA / VecB), else through rung 7's scalar loader (all threads).
template <bool TransA, bool TransB, bool VecA, bool VecB, class T>
__device__ __forceinline__ void load_tiles(T (&As)[kBK][kBM + kPad], T (&Bs)[kBK][kBN + kPad],
                                           const GemmArgs<T>& g, int64_t i0, int64_t j0,
                                           int64_t p0, int tid) {
    if constexpr (VecA) {
        if (tid < kVecsA<T>) load_a_vec<TransA>(As, g, i0, p0, tid);
    } else {
        load_a_tile<TransA>(As, g, i0, p0, tid);
    }
    if constexpr (VecB) {
        const int v = tid - (kThreads - kVecsB<T>);
        if (v >= 0) load_b_vec<TransB>(Bs, g, p0, j0, v);
    } else {
        load_b_tile<TransB>(Bs, g, p0, j0, tid);
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

template <class T, bool TransA, bool TransB, bool VecA, bool VecB>
__global__ void __launch_bounds__(kThreads) vectorized_kernel(GemmArgs<T> g, bool swapped) {
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
        load_tiles<TransA, TransB, VecA, VecB>(As, Bs, g, i0, j0, p0, threadIdx.x);
        __syncthreads(); // tiles complete before anyone reads them
        mac_tile(acc, As, Bs, row, col);
        __syncthreads(); // everyone done reading before the next tile overwrites them
    }
    store_column(g, i0 + row, j0 + col, acc);
}

// Calls f.template operator()<VecA, VecB>() with the two run-time choices as constants.
template <class F>
void dispatch_vec(bool vec_a, bool vec_b, F&& f) {
    if (vec_a && vec_b) f.template operator()<true, true>();
    else if (vec_a) f.template operator()<true, false>();
    else if (vec_b) f.template operator()<false, true>();
    else f.template operator()<false, false>();
}

} // namespace

template <class T>
void launch_vectorized(const GemmArgs<T>& g, cudaStream_t stream) {
    const LaunchGrid grid = tile_grid(ceil_div(g.m, kBM), ceil_div(g.n, kBN)); // m tiles on x
    // 128-bit loads of an operand need its base 16-byte aligned and every column (row for op T
    // storage) to start 16-byte aligned too: ld a multiple of the vector width.
    const bool vec_a = is_aligned(g.A, 16) && g.lda % kVec<T> == 0;
    const bool vec_b = is_aligned(g.B, 16) && g.ldb % kVec<T> == 0;
    launch_rung(g, grid, dim3(kThreads), stream, [&]<bool TA, bool TB>(OpFlags<TA, TB>) {
        RungKernel<T> kernel = nullptr;
        dispatch_vec(vec_a, vec_b,
                     [&]<bool VA, bool VB>() { kernel = vectorized_kernel<T, TA, TB, VA, VB>; });
        return kernel;
    });
}

template void launch_vectorized<float>(const GemmArgs<float>&, cudaStream_t);
template void launch_vectorized<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
