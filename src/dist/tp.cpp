// Tensor-parallel GEMMs: all-gather + GEMM and GEMM + reduce-scatter, communication overlapped
// with the local products.
//
// Both overlapped schedules keep the products few and large (a product split into pieces of a
// few hundred rows loses a partial wave of blocks each time, more than the overlap wins), run
// them with a rung that shares the GPU with NCCL (local_gemm.hpp), and communicate on a
// high-priority stream over a communicator whose collectives use at most
// CommOptions::overlap_max_ctas blocks.
// all-gather + GEMM: the compute stream multiplies this rank's own shard at once, while the
// communication stream all-gathers X (one ncclAllGather into a whole-X buffer); then the rows
// received before and after the own shard, one product each (Y's rows of a range of X's rows
// are contiguous).
// GEMM + reduce-scatter: the rows of each owner's block are cut into `chunks` pieces (default 2);
// the compute stream makes the partial product of one piece into a slot while the communication
// stream reduces the piece before it to its owner (ncclReduce, root = owner), straight into the
// owner's output rows.
// The Sequential schedule is the textbook pair: ncclAllGather then one gemm, one gemm then
// ncclReduceScatter, on the caller's stream and communicator, with the caller's kernel.

#include <algorithm>
#include <vector>

#include "dist/comm.hpp"
#include "dist/kernels.hpp"
#include "dist/local_gemm.hpp"

