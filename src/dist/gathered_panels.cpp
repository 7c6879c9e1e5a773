// dist::gemm on a one-dimensional grid, with whole-k local products.
//
// On a P x 1 grid (row-major; a 1 x P grid column-major is the same call transposed) with B's
// rows dealt one block per rank, rank r holds its rows of A and C over all of k and n, and B's
// k is split over the ranks. SUMMA would add P (or more) k-panel products into C, and for the
// half types into a float buffer rounded at the end: every step re-reads and re-writes C, and
// the products run on the rung that leaves SMs to NCCL. Here C is cut by columns instead: for
// each chunk of panel_n columns, every rank packs its rows of those columns of B, one in-place
// ncclAllGather stacks them in rank order (which is k order: the gathered chunk is B's k x
// panel_n block, row-major), and one product over all of k writes the chunk of C, with beta,
// in C's own type: one rounding, as gemmlab::gemm on one GPU. The Overlapped schedule gathers
// chunk j + 1 on a communication stream into the other of two slots while chunk j multiplies
// (events: a slot is refilled only after the product that read it); the products beside a
// gather run the rung that shares the GPU with NCCL (local_gemm.hpp), the last one the
// caller's options. Only chunk 0's gather waits with nothing to hide it, so that chunk is
// narrow. Each rank receives (P - 1) / P of B, as SUMMA's B broadcasts on this grid. The chunks
// stay on NCCL even where the copy engines could carry them (peer_copy.hpp): the BF16 scaling
// rows measured lower with the chunks on the copy engines (docs/distributed.md, "Copy engines").

#include "dist/gathered_panels.hpp"

#include <algorithm>
#include <utility>
#include <vector>

#include "dist/local_gemm.hpp"

