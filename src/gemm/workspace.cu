// The per-device workspace pool (see workspace.hpp).

#include "gemm/workspace.hpp"

#include <array>
#include <cstdint>
#include <mutex>

#include "common/cuda_check.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kMaxPoolDevices = 64;

/// The pool of `device`, created once (thread-safe) and never destroyed: the driver reclaims it
/// at process exit, and destroying it in a static destructor could race with late frees.
cudaMemPool_t pool_of(int device) {
    static std::array<cudaMemPool_t, kMaxPoolDevices> pools{};
    static std::mutex mutex;
    if (device < 0 || device >= kMaxPoolDevices)
        throw CudaFailure("gemmlab workspace: device " + std::to_string(device) + " is out of range");
    std::lock_guard<std::mutex> lock(mutex);
    cudaMemPool_t& pool = pools[size_t(device)];
    if (!pool) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        GEMMLAB_CUDA_CHECK(cudaMemPoolCreate(&pool, &props));
        uint64_t keep = kWorkspaceKeepBytes;
        GEMMLAB_CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &keep));
    }
    return pool;
}

} // namespace

Workspace::Workspace(size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const cudaError_t e = cudaMallocFromPoolAsync(&ptr_, bytes, pool_of(device), stream);
    if (e == cudaErrorMemoryAllocation) {
        cudaGetLastError(); // not sticky: the caller takes its path without workspace
        ptr_ = nullptr;
        return;
    }
    GEMMLAB_CUDA_CHECK(e);
}

Workspace::~Workspace() {
    if (ptr_) cudaFreeAsync(ptr_, stream_); // an error here is the stream's, reported by its next call
}

} // namespace gemmlab::detail
