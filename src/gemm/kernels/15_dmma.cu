// Rung 15: FP64 tensor cores (DMMA), the first rung off the CUDA cores.
//
// Idea: on sm_90 the FP64 arithmetic that cuBLAS DGEMM runs at ~55 TFLOP/s is not the FP64 FMA
// pipe (64 lanes per SM, what rungs 1-14 use: ~33 TFLOP/s at best) but the tensor cores, reached
// from a warp with mma.sync ... .f64 (SASS: DMMA). One m16n8k16 DMMA multiplies a 16x16 by a
// 16x8 block (2048 multiply-adds) in one instruction, each product and sum in IEEE FP64, so the
// result meets the same FP64 error bound as an FMA chain. The warp, not the thread, now owns an
// output tile: a (WM, WN) warp tile is a grid of 16x8 MMA tiles whose operands each lane loads
// in the register layout the instruction fixes (ptx.cuh), from shared tiles padded so that those
// loads are conflict-free (mma_tile.cuh); rung 14's cp.async ring feeds the shared tiles.
// Which shape: sm_90 has m8n8k4 (also sm_80), m16n8k4, m16n8k8 and m16n8k16 for f64; the
// tensor probe (`gemmlab probe tensor`) measures their rates, and the configurations below are
// instantiated for k8 and k16 so that the bench can compare them in a kernel: see
// docs/ladder.md for the numbers and the choice.
// Changed from rung 14: the multiply-accumulate stage (DMMA on warp tiles instead of FMA outer
// products on thread tiles) and the shared layouts it reads; the cp.async ring is rung 14's.
// Seeds: none (sm_90 hardware); the subject of seed 000 (DGEMM) on the unit that now does it.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_tile.cuh"

namespace gemmlab::detail {
namespace mma {

/// FP64 math: DMMA m16n8kK, operands used as loaded.
template <int K>
struct DmmaMath {
    using Element = double;
    using Acc = double;
    static constexpr int kK = K;
    static constexpr int kUnrollK = 4; // k steps unrolled (see mma_tile.cuh)
    static constexpr int kFragA = ptx::Mma16x8Fragments<K>::kA;
    static constexpr int kFragB = ptx::Mma16x8Fragments<K>::kB;
    using BOperands = double[kFragB];
    using Guard = NoGuard;

    __device__ __forceinline__ static void prepare_b(BOperands& b, const double (&raw)[kFragB], Guard&) {
#pragma unroll
        for (int e = 0; e < kFragB; ++e) b[e] = raw[e];
    }

    template <int NT>
    __device__ __forceinline__ static void mma_row(double (&acc)[NT][4], const double (&a)[kFragA],
                                                   const BOperands (&b)[NT], Guard&) {
#pragma unroll
        for (int j = 0; j < NT; ++j) {
            if constexpr (K == 16) ptx::mma_m16n8k16_f64(acc[j], a, b[j]);
            else ptx::mma_m16n8k8_f64(acc[j], a, b[j]);
        }
    }
};

template <class Cfg, int MmaK>
void launch_dmma_cfg(const GemmArgs<double>& g, cudaStream_t stream) {
    launch<Cfg, DmmaMath<MmaK>>(g, stream);
}

// The configurations that exist (mma_configs.hpp names them).
template void launch_dmma_cfg<Cfg128x128w64x32s3<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg128x128w64x32s3<16>, 8>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg128x64w64x32s4<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg128x64w64x32s4<16>, 8>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg64x64w32x32s4<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg128x64w64x32s3<32>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg64x128w32x64s4<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg64x64w32x32s4b3<16>, 16>(const GemmArgs<double>&, cudaStream_t);

} // namespace mma

// The registry row runs the configuration measured fastest (docs/ladder.md).
template <class T>
void launch_dmma(const GemmArgs<T>& g, cudaStream_t stream) {
    mma::launch_dmma_cfg<mma::Cfg128x64w64x32s4<16>, 16>(g, stream);
}

template void launch_dmma<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