namespace gemmlab::dist::detail {

template <class TA, class TC>
Status gemm_gathered_panels(Communicator::Impl* im, const RowPanels<TA, TC>& p, scalar_t<TA> alpha,
                            scalar_t<TA> beta, const GemmOptions& options, Clock::time_point dl) {
    const int P = im->nranks, rank = im->rank;
    const Schedule sched = options.schedule;
    const bool overlapped = sched == Schedule::Overlapped || sched == Schedule::CommOnly;
    const bool do_comm = sched != Schedule::ComputeOnly;
    const bool do_compute = sched != Schedule::CommOnly;
    cudaStream_t user = options.local.stream;
    gemmlab::GemmOptions alone = options.local;
    alone.stream = user;
    // ComputeOnly times the Overlapped schedule's products, so it takes their rungs too.
    const gemmlab::GemmOptions beside = sched == Schedule::Sequential ? alone : beside_comm<TA>(alone, im->device);
    if (p.cols == 0) return Status::Success;

    // Chunk 0's gather is the one nothing hides: it is narrower than the others (panel_chunks)
    // and runs on the full communicator, with all the blocks NCCL wants.
    const int64_t pn = std::min(options.panel_n > 0 ? options.panel_n : default_panel_n(p.cols, P), p.cols);
    const std::vector<std::pair<int64_t, int64_t>> plan = panel_chunks(p.cols, pn);
    const int64_t chunks = int64_t(plan.size());
    auto chunk = [&](int64_t j, int64_t* c0, int64_t* w) {
        *c0 = plan[size_t(j)].first;
        *w = plan[size_t(j)].second;
    };
    // A slot holds P segments of `block` rows (rank order), each row padded to 8 elements so
    // that the products read B with a 16-byte aligned pitch; rows past k are never read.
    const int64_t ld_slot = (pn + 7) / 8 * 8;
    const size_t esz = sizeof(TA);
    TA* slot[2] = {nullptr, nullptr};
    for (int i = 0; i < 2; ++i)
        if (Status s = im->buffer(i ? Buffer::PanelB1 : Buffer::PanelB0,
                                  std::max<size_t>(esz * size_t(P * p.block * ld_slot), 16), user,
                                  reinterpret_cast<void**>(&slot[i]));
            s != Status::Success)
            return s;

    ncclComm_t capped = im->comm;
    if (overlapped && do_comm)
        if (Status s = im->overlap_comm(&capped, dl); s != Status::Success) return s;
    cudaEvent_t ev_start = im->event(2), ready[2] = {im->event(3), im->event(4)},
                freed[2] = {im->event(5), im->event(6)}, done = im->event(7);
    if (!done) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs = overlapped ? im->comm_stream[0] : user;
    if (overlapped && do_comm) {
        if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(cs, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
    }

    auto gather = [&](int64_t j) -> Status {
        const int i = int(j % 2);
        int64_t c0 = 0, w = 0;
        chunk(j, &c0, &w);
        if (overlapped && do_compute && j >= 2)
            if (Status s = im->cuda(cudaStreamWaitEvent(cs, freed[i], 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
        TA* mine = slot[i] + size_t(rank) * size_t(p.block * ld_slot);
        if (p.b_rows > 0)
            if (Status s = im->cuda(cudaMemcpy2DAsync(mine, ld_slot * esz, p.b_local + c0, p.ldb * esz, w * esz,
                                                      p.b_rows, cudaMemcpyDeviceToDevice, cs),
                                    "cudaMemcpy2DAsync (pack this rank's rows of a chunk of B)");
                s != Status::Success)
                return s;
        ncclComm_t c = j == 0 ? im->comm : capped;
        if (Status s = im->nccl(ncclAllGather(mine, slot[i], size_t(p.block * ld_slot), nccl_type<TA>(), c, cs), c,
                                "ncclAllGather (a chunk of B's columns)", dl);
            s != Status::Success)
            return s;
        if (overlapped) return im->cuda(cudaEventRecord(ready[i], cs), "cudaEventRecord");
        return Status::Success;
    };

    auto multiply = [&](int64_t j) -> Status {
        const int i = int(j % 2);
        int64_t c0 = 0, w = 0;
        chunk(j, &c0, &w);
        if (overlapped && do_comm)
            if (Status s = im->cuda(cudaStreamWaitEvent(user, ready[i], 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
        if (p.rows > 0)
            if (Status s = local_gemm<TA, TC>(im, Layout::RowMajor, Op::N, Op::N, p.rows, w, p.k, alpha, p.a, p.lda,
                                              slot[i], ld_slot, beta, p.c + c0, p.ldc,
                                              j + 1 < chunks ? beside : alone, alone);
                s != Status::Success)
                return s;
        if (overlapped) return im->cuda(cudaEventRecord(freed[i], user), "cudaEventRecord");
        return Status::Success;
    };

    // Overlapped: chunk j + 1's gather is enqueued before chunk j's product.
    if (do_comm)
        if (Status s = gather(0); s != Status::Success) return s;
    for (int64_t j = 0; j < chunks; ++j) {
        if (do_comm && j + 1 < chunks && overlapped)
            if (Status s = gather(j + 1); s != Status::Success) return s;
        if (do_compute)
            if (Status s = multiply(j); s != Status::Success) return s;
        if (do_comm && j + 1 < chunks && !overlapped)
            if (Status s = gather(j + 1); s != Status::Success) return s;
    }
    if (overlapped && do_comm) {
        if (Status s = im->cuda(cudaEventRecord(done, cs), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, done, 0), "cudaStreamWaitEvent"); s != Status::Success)
            return s;
    }
    return Status::Success;
}

#define GEMMLAB_DIST_GATHERED(TA, TC)                                                                     \
    template Status gemm_gathered_panels<TA, TC>(Communicator::Impl*, const RowPanels<TA, TC>&, scalar_t<TA>, \
                                                 scalar_t<TA>, const GemmOptions&, Clock::time_point);
GEMMLAB_DIST_GATHERED(float, float)
GEMMLAB_DIST_GATHERED(double, double)
GEMMLAB_DIST_GATHERED(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_DIST_GATHERED(__nv_bfloat16, float)
GEMMLAB_DIST_GATHERED(__half, __half)
GEMMLAB_DIST_GATHERED(__half, float)
#undef GEMMLAB_DIST_GATHERED

} // namespace gemmlab::dist::detail
