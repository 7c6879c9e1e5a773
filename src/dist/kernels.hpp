#pragma once
// The two small element-wise kernels of the distributed layer (kernels.cu).

#include <cstdint>

#include <cuda_runtime_api.h>

namespace gemmlab::dist::detail {

/// dst = src + beta * dst over `lines` lines of `width` elements (row-major: lines are rows;
/// column-major: columns), src in float, dst in TC (bf16, fp16 or float), rounded once.
/// beta == 0 never reads dst. Returns the launch's error.
template <class TC>
cudaError_t store_from_float(int64_t lines, int64_t width, const float* src, int64_t ld_src,
                             float beta, TC* dst, int64_t ld_dst, cudaStream_t stream);

} // namespace gemmlab::dist::detail
