#pragma once
// Communication that takes no SM: every rank writes its part straight into its peers' buffers
// with the GPU's copy engines (cudaMemcpyAsync into a peer's memory), and the ranks order those
// writes with flags that the GPU's front end writes and waits on (cuStreamWriteValue32,
// cuStreamWaitValue32), never with a kernel. An NCCL collective runs as thread blocks that hold
// SMs the overlapped products then lack; measured on 4 x H200, the products lost about as much
// beside NCCL as the overlap hid (docs/distributed.md, "Copy engines").
//
// A shared buffer exists on every rank with the same size, and every rank maps each peer's
// (CUDA IPC: one rank per process). One exchange, the same on every rank, numbered by an epoch
// that every rank counts alike:
//   1. after the work already on the exchange's stream (what this rank's buffer held before is
//      no longer needed, and what it sends is written), tell every peer "free": it may write
//      into this rank's buffer;
//   2. for each peer, on a stream of its own: wait for that peer's "free", copy this rank's part
//      into the peer's buffer, then tell that peer "ready"; and wait for the "ready" of the peer
//      that writes into this rank's buffer at the same step;
//   3. the exchange's stream waits for every step: all parts arrived, all of this rank's sent.
// Writes, not reads: with every GPU of a host moving data to every other at once, the copy
// engines wrote about twice what they read (docs/distributed.md, "Copy engines"). Step i sends
// to rank + i and receives from rank - i, so that each GPU receives from one peer at a time. Flags compare cyclically
// (int32_t(flag - epoch) >= 0), so they never need resetting.
//
// Ranks of one process (Communicator::create_all_local) do not use it: four of them on one
// host's GPUs hung in their copies (docs/distributed.md), two did not; such communicators use
// NCCL.

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include "dist/comm.hpp"

namespace gemmlab::dist::detail {

/// One part of one exchange: `bytes` from `src` (this rank's memory) to offset `dst_offset` of
/// peer q's shared buffer.
struct Push {
    const void* src = nullptr;
    size_t dst_offset = 0;
    size_t bytes = 0;
};

class PeerCopies {
public:
    /// Most ranks an exchange serves (one host's GPUs).
    static constexpr int kMaxRanks = 16;

    /// Collective (every rank at the same call): learns whether every rank reaches every peer and
    /// the ranks want it; *out stays null where they do not (the caller then uses NCCL).
    /// `why` says why not.
    static Status create(Communicator::Impl* im, bool wanted, std::unique_ptr<PeerCopies>* out,
                         std::string* why, Clock::time_point deadline);
    ~PeerCopies();

    /// A buffer of `bytes` on every rank, every peer's reachable (made or grown collectively:
    /// every rank asks with the same `bytes` at the same call); *mine is this rank's.
    Status shared(Buffer id, size_t bytes, cudaStream_t stream, void** mine, Clock::time_point deadline);

    /// One exchange (above) on `stream` over shared buffer `id`: `push(q)` says what to write
    /// into peer q's buffer. When it returns, `stream` waits for every part in and every part out.
    /// `landed_from[q]` (may be null) is recorded once peer q's part arrived. `in_turn`: each step
    /// starts once the one before arrived, so the first peer's part arrives sooner (for a
    /// consumer that starts on each part as it arrives); else all steps at once.
    Status exchange(Buffer id, cudaStream_t stream, const std::function<Push(int q)>& push,
                    const std::array<cudaEvent_t, kMaxRanks>* landed_from, bool in_turn = false);

    /// After this rank failed: lets every wait on this rank's flags through, so that no stream
    /// stays blocked on a peer that will never signal (the copies then move whatever is there).
    void release();

    /// What the flags say now (epoch, the last "ready" and "done" of each peer), for a timeout's
    /// message: which peer this rank was waiting for.
    std::string describe() const;

    int nranks() const { return nranks_; }

private:
    struct Window {
        void* mine = nullptr;
        size_t bytes = 0;
        std::vector<void*> peer; // peer[q]: q's buffer as this rank addresses it (peer[rank] == mine)
    };
    struct PeerInfo; // what one rank tells the others (peer_copy.cpp)

    PeerCopies() = default;
    /// Every peer's buffer of `all` mapped through CUDA IPC; false where one is not reachable.
    bool open_peers(const std::vector<PeerInfo>& all, std::vector<void*>* out);
    /// A copy of this rank's flags on the side stream, bounded (a stuck stream can not hold it).
    bool read_flags(std::vector<uint32_t>* out) const;
    void close_window(Window& w);
    /// Writes `value` into slot `slot` of peer `peer`'s flags, after the work on `s` so far.
    CUresult write_flag(cudaStream_t s, int peer, int slot, uint32_t value);
    /// A driver call's result: a failure aborts the communicator.
    Status driver(CUresult r, const char* what);

    Communicator::Impl* im_ = nullptr;
    int rank_ = 0, nranks_ = 1;
    // Flags: 2 x nranks uint32 per rank, [ready from q] then [free from q].
    uint32_t* flags_ = nullptr;
    std::vector<void*> peer_flags_;
    uint32_t epoch_ = 0;
    std::map<Buffer, Window> windows_;
    std::vector<cudaStream_t> step_streams_; // one per step (peer offset)
    std::vector<cudaEvent_t> stepped_;       // one per step
    cudaEvent_t go_ = nullptr;
    cudaStream_t side_ = nullptr;    // for reading and releasing the flags, never blocked
    uint32_t* host_flags_ = nullptr; // pinned, 2 x nranks
    CUresult (*wait_value_)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;
    CUresult (*write_value_)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;
};

} // namespace gemmlab::dist::detail
