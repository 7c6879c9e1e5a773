// The driver's tensor-map encoder, found once through the runtime so that the library needs no
// link-time dependency on libcuda (the runtime loads the driver anyway).

#include <mutex>

#include "gemm/kernels/hopper/launch.cuh"

namespace gemmlab::detail::hopper {

EncodeTiled encode_tiled_entry() {
    static EncodeTiled fn = [] {
        void* p = nullptr;
        cudaDriverEntryPointQueryResult found{};
        // 12000: the ABI of cuTensorMapEncodeTiled since CUDA 12.0 (PFN_cuTensorMapEncodeTiled_v12000).
        GEMMLAB_CUDA_CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000,
                                                            cudaEnableDefault, &found));
        if (found != cudaDriverEntryPointSuccess || p == nullptr)
            throw CudaFailure("the CUDA driver has no cuTensorMapEncodeTiled (TMA needs CUDA 12+)");
        return reinterpret_cast<EncodeTiled>(p);
    }();
    return fn;
}

} // namespace gemmlab::detail::hopper
