// dist::Communicator: creation (unique id, all local GPUs), the non-blocking waits, abort.

#include "dist/comm.hpp"

#include "dist/peer_copy.hpp"

#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <thread>

namespace gemmlab::dist {

const char* disable_nvls_unless_set() noexcept {
    // The multi-GPU hosts are shared: NVLink SHARP / multicast stays off unless the user asked.
    setenv("NCCL_NVLS_ENABLE", "0", /*overwrite=*/0);
    return std::getenv("NCCL_NVLS_ENABLE");
}

ncclConfig_t nonblocking_config() {
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.blocking = 0;
    return cfg;
}

ncclConfig_t overlap_config(int max_ctas) {
    ncclConfig_t cfg = nonblocking_config();
    cfg.maxCTAs = max_ctas; // minCTAs stays NCCL's default (NCCL lowers it to maxCTAs if needed)
    return cfg;
}

int nccl_version() noexcept {
    int v = 0;
    return ncclGetVersion(&v) == ncclSuccess ? v : 0;
}

namespace {

double timeout_from(const CommOptions& o) {
    if (o.timeout_s > 0) return o.timeout_s;
    if (const char* v = std::getenv("GEMMLAB_DIST_TIMEOUT_S")) {
        const double t = std::atof(v);
        if (t > 0) return t;
    }
    return 300;
}

int overlap_ctas_from(const CommOptions& o) {
    if (o.overlap_max_ctas > 0) return o.overlap_max_ctas;
    if (const char* v = std::getenv("GEMMLAB_DIST_OVERLAP_CTAS")) {
        const int n = std::atoi(v);
        if (n > 0) return n;
    }
    return 16;
}

std::string nccl_text(ncclResult_t r, ncclComm_t c) {
    std::string msg = ncclGetErrorString(r);
    const char* last = c ? ncclGetLastError(c) : ncclGetLastError(nullptr);
    if (last && *last) msg += std::string(" (") + last + ")";
    return msg;
}

} // namespace

// ------------------------------------------------------------------------------ Impl

Communicator::Impl::~Impl() {
    DeviceScope scope(device);
    peer_copies.reset();
    if (!aborted) {
        // Finalize flushes this rank's NCCL work; bounded like every other wait, and an abort
        // when it does not finish (a dead peer must not hang a destructor).
        const auto dl = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(std::min(timeout_s, 30.0)));
        bool clean = true;
        auto finish = [&](ncclComm_t c) {
            if (!c) return;
            const ncclResult_t r = ncclCommFinalize(c);
            if (r != ncclSuccess && r != ncclInProgress) {
                clean = false;
                return;
            }
            ncclResult_t st = ncclInProgress;
            while (clean && ncclCommGetAsyncError(c, &st) == ncclSuccess && st == ncclInProgress) {
                if (Clock::now() > dl) clean = false;
                std::this_thread::sleep_for(std::chrono::microseconds(100));
            }
            if (st != ncclSuccess) clean = false;
        };
        for (auto& [key, g] : grids) {
            finish(g.row);
            finish(g.col);
        }
        finish(comm);
        for (auto& [key, g] : grids) {
            for (ncclComm_t c : {g.row, g.col})
                if (c) clean ? ncclCommDestroy(c) : ncclCommAbort(c);
        }
        if (comm) clean ? ncclCommDestroy(comm) : ncclCommAbort(comm);
    }
    for (auto& [id, b] : buffers)
        if (b.first) cudaFree(b.first);
    for (cudaEvent_t e : events) cudaEventDestroy(e);
    for (cudaStream_t s : comm_stream)
        if (s) cudaStreamDestroy(s);
    if (host_wire) cudaFreeHost(host_wire);
}

