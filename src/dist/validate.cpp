// Local argument checks and the agreement of all ranks on a call (validate.hpp): plain C++,
// no CUDA call, no NCCL; built even where NCCL is absent so that CI tests it.

#include "dist/validate.hpp"

#include <algorithm>
#include <string>

namespace gemmlab::dist {

namespace {
thread_local std::string t_last_error; // per thread, as gemmlab::last_error()
} // namespace

const char* last_error() noexcept { return t_last_error.c_str(); }

namespace detail {

void set_error(std::string msg) { t_last_error = std::move(msg); }
void clear_error() { t_last_error.clear(); }

void Fingerprint::to_wire(int64_t* out) const {
    const int n = count + 1;
    for (int i = 0; i < count; ++i) {
        out[i] = value[i];
        out[n + i] = -value[i];
    }
    out[count] = local_status;
    out[n + count] = -local_status;
}

Status decide(const Fingerprint& mine, const int64_t* wire) {
    const int n = mine.count + 1;
    if (mine.local_status != 0) return static_cast<Status>(mine.local_status); // message set locally
    const int64_t worst_peer = wire[mine.count];
    if (worst_peer != 0) {
        set_error("another rank's arguments are invalid (its status: " +
                  std::string(to_string(static_cast<Status>(worst_peer))) +
                  "; its dist::last_error() names the argument); no data was communicated");
        return Status::PeerInvalidArgument;
    }
    for (Field group : {Field::Shape, Field::Distribution, Field::Option}) {
        for (int i = 0; i < mine.count; ++i) {
            if (mine.field[i] != group) continue;
            const int64_t hi = wire[i], lo = -wire[n + i];
            if (hi == lo) continue;
            set_error(std::string("the ranks disagree on ") + mine.name[i] + " (this rank: " +
                      std::to_string(mine.value[i]) + ", smallest " + std::to_string(lo) +
                      ", largest " + std::to_string(hi) + "); no data was communicated");
            switch (group) {
            case Field::Shape: return Status::ShapeMismatch;
            case Field::Distribution: return Status::DistributionMismatch;
            case Field::Option: return Status::OptionMismatch;
            }
        }
    }
    clear_error();
    return Status::Success;
}

namespace {

std::string dims(int64_t r, int64_t c) { return std::to_string(r) + " x " + std::to_string(c); }

std::string grid_text(const Grid& g) { return std::to_string(g.rows) + " x " + std::to_string(g.cols); }

/// Checks one operand: shape, distribution, leading dimension, pointer.
template <class M>
Status check_matrix(const char* name, const M& a, Layout layout, int nranks, int rank) {
    if (a.rows < 0 || a.cols < 0) {
        set_error(std::string(name) + " has a negative size (" + dims(a.rows, a.cols) + ")");
        return Status::InvalidArgument;
    }
    const Distribution& d = a.dist;
    if (d.grid.rows < 1 || d.grid.cols < 1) {
        set_error(std::string(name) + "'s grid is " + grid_text(d.grid) + "; both must be >= 1");
        return Status::InvalidArgument;
    }
    if (d.grid.size() != nranks) {
        set_error(std::string(name) + "'s grid is " + grid_text(d.grid) + " = " +
                  std::to_string(d.grid.size()) + " ranks, but the communicator has " +
                  std::to_string(nranks));
        return Status::DistributionMismatch;
    }
    if (d.block_rows < 1 || d.block_cols < 1) {
        set_error(std::string(name) + "'s blocks are " + dims(d.block_rows, d.block_cols) +
                  "; both must be >= 1");
        return Status::InvalidArgument;
    }
    const int64_t lr = local_rows(d, a.rows, rank), lc = local_cols(d, a.cols, rank);
    const int64_t need = std::max<int64_t>(1, layout == Layout::RowMajor ? lc : lr);
    if (a.ld < need) {
        set_error(std::string(name) + ".ld = " + std::to_string(a.ld) + " is below " +
                  std::to_string(need) + " (this rank stores " + dims(lr, lc) + ", " +
                  (layout == Layout::RowMajor ? "row" : "column") + "-major)");
        return Status::InvalidArgument;
    }
    if (lr > 0 && lc > 0 && a.data == nullptr) {
        set_error(std::string(name) + ".data is null but this rank stores " + dims(lr, lc) +
                  " of it");
        return Status::InvalidArgument;
    }
    return Status::Success;
}

Status local_verdict(Fingerprint& fp, Status s) {
    fp.local_status = static_cast<int64_t>(s);
    if (s == Status::Success) clear_error();
    return s;
}

} // namespace

int64_t default_panel_k(int64_t k, const Grid& grid) {
    if (grid.size() == 1) return std::max<int64_t>(1, k); // nothing moves: one step, one product
    const int64_t steps = 2 * std::max(grid.rows, grid.cols);
    const int64_t w = (k + steps - 1) / steps;
    return std::clamp<int64_t>(w, 256, 16384);
}

int64_t default_panel_n(int64_t n, int nranks) {
    const int64_t pieces = 4 * std::max(1, nranks);
    const int64_t w = ((n + pieces - 1) / pieces + 127) / 128 * 128;
    return std::clamp<int64_t>(w, std::min<int64_t>(256, std::max<int64_t>(1, n)), std::max<int64_t>(1, n));
}

std::vector<std::pair<int64_t, int64_t>> panel_chunks(int64_t cols, int64_t panel_n) {
    std::vector<std::pair<int64_t, int64_t>> out;
    const int64_t first = std::min(panel_n, std::max<int64_t>(128, (panel_n / 4 + 127) / 128 * 128));
    for (int64_t c0 = 0; c0 < cols;) {
        const int64_t w = std::min(c0 == 0 ? first : panel_n, cols - c0);
        out.emplace_back(c0, w);
        c0 += w;
    }
    return out;
}

Status check_gemm_local(int nranks, int rank, int64_t type_a, int64_t type_c, Layout layout,
                        Op op_a, Op op_b, const Matrix<const void>& A, const Matrix<const void>& B,
                        const Matrix<void>& C, const GemmOptions& options, Fingerprint& fp) {
    fp = {};
    fp.add(Field::Shape, "the operation", 1);
    fp.add(Field::Shape, "A's element type", type_a);
    fp.add(Field::Shape, "C's element type", type_c);
    fp.add(Field::Shape, "the layout", static_cast<int64_t>(layout));
    fp.add(Field::Shape, "op(A)", static_cast<int64_t>(op_a));
    fp.add(Field::Shape, "op(B)", static_cast<int64_t>(op_b));
    fp.add(Field::Shape, "m (C's rows)", C.rows);
    fp.add(Field::Shape, "n (C's columns)", C.cols);
    fp.add(Field::Shape, "k (A's columns)", A.cols);
    fp.add(Field::Shape, "A's rows", A.rows);
    fp.add(Field::Shape, "B's rows", B.rows);
    fp.add(Field::Shape, "B's columns", B.cols);
    fp.add(Field::Distribution, "C's grid rows", C.dist.grid.rows);
    fp.add(Field::Distribution, "C's grid columns", C.dist.grid.cols);
    fp.add(Field::Distribution, "A's grid rows", A.dist.grid.rows);
    fp.add(Field::Distribution, "A's grid columns", A.dist.grid.cols);
    fp.add(Field::Distribution, "B's grid rows", B.dist.grid.rows);
    fp.add(Field::Distribution, "B's grid columns", B.dist.grid.cols);
    fp.add(Field::Distribution, "A's block rows", A.dist.block_rows);
    fp.add(Field::Distribution, "A's block columns", A.dist.block_cols);
    fp.add(Field::Distribution, "B's block rows", B.dist.block_rows);
    fp.add(Field::Distribution, "B's block columns", B.dist.block_cols);
    fp.add(Field::Distribution, "C's block rows", C.dist.block_rows);
    fp.add(Field::Distribution, "C's block columns", C.dist.block_cols);
    fp.add(Field::Option, "the schedule", static_cast<int64_t>(options.schedule));
    fp.add(Field::Option, "panel_k", options.panel_k);
    fp.add(Field::Option, "panel_n", options.panel_n);

    if (op_a != Op::N || op_b != Op::N) {
        set_error("dist::gemm supports op N for A and B in this version; store the transpose "
                  "distributed instead (docs/distributed.md)");
        return local_verdict(fp, Status::Unsupported);
    }
    if (options.panel_k < 0) {
        set_error("options.panel_k = " + std::to_string(options.panel_k) + " is negative");
        return local_verdict(fp, Status::InvalidArgument);
    }
    if (options.panel_n < 0) {
        set_error("options.panel_n = " + std::to_string(options.panel_n) + " is negative");
        return local_verdict(fp, Status::InvalidArgument);
    }
    if (Status s = check_matrix("A", A, layout, nranks, rank); s != Status::Success)
        return local_verdict(fp, s);
    if (Status s = check_matrix("B", B, layout, nranks, rank); s != Status::Success)
        return local_verdict(fp, s);
    if (Status s = check_matrix("C", C, layout, nranks, rank); s != Status::Success)
        return local_verdict(fp, s);
    if (A.rows != C.rows || B.cols != C.cols || A.cols != B.rows) {
        set_error("op(A) * op(B) does not give C: A is " + dims(A.rows, A.cols) + ", B is " +
                  dims(B.rows, B.cols) + ", C is " + dims(C.rows, C.cols));
        return local_verdict(fp, Status::InvalidArgument);
    }
    if (!(A.dist.grid == C.dist.grid) || !(B.dist.grid == C.dist.grid)) {
        set_error("A, B and C must share one grid: A on " + grid_text(A.dist.grid) + ", B on " +
                  grid_text(B.dist.grid) + ", C on " + grid_text(C.dist.grid));
        return local_verdict(fp, Status::DistributionMismatch);
    }
    if (A.dist.block_rows != C.dist.block_rows) {
        set_error("A's block rows (" + std::to_string(A.dist.block_rows) +
                  ") must equal C's (" + std::to_string(C.dist.block_rows) +
                  "): each rank's rows of A are the rows of C it computes");
        return local_verdict(fp, Status::DistributionMismatch);
    }
    if (B.dist.block_cols != C.dist.block_cols) {
        set_error("B's block columns (" + std::to_string(B.dist.block_cols) +
                  ") must equal C's (" + std::to_string(C.dist.block_cols) +
                  "): each rank's columns of B are the columns of C it computes");
        return local_verdict(fp, Status::DistributionMismatch);
    }
    return local_verdict(fp, Status::Success);
}

Status check_tp_local(TpKind kind, int nranks, int64_t type_a, int64_t type_c, Op op_w,
                      int64_t tokens, int64_t n, int64_t k, const void* x, int64_t ldx,
                      const void* w, int64_t ldw, const void* out, int64_t ld_out,
                      const TpOptions& options, Fingerprint& fp) {
    const bool ag = kind == TpKind::AllGatherGemm;
    fp = {};
    fp.add(Field::Shape, "the operation", static_cast<int64_t>(kind));
    fp.add(Field::Shape, "the input element type", type_a);
    fp.add(Field::Shape, "the output element type", type_c);
    fp.add(Field::Shape, "op(W)", static_cast<int64_t>(op_w));
    fp.add(Field::Shape, "tokens", tokens);
    fp.add(Field::Shape, ag ? "n_local" : "n", n);
    fp.add(Field::Shape, ag ? "k" : "k_local", k);
    fp.add(Field::Option, "the schedule", static_cast<int64_t>(options.schedule));
    fp.add(Field::Option, "chunks", options.chunks);

    auto fail = [&](std::string msg) {
        set_error(std::move(msg));
        return local_verdict(fp, Status::InvalidArgument);
    };
    if (tokens < 0 || n < 0 || k < 0)
        return fail("tokens, n and k must be >= 0 (got " + std::to_string(tokens) + ", " +
                    std::to_string(n) + ", " + std::to_string(k) + ")");
    if (nranks < 1 || tokens % nranks != 0)
        return fail("tokens = " + std::to_string(tokens) + " is not a multiple of the " +
                    std::to_string(nranks) + " ranks");
    if (options.chunks < 0) return fail("options.chunks = " + std::to_string(options.chunks) + " is negative");
    const int64_t x_rows = ag ? tokens / nranks : tokens;
    const int64_t out_rows = ag ? tokens : tokens / nranks;
    if (ldx < std::max<int64_t>(1, k))
        return fail("ldx = " + std::to_string(ldx) + " is below max(1, k) = " +
                    std::to_string(std::max<int64_t>(1, k)) + " (row-major " + dims(x_rows, k) + ")");
    const int64_t w_need = std::max<int64_t>(1, op_w == Op::N ? n : k);
    if (ldw < w_need)
        return fail("ldw = " + std::to_string(ldw) + " is below " + std::to_string(w_need) +
                    " (W stored row-major " + (op_w == Op::N ? dims(k, n) : dims(n, k)) + ")");
    if (ld_out < std::max<int64_t>(1, n))
        return fail(std::string(ag ? "ldy" : "ldo") + " = " + std::to_string(ld_out) +
                    " is below max(1, n) = " + std::to_string(std::max<int64_t>(1, n)));
    if (x_rows > 0 && k > 0 && x == nullptr) return fail("x is null");
    if (n > 0 && k > 0 && w == nullptr) return fail("w is null");
    if (out_rows > 0 && n > 0 && out == nullptr) return fail(ag ? "y is null" : "out_shard is null");
    return local_verdict(fp, Status::Success);
}

} // namespace detail
} // namespace gemmlab::dist
