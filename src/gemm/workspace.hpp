#pragma once
// Scratch memory for rungs that stage operands or partial results in global memory (the TF32
// pack step of rungs 25-26; split-K partial sums). It comes from one stream-ordered memory pool
// per device, created on first use and kept by the library:
// - no cudaMalloc and no synchronization per call: cudaMallocFromPoolAsync hands back memory
//   the pool already holds (the pool keeps up to kWorkspaceKeepBytes across synchronizations);
// - safe from several threads and streams at once: each call gets its own block, ordered on
//   its stream, and returns it on the same stream after its last kernel;
// - capturable in a CUDA graph: the allocation and the free become graph memory nodes.

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmlab::detail {

/// Bytes the pool keeps mapped after the memory has been freed (the rest goes back to the
/// driver at the next synchronization).
inline constexpr size_t kWorkspaceKeepBytes = size_t(1) << 30;

/// One call's scratch block on `stream`; freed (stream-ordered) when the object dies, so
/// kernels enqueued before that may use it. data() is nullptr when the pool could not supply
/// `bytes` (out of memory): the caller takes a path without workspace.
class Workspace {
public:
    Workspace(size_t bytes, cudaStream_t stream);
    ~Workspace();
    Workspace(const Workspace&) = delete;
    Workspace& operator=(const Workspace&) = delete;

    void* data() const noexcept { return ptr_; }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_;
};

} // namespace gemmlab::detail
