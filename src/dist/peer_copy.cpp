// The copy-engine transport of the distributed layer (peer_copy.hpp).

#include "dist/peer_copy.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <string>

namespace gemmlab::dist::detail {

namespace {

/// Where a rank runs: the host (name and boot) and the process.
uint64_t host_id() {
    char name[256] = {};
    gethostname(name, sizeof name - 1);
    std::string boot;
    std::ifstream("/proc/sys/kernel/random/boot_id") >> boot;
    uint64_t h = 1469598103934665603ull; // FNV-1a
    for (const std::string& s : {std::string(name), boot})
        for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
}

template <class Fn>
bool driver_entry(const char* name, Fn* out) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || !p) {
        cudaGetLastError();
        return false;
    }
    *out = reinterpret_cast<Fn>(p);
    return true;
}

} // namespace

struct PeerCopies::PeerInfo {
    uint64_t host = 0;
    int64_t pid = 0;
    int32_t device = 0;
    int32_t wanted = 0;
    uint64_t bytes = 0;
    uint64_t pointer = 0;
    cudaIpcMemHandle_t handle{};
};

Status PeerCopies::create(Communicator::Impl* im, bool wanted, std::unique_ptr<PeerCopies>* out, std::string* why,
                          Clock::time_point dl) {
    out->reset();
    std::unique_ptr<PeerCopies> pc(new PeerCopies);
    pc->im_ = im;
    pc->rank_ = im->rank;
    pc->nranks_ = im->nranks;
    const int P = im->nranks;
    bool ok = wanted && P <= kMaxRanks && driver_entry("cuStreamWaitValue32", &pc->wait_value_) &&
              driver_entry("cuStreamWriteValue32", &pc->write_value_);
    // The flags: every rank makes them (the exchange below is collective either way).
    PeerInfo mine;
    mine.host = host_id();
    mine.pid = int64_t(getpid());
    mine.device = im->device;
    const size_t flag_bytes = sizeof(uint32_t) * 2 * size_t(P);
    if (ok) {
        // Zeroed on the stream the exchange below runs on and waits for: before any peer writes.
        if (cudaMalloc(reinterpret_cast<void**>(&pc->flags_), flag_bytes) != cudaSuccess ||
            cudaMemsetAsync(pc->flags_, 0, flag_bytes, im->comm_stream[0]) != cudaSuccess ||
            cudaIpcGetMemHandle(&mine.handle, pc->flags_) != cudaSuccess) {
            cudaGetLastError();
            ok = false;
        }
    }
    mine.wanted = ok ? 1 : 0;
    mine.bytes = flag_bytes;
    mine.pointer = reinterpret_cast<uint64_t>(pc->flags_);
    std::vector<PeerInfo> all(static_cast<size_t>(P));
    if (Status s = im->allgather_host(&mine, sizeof mine, all.data(), dl); s != Status::Success) return s;

    // Reachable: every rank wants it, on this host, each in a process of its own, every peer's
    // memory mapped through CUDA IPC.
    for (const PeerInfo& p : all)
        if (!p.wanted) {
            ok = false;
            *why = wanted ? "a rank can not use its copy engines for this (or asked for NCCL)" : "this rank asked for NCCL";
        }
    for (int q = 0; q < P && ok; ++q) {
        if (all[size_t(q)].host != mine.host) {
            ok = false;
            *why = "the ranks are not all on one host";
        } else if (q != im->rank && all[size_t(q)].pid == mine.pid) {
            ok = false;
            *why = "ranks share a process (create_all_local)";
        }
    }
    if (ok && !pc->open_peers(all, &pc->peer_flags_)) {
        ok = false;
        *why = "a peer's memory is not reachable from this GPU (CUDA IPC refused)";
    }
    // Agree: the copy engines only where every rank reached every peer.
    int32_t my_ok = ok ? 1 : 0;
    std::vector<int32_t> oks(static_cast<size_t>(P));
    if (Status s = im->allgather_host(&my_ok, sizeof my_ok, oks.data(), dl); s != Status::Success) return s;
    if (std::find(oks.begin(), oks.end(), 0) != oks.end()) {
        if (ok) *why = "another rank can not reach all of its peers' memory";
        return Status::Success; // pc's destructor closes and frees what this rank opened
    }
    for (int i = 0; i + 1 < P; ++i) {
        cudaStream_t s = nullptr;
        cudaEvent_t e = nullptr;
        if (Status st = im->cuda(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreate");
            st != Status::Success)
            return st;
        pc->step_streams_.push_back(s);
        if (Status st = im->cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
            st != Status::Success)
            return st;
        pc->stepped_.push_back(e);
    }
    if (Status st = im->cuda(cudaEventCreateWithFlags(&pc->go_, cudaEventDisableTiming), "cudaEventCreate");
        st != Status::Success)
        return st;
    if (Status st = im->cuda(cudaStreamCreateWithFlags(&pc->side_, cudaStreamNonBlocking), "cudaStreamCreate");
        st != Status::Success)
        return st;
    if (Status st = im->cuda(cudaMallocHost(reinterpret_cast<void**>(&pc->host_flags_), flag_bytes), "cudaMallocHost");
        st != Status::Success)
        return st;
    *out = std::move(pc);
    return Status::Success;
}

bool PeerCopies::open_peers(const std::vector<PeerInfo>& all, std::vector<void*>* out) {
    out->assign(all.size(), nullptr);
    for (int q = 0; q < nranks_; ++q) {
        const PeerInfo& p = all[size_t(q)];
        if (q == rank_) {
            (*out)[size_t(q)] = reinterpret_cast<void*>(p.pointer);
            continue;
        }
        void* ptr = nullptr;
        if (cudaIpcOpenMemHandle(&ptr, p.handle, cudaIpcMemLazyEnablePeerAccess) != cudaSuccess) {
            cudaGetLastError();
            return false;
        }
        (*out)[size_t(q)] = ptr;
    }
    return true;
}

void PeerCopies::close_window(Window& w) {
    for (int q = 0; q < int(w.peer.size()); ++q)
        if (q != rank_ && w.peer[size_t(q)]) cudaIpcCloseMemHandle(w.peer[size_t(q)]);
    w.peer.clear();
}

PeerCopies::~PeerCopies() {
    for (auto& [id, w] : windows_) {
        close_window(w);
        if (w.mine) cudaFree(w.mine);
    }
    for (int q = 0; q < int(peer_flags_.size()); ++q)
        if (q != rank_ && peer_flags_[size_t(q)]) cudaIpcCloseMemHandle(peer_flags_[size_t(q)]);
    if (flags_) cudaFree(flags_);
    for (cudaStream_t s : step_streams_) cudaStreamDestroy(s);
    for (cudaEvent_t e : stepped_) cudaEventDestroy(e);
    if (go_) cudaEventDestroy(go_);
    if (side_) cudaStreamDestroy(side_);
    if (host_flags_) cudaFreeHost(host_flags_);
}

Status PeerCopies::shared(Buffer id, size_t bytes, cudaStream_t stream, void** mine, Clock::time_point dl) {
    Window& w = windows_[id];
    bytes = std::max<size_t>(bytes, 256);
    if (w.bytes >= bytes) {
        *mine = w.mine;
        return Status::Success;
    }
    if (w.mine) {
        // Nothing of this rank still uses the old buffer once its streams are idle (every exchange
        // ends with its parts out and in), and no rank frees its buffer before every rank closed
        // its mappings of it.
        std::vector<cudaStream_t> streams = step_streams_;
        streams.push_back(stream);
        for (cudaStream_t s : im_->comm_stream) streams.push_back(s);
        cudaEvent_t idle = im_->event(0);
        for (cudaStream_t s : streams) {
            if (Status st = im_->cuda(cudaEventRecord(idle, s), "cudaEventRecord"); st != Status::Success) return st;
            if (Status st = im_->wait_event(idle, dl); st != Status::Success) return st;
        }
        close_window(w);
        int32_t token = 1;
        std::vector<int32_t> tokens(static_cast<size_t>(nranks_));
        if (Status st = im_->allgather_host(&token, sizeof token, tokens.data(), dl); st != Status::Success) return st;
        cudaFree(w.mine);
        w = Window{};
    }
    PeerInfo info;
    info.pid = int64_t(getpid());
    info.device = im_->device;
    info.wanted = 1;
    info.bytes = bytes;
    void* p = nullptr;
    if (Status st = im_->cuda(cudaMalloc(&p, bytes), "cudaMalloc (a buffer the peers read)"); st != Status::Success)
        return st;
    w.mine = p;
    w.bytes = bytes;
    // Defined contents (the timing-only schedules read what no exchange filled), zeroed on the
    // stream the exchange below waits for, so before this call's own work.
    if (Status st = im_->cuda(cudaMemsetAsync(p, 0, bytes, im_->comm_stream[0]), "cudaMemsetAsync");
        st != Status::Success)
        return st;
    if (Status st = im_->cuda(cudaIpcGetMemHandle(&info.handle, p), "cudaIpcGetMemHandle"); st != Status::Success)
        return st;
    info.pointer = reinterpret_cast<uint64_t>(p);
    std::vector<PeerInfo> all(static_cast<size_t>(nranks_));
    if (Status st = im_->allgather_host(&info, sizeof info, all.data(), dl); st != Status::Success) return st;
    for (const PeerInfo& q : all)
        if (q.bytes != bytes)
            return im_->fail(Status::CudaError, "the ranks made shared buffers of different sizes (a bug of this layer)");
    if (!open_peers(all, &w.peer))
        return im_->fail(Status::CudaError, "opening a peer's buffer failed (CUDA IPC)");
    *mine = w.mine;
    return Status::Success;
}

CUresult PeerCopies::write_flag(cudaStream_t s, int peer, int slot, uint32_t value) {
    auto* f = static_cast<uint32_t*>(peer_flags_[size_t(peer)]) + slot;
    return write_value_(reinterpret_cast<CUstream>(s), reinterpret_cast<CUdeviceptr>(f), value, CU_STREAM_WRITE_VALUE_DEFAULT);
}

Status PeerCopies::driver(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return Status::Success;
    return im_->fail(Status::CudaError, std::string(what) + " failed (CUresult " + std::to_string(int(r)) + ")");
}

Status PeerCopies::exchange(Buffer id, cudaStream_t stream, const std::function<Push(int q)>& push,
                            const std::array<cudaEvent_t, kMaxRanks>* landed_from, bool in_turn) {
    const int P = nranks_;
    auto it = windows_.find(id);
    if (it == windows_.end()) return im_->fail(Status::CudaError, "an exchange over a buffer never shared (a bug)");
    const Window& w = it->second;
    const uint32_t e = ++epoch_;
    // 1. Free: what this rank's buffer held is no longer needed once the work on `stream` so far is done.
    for (int q = 0; q < P; ++q)
        if (q != rank_)
            if (Status s = driver(write_flag(stream, q, P + rank_, e), "cuStreamWriteValue32 (free)"); s != Status::Success)
                return s;
    if (Status s = im_->cuda(cudaEventRecord(go_, stream), "cudaEventRecord"); s != Status::Success) return s;
    // 2. Step i: write into rank + i once it is free, tell it "ready"; wait for rank - i's part.
    for (int i = 1; i < P; ++i) {
        const int to = (rank_ + i) % P, from = (rank_ - i + P) % P;
        cudaStream_t st = step_streams_[size_t(i - 1)];
        if (Status s = im_->cuda(cudaStreamWaitEvent(st, go_, 0), "cudaStreamWaitEvent"); s != Status::Success) return s;
        if (in_turn && i > 1)
            if (Status s = im_->cuda(cudaStreamWaitEvent(st, stepped_[size_t(i - 2)], 0), "cudaStreamWaitEvent");
                s != Status::Success)
                return s;
        if (Status s = driver(wait_value_(reinterpret_cast<CUstream>(st), reinterpret_cast<CUdeviceptr>(flags_ + P + to),
                                          e, CU_STREAM_WAIT_VALUE_GEQ),
                              "cuStreamWaitValue32 (a peer's free)");
            s != Status::Success)
            return s;
        const Push part = push(to);
        if (part.dst_offset + part.bytes > w.bytes)
            return im_->fail(Status::CudaError, "a copy past the end of a peer's buffer (a bug of this layer)");
        if (part.bytes > 0)
            if (Status s = im_->cuda(cudaMemcpyAsync(static_cast<char*>(w.peer[size_t(to)]) + part.dst_offset, part.src,
                                                     part.bytes, cudaMemcpyDeviceToDevice, st),
                                     "cudaMemcpyAsync (into a peer's GPU)");
                s != Status::Success)
                return s;
        if (Status s = driver(write_flag(st, to, rank_, e), "cuStreamWriteValue32 (ready)"); s != Status::Success)
            return s;
        if (Status s = driver(wait_value_(reinterpret_cast<CUstream>(st), reinterpret_cast<CUdeviceptr>(flags_ + from), e,
                                          CU_STREAM_WAIT_VALUE_GEQ),
                              "cuStreamWaitValue32 (a peer's ready)");
            s != Status::Success)
            return s;
        if (Status s = im_->cuda(cudaEventRecord(stepped_[size_t(i - 1)], st), "cudaEventRecord"); s != Status::Success)
            return s;
        if (landed_from && (*landed_from)[size_t(from)])
            if (Status s = im_->cuda(cudaEventRecord((*landed_from)[size_t(from)], st), "cudaEventRecord");
                s != Status::Success)
                return s;
    }
    // 3. The exchange's stream goes on once every step is done.
    for (int i = 1; i < P; ++i)
        if (Status s = im_->cuda(cudaStreamWaitEvent(stream, stepped_[size_t(i - 1)], 0), "cudaStreamWaitEvent");
            s != Status::Success)
            return s;
    return Status::Success;
}

bool PeerCopies::read_flags(std::vector<uint32_t>* out) const {
    out->assign(2 * size_t(nranks_), 0);
    if (!host_flags_) return false;
    if (cudaMemcpyAsync(host_flags_, flags_, sizeof(uint32_t) * out->size(), cudaMemcpyDeviceToHost, side_) !=
        cudaSuccess) {
        cudaGetLastError();
        return false;
    }
    const auto until = Clock::now() + std::chrono::seconds(2);
    while (cudaStreamQuery(side_) == cudaErrorNotReady)
        if (Clock::now() > until) return false;
    cudaGetLastError();
    std::copy(host_flags_, host_flags_ + out->size(), out->begin());
    return true;
}

std::string PeerCopies::describe() const {
    std::vector<uint32_t> f;
    if (!read_flags(&f)) return "copy engines: the flags could not be read";
    std::string ready, freed;
    for (int q = 0; q < nranks_; ++q) {
        if (q == rank_) continue;
        ready += (ready.empty() ? "" : ", ") + std::to_string(q) + ": " + std::to_string(f[size_t(q)]);
        freed += (freed.empty() ? "" : ", ") + std::to_string(q) + ": " + std::to_string(f[size_t(nranks_ + q)]);
    }
    return "copy engines at exchange " + std::to_string(epoch_) + "; the peers' last ready {" + ready + "}, free {" +
           freed + "}";
}

void PeerCopies::release() {
    if (!host_flags_) return;
    // Far ahead of any epoch this communicator reaches, cyclically; on the side stream, which
    // nothing blocks, from pinned memory (the copy is queued, not staged by the host).
    std::fill(host_flags_, host_flags_ + 2 * size_t(nranks_), epoch_ + 0x40000000u);
    if (cudaMemcpyAsync(flags_, host_flags_, sizeof(uint32_t) * 2 * size_t(nranks_), cudaMemcpyHostToDevice, side_) !=
        cudaSuccess)
        cudaGetLastError();
    const auto until = Clock::now() + std::chrono::seconds(2);
    while (cudaStreamQuery(side_) == cudaErrorNotReady && Clock::now() < until) {
    }
    cudaGetLastError();
}

} // namespace gemmlab::dist::detail
