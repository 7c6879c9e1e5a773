#pragma once
// Scratch memory for rungs that stage operands or partial results in global memory (the TF32
// pack step of rungs 25-26; split-K partial sums). It comes from one stream-ordered memory pool
// per device, created on first use and kept by the library:
// - no cudaMalloc and no synchronization per call: cudaMallocFromPoolAsync hands back memory
//   the pool already holds (the pool keeps up to kWorkspaceKeepBytes across synchronizations);
// - safe from several threads and streams at once: each call gets its own block, ordered on
//   its stream, and returns it on the same stream after its last kernel;
// - meant to be capturable in a CUDA graph: under stream capture the allocation and the free
//   become graph memory nodes (tests/test_graph_gpu.cpp checks this for rungs 25-26).

#include <cstddef>

#include <cuda_runtime_api.h>

namespace gemmlab::detail {

/// Bytes the pool keeps mapped after the memory has been freed (the rest goes back to the
/// driver at the next synchronization), at least: a call that asks for a larger block raises
/// it to that block, up to kWorkspaceKeepShare of the device's memory. Otherwise a rung with a
/// large workspace (rung 31's residue planes: gigabytes from 8192^3) would have its pages
/// unmapped at every synchronization and mapped again by its next call.
inline constexpr size_t kWorkspaceKeepBytes = size_t(1) << 30;
inline constexpr size_t kWorkspaceKeepShare = 8; // 1/8 of the device's memory

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

/// The per-device scratch of the tail split's split tiles (hopper/tail_split.cuh), kept by the
/// library so that a call pays no allocation and no memset: its first `zeroed_bytes` are zero
/// when each use starts, and every user must leave them zero (the split tiles' counters are
/// reset by the warp that finishes their tile). Uses are ordered one after another, whatever their
/// streams: each waits on an event the one before recorded, so no two kernels share it at once
/// (tail-split kernels fill the GPU; they gain nothing from running side by side). data() is
/// nullptr under stream capture (a graph replays long after, unordered with the other uses:
/// the caller takes a Workspace and a memset instead) and when the memory cannot be had.
class SerialScratch {
public:
    SerialScratch(size_t bytes, size_t zeroed_bytes, cudaStream_t stream);
    ~SerialScratch(); // records the use's end on its stream
    SerialScratch(const SerialScratch&) = delete;
    SerialScratch& operator=(const SerialScratch&) = delete;

    void* data() const noexcept { return ptr_; }

private:
    void* ptr_ = nullptr;
    cudaStream_t stream_;
    int device_ = 0;
};

} // namespace gemmlab::detail
