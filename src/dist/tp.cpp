// Tensor-parallel GEMMs: all-gather + GEMM and GEMM + reduce-scatter, communication overlapped
// with the local products.
//
// The overlapped schedules move data with the copy engines where the ranks reach each other's
// memory (one process per rank on one host: peer_copy.hpp), else with NCCL. On the copy
// engines no SM moves data, so every product runs the caller's options:
// all-gather + GEMM: every rank writes its shard into its place in every peer's X_all, one peer
// per step, while the compute stream multiplies the own shard; each peer's rows are multiplied
// as soon as they arrived.
// GEMM + reduce-scatter: the rows of every owner's shard are cut into `chunks` pieces; chunk c
// is the c-th piece of every owner's shard, made by one strided batched product (one product
// per owner) into a slot laid out owner by owner; each piece goes into its owner's `received`,
// and the owner sums the P pieces in rank order, while the next chunk's product runs.
// On NCCL both keep the products few and large (a product of a few hundred rows loses a partial
// wave of blocks, more than the overlap wins), communicate on a high-priority stream over a
// communicator whose collectives use at most CommOptions::overlap_max_ctas blocks, and run a
// product beside a collective with the rung that shares the GPU with it (local_gemm.hpp):
// all-gather + GEMM multiplies the own shard while one ncclAllGather fills a whole-X buffer,
// then the rows before and after the own shard, one product each (Y's rows of a range of X's
// rows are contiguous); GEMM + reduce-scatter reduces each chunk's slot with one
// ncclReduceScatter straight into the c-th piece of each owner's output.
// The Sequential schedule is the textbook pair: ncclAllGather then one gemm, one gemm then
// ncclReduceScatter, on the caller's stream and communicator, with the caller's options.

#include <algorithm>
#include <array>
#include <cstdlib>
#include <string>

#include "dist/comm.hpp"
#include "dist/kernels.hpp"
#include "dist/local_gemm.hpp"
#include "dist/peer_copy.hpp"

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

