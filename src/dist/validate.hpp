#pragma once
// The checks of a dist call that need no GPU and no NCCL: each rank's own arguments, and the
// agreement of all ranks on one call. A call's "fingerprint" lists the values every rank must
// share (shape, distributions, options) and this rank's local status; the ranks all-reduce
// [v, -v] with MAX, which gives every rank the same max and min of each value, hence the same
// decision (decide() below) on every rank, before any data moves.

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "gemmlab/dist.hpp"

namespace gemmlab::dist::detail {

/// The calling thread's last error message (dist::last_error()).
void set_error(std::string msg);
void clear_error();

/// Type code of an element type in a fingerprint.
template <class T>
constexpr int64_t type_code() {
    if constexpr (std::is_same_v<T, float>) return 1;
    else if constexpr (std::is_same_v<T, double>) return 2;
    else if constexpr (std::is_same_v<T, __nv_bfloat16>) return 3;
    else return 4; // __half
}

/// Which group a fingerprint value belongs to: it names the status of a disagreement.
enum class Field { Shape, Distribution, Option };

/// The values of one call that all ranks must agree on, with their names.
struct Fingerprint {
    static constexpr int capacity = 32;
    std::array<int64_t, capacity> value{};
    std::array<const char*, capacity> name{};
    std::array<Field, capacity> field{};
    int count = 0;
    /// this rank's own verdict on its arguments (a Status as int, 0 when fine)
    int64_t local_status = 0;

    void add(Field f, const char* n, int64_t v) {
        value[count] = v;
        name[count] = n;
        field[count] = f;
        ++count;
    }
    /// Values exchanged: [v_0 .. v_{n-1}, local_status, -v_0 .. -v_{n-1}, -local_status].
    int wire_count() const { return 2 * (count + 1); }
    void to_wire(int64_t* out) const;
};

/// The common verdict from the all-reduced (MAX) wire values, the same on every rank: this
/// rank's own failure first, then a peer's, then the first group that disagrees (shape,
/// distribution, option). Sets last_error() when it is not Success.
Status decide(const Fingerprint& mine, const int64_t* reduced_wire);

/// Fingerprint and local checks of dist::gemm. `mine` is filled whatever the verdict (the
/// returned status is also stored in mine.local_status); no CUDA call.
Status check_gemm_local(int nranks, int rank, int64_t type_a, int64_t type_c, Layout layout,
                        Op op_a, Op op_b, const Matrix<const void>& A, const Matrix<const void>& B,
                        const Matrix<void>& C, const GemmOptions& options, Fingerprint& mine);

/// Which tensor-parallel pattern a fingerprint describes.
enum class TpKind : int64_t { AllGatherGemm = 2, GemmReduceScatter = 3 };

/// Fingerprint and local checks of allgather_gemm (rows = tokens, n = n_local, k) and
/// gemm_reducescatter (rows = tokens, n, k = k_local). ld_in: ldx, ld_out: ldy or ldo.
Status check_tp_local(TpKind kind, int nranks, int64_t type_a, int64_t type_c, Op op_w,
                      int64_t tokens, int64_t n, int64_t k, const void* x, int64_t ldx,
                      const void* w, int64_t ldw, const void* out, int64_t ld_out,
                      const TpOptions& options, Fingerprint& mine);

/// The panel steps of SUMMA over k: [k0, k1) never crosses a block of A's columns or of B's rows
/// and is at most panel_k wide. Returns the end of the step starting at k0.
constexpr int64_t panel_end(int64_t k0, int64_t k, int64_t a_block_cols, int64_t b_block_rows,
                            int64_t panel_k) {
    int64_t end = k0 + panel_k;
    const int64_t a_end = (k0 / a_block_cols + 1) * a_block_cols;
    const int64_t b_end = (k0 / b_block_rows + 1) * b_block_rows;
    if (a_end < end) end = a_end;
    if (b_end < end) end = b_end;
    return end < k ? end : k;
}

/// The panel width dist::gemm uses when options.panel_k is 0: all of k on a 1 x 1 grid, else
/// about two steps per block of the larger grid dimension, at least 256 and at most 16384 (wide
/// panels keep the local products efficient and, for half-type C, the float accumulator's
/// traffic low; two slots still hide each step's broadcast behind the product before it).
int64_t default_panel_k(int64_t k, const Grid& grid);

/// Whether dist::gemm multiplies over all of k with gathered panels (gathered_panels.cpp)
/// rather than SUMMA's k steps: a grid of one column in row-major (one row in column-major),
/// more than one rank, and the operand split over k dealt one block per rank in rank order
/// (B's block_rows, A's block_cols, times P cover k). The same on every rank once they agreed.
constexpr bool gathers_whole_k(Layout layout, const Grid& grid, int64_t k, int64_t a_block_cols,
                               int64_t b_block_rows) {
    if (grid.size() < 2 || k <= 0) return false;
    if (layout == Layout::RowMajor) return grid.cols == 1 && b_block_rows * grid.rows >= k;
    return grid.rows == 1 && a_block_cols * grid.cols >= k;
}

/// The chunk width of the gathered panels when options.panel_n is 0: about 4 P chunks of n (a
/// multiple of 128, at least 256, at most n): narrow enough that the gathers run well ahead of
/// the products, wide enough that each product fills the GPU.
int64_t default_panel_n(int64_t n, int nranks);

/// The chunks [c0, c0 + width) of C's `cols` columns that the gathered panels multiply, for a
/// chunk width `panel_n` (1 <= panel_n <= cols): chunk 0, whose gather nothing hides, a quarter
/// as wide (a multiple of 128, at least 128, at most panel_n), then panel_n each, the last what
/// is left.
std::vector<std::pair<int64_t, int64_t>> panel_chunks(int64_t cols, int64_t panel_n);

} // namespace gemmlab::dist::detail
