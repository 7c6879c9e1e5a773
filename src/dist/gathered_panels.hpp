#pragma once
// dist::gemm on a one-dimensional grid whose k is dealt one block per rank: every local product
// runs over all of k (gathered_panels.cpp), instead of SUMMA's panel steps over k.

#include "dist/comm.hpp"

namespace gemmlab::dist::detail {

/// The call as row-major panels (the column-major 1 x P case is its transpose, C^T = B^T A^T):
/// this rank computes C_local (rows x cols) = alpha * A_local (rows x k) * B + beta * C_local,
/// where B (k x cols) is dealt over the ranks in rank order, `block` rows each, this rank
/// holding `b_rows` of them (b_local, ld ldb).
template <class TA, class TC>
struct RowPanels {
    int64_t rows = 0, cols = 0, k = 0;
    const TA* a = nullptr;
    int64_t lda = 1;
    const TA* b_local = nullptr;
    int64_t ldb = 1, b_rows = 0, block = 1;
    TC* c = nullptr;
    int64_t ldc = 1;
};

/// Over chunks of `panel_n` columns of C: all-gather the chunk's columns of B (each rank packs
/// its rows, one in-place ncclAllGather), multiply the chunk with all of k. The Overlapped
/// schedule gathers chunk j + 1 on a communication stream, into the other of two slots, while
/// chunk j multiplies. Called after the ranks agreed on the call.
template <class TA, class TC>
Status gemm_gathered_panels(Communicator::Impl* im, const RowPanels<TA, TC>& p, scalar_t<TA> alpha,
                            scalar_t<TA> beta, const GemmOptions& options, Clock::time_point deadline);

} // namespace gemmlab::dist::detail
