// dist::gemm: SUMMA (van de Geijn and Watts, 1997) over a 2-D block-cyclic grid.
//
// C = alpha * A * B + beta * C, with A (m x k), B (k x n) and C (m x n) on one grid; A's rows are
// dealt as C's and B's columns as C's, so the rank at grid position (r, c) computes its own block
// of C from the rows of A of grid row r and the columns of B of grid column c. Over k, in panel
// steps that never cross a block of A's columns or B's rows (validate.hpp, panel_end), the owner
// column of step s broadcasts its slice of A along each grid row, the owner row its slice of B
// along each grid column, and every rank adds A_panel * B_panel to its block with the local
// gemmlab product. Overlapped schedule: the broadcasts run on two high-priority streams, one per
// direction, into two slots per operand, so that the broadcasts of step s + 1 run while step s
// computes; a slot is refilled only after the product that read it (events `freed`). The row
// and column communicators cap NCCL's blocks (CommOptions::overlap_max_ctas) and the products
// run a rung that shares the GPU with them (local_gemm.hpp). A one-dimensional grid whose k is
// dealt one block per rank takes whole-k products on gathered panels instead
// (gathered_panels.cpp).

#include <algorithm>
#include <cstring>
#include <vector>

#include "dist/comm.hpp"
#include "dist/gathered_panels.hpp"
#include "dist/kernels.hpp"
#include "dist/local_gemm.hpp"

