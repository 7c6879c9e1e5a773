#pragma once
// Host side of the 8-bit rungs 29 (FP8) and 30 (INT8): K-major operands for wgmma, the tensor
// maps, and the launch of the warp-specialized kernel (22_warp_specialized.cuh).
//
// wgmma reads FP8 and INT8 operands from shared memory K-major only (the transposing forms exist
// for 16-bit types alone), and TMA reads rows of 16-byte-aligned bytes only. In the column-major
// form of the call that is op(A) = A^T with A stored k x m and op(B) = B with B stored k x n:
// cuBLASLt's "TN", a row-major call with A op N and B op T. Such an operand, when its base and
// leading dimension are multiples of 16 bytes, is loaded from the caller's array as it is. Any
// other one is first copied K-major into a workspace (rows of k bytes rounded up to 16): one
// read and one write of the operand (rows x k bytes each way) against the 2 m n k operations of
// the product, so a few per cent at 4096^3 and more for short k. The copy moves bytes only, so
// the result is the same bits whichever path an operand takes.

#include <cstdint>

#include "gemm/kernels/hopper/launch.cuh"
#include "gemm/kernels/hopper/params.hpp"
#include "gemm/quantized_problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail::hopper {

/// Copies one 8-bit operand as the GEMM reads it, `rows` (m for A, n for B) x k, K-major:
/// out[kk + r ldo] = X[kk + r ld] when k is contiguous in X (k_major), else X[r + kk ld].
/// Tiles of Tile x Tile bytes go through shared memory so that reads and writes both run along
/// the contiguous dimension; 256 threads, grid-stride over the tiles.
template <int Tile>
__global__ void __launch_bounds__(256)
    pack_k_major_kernel(const uint8_t* __restrict__ X, int64_t ld, bool k_major, int64_t rows,
                        int64_t k, uint8_t* __restrict__ out, int64_t ldo) {
    static_assert(256 % Tile == 0, "whole rows of threads per tile row");
    constexpr int kRowsPerPass = 256 / Tile;
    __shared__ uint8_t tile[Tile][Tile + 1]; // (row, k)
    const int tx = threadIdx.x % Tile, ty = threadIdx.x / Tile;
    const int64_t tiles_k = ceil_div(k, int64_t(Tile));
    const int64_t tiles = tiles_k * ceil_div(rows, int64_t(Tile));
    for (int64_t t = blockIdx.x; t < tiles; t += gridDim.x) {
        const int64_t r0 = (t / tiles_k) * Tile, k0 = (t % tiles_k) * Tile;
        __syncthreads(); // the previous tile's reads of `tile` are done
        for (int j = ty; j < Tile; j += kRowsPerPass) {
            const int64_t r = k_major ? r0 + j : r0 + tx, kk = k_major ? k0 + tx : k0 + j;
            const uint8_t v = (r < rows && kk < k) ? (k_major ? X[kk + r * ld] : X[r + kk * ld]) : 0;
            if (k_major) tile[j][tx] = v;
            else tile[tx][j] = v;
        }
        __syncthreads();
        for (int j = ty; j < Tile; j += kRowsPerPass) {
            const int64_t r = r0 + j, kk = k0 + tx;
            if (r < rows && kk < k) out[kk + r * ldo] = tile[j][tx];
        }
    }
}

/// Enqueues the copy of one operand (see pack_k_major_kernel).
inline void pack_k_major(const void* X, int64_t ld, bool k_major, int64_t rows, int64_t k,
                         uint8_t* out, int64_t ldo, cudaStream_t stream) {
    constexpr int kTile = 32;
    const int64_t tiles = ceil_div(rows, int64_t(kTile)) * ceil_div(k, int64_t(kTile));
    const int64_t cap = int64_t(current_device_caps().sm_count) * 16;
    const unsigned grid = unsigned(tiles < cap ? tiles : cap);
    pack_k_major_kernel<kTile><<<grid, 256, 0, stream>>>(static_cast<const uint8_t*>(X), ld, k_major,
                                                        rows, k, out, ldo);
    GEMMLAB_CHECK_LAUNCH();
}

