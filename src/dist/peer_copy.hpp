#pragma once
// Communication that takes no SM: every rank reads what it needs straight out of its peers'
// buffers with the GPU's copy engines (cudaMemcpyAsync between devices), and the ranks order
// those reads with flags that the GPU's front end writes and waits on (cuStreamWriteValue32,
// cuStreamWaitValue32), never with a kernel. An NCCL collective runs as thread blocks that hold
// SMs the overlapped products then lack; measured on 4 x H200, the products lost about as much
// beside NCCL as the overlap hid (docs/distributed.md, "Copy engines").
//
// A shared buffer exists on every rank with the same size, and every rank holds a pointer to
// each peer's (CUDA IPC between processes, the pointer itself plus peer access within one).
// One exchange, the same on every rank and numbered by an epoch that every rank counts alike:
//   1. after the work already on the exchange's stream (this rank's part written), tell every
//      peer "ready" (write the epoch into the peer's ready flag for this rank);
//   2. for each peer, on a stream of its own (each pull on its own copy engine): wait for that
//      peer's ready, then copy the piece this rank wants out of the peer's buffer;
//   3. once the pulls landed (and whatever the caller put after them on the exchange's stream),
//      tell every peer "done", then wait for every peer's "done": after that no peer reads this
//      rank's buffer any more, so later work may overwrite it.
// Flags compare cyclically (int32_t(flag - epoch) >= 0), so they never need resetting.

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

/// One piece of one exchange: `bytes` from offset `src_offset` of peer q's shared buffer to `dst`
/// (this rank's memory).
struct Pull {
    size_t src_offset = 0;
    void* dst = nullptr;
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

    /// Steps 1 and 2 of one exchange on `stream` over shared buffer `id`: `pull(q)` says what to
    /// copy from peer q. `landed` (may be null) is recorded on `stream` once every pull landed;
    /// `landed_from[q]` (may be null) once q's pull landed. What reads the pulled data may go on
    /// `stream` next; then settle().
    /// `in_turn`: each pull starts once the one before landed (the first lands sooner; for a
    /// consumer that starts on each peer's part as it lands), else all at once.
    Status exchange(Buffer id, cudaStream_t stream, const std::function<Pull(int q)>& pull, cudaEvent_t landed,
                    const std::array<cudaEvent_t, kMaxRanks>* landed_from, bool in_turn = false);
    /// Step 3 of the last exchange, on `stream`: after it, no peer reads this rank's buffer.
    Status settle(cudaStream_t stream);

    /// After this rank failed: lets every wait on this rank's flags through, so that no stream
    /// stays blocked on a peer that will never signal (the pulls then read whatever is there).
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
    /// Every peer's buffer of `all` as this rank addresses it (IPC or the pointer itself);
    /// false where one is not reachable. `flags`: the first call, which learns who is in this process.
    bool open_peers(const std::vector<PeerInfo>& all, std::vector<void*>* out, bool flags);
    void close_window(Window& w);
    /// Writes `value` into slot `slot` of peer `peer`'s flags, after the work on `s` so far.
    CUresult write_flag(cudaStream_t s, int peer, int slot, uint32_t value);
    /// A driver call's result: a failure aborts the communicator.
    Status driver(CUresult r, const char* what);

    Communicator::Impl* im_ = nullptr;
    int rank_ = 0, nranks_ = 1;
    std::vector<bool> same_process_; // per peer: reached by pointer (true) or by IPC (false)
    // Flags: 2 x nranks uint32 per rank, [ready from q] then [done from q].
    uint32_t* flags_ = nullptr;
    std::vector<void*> peer_flags_;
    uint32_t epoch_ = 0;
    std::map<Buffer, Window> windows_;
    std::vector<cudaStream_t> pull_streams_; // one per peer
    std::vector<cudaEvent_t> pulled_;        // one per peer
    cudaEvent_t go_ = nullptr;
    CUresult (*wait_value_)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;
    CUresult (*write_value_)(CUstream, CUdeviceptr, cuuint32_t, unsigned) = nullptr;
};

} // namespace gemmlab::dist::detail