namespace gemmlab::dist {

namespace {

/// Y (rows x n, ld ldy) = alpha * X (rows x k, ld ldx) * op_w(W), row-major.
template <class TA, class TC>
Status row_gemm(Communicator::Impl* im, Op op_w, int64_t rows, int64_t n, int64_t k, scalar_t<TA> alpha,
                const TA* x, int64_t ldx, const TA* w, int64_t ldw, TC* y, int64_t ldy,
                const gemmlab::GemmOptions& opts, const gemmlab::GemmOptions& caller) {
    if (rows == 0) return Status::Success;
    return detail::local_gemm<TA, TC>(im, Layout::RowMajor, Op::N, op_w, rows, n, k, alpha, x, ldx, w, ldw,
                                      scalar_t<TA>(0), y, ldy, opts, caller);
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
    const int64_t c = o.chunks > 0 ? o.chunks : 2;
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
    const gemmlab::GemmOptions& caller = options.local;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly && P > 1 && k > 0;
    const bool do_compute = sched != Schedule::CommOnly;
    // ComputeOnly times the Overlapped schedule's products.
    gemmlab::GemmOptions local =
        sched == Schedule::Sequential || P == 1 ? caller : detail::beside_comm<TA>(caller, im->device);
    local.stream = user;
    const size_t esz = sizeof(TA);
    auto get = [&](Buffer id, size_t bytes, void* out) {
        return im->buffer(id, std::max<size_t>(bytes, 16), user, static_cast<void**>(out));
    };
    TA* all = nullptr; // X_all, tokens x k, ld k
    if (P > 1)
        if (Status s = get(Buffer::Gathered, esz * tokens * k, &all); s != Status::Success) return s;
    TA* packed = nullptr; // the own shard made contiguous for sending, where ldx != k
    if (do_comm && ldx != k)
        if (Status s = get(Buffer::OwnShard, esz * rows_shard * k, &packed); s != Status::Success) return s;

    if (sched == Schedule::Sequential) {
        const TA* own = x_shard;
        if (packed) {
            if (Status s = im->cuda(cudaMemcpy2DAsync(packed, k * esz, x_shard, ldx * esz, k * esz, rows_shard,
                                                      cudaMemcpyDeviceToDevice, user),
                                    "cudaMemcpy2DAsync (pack the shard)");
                s != Status::Success)
                return s;
            own = packed;
        }
        if (do_comm) {
            if (Status s = im->nccl(ncclAllGather(own, all, size_t(rows_shard * k), nccl_type<TA>(), im->comm, user),
                                    im->comm, "ncclAllGather (X)", dl);
                s != Status::Success)
                return s;
        }
        const TA* xs = P > 1 ? all : x_shard;
        const int64_t ldxs = P > 1 ? k : ldx;
        if (Status s = row_gemm<TA, TC>(im, op_w, tokens, n_local, k, alpha, xs, std::max<int64_t>(1, ldxs), w, ldw, y,
                                        ldy, local, caller);
            s != Status::Success)
            return s;
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    // Overlapped (and its timing aids). The own shard's product goes first on the compute
    // stream: it needs nothing from the peers, and the GPU starts on it while the host enqueues
    // the all-gather.
    ncclComm_t oc = nullptr;
    if (do_comm)
        if (Status s = im->overlap_comm(&oc, dl); s != Status::Success) return s;
    cudaEvent_t ev_start = im->event(2), gathered = im->event(3);
    if (!gathered) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (do_compute)
        if (Status s = row_gemm<TA, TC>(im, op_w, rows_shard, n_local, k, alpha, x_shard, ldx, w, ldw,
                                        y + rank * rows_shard * ldy, ldy, local, caller);
            s != Status::Success)
            return s;
    if (do_comm) {
        if (Status s = im->cuda(cudaStreamWaitEvent(cs, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
        const TA* own = x_shard;
        if (packed) {
            if (Status s = im->cuda(cudaMemcpy2DAsync(packed, k * esz, x_shard, ldx * esz, k * esz, rows_shard,
                                                      cudaMemcpyDeviceToDevice, cs),
                                    "cudaMemcpy2DAsync (pack the shard)");
                s != Status::Success)
                return s;
            own = packed;
        }
        if (Status s = im->nccl(ncclAllGather(own, all, size_t(rows_shard * k), nccl_type<TA>(), oc, cs), oc,
                                "ncclAllGather (X, overlapped)", dl);
            s != Status::Success)
            return s;
        if (Status s = im->cuda(cudaEventRecord(gathered, cs), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, gathered, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
    }
    if (do_compute && P > 1) {
        // The rows before the own shard, then the rows after it: one product each.
        const int64_t before = rank * rows_shard, after0 = (rank + 1) * rows_shard;
        const int64_t ld_all = std::max<int64_t>(1, k);
        if (Status s = row_gemm<TA, TC>(im, op_w, before, n_local, k, alpha, all, ld_all, w, ldw, y, ldy, local, caller);
            s != Status::Success)
            return s;
        if (Status s = row_gemm<TA, TC>(im, op_w, tokens - after0, n_local, k, alpha, all + after0 * k, ld_all, w, ldw,
                                        y + after0 * ldy, ldy, local, caller);
            s != Status::Success)
            return s;
    }
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
    using Acc = std::conditional_t<detail::is_half_v<TC>, float, TC>;
    const int P = im->nranks, rank = im->rank;
    const int64_t rows_shard = tokens / P;
    if (tokens == 0 || n == 0) return Status::Success;
    cudaStream_t user = options.local.stream;
    const gemmlab::GemmOptions& caller = options.local;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly;
    const bool do_compute = sched != Schedule::CommOnly;
    // ComputeOnly times the Overlapped schedule's products.
    gemmlab::GemmOptions local =
        sched == Schedule::Sequential || P == 1 ? caller : detail::beside_comm<TA>(caller, im->device);
    local.stream = user;
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
        if (Status s = row_gemm<TA, Acc>(im, op_w, tokens, n, k_local, alpha, x, ldx, w, ldw, partial, n, local, caller);
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
    ncclComm_t oc = im->comm; // one rank: NCCL's reduce is a copy
    if (do_comm && P > 1)
        if (Status s = im->overlap_comm(&oc, dl); s != Status::Success) return s;
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
                                             ldx, w, ldw, slot[sl], n, local, caller);
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
                                           oc, cs_stream),
                                oc, "ncclReduce (a chunk of partial products)", dl);
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