Status Communicator::Impl::init_resources() {
    int lo = 0, hi = 0;
    if (Status s = cuda(cudaDeviceGetStreamPriorityRange(&lo, &hi), "cudaDeviceGetStreamPriorityRange");
        s != Status::Success)
        return s;
    for (cudaStream_t& st : comm_stream)
        if (Status s = cuda(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, hi),
                            "cudaStreamCreateWithPriority");
            s != Status::Success)
            return s;
    return cuda(cudaMallocHost(reinterpret_cast<void**>(&host_wire),
                               sizeof(int64_t) * (2 * detail::Fingerprint::capacity + 2)),
                "cudaMallocHost");
}

Status Communicator::Impl::fail(Status s, const std::string& msg) {
    if (!aborted) {
        // The parent first: its abort joins a split still running (NCCL init.cc,
        // ncclCommEnsureReady), whose job stores the child, failed or not, into `grids`.
        if (comm) ncclCommAbort(comm);
        for (auto& [key, g] : grids) {
            if (g.row) ncclCommAbort(g.row);
            if (g.col) ncclCommAbort(g.col);
        }
        grids.clear();
        aborted = true;
        // No stream of this rank may stay blocked on a flag that a peer will never write.
        if (peer_copies) peer_copies->release();
    }
    detail::set_error("rank " + std::to_string(rank) + " of " + std::to_string(nranks) + ": " + msg +
                      (s == Status::Aborted ? "" : "; the communicator is aborted"));
    return s;
}

Status Communicator::Impl::cuda(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return Status::Success;
    cudaGetLastError(); // clear a non-sticky error
    const Status s = e == cudaErrorMemoryAllocation ? Status::OutOfMemory : Status::CudaError;
    return fail(s, std::string(what) + " failed: " + cudaGetErrorString(e));
}

