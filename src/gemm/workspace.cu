// The per-device workspace pool (see workspace.hpp).

#include "gemm/workspace.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>

#include "common/cuda_check.hpp"

namespace gemmlab::detail {
namespace {

constexpr int kMaxPoolDevices = 64;

/// The pool of `device`, created once (thread-safe) and never destroyed: the driver reclaims it
/// at process exit, and destroying it in a static destructor could race with late frees. Its
/// release threshold rises to `bytes` where that is more than it keeps (workspace.hpp).
cudaMemPool_t pool_of(int device, size_t bytes) {
    struct Pool {
        cudaMemPool_t pool = nullptr;
        uint64_t keep = 0, keep_limit = 0;
    };
    static std::array<Pool, kMaxPoolDevices> pools{};
    static std::mutex mutex;
    if (device < 0 || device >= kMaxPoolDevices)
        throw CudaFailure("gemmlab workspace: device " + std::to_string(device) + " is out of range");
    std::lock_guard<std::mutex> lock(mutex);
    Pool& p = pools[size_t(device)];
    if (!p.pool) {
        cudaMemPoolProps props{};
        props.allocType = cudaMemAllocationTypePinned;
        props.location.type = cudaMemLocationTypeDevice;
        props.location.id = device;
        GEMMLAB_CUDA_CHECK(cudaMemPoolCreate(&p.pool, &props));
        p.keep = kWorkspaceKeepBytes;
        GEMMLAB_CUDA_CHECK(cudaMemPoolSetAttribute(p.pool, cudaMemPoolAttrReleaseThreshold, &p.keep));
        size_t available = 0, total = 0;
        if (cudaMemGetInfo(&available, &total) != cudaSuccess) {
            cudaGetLastError(); // not sticky: the pool keeps its first threshold
            total = 0;
        }
        p.keep_limit = std::max<uint64_t>(total / kWorkspaceKeepShare, kWorkspaceKeepBytes);
    }
    if (bytes > p.keep && p.keep < p.keep_limit) {
        p.keep = std::min<uint64_t>(bytes, p.keep_limit);
        GEMMLAB_CUDA_CHECK(cudaMemPoolSetAttribute(p.pool, cudaMemPoolAttrReleaseThreshold, &p.keep));
    }
    return p.pool;
}

} // namespace

Workspace::Workspace(size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    const cudaError_t e = cudaMallocFromPoolAsync(&ptr_, bytes, pool_of(device, bytes), stream);
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

namespace {

/// One device's serial scratch: the buffer (grown, never shrunk), the prefix known to be zero
/// (the last use's zeroed_bytes: it may have written anything past them), the event the last
/// use recorded, and the lock held from a use's start to its end.
struct SerialState {
    std::mutex lock;
    void* ptr = nullptr;
    size_t bytes = 0, zero_prefix = 0;
    cudaEvent_t last_use = nullptr;
};

SerialState& serial_state(int device) {
    static std::array<SerialState, kMaxPoolDevices> states;
    if (device < 0 || device >= kMaxPoolDevices)
        throw CudaFailure("gemmlab scratch: device " + std::to_string(device) + " is out of range");
    return states[size_t(device)];
}

} // namespace

SerialScratch::SerialScratch(size_t bytes, size_t zeroed_bytes, cudaStream_t stream) : stream_(stream) {
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    GEMMLAB_CUDA_CHECK(cudaStreamIsCapturing(stream, &capture));
    if (capture != cudaStreamCaptureStatusNone || bytes == 0) return;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device_));
    SerialState& s = serial_state(device_);
    s.lock.lock();
    if (!s.last_use && cudaEventCreateWithFlags(&s.last_use, cudaEventDisableTiming) != cudaSuccess) {
        cudaGetLastError();
        s.last_use = nullptr;
        s.lock.unlock();
        return;
    }
    if (s.bytes < bytes) {
        // Growing: the old buffer may still be in use; cudaFree waits for the device.
        if (s.ptr) GEMMLAB_CUDA_CHECK(cudaFree(s.ptr));
        s.ptr = nullptr, s.bytes = 0;
        if (cudaMalloc(&s.ptr, bytes) != cudaSuccess) {
            cudaGetLastError(); // not sticky: the caller takes its path without this scratch
            s.ptr = nullptr;
            s.lock.unlock();
            return;
        }
        s.bytes = bytes, s.zero_prefix = 0;
    }
    GEMMLAB_CUDA_CHECK(cudaStreamWaitEvent(stream, s.last_use, 0));
    // Each use leaves its zeroed prefix zero, so a memset is needed only when a use asks for
    // more of it than the last one promised.
    if (zeroed_bytes > s.zero_prefix) GEMMLAB_CUDA_CHECK(cudaMemsetAsync(s.ptr, 0, zeroed_bytes, stream));
    s.zero_prefix = zeroed_bytes;
    ptr_ = s.ptr;
}

SerialScratch::~SerialScratch() {
    if (!ptr_) return;
    SerialState& s = serial_state(device_);
    cudaEventRecord(s.last_use, stream_); // an error here is the stream's, reported by its next call
    s.lock.unlock();
}

} // namespace gemmlab::detail
