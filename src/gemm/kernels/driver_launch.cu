// The driver entry points of driver_launch.cuh, looked up once.

#include "gemm/kernels/driver_launch.cuh"

namespace gemmlab::detail {
namespace {

/// `name` at ABI `version` (the CUDA release that introduced it, x1000), or nullptr.
void* driver_entry(const char* name, int version) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(name, &p, version, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
        cudaGetLastError(); // not the caller's error: clear it
        return nullptr;
    }
    return p;
}

} // namespace

const DriverLaunchApi& driver_launch_api() {
    static const DriverLaunchApi api = [] {
        DriverLaunchApi a;
        a.launch = reinterpret_cast<decltype(a.launch)>(driver_entry("cuLaunchKernel", 4000));
        a.current_context =
            reinterpret_cast<decltype(a.current_context)>(driver_entry("cuCtxGetCurrent", 4000));
        a.context_id =
            reinterpret_cast<decltype(a.context_id)>(driver_entry("cuCtxGetId", 12000));
        if (!a.launch || !a.current_context || !a.context_id) a = {}; // all or none
        return a;
    }();
    return api;
}

unsigned long long current_context_id(const DriverLaunchApi& api) {
    CUcontext context = nullptr;
    unsigned long long id = 0;
    if (!api.current_context || api.current_context(&context) != CUDA_SUCCESS || !context ||
        api.context_id(context, &id) != CUDA_SUCCESS)
        return 0;
    return id;
}

} // namespace gemmlab::detail
