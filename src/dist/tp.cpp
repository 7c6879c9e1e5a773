// Tensor-parallel GEMMs: all-gather + GEMM and GEMM + reduce-scatter, overlapped by chunks.
//
// all-gather + GEMM: each rank's shard of X is cut into `chunks` row chunks; every chunk of every
// rank is broadcast from its owner in one global order (a chunked all-gather), on a
// communication stream into two slots, while the compute stream multiplies the chunk received
// before it (and first, with no wait, this rank's own shard). Y's rows of a chunk are contiguous,
// so each product is one plain gemm.
// GEMM + reduce-scatter: the compute stream produces the partial product of one row chunk
// destined to rank q into a slot while the communication stream reduces the chunk before it to
// its owner (ncclReduce, root q); the sum lands in the owner's output shard.
// The Sequential schedule is the textbook pair: ncclAllGather then one gemm, one gemm then
// ncclReduceScatter, on the caller's stream.

#include <algorithm>
#include <vector>

#include "dist/comm.hpp"
#include "dist/kernels.hpp"

namespace gemmlab::dist {

namespace {

template <class T>
constexpr bool is_half_v = std::is_same_v<T, __nv_bfloat16> || std::is_same_v<T, __half>;

template <class TA, class TC>
Status row_gemm(Communicator::Impl* im, Op op_w, int64_t rows, int64_t n, int64_t k, scalar_t<TA> alpha,
                const TA* x, int64_t ldx, const TA* w, int64_t ldw, TC* y, int64_t ldy,
                const gemmlab::GemmOptions& opts) {
    const gemmlab::Status s = gemmlab::gemm(Layout::RowMajor, Op::N, op_w, rows, n, k, alpha, x, ldx, w, ldw,
                                            scalar_t<TA>(0), y, ldy, opts);
    if (s == gemmlab::Status::Success) return Status::Success;
    return im->fail(Status::GemmError, std::string("the local gemmlab product failed (") +
                                           std::string(gemmlab::to_string(s)) + "): " + gemmlab::last_error());
}

/// The common start of both patterns: usable communicator, local checks, agreement.
Status begin(Communicator& comm, detail::TpKind kind, int64_t ta, int64_t tc, Op op_w, int64_t tokens,
             int64_t n, int64_t k, const void* x, int64_t ldx, const void* w, int64_t ldw, const void* out,
             int64_t ld_out, const TpOptions& o, Clock::time_point* dl) {
    if (!comm.valid()) {
        detail::set_error("the communicator is empty (not created)");
        return Status::InvalidArgument;
    }
    Communicator::Impl* im = comm.impl();
    if (Status s = im->usable(); s != Status::Success) return s;
    *dl = im->deadline();
    detail::Fingerprint fp;
    detail::check_tp_local(kind, im->nranks, ta, tc, op_w, tokens, n, k, x, ldx, w, ldw, out, ld_out, o, fp);
    return im->agree(fp, *dl);
}

int chunk_count(const TpOptions& o, int64_t rows_shard) {
    const int64_t c = o.chunks > 0 ? o.chunks : 4;
    return int(std::max<int64_t>(1, std::min<int64_t>(c, rows_shard)));
}

} // namespace

template <class TA, class TC>
Status allgather_gemm(Communicator& comm, Op op_w, int64_t tokens, int64_t n_local, int64_t k,
                      scalar_t<TA> alpha, const TA* x_shard, int64_t ldx, const TA* w, int64_t ldw, TC* y,
                      int64_t ldy, const TpOptions& options) {
    Communicator::Impl* im = comm.impl();
    DeviceScope scope(comm.valid() ? im->device : 0);
    Clock::time_point dl;
    if (Status s = begin(comm, detail::TpKind::AllGatherGemm, detail::type_code<TA>(), detail::type_code<TC>(),
                         op_w, tokens, n_local, k, x_shard, ldx, w, ldw, y, ldy, options, &dl);
        s != Status::Success)
        return s;
    const int P = im->nranks, rank = im->rank;
    const int64_t rows_shard = tokens / P;
    if (tokens == 0 || n_local == 0) return Status::Success;
    cudaStream_t user = options.local.stream;
    gemmlab::GemmOptions local = options.local;
    local.stream = user;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly && P > 1 && k > 0;
    const bool do_compute = sched != Schedule::CommOnly;
    const size_t esz = sizeof(TA);
    auto get = [&](Buffer id, size_t bytes, void* out) {
        return im->buffer(id, std::max<size_t>(bytes, 16), user, static_cast<void**>(out));
    };

    // This rank's shard, contiguous (rows_shard x k) for sending.
    const TA* own = x_shard;
    if (do_comm && ldx != k) {
        TA* packed = nullptr;
        if (Status s = get(Buffer::OwnShard, esz * rows_shard * k, &packed); s != Status::Success) return s;
        if (Status s = im->cuda(cudaMemcpy2DAsync(packed, k * esz, x_shard, ldx * esz, k * esz, rows_shard,
                                                  cudaMemcpyDeviceToDevice, user),
                                "cudaMemcpy2DAsync (pack the shard)");
            s != Status::Success)
            return s;
        own = packed;
    }

    if (sched == Schedule::Sequential) {
        TA* all = nullptr;
        if (Status s = get(Buffer::Gathered, esz * tokens * k, &all); s != Status::Success) return s;
        if (do_comm) {
            if (Status s = im->nccl(ncclAllGather(own, all, size_t(rows_shard * k), nccl_type<TA>(), im->comm, user),
                                    im->comm, "ncclAllGather (X)", dl);
                s != Status::Success)
                return s;
        }
        const TA* xs = P > 1 ? all : x_shard;
        const int64_t ldxs = P > 1 ? k : ldx;
        if (Status s = row_gemm<TA, TC>(im, op_w, tokens, n_local, k, alpha, xs, std::max<int64_t>(1, ldxs), w, ldw, y,
                                        ldy, local);
            s != Status::Success)
            return s;
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    // Overlapped (and its timing aids): chunks of every shard broadcast in one global order.
    const int chunks = chunk_count(options, rows_shard);
    const int64_t cs = (rows_shard + chunks - 1) / chunks;
    struct Chunk {
        int owner;
        int64_t row0, rows; // within the owner's shard
    };
    std::vector<Chunk> order;
    for (int q = 0; q < P; ++q)
        for (int c = 0; c < chunks; ++c) {
            const int64_t r0 = c * cs, r1 = std::min<int64_t>(rows_shard, r0 + cs);
            if (r1 > r0) order.push_back({q, r0, r1 - r0});
        }
    std::vector<size_t> received; // indices into `order` this rank receives
    for (size_t i = 0; i < order.size(); ++i)
        if (order[i].owner != rank) received.push_back(i);

    TA* slot[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i)
        if (Status s = get(i ? Buffer::Slot1 : Buffer::Slot0, esz * cs * std::max<int64_t>(1, k), &slot[i]);
            s != Status::Success)
            return s;
    cudaEvent_t ev_start = im->event(2), ready[2] = {im->event(3), im->event(4)},
                freed[2] = {im->event(7), im->event(8)}, done = im->event(9);
    if (!done) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs_stream = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
        return s;

    size_t next_comm = 0;  // next index of `order` to enqueue on the communication stream
    size_t recv_count = 0; // received chunks enqueued so far
    // Enqueues the broadcasts of `order` up to and including index `last`.
    auto communicate_through = [&](size_t last) -> Status {
        for (; do_comm && next_comm <= last && next_comm < order.size(); ++next_comm) {
            const Chunk& ch = order[next_comm];
            const size_t count = size_t(ch.rows * k);
            if (ch.owner == rank) {
                TA* src = const_cast<TA*>(own + ch.row0 * k); // in-place broadcast: only read on the root
                if (Status s = im->nccl(ncclBcast(src, count, nccl_type<TA>(), ch.owner, im->comm, cs_stream),
                                        im->comm, "ncclBcast (own X chunk)", dl);
                    s != Status::Success)
                    return s;
                continue;
            }
            const int sl = int(recv_count % 2);
            if (recv_count >= 2)
                if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, freed[sl], 0), "cudaStreamWaitEvent");
                    s != Status::Success)
                    return s;
            if (Status s = im->nccl(ncclBcast(slot[sl], count, nccl_type<TA>(), ch.owner, im->comm, cs_stream),
                                    im->comm, "ncclBcast (X chunk)", dl);
                s != Status::Success)
                return s;
            if (Status s = im->cuda(cudaEventRecord(ready[sl], cs_stream), "cudaEventRecord"); s != Status::Success)
                return s;
            ++recv_count;
        }
        return Status::Success;
    };

    // Own shard first: it needs no communication.
    if (!received.empty())
        if (Status s = communicate_through(received[0]); s != Status::Success) return s;
    if (do_compute)
        if (Status s = row_gemm<TA, TC>(im, op_w, rows_shard, n_local, k, alpha, x_shard, ldx, w, ldw,
                                        y + rank * rows_shard * ldy, ldy, local);
            s != Status::Success)
            return s;
    for (size_t j = 0; j < received.size(); ++j) {
        if (j + 1 < received.size())
            if (Status s = communicate_through(received[j + 1]); s != Status::Success) return s;
        if (!do_compute) continue;
        const Chunk& ch = order[received[j]];
        const int sl = int(j % 2);
        if (do_comm)
            if (Status s = im->cuda(cudaStreamWaitEvent(user, ready[sl], 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
        TC* yrows = y + (ch.owner * rows_shard + ch.row0) * ldy;
        if (Status s = row_gemm<TA, TC>(im, op_w, ch.rows, n_local, k, alpha, slot[sl], std::max<int64_t>(1, k), w,
                                        ldw, yrows, ldy, local);
            s != Status::Success)
            return s;
        if (Status s = im->cuda(cudaEventRecord(freed[sl], user), "cudaEventRecord"); s != Status::Success) return s;
    }
    if (Status s = communicate_through(order.size()); s != Status::Success) return s;
    if (Status s = im->cuda(cudaEventRecord(done, cs_stream), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = im->cuda(cudaStreamWaitEvent(user, done, 0), "cudaStreamWaitEvent"); s != Status::Success) return s;
    detail::clear_error();
    return options.synchronize ? comm.wait(user) : Status::Success;
}

template <class TA, class TC>
Status gemm_reducescatter(Communicator& comm, Op op_w, int64_t tokens, int64_t n, int64_t k_local,
                          scalar_t<TA> alpha, const TA* x, int64_t ldx, const TA* w, int64_t ldw, TC* out,
                          int64_t ldo, const TpOptions& options) {
    Communicator::Impl* im = comm.impl();
    DeviceScope scope(comm.valid() ? im->device : 0);
    Clock::time_point dl;
    if (Status s = begin(comm, detail::TpKind::GemmReduceScatter, detail::type_code<TA>(), detail::type_code<TC>(),
                         op_w, tokens, n, k_local, x, ldx, w, ldw, out, ldo, options, &dl);
        s != Status::Success)
        return s;
    using Acc = std::conditional_t<is_half_v<TC>, float, TC>;
    const int P = im->nranks, rank = im->rank;
    const int64_t rows_shard = tokens / P;
    if (tokens == 0 || n == 0) return Status::Success;
    cudaStream_t user = options.local.stream;
    gemmlab::GemmOptions local = options.local;
    local.stream = user;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly;
    const bool do_compute = sched != Schedule::CommOnly;
    auto get = [&](Buffer id, size_t bytes, void* o) {
        return im->buffer(id, std::max<size_t>(bytes, 16), user, static_cast<void**>(o));
    };
    // Where this rank's sum lands: straight in out_shard, or staged (float for the half types,
    // or rows packed when ldo != n) and stored at the end.
    const bool direct = std::is_same_v<Acc, TC> && ldo == n;
    Acc* staging = nullptr;
    if (!direct)
        if (Status s = get(Buffer::Staging, sizeof(Acc) * rows_shard * n, &staging); s != Status::Success) return s;
    Acc* target = direct ? reinterpret_cast<Acc*>(out) : staging; // rows_shard x n, ld n

    auto finish = [&]() -> Status {
        if (!direct && do_comm && do_compute) {
            if constexpr (std::is_same_v<Acc, float>) {
                if (Status s = im->cuda(detail::store_from_float<TC>(rows_shard, n, staging, n, 0.0f, out, ldo, user),
                                        "the reduce-scatter's store (kernel launch)");
                    s != Status::Success)
                    return s;
            } else {
                if (Status s = im->cuda(cudaMemcpy2DAsync(out, ldo * sizeof(TC), staging, n * sizeof(Acc),
                                                          n * sizeof(Acc), rows_shard, cudaMemcpyDeviceToDevice, user),
                                        "cudaMemcpy2DAsync (store the shard)");
                    s != Status::Success)
                    return s;
            }
        }
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    };

    if (sched == Schedule::Sequential) {
        Acc* partial = nullptr;
        if (Status s = get(Buffer::Gathered, sizeof(Acc) * tokens * n, &partial); s != Status::Success) return s;
        if (Status s = row_gemm<TA, Acc>(im, op_w, tokens, n, k_local, alpha, x, ldx, w, ldw, partial, n, local);
            s != Status::Success)
            return s;
        if (Status s = im->nccl(ncclReduceScatter(partial, target, size_t(rows_shard * n), nccl_type<Acc>(), ncclSum,
                                                  im->comm, user),
                                im->comm, "ncclReduceScatter (partial products)", dl);
            s != Status::Success)
            return s;
        return finish();
    }

    const int chunks = chunk_count(options, rows_shard);
    const int64_t cs = (rows_shard + chunks - 1) / chunks;
    struct Chunk {
        int owner;
        int64_t row0, rows; // within the owner's shard
    };
    std::vector<Chunk> order;
    for (int q = 0; q < P; ++q)
        for (int c = 0; c < chunks; ++c) {
            const int64_t r0 = c * cs, r1 = std::min<int64_t>(rows_shard, r0 + cs);
            if (r1 > r0) order.push_back({q, r0, r1 - r0});
        }
    Acc* slot[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i)
        if (Status s = get(i ? Buffer::Slot1 : Buffer::Slot0, sizeof(Acc) * cs * n, &slot[i]); s != Status::Success)
            return s;
    cudaEvent_t ev_start = im->event(2), ready[2] = {im->event(3), im->event(4)},
                freed[2] = {im->event(7), im->event(8)}, done = im->event(9);
    if (!done) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs_stream = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
        return s;

    auto compute = [&](size_t j) -> Status {
        const Chunk& ch = order[j];
        const int sl = int(j % 2);
        if (j >= 2 && do_comm)
            if (Status s = im->cuda(cudaStreamWaitEvent(user, freed[sl], 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
        if (do_compute)
            if (Status s = row_gemm<TA, Acc>(im, op_w, ch.rows, n, k_local, alpha, x + (ch.owner * rows_shard + ch.row0) * ldx,
                                             ldx, w, ldw, slot[sl], n, local);
                s != Status::Success)
                return s;
        return im->cuda(cudaEventRecord(ready[sl], user), "cudaEventRecord");
    };
    auto communicate = [&](size_t j) -> Status {
        if (!do_comm) return Status::Success;
        const Chunk& ch = order[j];
        const int sl = int(j % 2);
        if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, ready[sl], 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
        Acc* recv = ch.owner == rank ? target + ch.row0 * n : slot[sl];
        if (Status s = im->nccl(ncclReduce(slot[sl], recv, size_t(ch.rows * n), nccl_type<Acc>(), ncclSum, ch.owner,
                                           im->comm, cs_stream),
                                im->comm, "ncclReduce (a chunk of partial products)", dl);
            s != Status::Success)
            return s;
        return im->cuda(cudaEventRecord(freed[sl], cs_stream), "cudaEventRecord");
    };
    if (Status s = compute(0); s != Status::Success) return s;
    for (size_t j = 0; j < order.size(); ++j) {
        if (j + 1 < order.size())
            if (Status s = compute(j + 1); s != Status::Success) return s;
        if (Status s = communicate(j); s != Status::Success) return s;
    }
    if (Status s = im->cuda(cudaEventRecord(done, cs_stream), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = im->cuda(cudaStreamWaitEvent(user, done, 0), "cudaStreamWaitEvent"); s != Status::Success) return s;
    return finish();
}

#define GEMMLAB_DIST_TP(TA, TC)                                                                        \
    template Status allgather_gemm<TA, TC>(Communicator&, Op, int64_t, int64_t, int64_t, scalar_t<TA>,  \
                                           const TA*, int64_t, const TA*, int64_t, TC*, int64_t,       \
                                           const TpOptions&);                                          \
    template Status gemm_reducescatter<TA, TC>(Communicator&, Op, int64_t, int64_t, int64_t, scalar_t<TA>, \
                                               const TA*, int64_t, const TA*, int64_t, TC*, int64_t,   \
                                               const TpOptions&);
GEMMLAB_DIST_TP(float, float)
GEMMLAB_DIST_TP(double, double)
GEMMLAB_DIST_TP(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_DIST_TP(__nv_bfloat16, float)
GEMMLAB_DIST_TP(__half, __half)
GEMMLAB_DIST_TP(__half, float)
#undef GEMMLAB_DIST_TP

} // namespace gemmlab::dist
