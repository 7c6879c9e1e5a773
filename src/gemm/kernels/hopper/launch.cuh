#pragma once
// Host side of the Hopper rungs: tensor maps over the caller's operands, the checks that TMA can
// read them (and the copy of a 16-bit operand it cannot: ../repitch.cuh), split-K's slices and
// workspace, the tail split's plan and scratch, and the launch itself (grid from the rung's
// schedule, the cluster attribute, the dynamic shared memory the block config asks for). No GEMM
// kernel here: the rung files pass theirs in.

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "common/cuda_check.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/hopper/cluster_split.cuh"
#include "gemm/kernels/hopper/epilogue.cuh"
#include "gemm/kernels/hopper/mma_16bit.cuh"
#include "gemm/kernels/hopper/params.hpp"
#include "gemm/kernels/hopper/scheduler.cuh"
#include "gemm/kernels/hopper/tail_split.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/repitch.cuh"
#include "gemm/kernels/split_k.cuh"
#include "gemm/kernels/tile_common.cuh"
#include "gemm/problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::hopper {

using repitch::Operand;
using repitch::stored_a;
using repitch::stored_b;

/// cuTensorMapEncodeTiled from the driver, found once through the runtime (no link-time
/// dependency on libcuda; tensor_map.cu).
using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                                 const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                                 const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                                 CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
EncodeTiled encode_tiled_entry();

/// The products of a strided batch as one operand's tensor map sees them: `count` matrices
/// `stride` elements apart. count 1 or stride 0: one matrix that every product reads.
struct MapBatch {
    int64_t count = 1;
    int64_t stride = 0;
    bool per_product() const { return count > 1 && stride != 0; }
};

