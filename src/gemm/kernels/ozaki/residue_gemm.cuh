#pragma once
// Rung 31's INT8 GEMMs: every modulus's product in one launch of rung 30's kernel, each product
// leaving registers as its residue (y_l C'_l) mod m_l, one byte per element.
// Folding in the epilogue replaces what used to be, per modulus, an int32 C written to memory
// and a separate pass reading it back: 4 bytes out and 5 bytes through a CUDA-core pass per
// element and modulus become one byte out. One launch for all moduli (a strided batch: modulus
// l is product l, its planes the batch's matrices) lets the persistent blocks run from one
// modulus into the next without a tail or a launch between them.
// Changed from rung 30: the epilogue (ResidueEpilogue) and the batch; the mainloop is rung 30's.

#include <cstdint>

#include "gemm/kernels/24_persistent.cuh"
#include "gemm/kernels/hopper/mma_8bit.cuh"
#include "gemm/kernels/ozaki/kernels.cuh"

namespace gemmlab::detail::ozaki {

/// Every modulus with its division constants, read by the epilogue per tile.
struct RuntimeModuli {
    RuntimeModulus of[kMaxModuli];
};
constexpr RuntimeModuli make_runtime_moduli() {
    RuntimeModuli t{};
    for (int l = 0; l < kMaxModuli; ++l) t.of[l] = runtime_modulus(modulus(l));
    return t;
}
__constant__ RuntimeModuli kRuntimeModuli = make_runtime_moduli();

/// The four bytes of two residue words added modulus m, byte by byte (each byte below m).
__device__ __forceinline__ uint32_t add_residues(uint32_t a, uint32_t b, uint32_t m) {
    uint32_t r = 0;
#pragma unroll
    for (int v = 0; v < 4; ++v) {
        uint32_t s = ((a >> (8 * v)) & 0xFFu) + ((b >> (8 * v)) & 0xFFu);
        if (s >= m) s -= m;
        r |= s << (8 * v);
    }
    return r;
}

/// Product `batch` (modulus l = batch of p.batches) to its residue plane: p.C + l * p.stride_c
/// in ResidueLayout (p.ldc = its blocks_m), one 32-bit store per thread and group of 8 columns.
/// p.beta != 0: add to the residues already there (a later chunk of a long k).
struct ResidueEpilogue {
    template <class Cfg, class P, int N>
    __device__ __forceinline__ static void store(const P& p, const int32_t (&acc)[N], const void*,
                                                 uint32_t, int64_t m0, int64_t n0, int wg,
                                                 int64_t batch) {
        static_assert(N == Cfg::BN / 2, "a thread's accumulators of one 64-row slice");
        const int lane = threadIdx.x % 32, warp = (threadIdx.x / 32) % 4;
        const int64_t r0 = m0 + 64 * wg + 16 * warp; // the warp's 16-row block
        if (r0 >= p.m) return;
        const RuntimeModulus d = kRuntimeModuli.of[batch];
        const uint32_t y = kCrtTable.of[p.batches].inverse[batch];
        uint32_t* words = reinterpret_cast<uint32_t*>(p.C + batch * p.stride_c) + (r0 / 16) * 32 +
                          lane + (n0 / 8) * p.ldc * 32;
#pragma unroll
        for (int j = 0; j < Cfg::BN / 8; ++j) {
            if (n0 + 8 * j >= p.n) break;
            uint32_t q[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) q[e] = scaled_residue_of(acc[4 * j + e], y, d);
            uint32_t word = low_bytes(q);
            uint32_t* at = words + j * p.ldc * 32;
            if (p.beta != 0.0f) word = add_residues(word, *at, d.m);
            *at = word;
        }
    }
    template <class TOut>
    __device__ __forceinline__ static void drain() {}
};

/// The rung the residue GEMMs launch: rung 30's parts with ResidueEpilogue, batched.
struct ResidueGemmRung {
    using Config = hopper::Int8Config;
    using Cluster = hopper::SingleBlock;
    template <class Cfg, class Math, class Layout>
    using Loads = hopper::TmaLoads<Cfg, Math, Layout>;
    using Schedule = hopper::PersistentSchedule;
    using Epilogue = ResidueEpilogue;
    static constexpr bool kNativeBatch = true;
    static constexpr int kClusterBlocks = Cluster::kBlocks;
    static constexpr int kThreads = Config::kConsumers * 128 + 128;
};

/// The residue planes Q (`count` planes of `layout`) of the products of the first `count`
/// planes of A (m x kp, K-major, `plane_a` bytes apart) and B (n x kp likewise) over k
/// [p0, p0 + chunk); accumulate: add to Q's residues (k past one GEMM's exact range).
inline void launch_residue_gemms(const int8_t* planes_a, int64_t plane_a, const int8_t* planes_b,
                                 int64_t plane_b, int64_t m, int64_t n, int64_t kp, int64_t p0,
                                 int64_t chunk, int count, bool accumulate,
                                 const ResidueLayout& layout, uint8_t* Q, cudaStream_t stream) {
    using Rung = ResidueGemmRung;
    using Cfg = Rung::Config;
    using Math = hopper::MmaInt8;
    hopper::Params<Math, uint8_t> p{};
    p.m = m, p.n = n, p.k = chunk, p.alpha = 1.0f, p.beta = accumulate ? 1.0f : 0.0f;
    p.A = reinterpret_cast<const uint8_t*>(planes_a + p0), p.lda = kp;
    p.B = reinterpret_cast<const uint8_t*>(planes_b + p0), p.ldb = kp;
    p.C = Q, p.ldc = layout.blocks_m;
    p.batches = count, p.a_per_batch = true, p.b_per_batch = true;
    p.stride_c = layout.plane_bytes();
    const hopper::MapBatch batch_a{count, plane_a}, batch_b{count, plane_b};
    const CUtensorMap map_a = hopper::make_operand_map(p.A, chunk, m, kp, Cfg::BM, false, batch_a);
    const CUtensorMap map_b = hopper::make_operand_map(p.B, chunk, n, kp, Cfg::BN, false, batch_b);
    const CUtensorMap map_c{};
    hopper::launch_tiles<Cfg, Rung::Schedule, Rung::kClusterBlocks, Rung::kThreads,
                         &hopper::warp_specialized_kernel<Rung, Math, uint8_t, /*TA=*/true,
                                                          /*TB=*/false>>(map_a, map_b, map_c, p,
                                                                         stream);
}

} // namespace gemmlab::detail::ozaki
