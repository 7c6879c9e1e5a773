#pragma once
// The local products of the collectives, through gemmlab's public API, and the one choice this
// layer makes for them: how many SMs a product takes while NCCL's kernels run beside it.
//
// An NCCL collective of the overlapped schedules runs at most CommOptions::overlap_max_ctas
// blocks, and each holds an SM while it runs (a one-block-per-SM product cannot share it). A
// product enqueued beside it with every SM planned for would either wait for the collective
// (rung 24's persistent blocks that cannot start do their whole share after it: the product
// lasts communication + computation) or, with one block per tile (rung 22), run a kernel that is
// slower on its own. So a product beside one collective keeps the caller's kernel and plans for
// the SMs the collective leaves (GemmOptions::sm_count_target), and a product with no
// collective beside it takes them all. The schedules run one collective at a time.

#include <algorithm>
#include <string>

#include "dist/comm.hpp"
#include "gemm/element.hpp"
#include "gemmlab/gemm.hpp"

namespace gemmlab::dist::detail {

using gemmlab::detail::is_half_v;

/// The options of a local product that runs beside one NCCL collective of the overlapped
/// schedules: the caller's, with at most the SMs that collective leaves (see above).
inline gemmlab::GemmOptions beside_comm(const gemmlab::GemmOptions& caller, const Communicator::Impl& im) {
    gemmlab::GemmOptions o = caller;
    const int free_sms = std::max(1, im.sm_count - im.overlap_max_ctas);
    if (o.sm_count_target == 0 || o.sm_count_target > free_sms) o.sm_count_target = free_sms;
    return o;
}

/// A failed local product: aborts the communicator (a product that failed leaves the
/// collective half done) with gemmlab's message.
inline Status local_failure(Communicator::Impl* im, gemmlab::Status s) {
    return im->fail(Status::GemmError, std::string("the local gemmlab product failed (") +
                                           std::string(gemmlab::to_string(s)) + "): " + gemmlab::last_error());
}

/// C = alpha * op_a(A) * op_b(B) + beta * C with gemmlab::gemm.
template <class TA, class TC>
Status local_gemm(Communicator::Impl* im, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                  scalar_t<TA> alpha, const TA* a, int64_t lda, const TA* b, int64_t ldb, scalar_t<TA> beta,
                  TC* c, int64_t ldc, const gemmlab::GemmOptions& opts) {
    const gemmlab::Status s = gemmlab::gemm(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opts);
    return s == gemmlab::Status::Success ? Status::Success : local_failure(im, s);
}

/// The same for `batches` products stride_a / stride_b / stride_c elements apart, with
/// gemmlab::gemm_strided_batched.
template <class TA, class TC>
Status local_gemm_batched(Communicator::Impl* im, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                          int64_t k, scalar_t<TA> alpha, const TA* a, int64_t lda, int64_t stride_a, const TA* b,
                          int64_t ldb, int64_t stride_b, scalar_t<TA> beta, TC* c, int64_t ldc, int64_t stride_c,
                          int64_t batches, const gemmlab::GemmOptions& opts) {
    const gemmlab::Status s = gemmlab::gemm_strided_batched(layout, op_a, op_b, m, n, k, alpha, a, lda, stride_a, b,
                                                            ldb, stride_b, beta, c, ldc, stride_c, batches, opts);
    return s == gemmlab::Status::Success ? Status::Success : local_failure(im, s);
}

} // namespace gemmlab::dist::detail
