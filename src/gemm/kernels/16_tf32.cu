// Rung 16: TF32 tensor cores, float inputs rounded to 10-bit mantissas (opt-in precision).
//
// Idea: the tensor cores multiply float matrices only in reduced precision: TF32 keeps FP32's
// 8-bit exponent but 10 explicit mantissa bits. Each operand is rounded once, to nearest with
// ties away from zero (cvt.rna.tf32.f32), the products are exact and the sums are kept in FP32.
// mma.sync m16n8k8 .tf32 (SASS: HMMA.1688.F32.TF32) does 1024 multiply-adds per instruction
// where an FFMA does one per lane: the fastest warp-level way to multiply floats, at a price.
// The price: each input carries a relative error up to 2^-11 (u = 2^-11 instead of 2^-24), so
// the result is about 2^13 times less accurate than FP32. That is why this rung is never the
// default: it runs when named, or under `auto` when the call asks for Precision::Tf32 (like
// cuBLAS's CUBLAS_COMPUTE_32F_FAST_TF32 or PyTorch's float32_matmul_precision("high")), and it
// is checked against its own bound (docs/ladder.md derives it).
// Changed from rung 15: the element type (float), the MMA shape (m16n8k8 tf32) and one cvt per
// operand element as it leaves shared memory; pipeline, layouts and epilogue are rung 15's.
// Seeds: none (sm_80+ hardware).

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/mma_tile.cuh"

namespace gemmlab::detail {
namespace mma {

/// TF32 math: each operand rounded to TF32, mma.sync m16n8k8, FP32 accumulation.
struct Tf32Math {
    using Element = float;
    using Acc = float;
    static constexpr int kK = 8;
    static constexpr int kUnrollK = 4; // k steps unrolled (see mma_tile.cuh)
    using BOperands = uint32_t[2];
    using Guard = NoGuard;

    __device__ __forceinline__ static void prepare_b(BOperands& b, const float (&raw)[2], Guard&) {
        b[0] = ptx::cvt_rna_tf32(raw[0]);
        b[1] = ptx::cvt_rna_tf32(raw[1]);
    }

    template <int NT>
    __device__ __forceinline__ static void mma_row(float (&acc)[NT][4], const float (&raw)[4],
                                                   const BOperands (&b)[NT], Guard&) {
        uint32_t a[4];
#pragma unroll
        for (int e = 0; e < 4; ++e) a[e] = ptx::cvt_rna_tf32(raw[e]);
#pragma unroll
        for (int j = 0; j < NT; ++j) ptx::mma_m16n8k8_tf32(acc[j], a, b[j]);
    }
};

template <class Cfg>
void launch_tf32_cfg(const GemmArgs<float>& g, cudaStream_t stream) {
    launch<Cfg, Tf32Math>(g, stream);
}

// The configurations that exist (mma_configs.hpp names them).
template void launch_tf32_cfg<Cfg128x128w64x32s3<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32_cfg<Cfg128x256w64x64s3<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32_cfg<Cfg64x64w32x32s4<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32_cfg<Cfg64x32w32x16s4<32>>(const GemmArgs<float>&, cudaStream_t);
template void launch_tf32_cfg<Cfg32x32w16x16s5<32>>(const GemmArgs<float>&, cudaStream_t);

} // namespace mma

// The registry row runs the default configuration.
template <class T>
void launch_tf32(const GemmArgs<T>& g, cudaStream_t stream) {
    mma::launch_tf32_cfg<mma::Cfg128x256w64x64s3<32>>(g, stream);
}

template void launch_tf32<float>(const GemmArgs<float>&, cudaStream_t);

} // namespace gemmlab::detail
