#pragma once
// RAII ownership of device memory and CUDA events.

#include <cstddef>
#include <string>
#include <utility>

#include "common/gpu_runtime.hpp"

#include "common/cuda_check.hpp"

namespace gemmlab {

/// Owns `count` elements of T in device memory (cudaMalloc); move-only.
template <class T>
class DeviceBuffer {
public:
    DeviceBuffer() = default;
    /// Throws OutOfDeviceMemory when the device has not `count` elements to spare.
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (count_ == 0) return;
        const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&ptr_), count_ * sizeof(T));
        if (err == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError(); // not sticky: clear it so later calls do not report it again
            throw OutOfDeviceMemory(bytes(), "cannot allocate " + format_bytes(double(bytes())) +
                                                 " of GPU memory (cudaMalloc: out of memory)");
        }
        if (err != cudaSuccess) detail::throw_cuda(err, "cudaMalloc", __FILE__, __LINE__);
    }
    ~DeviceBuffer() {
        if (ptr_) (void)cudaFree(ptr_); // never throws from a destructor
    }
    DeviceBuffer(DeviceBuffer&& o) noexcept
        : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
    DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
        if (this != &o) {
            if (ptr_) (void)cudaFree(ptr_);
            ptr_ = std::exchange(o.ptr_, nullptr);
            count_ = std::exchange(o.count_, 0);
        }
        return *this;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    T* get() const noexcept { return ptr_; }
    size_t size() const noexcept { return count_; }
    size_t bytes() const noexcept { return count_ * sizeof(T); }

    void copy_from_host(const T* src, size_t count) {
        GEMMLAB_CUDA_CHECK(cudaMemcpy(ptr_, src, count * sizeof(T), cudaMemcpyHostToDevice));
    }
    void copy_to_host(T* dst, size_t count) const {
        GEMMLAB_CUDA_CHECK(cudaMemcpy(dst, ptr_, count * sizeof(T), cudaMemcpyDeviceToHost));
    }

private:
    T* ptr_ = nullptr;
    size_t count_ = 0;
};

/// Owns one cudaEvent_t.
class Event {
public:
    Event() { GEMMLAB_CUDA_CHECK(cudaEventCreate(&e_)); }
    ~Event() {
        if (e_) (void)cudaEventDestroy(e_);
    }
    Event(const Event&) = delete;
    Event& operator=(const Event&) = delete;
    cudaEvent_t get() const noexcept { return e_; }
    void record(cudaStream_t s = nullptr) { GEMMLAB_CUDA_CHECK(cudaEventRecord(e_, s)); }

    /// Milliseconds between `start` and this event; synchronizes on this event first.
    float ms_since(const Event& start) const {
        GEMMLAB_CUDA_CHECK(cudaEventSynchronize(e_));
        float ms = 0;
        GEMMLAB_CUDA_CHECK(cudaEventElapsedTime(&ms, start.e_, e_));
        return ms;
    }

private:
    cudaEvent_t e_ = nullptr;
};

/// Owns one non-blocking cudaStream_t.
class Stream {
public:
    Stream() { GEMMLAB_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
    ~Stream() {
        if (s_) (void)cudaStreamDestroy(s_);
    }
    Stream(const Stream&) = delete;
    Stream& operator=(const Stream&) = delete;
    cudaStream_t get() const noexcept { return s_; }

private:
    cudaStream_t s_ = nullptr;
};

} // namespace gemmlab
