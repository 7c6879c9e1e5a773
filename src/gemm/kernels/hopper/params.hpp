#pragma once
// What the Hopper kernels receive: the column-major problem (as detail::HalfArgs), a strided
// batch of such products, the tile counts and the split-K and tail-split bookkeeping set by the
// host launch (launch.cuh), and the math policy's own arguments (empty for the 16-bit inputs;
// 3xTF32's range guard for rung 26).

#include <cstdint>
#include <type_traits>

#include "gemm/kernels/hopper/tail_split.cuh"

namespace gemmlab::detail::hopper {

/// The accumulator element of a math policy: Math::Accumulator where the policy names one
/// (INT8: int32_t, exact), else float (every floating-point policy).
template <class Math, class = void>
struct AccumulatorOf {
    using type = float;
};
template <class Math>
struct AccumulatorOf<Math, std::void_t<typename Math::Accumulator>> {
    using type = typename Math::Accumulator;
};
/// Only FP32-accumulating policies have split-K's FP32 partial tiles (an INT8 partial would not
/// be exact in float).
template <class Math>
inline constexpr bool kFloatAccumulator = std::is_same_v<typename AccumulatorOf<Math>::type, float>;

template <class Math, class TOut>
struct Params {
    using Storage = typename Math::Storage;
    int64_t m, n, k;
    float alpha, beta;
    const Storage* A;
    int64_t lda;
    const Storage* B;
    int64_t ldb;
    TOut* C;
    int64_t ldc;
    int tiles_m, tiles_n; // tiles_n rounded up to the cluster size
    // Split-K: the k tiles are cut into k_splits slices of k_tiles_per_split; a slice's FP32
    // partial tile goes to partial + slice * m * n (column-major, ld = m) for
    // sum_slices_kernel (split_k.cuh) to add.
    int k_splits;
    int k_tiles_per_split;
    float* partial;
    // The tail split (a schedule with kSplitsTail): which tiles are cut along k, the pieces'
    // FP32 partial slots and the per-warp arrival counters (zero before and after the launch).
    TailSplitPlan tail_split;
    float* split_partials;
    unsigned* split_counters;
    // The cluster split (a schedule with kSplitsInCluster): pieces per tile, each block of a
    // cluster of that many one piece (1: whole tiles).
    int cluster_pieces;
    bool tma_store; // C through shared memory by TMA (rung 24's epilogue, 16-bit C)
    // The kernel computes C^T: its m x n result (and split-K's partials, n x m) go to C as
    // C^T (an epilogue that TransposesC; rung 25 with its operands swapped). Read on the host,
    // by launch_tiles' sum of the partials; the kernel knows it from its epilogue's type.
    bool c_transposed = false;
    // A strided batch: product b reads A's and B's box b of their 3-D tensor maps (box 0 for an
    // operand every product shares: stride 0) and writes C + b * stride_c. One product unless
    // the launcher batches natively.
    int batches = 1;
    bool a_per_batch = false, b_per_batch = false;
    int64_t stride_c = 0;
    typename Math::Args math;
};

} // namespace gemmlab::detail::hopper
