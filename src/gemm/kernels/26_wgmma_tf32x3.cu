// Rung 26: 3xTF32 on warpgroup MMA: FP32 accuracy (the default precision) from TF32 wgmma.
//
// Idea: rung 17's split (x = big + small, both TF32; small*big + big*small + big*big summed in
// FP32, small*small dropped) on rung 25's wgmma machinery. The pack step writes both parts of
// op(A) and op(B), K-major, and flags every 64 rows or columns that hold a value the split
// cannot carry; each stage brings four tiles (A big and small, B big and small) by TMA and each
// k step issues three wgmma m64n128k8, the small products first as in rung 17. Tiles that meet
// a flagged row or column are recomputed with FP32 FMAs (store_tile_fma), so wide-range data,
// values near FLT_MIN, Inf and NaN keep the FP32 bound and IEEE results; below
// kTf32x3MinK = 40 the split's error would pass the bound (docs/precision.md), so small k runs
// on the CUDA cores, as in rung 17.
// Changed from rung 25: two parts per operand, three wgmma per k step, the range guard, and
// 128 x 128 tiles (three stages of 64 KB fit in shared memory; 128 x 256 would leave two).
// Where TMA cannot address the problem or no workspace is left: rung 17.
// Measured: docs/ladder.md.

#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/tf32_wgmma.cuh"
#include "gemm/kernels/tile_configs.hpp"

namespace gemmlab::detail {

namespace hopper {
using Tf32x3Plan = Plan<128, 128, 3, Feed::Tma, /*Specialized=*/true, /*Cluster=*/1, /*Persistent=*/true>;
} // namespace hopper

template <class T>
void launch_wgmma_tf32x3(const GemmArgs<T>& g, cudaStream_t stream) {
    if (g.k < mma::kTf32x3MinK) launch_warp_tile_cfg<Cfg64x64x8>(g, stream);
    else if (!hopper::launch_packed<hopper::Tf32x3Plan, hopper::Tf32x3>(g, stream))
        launch_tf32x3(g, stream);
}

template void launch_wgmma_tf32x3<float>(const GemmArgs<float>&, cudaStream_t);

void launch_wgmma_tf32x3_split(const GemmArgs<float>& g, cudaStream_t stream, int splits) {
    if (g.k < mma::kTf32x3MinK) launch_warp_tile_cfg<Cfg64x64x8>(g, stream);
    else if (!hopper::launch_packed<hopper::Tf32x3Plan, hopper::Tf32x3>(g, stream, splits))
        launch_tf32x3(g, stream);
}

} // namespace gemmlab::detail