namespace gemmlab::dist {

namespace {

/// One panel step: global columns [k0, k0 + w) of A / rows of B.
struct Step {
    int64_t k0 = 0, w = 0;
    int a_owner = 0;  // grid column holding A's slice
    int b_owner = 0;  // grid row holding B's slice
    int64_t a_local = 0; // the slice's first local column on its owner
    int64_t b_local = 0; // the slice's first local row on its owner
};

std::vector<Step> plan_steps(int64_t k, const Distribution& da, const Distribution& db, int64_t pk) {
    std::vector<Step> steps;
    for (int64_t k0 = 0; k0 < k;) {
        const int64_t k1 = detail::panel_end(k0, k, da.block_cols, db.block_rows, pk);
        Step s;
        s.k0 = k0;
        s.w = k1 - k0;
        s.a_owner = owner_of(k0, da.block_cols, da.grid.cols);
        s.b_owner = owner_of(k0, db.block_rows, db.grid.rows);
        s.a_local = to_local(k0, da.block_cols, da.grid.cols);
        s.b_local = to_local(k0, db.block_rows, db.grid.rows);
        steps.push_back(s);
        k0 = k1;
    }
    return steps;
}

} // namespace

template <class TA, class TC>
Status gemm(Communicator& comm, Layout layout, Op op_a, Op op_b, scalar_t<TA> alpha,
            const Matrix<const TA>& A, const Matrix<const TA>& B, scalar_t<TA> beta,
            const Matrix<TC>& C, const GemmOptions& options) {
    if (!comm.valid()) {
        detail::set_error("the communicator is empty (not created)");
        return Status::InvalidArgument;
    }
    Communicator::Impl* im = comm.impl();
    if (Status s = im->usable(); s != Status::Success) return s;
    DeviceScope scope(im->device);
    const auto dl = im->deadline();
    const int rank = im->rank;

    // 1. Every rank checks its own arguments, then all agree on the call before any data moves.
    detail::Fingerprint fp;
    detail::check_gemm_local(im->nranks, rank, detail::type_code<TA>(), detail::type_code<TC>(), layout,
                             op_a, op_b, Matrix<const void>{A.rows, A.cols, A.dist, A.data, A.ld},
                             Matrix<const void>{B.rows, B.cols, B.dist, B.data, B.ld},
                             Matrix<void>{C.rows, C.cols, C.dist, C.data, C.ld}, options, fp);
    if (Status s = im->agree(fp, dl); s != Status::Success) return s;

    const int64_t m = C.rows, n = C.cols, k = A.cols;
    const Grid g = C.dist.grid;
    const int gr = g.row_of(rank), gc = g.col_of(rank);
    const int64_t mloc = local_rows(C.dist, m, rank), nloc = local_cols(C.dist, n, rank);
    const bool row_major = layout == Layout::RowMajor;
    const Schedule sched = options.schedule;
    const bool overlapped = sched == Schedule::Overlapped || sched == Schedule::CommOnly;
    const bool do_comm = sched != Schedule::ComputeOnly;
    const bool do_compute = sched != Schedule::CommOnly;
    cudaStream_t user = options.local.stream;
    const gemmlab::GemmOptions& caller = options.local;
    // The timing aid ComputeOnly runs the products of the Overlapped schedule.
    const bool beside_nccl = sched != Schedule::Sequential && g.size() > 1;
    gemmlab::GemmOptions local = beside_nccl ? detail::beside_comm<TA>(caller, im->device) : caller;
    local.stream = user;

    if (k == 0) { // C = beta * C, no communication
        const int64_t lda0 = std::max<int64_t>(1, row_major ? 0 : mloc), ldb0 = std::max<int64_t>(1, row_major ? nloc : 0);
        if (do_compute)
            if (Status s = detail::local_gemm<TA, TC>(im, layout, Op::N, Op::N, mloc, nloc, 0, alpha, nullptr, lda0,
                                                      nullptr, ldb0, beta, C.data, C.ld, local, caller);
                s != Status::Success)
                return s;
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    if (detail::gathers_whole_k(layout, g, k, A.dist.block_cols, B.dist.block_rows)) {
        // Row-major P x 1 as it is; column-major 1 x P as C^T = B^T A^T in row-major.
        const detail::RowPanels<TA, TC> p =
            row_major ? detail::RowPanels<TA, TC>{mloc, nloc, k, A.data, A.ld, B.data, B.ld,
                                                  local_rows(B.dist, k, rank), B.dist.block_rows, C.data, C.ld}
                      : detail::RowPanels<TA, TC>{nloc, mloc, k, B.data, B.ld, A.data, A.ld,
                                                  local_cols(A.dist, k, rank), A.dist.block_cols, C.data, C.ld};
        if (Status s = detail::gemm_gathered_panels<TA, TC>(im, p, alpha, beta, options, dl); s != Status::Success)
            return s;
        detail::clear_error();
        return options.synchronize ? comm.wait(user) : Status::Success;
    }

    Communicator::Impl::GridComms* gcomms = nullptr;
    if (Status s = im->grid_comms(g, &gcomms, dl); s != Status::Success) return s;
    const bool a_moves = g.cols > 1, b_moves = g.rows > 1;

    const int64_t pk = std::min<int64_t>(options.panel_k > 0 ? options.panel_k : detail::default_panel_k(k, g), k);
    const std::vector<Step> steps = plan_steps(k, A.dist, B.dist, pk);
    int64_t wmax = 0;
    for (const Step& s : steps) wmax = std::max(wmax, s.w);

    // 2. Buffers: two slots per moving operand; a float accumulator for half-type C over several
    //    steps (one rounding to C's type at the end, as the single-GPU product).
    const bool use_acc = detail::is_half_v<TC> && steps.size() > 1;
    const size_t esz = sizeof(TA);
    TA* panel_a[2] = {nullptr, nullptr};
    TA* panel_b[2] = {nullptr, nullptr};
    float* acc = nullptr;
    const int64_t ld_acc = std::max<int64_t>(1, row_major ? nloc : mloc);
    auto get = [&](Buffer id, size_t bytes, void* out) {
        return im->buffer(id, std::max<size_t>(bytes, 16), user, static_cast<void**>(out));
    };
    for (int i = 0; i < 2; ++i) {
        if (a_moves)
            if (Status s = get(i ? Buffer::PanelA1 : Buffer::PanelA0, esz * mloc * wmax, &panel_a[i]); s != Status::Success)
                return s;
        if (b_moves)
            if (Status s = get(i ? Buffer::PanelB1 : Buffer::PanelB0, esz * wmax * nloc, &panel_b[i]); s != Status::Success)
                return s;
    }
    if (use_acc)
        if (Status s = get(Buffer::Accumulator, sizeof(float) * mloc * nloc, &acc); s != Status::Success) return s;

    cudaEvent_t ev_start = im->event(2), ready_a[2] = {im->event(3), im->event(4)},
                ready_b[2] = {im->event(5), im->event(6)}, freed[2] = {im->event(7), im->event(8)},
                done_a = im->event(9), done_b = im->event(10);
    if (!done_b) return im->cuda(cudaErrorMemoryAllocation, "cudaEventCreate");
    cudaStream_t cs_a = overlapped ? im->comm_stream[0] : user;
    cudaStream_t cs_b = overlapped ? im->comm_stream[1] : user;
    if (overlapped) {
        if (Status s = im->cuda(cudaEventRecord(ev_start, user), "cudaEventRecord"); s != Status::Success) return s;
        for (cudaStream_t cs : {cs_a, cs_b})
            if (Status s = im->cuda(cudaStreamWaitEvent(cs, ev_start, 0), "cudaStreamWaitEvent"); s != Status::Success)
                return s;
    }

    // Where step s's slices are, on this rank.
    auto a_slice = [&](const Step& st, int slot, const TA** p, int64_t* ld) {
        if (gc == st.a_owner) {
            *p = A.data + (row_major ? st.a_local : st.a_local * A.ld);
            *ld = A.ld;
        } else {
            *p = panel_a[slot];
            *ld = std::max<int64_t>(1, row_major ? st.w : mloc);
        }
    };
    auto b_slice = [&](const Step& st, int slot, const TA** p, int64_t* ld) {
        if (gr == st.b_owner) {
            *p = B.data + (row_major ? st.b_local * B.ld : st.b_local);
            *ld = B.ld;
        } else {
            *p = panel_b[slot];
            *ld = std::max<int64_t>(1, row_major ? nloc : st.w);
        }
    };

    // One broadcast of a slice (rows x cols in `layout`, local pointer p with ld) from grid
    // position `owner` of communicator c, into `slot` on the others; packs on the owner when
    // the slice is not contiguous.
    auto broadcast = [&](ncclComm_t c, cudaStream_t cs, bool owner, int root, const TA* p, int64_t ld,
                         int64_t rows, int64_t cols, TA* slot, const char* what) -> Status {
        const int64_t count = rows * cols;
        if (count == 0) return Status::Success;
        void* buf = slot;
        if (owner) {
            const bool contiguous = row_major ? ld == cols : ld == rows;
            if (contiguous) {
                buf = const_cast<TA*>(p); // in-place broadcast: the root's buffer is only read
            } else {
                const int64_t lines = row_major ? rows : cols, width = row_major ? cols : rows;
                if (Status s = im->cuda(cudaMemcpy2DAsync(slot, width * esz, p, ld * esz, width * esz, lines,
                                                          cudaMemcpyDeviceToDevice, cs),
                                        "cudaMemcpy2DAsync (pack a panel)");
                    s != Status::Success)
                    return s;
            }
        }
        return im->nccl(ncclBcast(buf, size_t(count), nccl_type<TA>(), root, c, cs), c, what, dl);
    };

    auto communicate = [&](size_t si) -> Status {
        const Step& st = steps[si];
        const int slot = int(si % 2);
        if (a_moves && mloc > 0) {
            if (overlapped && si >= 2)
                if (Status s = im->cuda(cudaStreamWaitEvent(cs_a, freed[slot], 0), "cudaStreamWaitEvent"); s != Status::Success)
                    return s;
            const TA* p = nullptr;
            int64_t ld = 0;
            a_slice(st, slot, &p, &ld);
            if (Status s = broadcast(gcomms->row, cs_a, gc == st.a_owner, st.a_owner, p, ld, mloc, st.w, panel_a[slot],
                                     "ncclBcast (A panel along the grid row)");
                s != Status::Success)
                return s;
            if (overlapped)
                if (Status s = im->cuda(cudaEventRecord(ready_a[slot], cs_a), "cudaEventRecord"); s != Status::Success)
                    return s;
        }
        if (b_moves && nloc > 0) {
            if (overlapped && si >= 2)
                if (Status s = im->cuda(cudaStreamWaitEvent(cs_b, freed[slot], 0), "cudaStreamWaitEvent"); s != Status::Success)
                    return s;
            const TA* p = nullptr;
            int64_t ld = 0;
            b_slice(st, slot, &p, &ld);
            if (Status s = broadcast(gcomms->col, cs_b, gr == st.b_owner, st.b_owner, p, ld, st.w, nloc, panel_b[slot],
                                     "ncclBcast (B panel along the grid column)");
                s != Status::Success)
                return s;
            if (overlapped)
                if (Status s = im->cuda(cudaEventRecord(ready_b[slot], cs_b), "cudaEventRecord"); s != Status::Success)
                    return s;
        }
        return Status::Success;
    };

    auto compute = [&](size_t si) -> Status {
        const Step& st = steps[si];
        const int slot = int(si % 2);
        if (overlapped && do_comm) {
            if (a_moves && mloc > 0 && gc != st.a_owner)
                if (Status s = im->cuda(cudaStreamWaitEvent(user, ready_a[slot], 0), "cudaStreamWaitEvent"); s != Status::Success)
                    return s;
            if (b_moves && nloc > 0 && gr != st.b_owner)
                if (Status s = im->cuda(cudaStreamWaitEvent(user, ready_b[slot], 0), "cudaStreamWaitEvent"); s != Status::Success)
                    return s;
        }
        const TA *pa = nullptr, *pb = nullptr;
        int64_t lda = 0, ldb = 0;
        a_slice(st, slot, &pa, &lda);
        b_slice(st, slot, &pb, &ldb);
        Status s = Status::Success;
        if constexpr (detail::is_half_v<TC>)
            if (use_acc)
                s = detail::local_gemm<TA, float>(im, layout, Op::N, Op::N, mloc, nloc, st.w, alpha, pa, lda, pb, ldb,
                                                  si == 0 ? 0.0f : 1.0f, acc, ld_acc, local, caller);
        if (!use_acc)
            s = detail::local_gemm<TA, TC>(im, layout, Op::N, Op::N, mloc, nloc, st.w, alpha, pa, lda, pb, ldb,
                                           si == 0 ? beta : scalar_t<TA>(1), C.data, C.ld, local, caller);
        if (s != Status::Success) return s;
        if (overlapped) return im->cuda(cudaEventRecord(freed[slot], user), "cudaEventRecord");
        return Status::Success;
    };

    // 3. The pipeline: broadcasts of step s + 1 are enqueued before the product of step s.
    if (do_comm)
        if (Status s = communicate(0); s != Status::Success) return s;
    for (size_t si = 0; si < steps.size(); ++si) {
        if (overlapped && do_comm && si + 1 < steps.size())
            if (Status s = communicate(si + 1); s != Status::Success) return s;
        if (do_compute)
            if (Status s = compute(si); s != Status::Success) return s;
        if (!overlapped && do_comm && si + 1 < steps.size())
            if (Status s = communicate(si + 1); s != Status::Success) return s;
    }
    if (overlapped) {
        if (Status s = im->cuda(cudaEventRecord(done_a, cs_a), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaEventRecord(done_b, cs_b), "cudaEventRecord"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, done_a, 0), "cudaStreamWaitEvent"); s != Status::Success) return s;
        if (Status s = im->cuda(cudaStreamWaitEvent(user, done_b, 0), "cudaStreamWaitEvent"); s != Status::Success) return s;
    }
    if constexpr (detail::is_half_v<TC>) {
        if (use_acc && do_compute) {
            const int64_t lines = row_major ? mloc : nloc, width = row_major ? nloc : mloc;
            if (Status s = im->cuda(detail::store_from_float<TC>(lines, width, acc, ld_acc, float(beta), C.data, C.ld, user),
                                    "the accumulator's store to C (kernel launch)");
                s != Status::Success)
                return s;
        }
    }
    detail::clear_error();
    return options.synchronize ? comm.wait(user) : Status::Success;
}

#define GEMMLAB_DIST_GEMM(TA, TC)                                                                  \
    template Status gemm<TA, TC>(Communicator&, Layout, Op, Op, scalar_t<TA>, const Matrix<const TA>&, \
                                 const Matrix<const TA>&, scalar_t<TA>, const Matrix<TC>&,          \
                                 const GemmOptions&);
GEMMLAB_DIST_GEMM(float, float)
GEMMLAB_DIST_GEMM(double, double)
GEMMLAB_DIST_GEMM(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_DIST_GEMM(__nv_bfloat16, float)
GEMMLAB_DIST_GEMM(__half, __half)
GEMMLAB_DIST_GEMM(__half, float)
#undef GEMMLAB_DIST_GEMM

} // namespace gemmlab::dist