/// Whether the 8-bit rungs read an operand as it is: K-major (`k_major`) with TMA-readable rows.
inline bool k_major_direct(const void* X, int64_t ld, bool k_major) {
    return k_major && tma_readable(X, ld, 1);
}

/// Runs Rung (an 8-bit composition of the warp-specialized kernel) with math policy Math and C
/// in TOut on g: copies K-major what needs it, then one launch (no split-K: a split's FP32
/// partials would drop INT8's exactness and FP8's per-element scales). Throws CudaFailure when a
/// dimension passes TMA's 32-bit coordinates or the workspace cannot be had.
template <class Rung, class Math, class TOut>
void launch_8bit(const QuantArgs& g, cudaStream_t stream) {
    using Cfg = typename Rung::Config;
    constexpr int64_t kCoordLimit = int64_t(1) << 31; // TMA coordinates are int32
    if (g.m >= kCoordLimit || g.n >= kCoordLimit || g.k >= kCoordLimit)
        throw CudaFailure("an 8-bit GEMM dimension passes TMA's 32-bit coordinates (m " +
                          std::to_string(g.m) + ", n " + std::to_string(g.n) + ", k " +
                          std::to_string(g.k) + ")");
    // op(A) (m x k) is K-major when A is stored transposed; op(B) (k x n, read as n rows of k)
    // when B is not.
    const bool direct_a = k_major_direct(g.A, g.lda, g.trans_a);
    const bool direct_b = k_major_direct(g.B, g.ldb, !g.trans_b);
    const int64_t ldp = (g.k + 15) / 16 * 16;
    const auto round256 = [](size_t x) { return (x + 255) / 256 * 256; };
    const size_t a_bytes = direct_a ? 0 : round256(size_t(g.m) * size_t(ldp));
    const size_t b_bytes = direct_b ? 0 : size_t(g.n) * size_t(ldp);
    Workspace ws(a_bytes + b_bytes, stream); // nothing to copy: no workspace
    if (a_bytes + b_bytes > 0 && !ws.data())
        throw CudaFailure("no workspace for the K-major copy of an 8-bit operand (" +
                          std::to_string(a_bytes + b_bytes) + " bytes)");
    auto* a_packed = static_cast<uint8_t*>(ws.data());
    auto* b_packed = a_packed + a_bytes;
    if (!direct_a) pack_k_major(g.A, g.lda, g.trans_a, g.m, g.k, a_packed, ldp, stream);
    if (!direct_b) pack_k_major(g.B, g.ldb, !g.trans_b, g.n, g.k, b_packed, ldp, stream);

    Params<Math, TOut> p{};
    p.m = g.m, p.n = g.n, p.k = g.k, p.alpha = g.alpha, p.beta = g.beta;
    p.A = direct_a ? static_cast<const uint8_t*>(g.A) : a_packed;
    p.lda = direct_a ? g.lda : ldp;
    p.B = direct_b ? static_cast<const uint8_t*>(g.B) : b_packed;
    p.ldb = direct_b ? g.ldb : ldp;
    p.C = static_cast<TOut*>(g.C), p.ldc = g.ldc;
    p.math = {g.scales, g.blocks};
    if (g.scales.amax) // the epilogue's atomicMax joins every warp's largest |result| into it
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(g.scales.amax, 0, sizeof(float), stream));
    // K-major maps: (k, m) boxes of 128 bytes x BM (split over a cluster's blocks, each of
    // which loads its share of A's tile for all), (k, n) boxes of 128 bytes x BN.
    const CUtensorMap map_a = make_operand_map(p.A, g.k, g.m, p.lda, Cfg::BM / Rung::kClusterBlocks);
    const CUtensorMap map_b = make_operand_map(p.B, g.k, g.n, p.ldb, Cfg::BN);
    CUtensorMap map_c{};
    Rung::Epilogue::template prepare_c<Cfg, TOut>(g, p, map_c);
    launch_tiles<Cfg, typename Rung::Schedule, Rung::kClusterBlocks, Rung::kThreads,
                 Rung::template kernel<Math, TOut, /*TA=*/true, /*TB=*/false>()>(map_a, map_b,
                                                                              map_c, p, stream);
} // ws is freed on the stream after the kernel

} // namespace gemmlab::detail::hopper