/// allgather_gemm's Overlapped schedule on the copy engines: this rank copies its shard into
/// its place in every peer's shared X_all (peer_copy.hpp), one peer after another, while the
/// compute stream multiplies the own shard; each peer's rows are multiplied as soon as they
/// arrived. No SM moves data, so every product takes the caller's
/// options.
template <class TA, class TC>
Status allgather_gemm_copy_engines(Communicator::Impl* im, detail::PeerCopies* pc, Op op_w, int64_t tokens,
                                   int64_t n_local, int64_t k, scalar_t<TA> alpha, const TA* x_shard, int64_t ldx,
                                   const TA* w, int64_t ldw, TC* y, int64_t ldy, const TpOptions& options,
                                   Clock::time_point dl) {
    const int P = im->nranks, rank = im->rank;
    const int64_t rows_shard = tokens / P;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly && k > 0;
    const bool do_compute = sched != Schedule::CommOnly;
    cudaStream_t user = options.local.stream;
    gemmlab::GemmOptions alone = options.local;
    alone.stream = user;
    const size_t shard_bytes = sizeof(TA) * size_t(rows_shard * k);
    TA* all = nullptr; // X_all, tokens x k, ld k; every peer reads this rank's shard from it
    if (Status s = pc->shared(Buffer::Gathered, shard_bytes * size_t(P), user, reinterpret_cast<void**>(&all), dl);
        s != Status::Success)
        return s;
    cudaEvent_t ev_start = im->event(2), done = im->event(3);
    std::array<cudaEvent_t, detail::PeerCopies::kMaxRanks> landed{};
    for (int q = 0; q < P; ++q) landed[size_t(q)] = im->event(size_t(10 + q));
    if (!done || !landed[size_t(P - 1)]) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (do_compute)
        if (Status s = row_gemm<TA, TC>(im, op_w, rows_shard, n_local, k, alpha, x_shard, ldx, w, ldw,
                                        y + rank * rows_shard * ldy, ldy, alone, alone);
            s != Status::Success)
            return s;
    if (do_comm) {
        if (Status s = im->cuda(cudaStreamWaitEvent(cs, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
        // The shard goes out as it is where its rows are contiguous, else packed into its place in
        // this rank's X_all first (this rank's own products read x_shard itself).
        const TA* source = x_shard;
        if (ldx != k) {
            TA* own = all + rank * rows_shard * k;
            if (Status s = im->cuda(cudaMemcpy2DAsync(own, k * sizeof(TA), x_shard, ldx * sizeof(TA), k * sizeof(TA),
                                                      rows_shard, cudaMemcpyDeviceToDevice, cs),
                                    "cudaMemcpy2DAsync (pack the shard)");
                s != Status::Success)
                return s;
            source = own;
        }
        auto push = [&](int) { return detail::Push{source, shard_bytes * size_t(rank), shard_bytes}; };
        static const bool in_turn = [] {
            const char* v = std::getenv("GEMMLAB_DIST_STEPS");
            return !(v && std::string(v) == "together");
        }();
        if (Status s = pc->exchange(Buffer::Gathered, cs, push, &landed, in_turn); s != Status::Success) return s;
    }
    if (do_compute)
        for (int i = 1; i < P; ++i) { // the order the peers' shards arrive in
            const int q = (rank - i + P) % P;
            if (do_comm)
                if (Status s = im->cuda(cudaStreamWaitEvent(user, landed[size_t(q)], 0), "cudaStreamWaitEvent");
                    s != Status::Success)
                    return s;
            if (Status s = row_gemm<TA, TC>(im, op_w, rows_shard, n_local, k, alpha, all + q * rows_shard * k,
                                            std::max<int64_t>(1, k), w, ldw, y + q * rows_shard * ldy, ldy, alone,
                                            alone);
                s != Status::Success)
                return s;
        }
    if (do_comm) {
        // The call ends once this rank's shard is in every peer's X_all.
        if (Status s = im->cuda(cudaEventRecord(done, cs), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, done, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
    }
    return Status::Success;
}

/// Pieces of each owner's shard for the reduce-scatter: the caller's, else 8 on the copy engines
/// (more pieces cost them no SM, and the last piece, the one nothing hides, is smaller; 12 and
/// 16 made the batched products slower than they saved: docs/distributed.md), 4 on NCCL.
int chunk_count(const TpOptions& o, int64_t rows_shard, bool copy_engines) {
    const int64_t c = o.chunks > 0 ? o.chunks : copy_engines ? 8 : 4;
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
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly && P > 1 && k > 0;
    const bool do_compute = sched != Schedule::CommOnly;
    // A product beside a collective runs beside_comm's rung, one alone the caller's options
    // (local_gemm.hpp). ComputeOnly times the Overlapped schedule's products.
    gemmlab::GemmOptions alone = options.local;
    alone.stream = user;
    const gemmlab::GemmOptions beside = P > 1 ? detail::beside_comm<TA>(alone, im->device) : alone;
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
    auto pack_own = [&](cudaStream_t st, const TA** own) -> Status {
        *own = x_shard;
        if (!packed) return Status::Success;
        *own = packed;
        return im->cuda(cudaMemcpy2DAsync(packed, k * esz, x_shard, ldx * esz, k * esz, rows_shard,
                                          cudaMemcpyDeviceToDevice, st),
                        "cudaMemcpy2DAsync (pack the shard)");
    };

    if (sched == Schedule::Sequential) {
        const TA* own = x_shard;
        if (do_comm) {
            if (Status s = pack_own(user, &own); s != Status::Success) return s;
            if (Status s = im->nccl(ncclAllGather(own, all, size_t(rows_shard * k), nccl_type<TA>(), im->comm, user),
                                    im->comm, "ncclAllGather (X)", dl);
                s != Status::Success)
                return s;
        }
        const TA* xs = P > 1 ? all : x_shard;
        const int64_t ldxs = P > 1 ? k : ldx;
        if (Status s = row_gemm<TA, TC>(im, op_w, tokens, n_local, k, alpha, xs, std::max<int64_t>(1, ldxs), w, ldw, y,
                                        ldy, alone, alone);
            s != Status::Success)
            return s;
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    detail::PeerCopies* pc = nullptr;
    if (P > 1)
        if (Status s = im->copy_engines(&pc, dl); s != Status::Success) return s;
    if (pc) {
        if (Status s = allgather_gemm_copy_engines<TA, TC>(im, pc, op_w, tokens, n_local, k, alpha, x_shard, ldx, w,
                                                           ldw, y, ldy, options, dl);
            s != Status::Success)
            return s;
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    // Overlapped (and its timing aids). The own shard's product goes first on the compute
    // stream, beside the all-gather: it needs nothing from the peers, and the GPU starts on it
    // while the host enqueues the collective. The rows before and after it follow, alone.
    ncclComm_t oc = nullptr;
    if (do_comm)
        if (Status s = im->overlap_comm(&oc, dl); s != Status::Success) return s;
    cudaEvent_t ev_start = im->event(2), gathered = im->event(3);
    if (!gathered) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (do_compute)
        if (Status s = row_gemm<TA, TC>(im, op_w, rows_shard, n_local, k, alpha, x_shard, ldx, w, ldw,
                                        y + rank * rows_shard * ldy, ldy, beside, alone);
            s != Status::Success)
            return s;
    if (do_comm) {
        if (Status s = im->cuda(cudaStreamWaitEvent(cs, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
        const TA* own = x_shard;
        if (Status s = pack_own(cs, &own); s != Status::Success) return s;
        if (Status s = im->nccl(ncclAllGather(own, all, size_t(rows_shard * k), nccl_type<TA>(), oc, cs), oc,
                                "ncclAllGather (X, overlapped)", dl);
            s != Status::Success)
            return s;
        if (Status s = im->cuda(cudaEventRecord(gathered, cs), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, gathered, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
    }
    if (do_compute && P > 1) {
        const int64_t before = rank * rows_shard, after0 = (rank + 1) * rows_shard;
        const int64_t ld_all = std::max<int64_t>(1, k);
        if (Status s = row_gemm<TA, TC>(im, op_w, before, n_local, k, alpha, all, ld_all, w, ldw, y, ldy, alone, alone);
            s != Status::Success)
            return s;
        if (Status s = row_gemm<TA, TC>(im, op_w, tokens - after0, n_local, k, alpha, all + after0 * k, ld_all, w,
                                        ldw, y + after0 * ldy, ldy, alone, alone);
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
    const int P = im->nranks;
    const int64_t rows_shard = tokens / P;
    if (tokens == 0 || n == 0) return Status::Success;
    cudaStream_t user = options.local.stream;
    const Schedule sched = options.schedule;
    const bool do_comm = sched != Schedule::ComputeOnly;
    const bool do_compute = sched != Schedule::CommOnly;
    // As in allgather_gemm: beside_comm's rung beside a collective, else the caller's options.
    gemmlab::GemmOptions alone = options.local;
    alone.stream = user;
    const gemmlab::GemmOptions beside = P > 1 ? detail::beside_comm<TA>(alone, im->device) : alone;
    auto get = [&](Buffer id, size_t bytes, void* o) {
        return im->buffer(id, std::max<size_t>(bytes, 16), user, static_cast<void**>(o));
    };
    // On the copy engines (peer_copy.hpp) every rank writes each owner's piece of a chunk into
    // the owner's `received`, and the owner sums the P pieces in rank order straight into its
    // output, rounded once; no SM moves data, so every product takes the caller's options.
    detail::PeerCopies* pc = nullptr;
    if (P > 1 && sched != Schedule::Sequential)
        if (Status s = im->copy_engines(&pc, dl); s != Status::Success) return s;
    // Where NCCL's sum lands: straight in out_shard, or staged (float for the half types, or
    // rows packed when ldo != n) and stored at the end.
    const bool direct = pc || (std::is_same_v<Acc, TC> && ldo == n);
    Acc* staging = nullptr;
    if (!direct)
        if (Status s = get(Buffer::Staging, sizeof(Acc) * rows_shard * n, &staging); s != Status::Success) return s;
    Acc* target = direct ? reinterpret_cast<Acc*>(out) : staging; // rows_shard x n, ld n (NCCL)

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
        if (Status s = row_gemm<TA, Acc>(im, op_w, tokens, n, k_local, alpha, x, ldx, w, ldw, partial, n, alone, alone);
            s != Status::Success)
            return s;
        if (Status s = im->nccl(ncclReduceScatter(partial, target, size_t(rows_shard * n), nccl_type<Acc>(), ncclSum,
                                                  im->comm, user),
                                im->comm, "ncclReduceScatter (partial products)", dl);
            s != Status::Success)
            return s;
        return finish();
    }

    // Chunk c: rows [c * cs, c * cs + rows) of every owner's shard. Its slot holds the P owners'
    // pieces one after another (rows x n each), as ncclReduceScatter deals them out.
    const int asked = chunk_count(options, rows_shard, pc != nullptr);
    const int64_t cs = (rows_shard + asked - 1) / asked;
    const int chunks = int((rows_shard + cs - 1) / cs); // none empty (9 rows in 4 chunks: 3 of 3)
    auto first_row = [&](int c) { return c * cs; };
    auto chunk_rows = [&](int c) { return std::min<int64_t>(cs, rows_shard - c * cs); };
    const gemmlab::GemmOptions& next_to_comm = pc ? alone : beside;
    Acc* slot[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i)
        if (Status s = get(i ? Buffer::Slot1 : Buffer::Slot0, sizeof(Acc) * P * cs * n, &slot[i]); s != Status::Success)
            return s;
    Acc* received = nullptr; // the peers' pieces of one chunk, rank by rank; the peers write it
    if (pc)
        if (Status s = pc->shared(Buffer::Received, sizeof(Acc) * P * cs * n, user, reinterpret_cast<void**>(&received), dl);
            s != Status::Success)
            return s;
    ncclComm_t oc = im->comm; // one rank: NCCL's reduce-scatter is a copy
    if (do_comm && P > 1 && !pc)
        if (Status s = im->overlap_comm(&oc, dl); s != Status::Success) return s;
    cudaEvent_t ev_start = im->event(2), ready[2] = {im->event(3), im->event(4)},
                freed[2] = {im->event(7), im->event(8)}, done = im->event(9);
    if (!done) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs_stream = im->comm_stream[0];
    if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
    if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
        return s;

    // Chunk 0's product has nothing beside it; every later one runs beside the reduce-scatter
    // of the chunk before.
    auto compute = [&](int c) -> Status {
        const int sl = c % 2;
        const int64_t rows = chunk_rows(c);
        if (c >= 2 && do_comm)
            if (Status s = im->cuda(cudaStreamWaitEvent(user, freed[sl], 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
        if (do_compute)
            if (Status s = detail::local_gemm_batched<TA, Acc>(
                    im, Layout::RowMajor, Op::N, op_w, rows, n, k_local, alpha, x + first_row(c) * ldx, ldx,
                    rows_shard * ldx, w, ldw, 0, scalar_t<TA>(0), slot[sl], n, rows * n, P,
                    c == 0 ? alone : next_to_comm, alone);
                s != Status::Success)
                return s;
        return im->cuda(cudaEventRecord(ready[sl], user), "cudaEventRecord");
    };
    auto communicate = [&](int c) -> Status {
        if (!do_comm) return Status::Success;
        const int sl = c % 2;
        if (Status s = im->cuda(cudaStreamWaitEvent(cs_stream, ready[sl], 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
        if (pc) {
            // Each owner's piece goes into its place in the owner's `received`; the owner sums.
            const int64_t piece = chunk_rows(c) * n;
            const size_t piece_bytes = sizeof(Acc) * size_t(piece);
            auto push = [&](int q) { return detail::Push{slot[sl] + q * piece, piece_bytes * size_t(im->rank), piece_bytes}; };
            if (Status s = pc->exchange(Buffer::Received, cs_stream, push, nullptr); s != Status::Success) return s;
            detail::Pieces<Acc> pieces;
            pieces.count = P;
            for (int q = 0; q < P; ++q)
                pieces.src[q] = q == im->rank ? slot[sl] + q * piece : received + q * piece;
            if (Status s = im->cuda(detail::sum_pieces<Acc, TC>(pieces, chunk_rows(c), n, out + first_row(c) * ldo, ldo,
                                                                cs_stream),
                                    "the reduce-scatter's sum (kernel launch)");
                s != Status::Success)
                return s;
            return im->cuda(cudaEventRecord(freed[sl], cs_stream), "cudaEventRecord");
        }
        if (Status s = im->nccl(ncclReduceScatter(slot[sl], target + first_row(c) * n, size_t(chunk_rows(c) * n),
                                                  nccl_type<Acc>(), ncclSum, oc, cs_stream),
                                oc, "ncclReduceScatter (a chunk of partial products)", dl);
            s != Status::Success)
            return s;
        return im->cuda(cudaEventRecord(freed[sl], cs_stream), "cudaEventRecord");
    };
    if (Status s = compute(0); s != Status::Success) return s;
    for (int c = 0; c < chunks; ++c) {
        if (c + 1 < chunks)
            if (Status s = compute(c + 1); s != Status::Success) return s;
        if (Status s = communicate(c); s != Status::Success) return s;
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
