#pragma once
// gemmlab::dist: GEMM over several GPUs, on NCCL. docs/distributed.md has the how-tos.
//
// Three pieces: a Communicator (NCCL, non-blocking, with a timeout: a failed or dead rank makes
// the others return an error, never hang), documented distributions of a matrix over a process
// grid (2-D block, 2-D block-cyclic, 1-D row or column panels; the index math is inline below
// and needs no GPU), and the collective products: dist::gemm (SUMMA) and the tensor-parallel
// all-gather + GEMM and GEMM + reduce-scatter. Every collective is called by every rank of the
// communicator with the same arguments (each with its own local pointers); the ranks agree on
// the call before any data moves, so a mismatch returns the same clear status on every rank.
//
// This header needs neither nccl.h nor mpi.h. The library (gemmlab::dist, libgemmlab_dist.so)
// exists only where NCCL was found at configure time.

#include <cstdint>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gemmlab/gemm.hpp"

namespace gemmlab::dist {

/// Result of a gemmlab::dist call. `Success` is zero. The calling thread's last failure message
/// is in `dist::last_error()`.
enum class Status : int {
    Success = 0,
    /// this rank's arguments are wrong (the message names the argument and the rule)
    InvalidArgument,
    /// this rank's arguments are fine, another rank's are not (its last_error() says which)
    PeerInvalidArgument,
    /// the ranks disagree on the product: m, n, k, ops, layout or element types
    ShapeMismatch,
    /// the ranks disagree on a distribution or grid, or the distributions of A, B and C do not
    /// fit together (docs/distributed.md, "Distributions")
    DistributionMismatch,
    /// the ranks disagree on the options (schedule, panel width, chunks)
    OptionMismatch,
    /// a valid request this version does not implement (the message says what instead)
    Unsupported,
    /// the local gemmlab product failed; gemmlab::last_error() has its message
    GemmError,
    CudaError,
    OutOfMemory,
    /// NCCL reported an error, here or on a peer; this rank aborted its communicator
    NcclError,
    /// the call did not complete within the communicator's timeout (a peer died, hangs or
    /// left the collective); this rank aborted its communicator
    Timeout,
    /// the communicator was aborted by an earlier failure or by abort(); make a new one
    Aborted,
    /// the library was built without what this call needs
    NotAvailable,
};

/// Short stable name of a status, e.g. "DistributionMismatch".
constexpr std::string_view to_string(Status s) noexcept {
    switch (s) {
    case Status::Success: return "Success";
    case Status::InvalidArgument: return "InvalidArgument";
    case Status::PeerInvalidArgument: return "PeerInvalidArgument";
    case Status::ShapeMismatch: return "ShapeMismatch";
    case Status::DistributionMismatch: return "DistributionMismatch";
    case Status::OptionMismatch: return "OptionMismatch";
    case Status::Unsupported: return "Unsupported";
    case Status::GemmError: return "GemmError";
    case Status::CudaError: return "CudaError";
    case Status::OutOfMemory: return "OutOfMemory";
    case Status::NcclError: return "NcclError";
    case Status::Timeout: return "Timeout";
    case Status::Aborted: return "Aborted";
    case Status::NotAvailable: return "NotAvailable";
    }
    return "Unknown";
}

/// Message of the calling thread's most recent failing dist call ("" after a success).
const char* last_error() noexcept;

// ------------------------------------------------------------------------------ distributions

/// A rows x cols process grid. Rank r sits at grid row r / cols, grid column r % cols
/// (row-major rank order, as ScaLAPACK's "R" order). rows * cols is the communicator's size.
struct Grid {
    int rows = 1;
    int cols = 1;
    constexpr int size() const noexcept { return rows * cols; }
    constexpr int row_of(int rank) const noexcept { return rank / cols; }
    constexpr int col_of(int rank) const noexcept { return rank % cols; }
    friend constexpr bool operator==(const Grid&, const Grid&) = default;
};

/// A global matrix split over a grid, 2-D block-cyclic (ScaLAPACK's distribution with the first
/// block on grid position (0, 0)): global row i lives on grid row (i / block_rows) % grid.rows,
/// global column j on grid column (j / block_cols) % grid.cols; each rank stores its blocks
/// packed, in the call's layout, with its own leading dimension. The named forms below are all
/// this one rule with particular block sizes, so they mix freely.
struct Distribution {
    Grid grid;
    int64_t block_rows = 1; ///< rows of one block, >= 1
    int64_t block_cols = 1; ///< columns of one block, >= 1