/// A 3-D tensor map over a column-major operand: `inner` contiguous elements per column,
/// `outer` columns `ld` apart, and the batch's matrices (one where every product shares it);
/// boxes of 128 bytes x box_outer x one matrix, 128-byte swizzle, zeros outside. With to_tf32
/// (float only) TMA rounds each element to TF32 as it lands (data type TFLOAT32). L2 promotion
/// of 256 bytes where columns are 256-byte aligned, else of 128 bytes, a box row's length:
/// 256 bytes there made BF16 at 1000^3 and 3000^3 10% slower (docs/ladder.md, rung 21).
template <class T>
CUtensorMap make_operand_map(const T* X, int64_t inner, int64_t outer, int64_t ld, int box_outer,
                             bool to_tf32 = false, MapBatch batch = {}) {
    CUtensorMap map;
    const int64_t matrix_bytes = ld * outer * int64_t(sizeof(T));
    // One matrix: the third stride is never stepped, but must be a multiple of 16 bytes that
    // does not fold back into the matrix.
    const int64_t batch_bytes = batch.per_product() ? batch.stride * int64_t(sizeof(T))
                                                    : (matrix_bytes + 15) / 16 * 16;
    const cuuint64_t dims[3] = {cuuint64_t(inner), cuuint64_t(outer),
                                cuuint64_t(batch.per_product() ? batch.count : 1)};
    const cuuint64_t strides[2] = {cuuint64_t(ld) * sizeof(T), cuuint64_t(batch_bytes)};
    const cuuint32_t box[3] = {cuuint32_t(128 / sizeof(T)), cuuint32_t(box_outer), 1};
    const cuuint32_t elem_strides[3] = {1, 1, 1};
    const auto type = std::is_same_v<T, float>    ? (to_tf32 ? CU_TENSOR_MAP_DATA_TYPE_TFLOAT32
                                                             : CU_TENSOR_MAP_DATA_TYPE_FLOAT32)
                      : std::is_same_v<T, __half> ? CU_TENSOR_MAP_DATA_TYPE_FLOAT16
                      : std::is_same_v<T, int32_t> ? CU_TENSOR_MAP_DATA_TYPE_INT32 // INT8's C
                      : sizeof(T) == 1            ? CU_TENSOR_MAP_DATA_TYPE_UINT8 // FP8, INT8: bytes
                                                  : CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
    const bool lines_aligned = (ld * int64_t(sizeof(T))) % 256 == 0;
    const auto promotion =
        lines_aligned ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
    const CUresult r = encode_tiled_entry()(
        &map, type, 3, const_cast<T*>(X), dims, strides, box, elem_strides,
        CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
        promotion, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (r != CUDA_SUCCESS)
        throw CudaFailure("cuTensorMapEncodeTiled rejected an operand map (error " +
                          std::to_string(int(r)) + ")");
    return map;
}

/// Whether Rung covers a strided batch in one launch (Rung::kNativeBatch; absent: false). A
/// kernel of a rung that does not carries none of the batch arithmetic (rung 30's registers
/// have no room for it).
template <class Rung>
constexpr bool batches_natively() {
    if constexpr (requires { Rung::kNativeBatch; }) return Rung::kNativeBatch;
    else return false;
}

/// True when TMA / 16-byte cp.async can read the operand: 16-byte-aligned base and columns.
template <class TIn>
bool operand_feedable(const TIn* X, int64_t ld) {
    return tma_readable(X, ld, int64_t(sizeof(TIn)));
}

/// True when a batched operand's matrices can be boxes of one 3-D tensor map: a stride of whole
/// 16-byte units that does not reach back into the matrix before (outer columns ld apart).
inline bool batch_feedable(int64_t stride, int64_t ld, int64_t outer, int64_t elem_bytes) {
    return stride == 0 || ((stride * elem_bytes) % 16 == 0 && stride >= ld * outer);
}

/// True when TMA can read the stored operand x: its base and columns (operand_feedable) and, for
/// a batch's own matrices, their stride (batch_feedable).
template <class TIn>
bool stored_readable(const Operand<TIn>& x) {
    return operand_feedable(x.data, x.ld) &&
           (x.count == 1 || batch_feedable(x.stride, x.ld, x.cols, int64_t(sizeof(TIn))));
}

/// Units of work a launch may hold (WorkUnits counts them in int).
inline constexpr int64_t kMaxUnits = (int64_t(1) << 31) - 1;

/// True when every 16-bit Hopper rung can run this problem (the caller falls back otherwise):
/// both operands TMA-readable, every dimension inside TMA's 32-bit coordinates, and, for a
/// strided batch, each operand's matrices boxes of a 3-D map and the tiles of all products
/// countable in int.
template <class TIn, class TOut>
bool feedable(const HalfArgs<TIn, TOut>& g) {
    constexpr int64_t kCoordLimit = int64_t(1) << 31;
    const auto& b = g.batch;
    const bool batch_ok =
        b.count == 1 ||
        (b.count < kCoordLimit &&
         ceil_div(g.m, int64_t(64)) * ceil_div(g.n, int64_t(128)) * b.count <= kMaxUnits);
    return stored_readable(stored_a(g)) && stored_readable(stored_b(g)) && g.m < kCoordLimit &&
           g.n < kCoordLimit && g.k < kCoordLimit && batch_ok;
}

/// The slices split-K really makes of k (k tiles of kTileK) when asked for `splits`: fewer when
/// k is short, so that every slice gets at least kMinSplitK and whole k tiles, and none is empty.
template <int kTileK>
int split_count(int64_t k, int splits, int& k_tiles_per_split) {
    const int64_t k_tiles = ceil_div(k, int64_t(kTileK));
    const int64_t min_tiles = ceil_div(kMinSplitK, int64_t(kTileK));
    int64_t per = ceil_div(k_tiles, int64_t(splits > 1 ? splits : 1));
    if (per < min_tiles) per = min_tiles;
    k_tiles_per_split = int(per);
    return int(ceil_div(k_tiles, per));
}

/// Launches `kernel` (block config Cfg, schedule Schedule, ClusterBlocks blocks per cluster,
/// Threads per block) on maps and parameters the caller prepared; sets the tile counts and the
/// split here. splits > 1: split-K, the slices' FP32 partials in a workspace, then
/// enqueue_sum_slices (split_k.cuh) adds them and applies alpha and beta; without workspace,
/// no split. The tail-split and cluster-split schedules plan their own cut of k here.
template <class Cfg, class Schedule, int ClusterBlocks, int Threads, auto Kernel, class Math,
          class TOut>
void launch_tiles(const CUtensorMap& map_a, const CUtensorMap& map_b, const CUtensorMap& map_c,
                  Params<Math, TOut> p, cudaStream_t stream, int splits = 1) {
    p.tiles_m = int(ceil_div(p.m, Cfg::BM));
    p.tiles_n = int(ceil_div(ceil_div(p.n, Cfg::BN), ClusterBlocks) * ClusterBlocks);
    // No split for INT8 (no exact FP32 partials) nor for an FP8 C (its saturation and amax
    // apply to the whole sum).
    constexpr bool kSplittable = kFloatAccumulator<Math> && sizeof(TOut) > 1;
    if constexpr (!kSplittable) splits = 1;
    if (p.batches > 1) splits = 1;                      // a batch has tiles enough
    if constexpr (SplitsInCluster<Schedule>) splits = 1; // k is cut over the cluster instead
    p.k_splits = split_count<Math::kTileK>(p.k, splits, p.k_tiles_per_split);
    const size_t partial_bytes = size_t(p.k_splits) * size_t(p.m) * size_t(p.n) * sizeof(float);
    Workspace ws(p.k_splits > 1 ? partial_bytes : 0, stream);
    if (p.k_splits > 1 && !ws.data()) p.k_splits = split_count<Math::kTileK>(p.k, 1, p.k_tiles_per_split);
    p.partial = static_cast<float*>(ws.data());
    if (p.k_splits > 1) p.tma_store = false;
    const int64_t units = int64_t(p.tiles_m) * p.tiles_n * p.k_splits * p.batches;
    const DeviceCaps caps = current_device_caps();
    const int sms = caps.sm_count;
    int grid = Schedule::grid(units, sms, ClusterBlocks);
    int cluster_blocks = ClusterBlocks;
    p.cluster_pieces = 1;
    // The cluster split: one product's tiles, fewer than the SMs, each cut along k over a
    // cluster of blocks that add their pieces in distributed shared memory.
    if constexpr (SplitsInCluster<Schedule>) {
        static_assert(ClusterBlocks == 1, "the cluster is the split's");
        if (p.batches == 1)
            p.cluster_pieces =
                plan_cluster_split(units, int(ceil_div(p.k, int64_t(Math::kTileK))), caps);
        grid = int(units) * p.cluster_pieces;
        cluster_blocks = p.cluster_pieces;
        if (p.cluster_pieces > 1) p.tma_store = false; // each block stores its columns from registers
    }
    // The tail split: one product's tiles past the last whole wave cut along k. The counters
    // (one per split tile and consumer warp, zero before the launch and left zero by it) and a
    // partial slot per block with a piece live in the library's serial scratch; under stream
    // capture in a workspace, its counters zeroed by a memset. Neither: every tile runs whole.
    std::optional<SerialScratch> scratch;
    std::optional<Workspace> captured;
    if constexpr (SplitsTailTiles<Schedule>) {
        const int blocks = sms / ClusterBlocks * ClusterBlocks;
        const TailSplitPlan whole{int(units)};
        TailSplitPlan& plan = p.tail_split;
        plan = p.batches == 1 ? plan_tail_split(units, int(ceil_div(p.k, int64_t(Math::kTileK))), blocks)
                              : whole;
        const size_t counter_bytes = kTailSplitCounterBytes;
        const size_t partial_bytes = size_t(plan.split_blocks()) * Cfg::BM * Cfg::BN * sizeof(float);
        void* mem = nullptr;
        if (plan.split_tiles > 0 &&
            size_t(plan.split_tiles) * Cfg::kConsumerWarps * sizeof(unsigned) <= counter_bytes) {
            scratch.emplace(counter_bytes + partial_bytes, counter_bytes, stream);
            mem = scratch->data();
            if (!mem) {
                captured.emplace(counter_bytes + partial_bytes, stream);
                mem = captured->data();
                if (mem) GEMMLAB_CUDA_CHECK(cudaMemsetAsync(mem, 0, counter_bytes, stream));
            }
        }
        if (mem) {
            p.split_counters = static_cast<unsigned*>(mem);
            p.split_partials = reinterpret_cast<float*>(static_cast<char*>(mem) + counter_bytes);
            grid = std::max(std::min(plan.whole_tiles, blocks), plan.split_blocks());
        } else {
            plan = whole;
        }
    }
    tile::set_max_dynamic_smem<Kernel>(Cfg::kSmemBytes);
    cudaLaunchConfig_t cfg{};
    cfg.gridDim = dim3(unsigned(grid));
    cfg.blockDim = dim3(Threads);
    cfg.dynamicSmemBytes = Cfg::kSmemBytes;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(cluster_blocks);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = cluster_blocks > 1 ? 1 : 0;
    GEMMLAB_CUDA_CHECK(cudaLaunchKernelEx(&cfg, Kernel, map_a, map_b, map_c, p));
    if constexpr (kSplittable)
        if (p.k_splits > 1) {
            // A transposed C's partials are C-shaped already: n x m, ld n.
            const int64_t rows = p.c_transposed ? p.n : p.m, cols = p.c_transposed ? p.m : p.n;
            enqueue_sum_slices<float, TOut, float>(p.partial, p.k_splits, p.m * p.n, rows, rows,
                                                   cols, p.alpha, p.beta, p.C, p.ldc, sms, stream);
        }
}

/// The 16-bit problem (a strided batch of them) as the kernels' parameters (tile counts and
/// split set by launch_tiles).
template <class Math, class TIn, class TOut>
Params<Math, TOut> half_params(const HalfArgs<TIn, TOut>& g) {
    Params<Math, TOut> p{};
    p.m = g.m, p.n = g.n, p.k = g.k, p.alpha = g.alpha, p.beta = g.beta;
    p.A = g.A, p.lda = g.lda, p.B = g.B, p.ldb = g.ldb, p.C = g.C, p.ldc = g.ldc;
    p.batches = int(g.batch.count);
    p.a_per_batch = g.batch.count > 1 && g.batch.strides.a != 0;
    p.b_per_batch = g.batch.count > 1 && g.batch.strides.b != 0;
    p.stride_c = g.batch.strides.c;
    return p;
}

/// TMA maps over the 16-bit operands for a BM x BN block tile, A's box split over the cluster's
/// blocks: A K-major (k, m) boxes of 64 x BM / ClusterBlocks, MN-major (m, k) boxes of 64 x 64;
/// B likewise with n (B is never split). A batched operand's matrices are the maps' third
/// dimension.
template <int BM, int BN, int ClusterBlocks, class TIn, class TOut>
void make_half_maps(const HalfArgs<TIn, TOut>& g, CUtensorMap& map_a, CUtensorMap& map_b) {
    const MapBatch ba{g.batch.count, g.batch.strides.a}, bb{g.batch.count, g.batch.strides.b};
    map_a = g.trans_a ? make_operand_map(g.A, g.k, g.m, g.lda, BM / ClusterBlocks, false, ba)
                      : make_operand_map(g.A, g.m, g.k, g.lda, 64, false, ba);
    map_b = g.trans_b ? make_operand_map(g.B, g.n, g.k, g.ldb, 64, false, bb)
                      : make_operand_map(g.B, g.k, g.n, g.ldb, BN, false, bb);
}

/// launch_half's launch for one pair of op flags (TA, TB: A, B transposed).
template <class Rung, bool TA, bool TB, class TIn, class TOut>
void launch_ops(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    using Cfg = typename Rung::Config;
    using Math = Mma16Bit<TIn>;
    CUtensorMap map_a{}, map_b{}, map_c{};
    make_half_maps<Cfg::BM, Cfg::BN, Rung::kClusterBlocks>(g, map_a, map_b);
    Params<Math, TOut> p = half_params<Math>(g);
    p.c_transposed = TransposesC<typename Rung::Epilogue>;
    Rung::Epilogue::template prepare_c<Cfg>(g, p, map_c);
    launch_tiles<Cfg, typename Rung::Schedule, Rung::kClusterBlocks, Rung::kThreads,
                 Rung::template kernel<Math, TOut, TA, TB>()>(map_a, map_b, map_c, p, stream, splits);
}

template <class Rung, class TIn, class TOut>
void launch_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits = 1);