Status Communicator::Impl::wait_ready(ncclComm_t c, const std::string& what, Clock::time_point dl) {
    if (!c) return fail(Status::NcclError, what + ": no NCCL communicator to wait for (a bug of this layer)");
    const auto start = Clock::now();
    for (;;) {
        ncclResult_t st = ncclSuccess;
        const ncclResult_t r = ncclCommGetAsyncError(c, &st);
        if (r != ncclSuccess) return fail(Status::NcclError, what + ": " + nccl_text(r, c));
        if (st == ncclSuccess) return Status::Success;
        if (st != ncclInProgress) return fail(Status::NcclError, what + ": " + nccl_text(st, c));
        const auto now = Clock::now();
        if (now > dl)
            return fail(Status::Timeout, what + " did not complete within " + std::to_string(timeout_s) + " s");
        // A collective's enqueue takes tens of microseconds and the GPU may be waiting for it:
        // yield at first, sleep only once the wait is long (an init, a split, a dead peer).
        if (now - start < std::chrono::milliseconds(2)) std::this_thread::yield();
        else std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

Status Communicator::Impl::nccl(ncclResult_t r, ncclComm_t c, const char* what, Clock::time_point dl) {
    if (r == ncclSuccess) return Status::Success;
    if (r == ncclInProgress) return wait_ready(c, what, dl);
    return fail(Status::NcclError, std::string(what) + " failed: " + nccl_text(r, c));
}

Status Communicator::Impl::poll_async_errors() {
    auto check = [&](ncclComm_t c) -> Status {
        if (!c) return Status::Success;
        ncclResult_t st = ncclSuccess;
        if (ncclCommGetAsyncError(c, &st) != ncclSuccess || (st != ncclSuccess && st != ncclInProgress))
            return fail(Status::NcclError, "NCCL reported an asynchronous error: " + nccl_text(st, c));
        return Status::Success;
    };
    if (Status s = check(comm); s != Status::Success) return s;
    for (auto& [key, g] : grids) {
        if (Status s = check(g.row); s != Status::Success) return s;
        if (Status s = check(g.col); s != Status::Success) return s;
    }
    return Status::Success;
}

Status Communicator::Impl::wait_event(cudaEvent_t e, Clock::time_point dl) {
    for (int spin = 0;; ++spin) {
        const cudaError_t q = cudaEventQuery(e);
        if (q == cudaSuccess) return Status::Success;
        if (q != cudaErrorNotReady) return cuda(q, "waiting for the GPU (cudaEventQuery)");
        if (Status s = poll_async_errors(); s != Status::Success) return s;
        if (Clock::now() > dl)
            return fail(Status::Timeout,
                        "the collective did not complete within " + std::to_string(timeout_s) +
                            " s (a peer died, hangs, or did not make the same call)" +
                            (peer_copies ? "; " + peer_copies->describe() : std::string()));
        if (spin > 100) std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
}

cudaEvent_t Communicator::Impl::event(size_t i) {
    while (events.size() <= i) {
        cudaEvent_t e = nullptr;
        if (cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess) return nullptr;
        events.push_back(e);
    }
    return events[i];
}

Status Communicator::Impl::buffer(Buffer id, size_t bytes, cudaStream_t stream, void** out) {
    auto& b = buffers[id];
    if (b.second < bytes) {
        // Stream-ordered: no device-wide synchronization (cudaFree would wait for every stream,
        // and a hung peer's NCCL kernel with it).
        if (b.first) {
            if (Status s = cuda(cudaFreeAsync(b.first, stream), "cudaFreeAsync"); s != Status::Success) return s;
            b = {nullptr, 0};
        }
        void* p = nullptr;
        if (Status s = cuda(cudaMallocAsync(&p, bytes, stream), "cudaMallocAsync (dist workspace)");
            s != Status::Success)
            return s;
        b = {p, bytes};
        // Defined contents (the timing-only schedules read slots no broadcast filled).
        if (Status s = cuda(cudaMemsetAsync(p, 0, bytes, stream), "cudaMemsetAsync"); s != Status::Success)
            return s;
    }
    *out = b.first;
    return Status::Success;
}

Status Communicator::Impl::split(int color, int key, ncclComm_t* out, const std::string& what,
                                 Clock::time_point dl) {
    ncclConfig_t cfg = overlap_config(overlap_max_ctas);
    const ncclResult_t r = ncclCommSplit(comm, color, key, out, &cfg);
    if (r != ncclSuccess && r != ncclInProgress)
        return fail(Status::NcclError, what + " failed: " + nccl_text(r, comm));
    // With a non-blocking parent the split is a job of the parent, like a collective: NCCL
    // (2.28 init.cc, ncclCommInitChildComm) sets *out to null, returns ncclSuccess, and its job
    // thread stores the new communicator only when it ends; until then the parent reads
    // ncclInProgress (NVIDIA/nccl#1472). So wait on the parent, and only then on the child.
    if (Status s = wait_ready(comm, what + " (waiting on the parent communicator)", dl); s != Status::Success)
        return s;
    if (!*out)
        return fail(Status::NcclError, what + ": the split completed without a communicator for this rank");
    return wait_ready(*out, what + " (the new communicator)", dl);
}

Status Communicator::Impl::grid_comms(const Grid& grid, GridComms** out, Clock::time_point dl) {
    // The map's node holds the children from the start: NCCL writes them there asynchronously,
    // and fail() finds them there to abort.
    auto [it, fresh] = grids.try_emplace({grid.rows, grid.cols});
    if (fresh) {
        const int r = grid.row_of(rank), c = grid.col_of(rank);
        const std::string name = " of the " + std::to_string(grid.rows) + "x" + std::to_string(grid.cols) + " grid";
        // Every rank splits twice, in the same order; a dimension of 1 needs no communicator.
        if (grid.cols > 1)
            if (Status s = split(r, c, &it->second.row, "ncclCommSplit (the rows" + name + ")", dl); s != Status::Success)
                return s;
        if (grid.rows > 1)
            if (Status s = split(c, r, &it->second.col, "ncclCommSplit (the columns" + name + ")", dl);
                s != Status::Success)
                return s;
    }
    *out = &it->second;
    return Status::Success;
}

Status Communicator::Impl::overlap_comm(ncclComm_t* out, Clock::time_point dl) {
    *out = nullptr;
    if (nranks == 1) return Status::Success;
    GridComms* g = nullptr;
    if (Status s = grid_comms(Grid{1, nranks}, &g, dl); s != Status::Success) return s;
    *out = g->row;
    return Status::Success;
}

Status Communicator::Impl::copy_engines(detail::PeerCopies** out, Clock::time_point dl) {
    *out = nullptr;
    if (nranks == 1) return Status::Success;
    if (!transport_decided) {
        bool wanted = transport != CommOptions::Transport::Nccl;
        if (const char* v = std::getenv("GEMMLAB_DIST_TRANSPORT"); v && transport == CommOptions::Transport::Auto)
            wanted = std::strcmp(v, "nccl") != 0;
        if (Status s = detail::PeerCopies::create(this, wanted, &peer_copies, &transport_note, dl); s != Status::Success)
            return s;
        transport_decided = true;
    }
    *out = peer_copies.get();
    return Status::Success;
}

Status Communicator::Impl::allgather_host(const void* mine, size_t bytes, void* all, Clock::time_point dl) {
    cudaStream_t st = comm_stream[0];
    void* d = nullptr;
    if (Status s = buffer(Buffer::Exchange, bytes * size_t(nranks), st, &d); s != Status::Success) return s;
    char* h = nullptr;
    if (Status s = cuda(cudaMallocHost(reinterpret_cast<void**>(&h), bytes * size_t(nranks)), "cudaMallocHost");
        s != Status::Success)
        return s;
    struct Pinned {
        char* p;
        ~Pinned() { cudaFreeHost(p); }
    } guard{h};
    char* my_slot = static_cast<char*>(d) + bytes * size_t(rank);
    std::memcpy(h + bytes * size_t(rank), mine, bytes);
    if (Status s = cuda(cudaMemcpyAsync(my_slot, h + bytes * size_t(rank), bytes, cudaMemcpyHostToDevice, st),
                        "cudaMemcpyAsync (exchange)");
        s != Status::Success)
        return s;
    if (Status s = nccl(ncclAllGather(my_slot, d, bytes, ncclInt8, comm, st), comm, "ncclAllGather (exchange)", dl);
        s != Status::Success)
        return s;
    if (Status s = cuda(cudaMemcpyAsync(h, d, bytes * size_t(nranks), cudaMemcpyDeviceToHost, st),
                        "cudaMemcpyAsync (exchange)");
        s != Status::Success)
        return s;
    cudaEvent_t done = event(0);
    if (!done) return cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    if (Status s = cuda(cudaEventRecord(done, st), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = wait_event(done, dl); s != Status::Success) return s;
    std::memcpy(all, h, bytes * size_t(nranks));
    return Status::Success;
}

Status Communicator::Impl::agree(detail::Fingerprint& mine, Clock::time_point dl) {
    const int n = mine.wire_count();
    mine.to_wire(host_wire);
    void* d = nullptr;
    cudaStream_t st = comm_stream[0];
    if (Status s = buffer(Buffer::Fingerprint, sizeof(int64_t) * n, st, &d); s != Status::Success) return s;
    if (Status s = cuda(cudaMemcpyAsync(d, host_wire, sizeof(int64_t) * n, cudaMemcpyHostToDevice, st),
                        "cudaMemcpyAsync (fingerprint)");
        s != Status::Success)
        return s;
    if (Status s = nccl(ncclAllReduce(d, d, n, ncclInt64, ncclMax, comm, st), comm,
                        "ncclAllReduce (the ranks' agreement on the call)", dl);
        s != Status::Success)
        return s;
    if (Status s = cuda(cudaMemcpyAsync(host_wire, d, sizeof(int64_t) * n, cudaMemcpyDeviceToHost, st),
                        "cudaMemcpyAsync (fingerprint)");
        s != Status::Success)
        return s;
    cudaEvent_t done = event(0);
    if (!done) return cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    if (Status s = cuda(cudaEventRecord(done, st), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = wait_event(done, dl); s != Status::Success) return s;
    return detail::decide(mine, host_wire);
}

Status Communicator::Impl::usable() const {
    if (aborted) {
        detail::set_error("rank " + std::to_string(rank) +
                          ": the communicator was aborted by an earlier failure or abort(); make a new one");
        return Status::Aborted;
    }
    return Status::Success;
}

// ------------------------------------------------------------------------------ Communicator

Communicator::Communicator() = default;
Communicator::~Communicator() = default;
Communicator::Communicator(Communicator&&) noexcept = default;
Communicator& Communicator::operator=(Communicator&&) noexcept = default;

bool Communicator::valid() const noexcept { return impl_ && impl_->comm; }
int Communicator::rank() const noexcept { return impl_ ? impl_->rank : -1; }
int Communicator::size() const noexcept { return impl_ ? impl_->nranks : 0; }
int Communicator::device() const noexcept { return impl_ ? impl_->device : -1; }
bool Communicator::aborted() const noexcept { return impl_ && impl_->aborted; }
double Communicator::timeout_s() const noexcept { return impl_ ? impl_->timeout_s : 0; }
void Communicator::set_timeout_s(double seconds) noexcept {
    if (impl_ && seconds > 0) impl_->timeout_s = seconds;
}
void* Communicator::nccl_comm() const noexcept { return impl_ ? impl_->comm : nullptr; }
bool Communicator::uses_copy_engines() const noexcept { return impl_ && impl_->peer_copies; }

Status Communicator::abort() {
    if (!impl_) return Status::Success;
    DeviceScope scope(impl_->device);
    impl_->fail(Status::Aborted, "abort() was called");
    return Status::Success;
}

Status Communicator::wait(cudaStream_t stream) {
    if (!valid()) {
        detail::set_error("the communicator is empty (not created)");
        return Status::InvalidArgument;
    }
    if (Status s = impl_->usable(); s != Status::Success) return s;
    DeviceScope scope(impl_->device);
    cudaEvent_t e = impl_->event(1);
    if (Status s = impl_->cuda(cudaEventRecord(e, stream), "cudaEventRecord"); s != Status::Success) return s;
    return impl_->wait_event(e, impl_->deadline());
}

Status get_unique_id(UniqueId& id) {
    static_assert(sizeof(UniqueId) == sizeof(ncclUniqueId), "UniqueId must hold an ncclUniqueId");
    disable_nvls_unless_set();
    ncclUniqueId nid;
    const ncclResult_t r = ncclGetUniqueId(&nid);
    if (r != ncclSuccess) {
        detail::set_error(std::string("ncclGetUniqueId failed: ") + ncclGetErrorString(r));
        return Status::NcclError;
    }
    std::memcpy(id.bytes, &nid, sizeof nid);
    detail::clear_error();
    return Status::Success;
}

namespace {

Status check_rank_args(int nranks, int rank, int device) {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        detail::set_error("no CUDA device is visible");
        return Status::CudaError;
    }
    if (nranks < 1 || rank < 0 || rank >= nranks) {
        detail::set_error("rank " + std::to_string(rank) + " of " + std::to_string(nranks) +
                          " is not a rank (0 <= rank < nranks, nranks >= 1)");
        return Status::InvalidArgument;
    }
    if (device < 0 || device >= count) {
        detail::set_error("device " + std::to_string(device) + " is not one of the " +
                          std::to_string(count) + " visible devices");
        return Status::InvalidArgument;
    }
    return Status::Success;
}

} // namespace

Status Communicator::create(Communicator& out, const UniqueId& id, int nranks, int rank, int device,
                            const CommOptions& options) {
    disable_nvls_unless_set();
    if (Status s = check_rank_args(nranks, rank, device); s != Status::Success) return s;
    DeviceScope scope(device);
    auto impl = std::make_unique<Impl>();
    impl->rank = rank;
    impl->nranks = nranks;
    impl->device = device;
    impl->timeout_s = timeout_from(options);
    impl->overlap_max_ctas = overlap_ctas_from(options);
    impl->transport = options.transport;
    ncclUniqueId nid;
    std::memcpy(&nid, id.bytes, sizeof nid);
    ncclConfig_t cfg = nonblocking_config();
    const auto dl = impl->deadline();
    ncclComm_t c = nullptr;
    const ncclResult_t r = ncclCommInitRankConfig(&c, nranks, nid, rank, &cfg);
    impl->comm = c;
    if (Status s = impl->nccl(r, c, "ncclCommInitRankConfig", dl); s != Status::Success) return s;
    if (r == ncclSuccess)
        if (Status s = impl->wait_ready(c, "ncclCommInitRankConfig", dl); s != Status::Success) return s;
    if (Status s = impl->init_resources(); s != Status::Success) return s;
    out.impl_ = std::move(impl);
    detail::clear_error();
    return Status::Success;
}

Status Communicator::create_all_local(std::vector<Communicator>& out, const std::vector<int>& devices_in,
                                      const CommOptions& options) {
    disable_nvls_unless_set();
    std::vector<int> devices = devices_in;
    if (devices.empty()) {
        int count = 0;
        if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
            cudaGetLastError();
            detail::set_error("no CUDA device is visible");
            return Status::CudaError;
        }
        for (int d = 0; d < count; ++d) devices.push_back(d);
    }
    const int n = int(devices.size());
    for (int i = 0; i < n; ++i)
        if (Status s = check_rank_args(n, i, devices[i]); s != Status::Success) return s;
    UniqueId id;
    if (Status s = get_unique_id(id); s != Status::Success) return s;
    ncclUniqueId nid;
    std::memcpy(&nid, id.bytes, sizeof nid);

    std::vector<std::unique_ptr<Impl>> impls(n);
    int previous = 0;
    cudaGetDevice(&previous);
    // One thread creates every rank: ncclCommInitRankConfig inside a group, as NCCL requires.
    ncclResult_t r = ncclGroupStart();
    for (int i = 0; i < n && r == ncclSuccess; ++i) {
        impls[i] = std::make_unique<Impl>();
        impls[i]->rank = i;
        impls[i]->nranks = n;
        impls[i]->device = devices[i];
        impls[i]->timeout_s = timeout_from(options);
        impls[i]->overlap_max_ctas = overlap_ctas_from(options);
        impls[i]->transport = options.transport;
        cudaSetDevice(devices[i]);
        ncclConfig_t cfg = nonblocking_config();
        r = ncclCommInitRankConfig(&impls[i]->comm, n, nid, i, &cfg);
    }
    const ncclResult_t g = ncclGroupEnd();
    if (r == ncclSuccess) r = g;
    cudaSetDevice(previous);
    if (r != ncclSuccess && r != ncclInProgress) {
        for (auto& im : impls)
            if (im && im->comm) im->fail(Status::NcclError, "ncclCommInitRankConfig (all local)");
        detail::set_error(std::string("ncclCommInitRankConfig (all local GPUs) failed: ") + ncclGetErrorString(r));
        return Status::NcclError;
    }
    for (auto& im : impls) {
        DeviceScope scope(im->device);
        if (Status s = im->wait_ready(im->comm, "ncclCommInitRankConfig (all local)", im->deadline());
            s != Status::Success) {
            const std::string msg = last_error();
            for (auto& other : impls) other->fail(s, "another local rank failed to start");
            detail::set_error(msg);
            return s;
        }
        if (Status s = im->init_resources(); s != Status::Success) return s;
    }
    out.clear();
    for (auto& im : impls) {
        Communicator c;
        c.impl_ = std::move(im);
        out.push_back(std::move(c));
    }
    detail::clear_error();
    return Status::Success;
}

} // namespace gemmlab::dist