    /// One block per rank: ceil(rows / grid.rows) x ceil(cols / grid.cols) (the last ones smaller).
    static constexpr Distribution block_2d(int64_t rows, int64_t cols, Grid g) noexcept {
        return {g, ceil_div_at_least_1(rows, g.rows), ceil_div_at_least_1(cols, g.cols)};
    }
    /// Blocks of mb x nb dealt round-robin over the grid in both directions.
    static constexpr Distribution block_cyclic(int64_t mb, int64_t nb, Grid g) noexcept {
        return {g, mb, nb};
    }
    /// 1-D: rank r holds rows [r * ceil(rows / P), ...) and every column (a P x 1 grid).
    static constexpr Distribution row_panels(int64_t rows, int64_t cols, int nranks) noexcept {
        return block_2d(rows, cols, Grid{nranks, 1});
    }
    /// 1-D: rank r holds columns [r * ceil(cols / P), ...) and every row (a 1 x P grid).
    static constexpr Distribution col_panels(int64_t rows, int64_t cols, int nranks) noexcept {
        return block_2d(rows, cols, Grid{1, nranks});
    }
    friend constexpr bool operator==(const Distribution&, const Distribution&) = default;

    static constexpr int64_t ceil_div_at_least_1(int64_t n, int p) noexcept {
        const int64_t q = p > 0 ? (n + p - 1) / p : n;
        return q > 0 ? q : 1;
    }
};

/// How many of `n` global indices, dealt in blocks of `nb` over `nprocs` positions, land on
/// position `iproc` (ScaLAPACK's NUMROC with the first block on position 0).
constexpr int64_t num_local(int64_t n, int64_t nb, int iproc, int nprocs) noexcept {
    if (n <= 0 || nb <= 0 || nprocs <= 0) return 0;
    const int64_t nblocks = n / nb; // whole blocks
    int64_t count = (nblocks / nprocs) * nb;
    const int64_t extra = nblocks % nprocs;
    if (iproc < extra) count += nb;
    else if (iproc == extra) count += n % nb;
    return count;
}
/// The grid position that owns global index g.
constexpr int owner_of(int64_t g, int64_t nb, int nprocs) noexcept {
    return int((g / nb) % nprocs);
}
/// Local index of global index g on its owner.
constexpr int64_t to_local(int64_t g, int64_t nb, int nprocs) noexcept {
    return (g / nb) / nprocs * nb + g % nb;
}
/// Global index of local index l on position iproc.
constexpr int64_t to_global(int64_t l, int64_t nb, int iproc, int nprocs) noexcept {
    return ((l / nb) * nprocs + iproc) * nb + l % nb;
}

/// Rows and columns of a rows x cols global matrix that `rank` stores under `d`.
constexpr int64_t local_rows(const Distribution& d, int64_t rows, int rank) noexcept {
    return num_local(rows, d.block_rows, d.grid.row_of(rank), d.grid.rows);
}
constexpr int64_t local_cols(const Distribution& d, int64_t cols, int rank) noexcept {
    return num_local(cols, d.block_cols, d.grid.col_of(rank), d.grid.cols);
}

/// One rank's view of a distributed matrix: the global shape, its distribution, and this rank's
/// local block (device memory, stored in the call's layout with leading dimension `ld`, at least
/// max(1, local columns) row-major or max(1, local rows) column-major).
template <class T>
struct Matrix {
    int64_t rows = 0;
    int64_t cols = 0;
    Distribution dist;
    T* data = nullptr;
    int64_t ld = 1;
};

// ------------------------------------------------------------------------------ communicator

/// The bytes of an NCCL unique id (ncclUniqueId): made by get_unique_id on one rank, handed
/// by the caller to every other rank (MPI, a file, a socket), then passed to Communicator::create.
struct UniqueId {
    char bytes[128];
};

/// Makes a fresh unique id (on one rank only; it starts NCCL's bootstrap listener in this process,
/// which must stay alive until every rank has created its communicator).
Status get_unique_id(UniqueId& id);

struct CommOptions {
    /// Longest a collective call may wait for its peers or its GPU work before it aborts the
    /// communicator and returns Status::Timeout. <= 0: the environment's GEMMLAB_DIST_TIMEOUT_S,
    /// else 300 s.
    double timeout_s = 0;
    /// Most thread blocks an NCCL collective of the Overlapped schedules may use (NCCL's
    /// ncclConfig_t::maxCTAs on the communicators those schedules split off): each block holds
    /// an SM the overlapped local products then lack. <= 0: the environment's
    /// GEMMLAB_DIST_OVERLAP_CTAS, else 16. The Sequential schedule of the tensor-parallel calls
    /// uses the communicator itself, with NCCL's own choice.
    int overlap_max_ctas = 0;
    /// How the tensor-parallel calls' Overlapped schedules move data between the GPUs of one host
    /// (docs/distributed.md, "Copy engines"). Auto: the GPUs' copy engines, which hold no SM,
    /// where every rank is a process of its own on one host and maps every peer's memory through
    /// CUDA IPC, else NCCL; the environment's GEMMLAB_DIST_TRANSPORT=nccl turns them off. Nccl:
    /// NCCL's kernels always. Decided once, at the first call that may use them, the same on
    /// every rank: a rank that can not reach a peer, or asked for Nccl, makes every rank use
    /// NCCL. dist::gemm and the Sequential schedules always communicate with NCCL.
    enum class Transport { Auto, Nccl };
    Transport transport = Transport::Auto;
};

/// One rank of an NCCL communicator, created non-blocking (ncclConfig_t::blocking = 0) so that
/// no call can wait forever: every wait polls ncclCommGetAsyncError and a deadline, and a failure
/// aborts the communicator (ncclCommAbort), which also ends the NCCL work of this rank.
/// NVLink multicast (NVLS) is never used: creation sets NCCL_NVLS_ENABLE=0 unless the
/// environment already names a value. Move-only; one thread uses a communicator at a time.
class Communicator {
public:
    Communicator();
    ~Communicator();
    Communicator(Communicator&&) noexcept;
    Communicator& operator=(Communicator&&) noexcept;
    Communicator(const Communicator&) = delete;
    Communicator& operator=(const Communicator&) = delete;

