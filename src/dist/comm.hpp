#pragma once
// The inside of a dist::Communicator: the NCCL communicator and its sub-communicators, the
// streams the collectives communicate on, a cached workspace, and the one way this layer waits:
// polling the GPU, ncclCommGetAsyncError and a deadline, aborting every communicator on failure.

#include <chrono>
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "dist/validate.hpp"
#include "gemmlab/dist.hpp"

namespace gemmlab::dist {

using Clock = std::chrono::steady_clock;

namespace detail {
class PeerCopies; // peer_copy.hpp
}

/// NCCL's type for an element type.
template <class T>
constexpr ncclDataType_t nccl_type() {
    if constexpr (std::is_same_v<T, float>) return ncclFloat32;
    else if constexpr (std::is_same_v<T, double>) return ncclFloat64;
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return ncclBfloat16;
    else if constexpr (std::is_same_v<T, __half>) return ncclFloat16;
    else return ncclInt64;
}

/// Workspace slots of a communicator (one cached device buffer each).
enum class Buffer : int {
    Fingerprint,
    PanelA0, PanelA1, PanelB0, PanelB1,
    Accumulator, // float accumulation of half-type C across SUMMA panels
    Slot0, Slot1, // tensor-parallel chunks
    Gathered,     // the sequential all-gather's whole X, or the reduce-scatter's whole partial
    Staging,      // reduce-scatter result before conversion or a strided store
    OwnShard,     // this rank's X shard packed when ldx != k
    Received,     // the copy engines' reduce-scatter: the peers' pieces of one chunk
    Exchange,     // allgather_host's device side
};

/// Makes the calling thread use `device` for the scope, then puts back the one it had.
class DeviceScope {
public:
    explicit DeviceScope(int device) {
        cudaGetDevice(&previous_);
        cudaSetDevice(device);
    }
    ~DeviceScope() { cudaSetDevice(previous_); }
    DeviceScope(const DeviceScope&) = delete;
    DeviceScope& operator=(const DeviceScope&) = delete;

private:
    int previous_ = 0;
};

struct Communicator::Impl {
    ncclComm_t comm = nullptr;
    int rank = 0;
    int nranks = 1;
    int device = 0;
    double timeout_s = 300;
    int overlap_max_ctas = 16; // maxCTAs of the communicators the overlapped schedules use
    CommOptions::Transport transport = CommOptions::Transport::Auto;
    /// The copy-engine transport (peer_copy.hpp), decided at the first call that may use it;
    /// null: the Overlapped schedules communicate with NCCL.
    std::unique_ptr<detail::PeerCopies> peer_copies;
    bool transport_decided = false;
    std::string transport_note; // why not the copy engines
    bool aborted = false;
    /// Communication streams (high priority, so NCCL's blocks are scheduled first as SMs free).
    cudaStream_t comm_stream[2] = {nullptr, nullptr};
    /// Events reused by every call (cudaEventDisableTiming), grown on demand.
    std::vector<cudaEvent_t> events;
    /// Row and column communicators of a grid (null where that grid dimension is 1), split from
    /// `comm` with at most `overlap_max_ctas` NCCL blocks so that the local products keep most SMs.
    struct GridComms {
        ncclComm_t row = nullptr; // the ranks of my grid row, ordered by grid column
        ncclComm_t col = nullptr; // the ranks of my grid column, ordered by grid row
    };
    std::map<std::pair<int, int>, GridComms> grids;
    std::map<Buffer, std::pair<void*, size_t>> buffers;
    int64_t* host_wire = nullptr; // pinned, Fingerprint::capacity * 2 + 2 values

    ~Impl();

    /// Streams, events and pinned memory after the NCCL communicator exists.
    Status init_resources();

    Clock::time_point deadline() const {
        return Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(timeout_s));
    }

    /// Aborts every communicator, marks this one aborted, sets the message, returns `s`.
    Status fail(Status s, const std::string& msg);
    /// A CUDA call's result: CudaError (OutOfMemory for allocation failures) after aborting.
    Status cuda(cudaError_t e, const char* what);
    /// An NCCL call's result: ncclInProgress waits until the call is enqueued, an error aborts.
    Status nccl(ncclResult_t r, ncclComm_t c, const char* what, Clock::time_point deadline);
    /// Polls until `c` is no longer in progress (its init, split or last call), or fails.
    Status wait_ready(ncclComm_t c, const std::string& what, Clock::time_point deadline);
    /// Polls until `e` completed, checking NCCL's asynchronous errors and the deadline.
    Status wait_event(cudaEvent_t e, Clock::time_point deadline);
    /// Any asynchronous NCCL error of this rank's communicators, as a failure.
    Status poll_async_errors();

    cudaEvent_t event(size_t i);
    /// A cached device buffer of at least `bytes`, stream-ordered on `stream` when (re)made.
    Status buffer(Buffer id, size_t bytes, cudaStream_t stream, void** out);
    /// The row and column communicators of `grid` (made by ncclCommSplit on first use: every
    /// rank reaches it at the same call, after the agreement).
    Status grid_comms(const Grid& grid, GridComms** out, Clock::time_point deadline);
    /// All ranks in rank order with the overlap configuration (the row communicator of the
    /// 1 x P grid), for the tensor-parallel overlapped schedule; null when P == 1.
    Status overlap_comm(ncclComm_t* out, Clock::time_point deadline);
    /// ncclCommSplit of `comm` into *out (which must outlive the split: NCCL's job thread
    /// stores the new communicator through it), waited for without ever polling a null comm.
    Status split(int color, int key, ncclComm_t* out, const std::string& what, Clock::time_point deadline);

    /// The copy engines for the Overlapped schedules, or null for NCCL (CommOptions::transport;
    /// collective at the first call of a communicator with more than one rank).
    Status copy_engines(detail::PeerCopies** out, Clock::time_point deadline);
    /// Every rank's `bytes` (the same count everywhere), in rank order into `all`, on the host.
    Status allgather_host(const void* mine, size_t bytes, void* all, Clock::time_point deadline);

    /// Exchanges the fingerprint and decides, the same on every rank.
    Status agree(detail::Fingerprint& mine, Clock::time_point deadline);

    /// Common entry checks: a usable communicator. Sets the message.
    Status usable() const;
};

/// The non-blocking NCCL configuration every communicator of this layer uses.
ncclConfig_t nonblocking_config();
/// As nonblocking_config, with NCCL's blocks per collective capped at `max_ctas`.
ncclConfig_t overlap_config(int max_ctas);

} // namespace gemmlab::dist