/// launch_half on copies of the operands TMA cannot read, their columns 128 bytes apart
/// (../repitch.cuh). False, having enqueued nothing, where the copies would still not do (a
/// dimension past TMA's coordinates) or the workspace cannot be had.
template <class Rung, class TIn, class TOut>
bool launch_repitched(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    return repitch::launch_on_copies(
        g, stream, [](const Operand<TIn>& x) { return !stored_readable(x); },
        [](const HalfArgs<TIn, TOut>& r) { return feedable(r); },
        [&](const HalfArgs<TIn, TOut>& r) { launch_half<Rung>(r, stream, splits); });
}

/// A 16-bit rung's launcher: Rung's kernel on TMA maps of the caller's operands where TMA can
/// read both (16-byte-aligned base and columns; a strided batch in one launch), k cut into
/// `splits` slices; an operand TMA cannot read is copied first (launch_repitched), and where
/// that cannot be, the problem takes rung 19's kernel, which handles any alignment and batches
/// natively too. Rung names its Config, Schedule, Epilogue (whose prepare_c sets up C's side:
/// rung 24's TMA store), kClusterBlocks, kThreads and kernel<Math, TOut, TA, TB>().
template <class Rung, class TIn, class TOut>
void launch_half(const HalfArgs<TIn, TOut>& g, cudaStream_t stream, int splits) {
    if (g.batch.count > 1 && !batches_natively<Rung>())
        throw std::logic_error("a strided batch reached a Hopper rung that runs one product");
    if (!feedable(g)) {
        if (!launch_repitched<Rung>(g, stream, splits)) launch_mma_sync_f16(g, stream);
        return;
    }
    using Cfg = typename Rung::Config;
    if (Cfg::kKMajorBOnly && g.trans_b)
        throw std::logic_error("a tile narrower than 64 columns reached an MN-major B");
    dispatch_ops(g, [&]<bool TA, bool TB>() {
        if constexpr (!(Cfg::kKMajorBOnly && TB)) launch_ops<Rung, TA, TB>(g, stream, splits);
    });
}

} // namespace gemmlab::detail::hopper