    /// Rank `rank` of `nranks`, on CUDA device `device`, from a unique id every rank shares.
    static Status create(Communicator& out, const UniqueId& id, int nranks, int rank, int device,
                         const CommOptions& options = {});
    /// One communicator per listed device (all visible devices when empty), in this process,
    /// ranks in list order. Drive them from one thread each (docs/distributed.md).
    static Status create_all_local(std::vector<Communicator>& out,
                                   const std::vector<int>& devices = {},
                                   const CommOptions& options = {});
    /// From an MPI communicator (`mpi_comm` points to an MPI_Comm; null means MPI_COMM_WORLD),
    /// after MPI_Init: rank 0 makes the unique id and MPI_Bcast hands it out. device < 0 picks
    /// (rank on this host) mod (visible devices). Defined in libgemmlab_dist_mpi (CMake target
    /// gemmlab::dist_mpi, built where MPI was found), so that gemmlab::dist itself never needs MPI.
    static Status create_from_mpi(Communicator& out, const void* mpi_comm = nullptr,
                                  int device = -1, const CommOptions& options = {});

    bool valid() const noexcept;
    int rank() const noexcept;
    int size() const noexcept;
    int device() const noexcept;
    /// True after a failure or abort(): every later call returns Status::Aborted.
    bool aborted() const noexcept;
    double timeout_s() const noexcept;
    void set_timeout_s(double seconds) noexcept;

    /// Aborts the communicator now (ncclCommAbort on it and its sub-communicators): this rank's
    /// pending NCCL work ends, and the peers' calls fail within their timeout.
    Status abort();

    /// Waits, without hanging, for the work enqueued on `stream` (polls the GPU, NCCL's errors and
    /// the timeout). Use after a call made with synchronize = false.
    Status wait(cudaStream_t stream);

    /// The ncclComm_t, for the caller's own NCCL calls (as void*: this header needs no nccl.h).
    void* nccl_comm() const noexcept;
    /// True once a tensor-parallel call chose the copy engines (CommOptions::transport).
    bool uses_copy_engines() const noexcept;

