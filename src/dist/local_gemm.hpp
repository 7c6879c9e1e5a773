#pragma once
// The local products of the collectives, through gemmlab's public API, and the one choice this
// layer makes for them: which rung runs beside NCCL's kernels.
//
// `auto` picks rung 24 (persistent) for the half types: one block per SM, each looping over a
// fixed share of the tiles. Beside an NCCL collective that holds some SMs, the blocks that
// cannot start wait for the collective to end and then do their whole share, so the product
// lasts communication + computation: overlap buys nothing. Rung 22 (warp_specialized) is the
// same warp-specialized kernel with one block per tile; the block scheduler hands its tiles to
// whichever SMs are free, all of them once the collective is done. So a product beside a
// collective runs rung 22 where the caller left `auto` and the GPU runs it, and a product with
// no collective beside it runs the caller's options. Rung 24 told to leave the collective's SMs
// free (GemmOptions::sm_count_target) measured slower beside NCCL than rung 22 in every
// pattern (docs/distributed.md).

#include <string>

#include "dist/comm.hpp"
#include "gemm/element.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::dist::detail {

using gemmlab::detail::is_half_v;

/// The options of a local product that runs beside NCCL's kernels (see above).
template <class TA>
gemmlab::GemmOptions beside_comm(const gemmlab::GemmOptions& caller, int device) {
    if (!is_half_v<TA> || caller.kernel != "auto") return caller;
    static const auto rung = gemmlab::find_gpu_kernel("warp_specialized");
    if (!rung || gemmlab::check_device_support(*rung, device) != gemmlab::Status::Success) return caller;
    gemmlab::GemmOptions o = caller;
    o.kernel = std::string(rung->name);
    return o;
}

/// A failed local product: aborts the communicator (a product that failed leaves the
/// collective half done) with gemmlab's message.
inline Status local_failure(Communicator::Impl* im, gemmlab::Status s) {
    return im->fail(Status::GemmError, std::string("the local gemmlab product failed (") +
                                           std::string(gemmlab::to_string(s)) + "): " + gemmlab::last_error());
}

/// C = alpha * op_a(A) * op_b(B) + beta * C with gemmlab::gemm. `opts` may name a rung that
/// rejects the call before launching anything (its checks come first): the caller's own
/// options are then used.
template <class TA, class TC>
Status local_gemm(Communicator::Impl* im, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                  scalar_t<TA> alpha, const TA* a, int64_t lda, const TA* b, int64_t ldb, scalar_t<TA> beta,
                  TC* c, int64_t ldc, const gemmlab::GemmOptions& opts, const gemmlab::GemmOptions& caller) {
    gemmlab::Status s = gemmlab::gemm(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, opts);
    if (s != gemmlab::Status::Success && opts.kernel != caller.kernel)
        s = gemmlab::gemm(layout, op_a, op_b, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc, caller);
    return s == gemmlab::Status::Success ? Status::Success : local_failure(im, s);
}

/// The same for `batches` products stride_a / stride_b / stride_c elements apart, with
/// gemmlab::gemm_strided_batched.
template <class TA, class TC>
Status local_gemm_batched(Communicator::Impl* im, Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                          int64_t k, scalar_t<TA> alpha, const TA* a, int64_t lda, int64_t stride_a, const TA* b,
                          int64_t ldb, int64_t stride_b, scalar_t<TA> beta, TC* c, int64_t ldc, int64_t stride_c,
                          int64_t batches, const gemmlab::GemmOptions& opts, const gemmlab::GemmOptions& caller) {
    auto run = [&](const gemmlab::GemmOptions& o) {
        return gemmlab::gemm_strided_batched(layout, op_a, op_b, m, n, k, alpha, a, lda, stride_a, b, ldb, stride_b,
                                             beta, c, ldc, stride_c, batches, o);
    };
    gemmlab::Status s = run(opts);
    if (s != gemmlab::Status::Success && opts.kernel != caller.kernel) s = run(caller);
    return s == gemmlab::Status::Success ? Status::Success : local_failure(im, s);
}

} // namespace gemmlab::dist::detail
