// Rung 15: FP64 tensor cores (DMMA), the first rung off the CUDA cores.
//
// Idea: on sm_90 the FP64 arithmetic that cuBLAS DGEMM runs at ~55 TFLOP/s is not the FP64 FMA
// pipe (64 lanes per SM, what rungs 1-14 use: ~33 TFLOP/s at best) but the tensor cores, reached
// from a warp with mma.sync ... .f64 (SASS: DMMA). One m16n8k16 DMMA multiplies a 16x16 by a
// 16x8 block (2048 multiply-adds) in one instruction, each product and sum in IEEE FP64, so the
// result meets the same FP64 error bound as an FMA chain. The warp, not the thread, now owns an
// output tile: a (WM, WN) warp tile is a grid of 16x8 MMA tiles whose operands each lane loads
// in the register layout the instruction fixes (ptx.cuh), from shared tiles padded so that those
// loads are conflict-free (mma_tile.cuh); rung 14's cp.async ring feeds the shared tiles, its
// stages handed from the copies to the warps and back by mbarriers rather than block barriers.
// Which shape: sm_90 has m8n8k4 (also sm_80), m16n8k4, m16n8k8 and m16n8k16 for f64; the
// tensor probe (`gemmlab probe tensor`) measures their rates, and the configurations below are
// instantiated for k8 and k16 so that the bench can compare them in a kernel: see
// docs/ladder.md for the numbers and the choice.
// Changed from rung 14: the multiply-accumulate stage (DMMA on warp tiles instead of FMA outer
// products on thread tiles) and the shared layouts it reads; the cp.async ring is rung 14's.
// Source (docs/sources.md): none (sm_90 hardware); the DCU DGEMM walk-through's subject on the
// unit that now does it.

#include "gemm/kernels/launchers.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/kernels/mma_tile.cuh"

namespace gemmlab::detail {
namespace mma {

/// FP64 math: DMMA m16n8kK, operands used as loaded; Rotate: the rotating-fragment mainloop
/// (mma_tile.cuh), else a tile's fragments loaded step by step after its barrier.
template <int K, bool Rotate = false>
struct DmmaMath {
    using Element = double;
    static constexpr bool kRotateFragments = Rotate;
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

template <class Cfg, int MmaK>
void launch_dmma_rotating_cfg(const GemmArgs<double>& g, cudaStream_t stream) {
    launch<Cfg, DmmaMath<MmaK, true>>(g, stream);
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
template void launch_dmma_cfg<Cfg128x64w64x32s4g16<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg128x64w64x32s3g16<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg32x64w16x32s4<16>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg32x32w16x16s5<32>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg128x64w32x32s4<16>>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg64x64w32x16s4<16>>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg128x64w64x32s3g16<16>>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg128x64w64x32s4g16<16>>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg128x128w64x32s4g16<16>>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_cfg<Cfg32x64w16x32s3<32>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg128x64w32x32s3<32>, 16>(const GemmArgs<double>&, cudaStream_t);
template void launch_dmma_rotating_cfg<Cfg32x64w16x16s3<32>, 16>(const GemmArgs<double>&, cudaStream_t);

/// Shared memory of one block of Cfg for the call's op flags (a k-contiguous operand's tile is
/// padded along k, an mn-contiguous one's along mn: mma_tile.cuh).
template <class Cfg>
int dmma_smem_bytes(bool trans_a, bool trans_b) {
    using M = DmmaMath<8, true>;
    if (trans_a)
        return trans_b ? MmaKernel<Cfg, M, true, true, true>::kSmemBytes
                       : MmaKernel<Cfg, M, true, false, true>::kSmemBytes;
    return trans_b ? MmaKernel<Cfg, M, false, true, true>::kSmemBytes
                   : MmaKernel<Cfg, M, false, false, true>::kSmemBytes;
}

// One 4-warp DMMA block per SM leaves the FP64 tensor cores about a fifth idle (auto_select.cu,
// kDmmaSaturatingWarps); two keep them busy. Four stages of 128x64x16 take 102-123 KB by op
// flags, and only the two layouts with an mn-contiguous op(B) fit twice in sm_90's 228 KB:
// with op(B) k-contiguous (row-major NT and TT) the ring was one block per SM and measured well
// below NN and TN (docs/runs/2026-11-23-h100.md). Three stages (77-92 KB) fit twice in every
// layout.
void launch_dmma_128x64(const GemmArgs<double>& g, cudaStream_t stream) {
    const DeviceCaps caps = current_device_caps();
    const int four = dmma_smem_bytes<Cfg128x64w64x32s4g16<16>>(g.trans_a, g.trans_b);
    if (2 * (four + caps.smem_reserved_per_block) <= caps.smem_per_sm)
        launch_dmma_rotating_cfg<Cfg128x64w64x32s4g16<16>>(g, stream);
    else
        launch_dmma_rotating_cfg<Cfg128x64w64x32s3g16<16>>(g, stream);
}

} // namespace mma

// The registry row runs the configuration measured fastest (docs/ladder.md): 128x128 tiles,
// eight warps of 64x32, one block per SM, taken in groups of 16 tile rows (which keeps the
// operand panels of the blocks running at once in L2), m16n8k8 DMMAs fed by the
// rotating-fragment mainloop, its four stages handed over by mbarriers (mma_tile.cuh): busier
// tensor pipe and less L2 traffic than two 4-warp 128x64 blocks per SM (docs/ladder.md).
template <class T>
void launch_dmma(const GemmArgs<T>& g, cudaStream_t stream) {
    mma::launch_dmma_rotating_cfg<mma::Cfg128x128w64x32s4g16<16>>(g, stream);
}

template void launch_dmma<double>(const GemmArgs<double>&, cudaStream_t);

} // namespace gemmlab::detail
