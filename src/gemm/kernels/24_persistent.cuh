#pragma once
// Rung 24's parts, which rungs 25 and 26 reuse: the persistent schedule and, for 16-bit C, the
// epilogue that stores through shared memory by TMA so that the store runs on while the
// consumers start the next tile.

#include "gemm/kernels/22_warp_specialized.cuh"

namespace gemmlab::detail::hopper {

/// One block per SM (whole clusters), each looping over the units b, b + grid, ... in the
/// grouped order; the producer runs ahead across unit boundaries.
struct PersistentSchedule {
    static int grid(int64_t units, int sms, int cluster_blocks) {
        return persistent_grid(units, sms, cluster_blocks);
    }
    __device__ __forceinline__ static int step(int) { return int(gridDim.x); }
};

#ifdef GEMMLAB_SM90A

/// C = value (beta == 0, 16-bit C) through shared memory, value(i) being register i's result
/// before rounding (alpha * acc[i] here; the 8-bit rungs pass their scaled one): the warpgroup
/// transposes its results into a buffer of 64 rows and kStoreCols<BN> columns with stmatrix
/// (.trans: each 16-byte row of the buffer is 8 consecutive rows of one column of C, 128-byte
/// swizzled so that the eight stores of a matrix hit eight different bank groups), then one
/// thread stores the buffer by TMA, which clips at the matrix edges. The store runs on while
/// the warpgroup starts the next tile; the buffer is reused only after the store has read it
/// (bulk_wait_read). With Buffers = 2 the caller alternates `buffers` between two stagings
/// (one store a tile), and a store waits only for the one two stores back. `wg` is the tile's
/// 64-row slice; the region of the staging and the named barrier are those of the warpgroup
/// that runs the store (the same one, but for the ping-pong consumers, which store slice 0 of
/// tiles of their own side by side: hopper/pingpong.cuh).
template <int BN, class TOut, int Buffers = 1, class Value>
__device__ __forceinline__ void store_tile_tma(Value value, const void* map_c, uint32_t buffers,
                                               int64_t m0, int64_t n0, int wg, int batch) {
    static_assert(Buffers == 1 || (Buffers == 2 && BN / kStoreCols<BN> == 1),
                  "alternating buffers need one store a tile");
    static_assert(sizeof(TOut) == 2, "the TMA store path is for 16-bit C");
    const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
    const bool leader = threadIdx.x % 128 == 0;
    const int group = threadIdx.x / 128; // the storing warpgroup
    constexpr int kCols = kStoreCols<BN>;
    const uint32_t buffer = buffers + group * (64 * kCols * 2);
    // This lane's stored row: matrix q = lane / 8 (q % 2: rows 0-7 or 8-15 of the warp's 16,
    // q / 2: first or second 8-column group of the pair), row r = lane % 8 (a column of C).
    const int q = lane / 8, r = lane % 8;
    const int mchunk = 2 * warp + q % 2; // which 8 of the warpgroup's 64 rows
    constexpr int kChunks = BN / kCols;
#pragma unroll
    for (int chunk = 0; chunk < kChunks; ++chunk) {
        if (leader) bulk_wait_read<Buffers - 1>(); // the store that last used it has read it
        named_barrier(1 + group, 128);
#pragma unroll
        for (int jp = 0; jp < kCols / 16; ++jp) { // pairs of 8-column groups
            const int j = chunk * (kCols / 8) + 2 * jp; // first group of the pair
            uint32_t regs[4];
#pragma unroll
            for (int mq = 0; mq < 4; ++mq) {
                const int i = 4 * (j + mq / 2) + 2 * (mq % 2);
                const float lo = value(i), hi = value(i + 1);
                if constexpr (std::is_same_v<TOut, __nv_bfloat16>) {
                    const __nv_bfloat162 v = __floats2bfloat162_rn(lo, hi);
                    regs[mq] = *reinterpret_cast<const uint32_t*>(&v);
                } else {
                    const __half2 v = __floats2half2_rn(lo, hi);
                    regs[mq] = *reinterpret_cast<const uint32_t*>(&v);
                }
            }
            const int col = 16 * jp + 8 * (q / 2) + r; // column inside the buffer
            stmatrix_x4_trans(buffer + col * 128 + ((mchunk ^ (col % 8)) * 16), regs[0], regs[1],
                              regs[2], regs[3]);
        }
        fence_proxy_async();
        named_barrier(1 + group, 128);
        if (leader) {
            tma_store_3d(map_c, buffer, int(m0 + 64 * wg), int(n0 + chunk * kCols), batch);
            bulk_commit();
        }
    }
}

#endif // GEMMLAB_SM90A

/// Rung 24's epilogue: 16-bit C with beta == 0 (p.tma_store) by TMA from shared memory, any
/// other C from registers.
struct TmaStoreEpilogue {
    template <class Cfg, class P, int N>
    __device__ __forceinline__ static void store(const P& p, const float (&acc)[N], const void* map_c,
                                                 uint32_t buffers, int64_t m0, int64_t n0, int wg,
                                                 int64_t batch) {
#ifdef GEMMLAB_SM90A
        if constexpr (sizeof(*p.C) == 2) {
            if (p.tma_store) {
                using TOut = std::remove_pointer_t<decltype(p.C)>;
                store_tile_tma<Cfg::BN, TOut, Cfg::kStoreBuffers>(
                    [&](int i) { return p.alpha * acc[i]; }, map_c, buffers, m0, n0, wg, int(batch));
                return;
            }
        }
        store_tile<Cfg::BM, Cfg::BN>(acc, p.m, p.n, p.C + batch * p.stride_c, p.ldc, p.alpha,
                                     p.beta, m0, n0, wg);
#endif
    }
    /// The last stores must have read their buffer before the block's shared memory goes.
    template <class TOut>
    __device__ __forceinline__ static void drain() {
#ifdef GEMMLAB_SM90A
        if constexpr (sizeof(TOut) == 2)
            if (threadIdx.x % 128 == 0) bulk_wait<0>();
#endif
    }

    /// Host: the TMA store needs beta == 0, a C that TMA can address (a batch's matrices boxes
    /// of one 3-D map), and m % 8 == 0: the store clips at the tensor's bounds only in 16-byte
    /// steps along the contiguous dimension (docs/ladder.md, rung 24), so the last rows must end
    /// on a 16-byte boundary.
    template <class Cfg, class TIn, class TOut, class P>
    static void prepare_c(const HalfArgs<TIn, TOut>& g, P& p, CUtensorMap& map_c) {
        if constexpr (sizeof(TOut) == 2) {
            const MapBatch batch{g.batch.count, g.batch.strides.c};
            p.tma_store = g.beta == 0.0f && operand_feedable(g.C, g.ldc) && g.m % 8 == 0 &&
                          (!batch.per_product() ||
                           batch_feedable(batch.stride, g.ldc, g.n, int64_t(sizeof(TOut))));
            if (p.tma_store)
                map_c = make_operand_map(g.C, g.m, g.n, g.ldc, kStoreCols<Cfg::BN>, false, batch);
        }
    }
};

} // namespace gemmlab::detail::hopper
