#pragma once
// Kernel launches through the driver's cuLaunchKernel, with the kernel's CUfunction looked up
// once per thread and context instead of on every launch as the runtime's <<<>>> does: for the
// launches where the host's cost is most of a call (rung 27, auto's path for tiny products).
// `gemmlab overhead` measures both ways of launching side by side (docs/ladder.md, rung 27).
//
// The driver is reached through cudaGetDriverEntryPointByVersion (no link-time libcuda
// dependency, as gemm/pointer_check.cpp does). Stream capture sees these launches as it sees
// the runtime's. Where the entry points are missing, or the driver refuses a launch, the
// kernel goes through <<<>>> instead, so a refusal is reported as every other launch's is
// (GEMMLAB_CHECK_LAUNCH).

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "common/cuda_check.hpp"

namespace gemmlab::detail {

/// The driver calls a launch needs; all null where the driver does not offer one of them.
struct DriverLaunchApi {
    CUresult (*launch)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, CUstream, void**, void**) = nullptr;
    CUresult (*current_context)(CUcontext*) = nullptr;
    CUresult (*context_id)(CUcontext, unsigned long long*) = nullptr;
};

/// The calling thread's current context's ID, unique for the process's lifetime (a context
/// destroyed by cudaDeviceReset and one made after it never share one, where their addresses
/// may), or 0 where there is none or the driver path is off.
unsigned long long current_context_id(const DriverLaunchApi& api);

/// Looked up once per process (driver_launch.cu).
const DriverLaunchApi& driver_launch_api();

template <auto Kernel>
struct DriverLaunch;

/// DriverLaunch<&kernel>::run(grid, block, smem, stream, args...): kernel<<<grid, block, smem,
/// stream>>>(args...), through the driver where it can be.
template <class... P, void (*Kernel)(P...)>
struct DriverLaunch<Kernel> {
    static void run(dim3 grid, dim3 block, unsigned smem, cudaStream_t stream, P... args) {
        const DriverLaunchApi& api = driver_launch_api();
        if (api.launch) {
            // Per thread, keyed by context: the current context is per-thread state, and a
            // function handle belongs to one context (one per device in the runtime's use).
            thread_local unsigned long long cached_context = 0;
            thread_local CUfunction cached_function = nullptr;
            const unsigned long long context = current_context_id(api);
            if (context != 0 && context == cached_context) {
                void* params[] = {&args...};
                if (api.launch(cached_function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                               smem, stream, params, nullptr) == CUDA_SUCCESS)
                    return;
                cached_context = 0; // refused: ask the runtime for the handle again next time
            } else {
                // First launch in this context: take its handle from the runtime (which also
                // makes the device's primary context current if nothing was), then launch as
                // the runtime does this once.
                cudaFunction_t f = nullptr;
                if (cudaGetFuncBySymbol(&f, reinterpret_cast<const void*>(Kernel)) == cudaSuccess) {
                    cached_context = current_context_id(api);
                    cached_function = reinterpret_cast<CUfunction>(f);
                } else {
                    cudaGetLastError(); // not the caller's error: the launch below reports its own
                }
            }
        }
        Kernel<<<grid, block, smem, stream>>>(args...);
        GEMMLAB_CHECK_LAUNCH();
    }
};

} // namespace gemmlab::detail