    struct Impl;
    Impl* impl() const noexcept { return impl_.get(); }

private:
    std::unique_ptr<Impl> impl_;
};

// ------------------------------------------------------------------------------ products

/// alpha and beta of an element type: double for double, float for the others.
template <class T>
using scalar_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

/// How a collective orders its communication and its local products.
enum class Schedule {
    /// communication on separate streams, double-buffered, overlapped with the local products
    Overlapped,
    /// communicate, then compute, step by step on the caller's stream (the comparison point)
    Sequential,
    /// timing aid: only the communication of the Overlapped schedule; the result is undefined
    CommOnly,
    /// timing aid: only the local products, on whatever the panels hold; the result is undefined
    ComputeOnly,
};

struct GemmOptions {
    /// The local products' options: kernel ("auto" by default) and precision; `local.stream` is
    /// the caller's stream: the call starts after the work already on it and, when it returns
    /// Success, its result is ordered before the work enqueued on it next.
    gemmlab::GemmOptions local = {};
    Schedule schedule = Schedule::Overlapped;
    /// Width of one SUMMA panel step (k per broadcast); 0 picks one (docs/distributed.md).
    int64_t panel_k = 0;
    /// Width of one chunk of C's columns (B's columns per all-gather) where the grid is one-
    /// dimensional and k is dealt one block per rank (row-major P x 1, column-major 1 x P: the
    /// products then run over all of k, docs/distributed.md); 0 picks one.
    int64_t panel_n = 0;
    /// true: the call returns once its work is done (polling errors and the timeout).
    /// false: it returns after enqueuing; call Communicator::wait(stream) before relying on C.
    bool synchronize = true;
};

/// C = alpha * op(A) * op(B) + beta * C on distributed operands: A is m x k, B is k x n, C is
/// m x n, all three on the same grid, local blocks stored in `layout`. The distributions fit
/// when A and C share block_rows and B and C share block_cols (A's block_cols and B's
/// block_rows are free: the panels follow both). Row-major on a P x 1 grid with B's rows one
/// block per rank (column-major: 1 x P, A's columns one block per rank), B (A) is all-gathered
/// by chunks of C's columns (rows) and every local product runs over all of k; otherwise SUMMA
/// steps over k. This version supports op N for both operands (Status::Unsupported otherwise).
/// Every rank calls it; BLAS semantics (beta == 0 never reads C). Instantiated for (TA, TC) =
/// (float, float), (double, double), (bf16, bf16), (bf16, float), (fp16, fp16), (fp16, float);
/// half types accumulate in float across SUMMA's panels and round once.
template <class TA, class TC>
Status gemm(Communicator& comm, Layout layout, Op op_a, Op op_b, scalar_t<TA> alpha,
            const Matrix<const TA>& A, const Matrix<const TA>& B, scalar_t<TA> beta,
            const Matrix<TC>& C, const GemmOptions& options = {});

struct TpOptions {
    /// kernel, precision and the caller's stream, as GemmOptions::local.
    gemmlab::GemmOptions local = {};
    Schedule schedule = Schedule::Overlapped;
    /// Pieces each owner's shard is cut into by gemm_reducescatter's Overlapped schedule (the
    /// product of one piece overlaps the reduce-scatter of the piece before); 0 picks 8 on the
    /// copy engines and 4 on NCCL (CommOptions::transport), fewer when the shard has fewer rows.
    /// allgather_gemm does not cut its shards.
    int chunks = 0;
    bool synchronize = true;
};

/// Tensor-parallel all-gather + GEMM (the column-parallel linear layer): every rank holds
/// `tokens / P` rows of X (its shard, tokens_shard x k, row-major, ld ldx), and its own weight
/// columns W (op_w N: k x n_local stored with ld ldw; T: n_local x k, PyTorch's [out, in]).
/// Y = alpha * X_all * op(W): tokens x n_local, row-major (ld ldy), where X_all stacks the
/// shards in rank order. tokens must be a multiple of P. Row-major only.
template <class TA, class TC>
Status allgather_gemm(Communicator& comm, Op op_w, int64_t tokens, int64_t n_local, int64_t k,
                      scalar_t<TA> alpha, const TA* x_shard, int64_t ldx, const TA* w,
                      int64_t ldw, TC* y, int64_t ldy, const TpOptions& options = {});

/// Tensor-parallel GEMM + reduce-scatter (the row-parallel linear layer): every rank holds X_r
/// (tokens x k_local, its columns of the activations) and W_r (op_w N: k_local x n; T: n x
/// k_local). Rank r receives rows [r * tokens / P, (r + 1) * tokens / P) of
/// sum over ranks of alpha * X_r * op(W_r): out_shard, tokens / P x n, row-major (ld ldo).
/// The partial products and their sum are in float for the half types (rounded once at the
/// end), in the output type otherwise. tokens must be a multiple of P. Row-major only.
template <class TA, class TC>
Status gemm_reducescatter(Communicator& comm, Op op_w, int64_t tokens, int64_t n,
                          int64_t k_local, scalar_t<TA> alpha, const TA* x, int64_t ldx,
                          const TA* w, int64_t ldw, TC* out_shard, int64_t ldo,
                          const TpOptions& options = {});

/// The NCCL library's version code (ncclGetVersion: 22803 for 2.28.3), 0 if NCCL does not say.
int nccl_version() noexcept;

/// Sets NCCL_NVLS_ENABLE=0 in this process's environment unless it already has a value (the
/// communicator constructors call it; exposed for programs that make their own NCCL
/// communicators). Returns the value in effect.
const char* disable_nvls_unless_set() noexcept;

} // namespace gemmlab::dist
