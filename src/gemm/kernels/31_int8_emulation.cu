// Rung 31: double and float GEMM emulated on INT8 tensor cores (Ozaki scheme II).
//
// Idea: Hopper's INT8 wgmma (rung 30) sums exactly in int32 at ~30x the FP64 rate. Scale each
// row of op(A) and column of op(B) by a power of two so that its largest element has `bits`
// bits (a' = rint(a 2^e), |a'| <= 2^bits), and C' = A'B' is an integer product. Take residues
// of A' and B' modulo N pairwise-coprime moduli <= 256 (each residue an int8): one exact
// INT8 GEMM per modulus gives C' mod m_l, and the Chinese remainder theorem gives C' itself
// once P = m_1 ... m_N > 2 k 2^(2 bits). Then C = alpha 2^(-e_i - f_j) C' + beta C.
// Ozaki, Uchino, Imamura, "Ozaki Scheme II: A GEMM-oriented emulation of floating-point matrix
// multiplication using an integer modular technique" (2025).
// The schedule (kernels in ozaki/kernels.cuh, arithmetic in ozaki/crt.hpp):
//   split A, split B    each operand read for its row maxima, then again for N residue
//                       planes + 1 magnitude plane (blocks of rows by chunks of k)
//   residue GEMMs       every modulus's INT8 GEMM in one launch of rung 30's mainloop, whose
//                       epilogue writes (y_l C'_l) mod m_l, one byte per element
//                       (ozaki/residue_gemm.cuh)
//   magnitude GEMM      floor(|a'| / 2^(bits-7)) products into int32 W (rung 30's launcher)
//                       over a sample of at most 4096 values (float: 1024) spread over k:
//                       a lower bound of sum |A||B|
//   reconstruct         the CRT in doubles (crt_value_fast: 1/m_l in three parts, error-free
//                       products; float with P < 2^64: crt_value_int64, exact in 64-bit
//                       integers), the exact one in as many 32-bit limbs as the count needs
//                       (crt_limbs) for small C' and near ties, scale back, alpha/beta; where
//                       the inputs break the precision promise (Inf/NaN, or an exponent spread
//                       that the scaling's error cannot afford against the lower bound) mark
//                       the element instead
//   native              marked elements recomputed with FMAs in double (32-long k tiles)
// Every decision is taken on the device: no host synchronization, nothing allocated but the
// pool's workspace, so a call can be captured in a CUDA graph. k beyond one GEMM's int32
// exactness (kMaxChunkK) is cut into chunks whose residues add mod m_l.
// N: fewest moduli that give the type's significand bits (53 double, 24 float) for this k, or
// the caller's GemmOptions::emulation_moduli, whose accuracy is then the caller's: only Inf/NaN
// go native, so the magnitude GEMM is skipped. The bound and the rules: docs/precision.md,
// "Rung 31". Changed from rung 30: its epilogue (residues) and a batch of products; the passes
// around them.
// Measured: docs/ladder.md.

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "gemm/device_caps.hpp"
#include "gemm/kernels/launchers.hpp"
#include "gemm/kernels/ozaki/kernels.cuh"
#include "gemm/kernels/ozaki/residue_gemm.cuh"
#include "gemm/quantized_problem.hpp"
#include "gemm/workspace.hpp"

namespace gemmlab::detail {

static_assert(ozaki::kMaxModuli == kMaxEmulationModuli, "the API's limit is the moduli table's");

namespace {

/// Carves one workspace into 256-byte-aligned pieces, in order.
class Carver {
public:
    explicit Carver(char* base) : base_(base) {}
    template <class P>
    P* take(size_t bytes) {
        P* p = base_ ? reinterpret_cast<P*>(base_ + used_) : nullptr;
        used_ += (bytes + 255) / 256 * 256;
        return p;
    }
    size_t used() const { return used_; }

private:
    char* base_;
    size_t used_ = 0;
};

/// The workspace of one call: the residue planes of both operands, their scales, the
/// magnitude GEMM's int32 sums, the residues of C and the native pass's list.
struct Buffers {
    int8_t* planes_a; // count planes of m x kp, then the magnitude plane, m x magnitudes.k
    int8_t* planes_b; // count planes of n x kp, then the magnitude plane, n x magnitudes.k
    ozaki::RowScale* scales_a;
    ozaki::RowScale* scales_b;
    ozaki::RowRange* ranges_a; // the split passes' per-row state
    ozaki::RowRange* ranges_b;
    double* norms_a; // chunks x m: each chunk of k's part of a row's norm
    double* norms_b; // chunks x n
    int32_t* sums;     // W: m x n, leading dimension ld
    uint8_t* residues; // count planes of ResidueLayout
    ozaki::NativeList native;
};

struct Sizes {
    int64_t m, n, kp, ld, tiles;
    int count;
    int chunks; // the split passes' chunks of kp
    ozaki::MagnitudeSample magnitudes;
    ozaki::ResidueLayout residues;
};

Buffers carve(const Sizes& s, Carver* c) {
    Buffers b{};
    const size_t planes = size_t(s.count) + 1;
    b.planes_a = c->take<int8_t>(planes * size_t(s.m) * size_t(s.kp));
    b.planes_b = c->take<int8_t>(planes * size_t(s.n) * size_t(s.kp));
    b.scales_a = c->take<ozaki::RowScale>(size_t(s.m) * sizeof(ozaki::RowScale));
    b.scales_b = c->take<ozaki::RowScale>(size_t(s.n) * sizeof(ozaki::RowScale));
    b.ranges_a = c->take<ozaki::RowRange>(size_t(s.m) * sizeof(ozaki::RowRange));
    b.ranges_b = c->take<ozaki::RowRange>(size_t(s.n) * sizeof(ozaki::RowRange));
    b.norms_a = c->take<double>(size_t(s.chunks) * size_t(s.m) * sizeof(double));
    b.norms_b = c->take<double>(size_t(s.chunks) * size_t(s.n) * sizeof(double));
    b.sums = c->take<int32_t>(size_t(s.ld) * size_t(s.n) * sizeof(int32_t));
    b.residues = c->take<uint8_t>(size_t(s.count) * size_t(s.residues.plane_bytes()));
    b.native.tiles = c->take<int>(size_t(s.tiles) * sizeof(int));
    b.native.count = c->take<int>(sizeof(int));
    return b;
}

/// The sizes of a call with `count` moduli.
Sizes sizes_for(bool is_double, int count, int64_t m, int64_t n, int64_t k) {
    const int64_t kp = (k + 15) / 16 * 16; // residue rows: 16-byte aligned for TMA
    return {.m = m,
            .n = n,
            .kp = kp,
            .ld = (m + 3) / 4 * 4, // W: 16-byte columns (rung 30 stores them by TMA)
            .tiles = ceil_div(m, ozaki::kTile) * ceil_div(n, ozaki::kTile),
            .count = count,
            .chunks = int(ceil_div(kp, int64_t(ozaki::kSplitChunk))),
            .magnitudes = ozaki::magnitude_sample(kp, is_double),
            .residues = ozaki::ResidueLayout::of(m, n)};
}

size_t workspace_bytes(const Sizes& s) {
    Carver sizing(nullptr);
    carve(s, &sizing);
    return sizing.used();
}

/// reconstruct_kernel<T, count> for a run-time count.
template <class T, int Count = 1, class... Args>
void launch_reconstruct(int count, unsigned grid, cudaStream_t stream, Args... args) {
    if constexpr (Count <= ozaki::kMaxModuli) {
        if (count != Count)
            return launch_reconstruct<T, Count + 1>(count, grid, stream, args...);
        ozaki::reconstruct_kernel<T, Count>
            <<<grid, ozaki::kReconstructThreads<Count>, 0, stream>>>(args...);
        GEMMLAB_CHECK_LAUNCH();
    }
}

/// The native path for a call the emulation cannot take at all (no workspace).
template <class T>
void launch_native(const GemmArgs<T>& g, cudaStream_t stream) {
    if constexpr (std::is_same_v<T, double>) launch_dmma<double>(g, stream);
    else launch_async_pipeline<float>(g, stream);
}

/// One product (or one block of C: launch_int8_emulation) on the emulation.
template <class T>
void emulate(const GemmArgs<T>& g, cudaStream_t stream, const Int8EmulationOptions& options) {
    constexpr bool kDouble = std::is_same_v<T, double>;
    const ozaki::Plan plan = ozaki::plan_for(kDouble, g.k, options.moduli);
    const int count = plan.moduli;
    const Sizes s = sizes_for(kDouble, count, g.m, g.n, g.k);
    Workspace ws(workspace_bytes(s), stream);
    if (!ws.data()) return launch_native(g, stream);
    Carver carver(static_cast<char*>(ws.data()));
    const Buffers b = carve(s, &carver);
    const int64_t plane_a = s.m * s.kp, plane_b = s.n * s.kp;

    // Split both operands: op(A) is m x k, K-major when A is stored transposed; op(B)^T is
    // n x k, K-major when B is not.
    const auto split = [&](const T* X, int64_t ld, bool k_major, int64_t rows, int8_t* planes,
                           int64_t plane_bytes, ozaki::RowRange* ranges, double* norms,
                           ozaki::RowScale* scales) {
        const unsigned row_blocks = unsigned(ceil_div(rows, ozaki::kSplitRows));
        const unsigned k_chunks = unsigned(ceil_div(g.k, int64_t(ozaki::kSplitChunk)));
        const size_t range_bytes = size_t(rows) * sizeof(ozaki::RowRange);
        GEMMLAB_CUDA_CHECK(cudaMemsetAsync(ranges, 0, range_bytes, stream));
        constexpr int kVector = 16 / sizeof(T);
        const bool aligned = reinterpret_cast<uintptr_t>(X) % 16 == 0 && ld % kVector == 0;
        const auto range_kernel = aligned ? &ozaki::row_range_kernel<T, kVector>
                                          : &ozaki::row_range_kernel<T, 1>;
        range_kernel<<<dim3(row_blocks, k_chunks), ozaki::kThreads, 0, stream>>>(
            X, ld, k_major, rows, g.k, ranges);
        GEMMLAB_CHECK_LAUNCH();
        const auto kernel = ozaki::narrow_bits(plan.bits) ? &ozaki::split_kernel<T, true>
                                                          : &ozaki::split_kernel<T, false>;
        constexpr size_t kSmem = ozaki::kSplitSmemBytes<T>; // double's ring is past 48 KB
        GEMMLAB_CUDA_CHECK(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSmem)));
        kernel<<<dim3(row_blocks, unsigned(s.chunks)), ozaki::kThreads, kSmem, stream>>>(
            X, ld, k_major, rows, g.k, s.kp, count, plan.bits, planes, plane_bytes, s.magnitudes,
            ranges, norms);
        GEMMLAB_CHECK_LAUNCH();
        const unsigned row_grid = unsigned(ceil_div(rows, int64_t(ozaki::kThreads)));
        ozaki::row_scale_kernel<<<row_grid, ozaki::kThreads, 0, stream>>>(rows, s.chunks, plan.bits,
                                                                         ranges, norms, scales);
        GEMMLAB_CHECK_LAUNCH();
    };
    split(g.A, g.lda, g.trans_a, g.m, b.planes_a, plane_a, b.ranges_a, b.norms_a, b.scales_a);
    split(g.B, g.ldb, !g.trans_b, g.n, b.planes_b, plane_b, b.ranges_b, b.norms_b, b.scales_b);

    // Every modulus's exact INT8 GEMM over k [p0, p0 + chunk) in one launch, residues out
    // (added to the chunks' before); K-major operands (16-byte aligned rows of kp bytes), so
    // rung 30's mainloop reads them as they are.
    for (int64_t p0 = 0; p0 < g.k; p0 += ozaki::kMaxChunkK)
        ozaki::launch_residue_gemms(b.planes_a, plane_a, b.planes_b, plane_b, g.m, g.n, s.kp, p0,
                                    std::min(ozaki::kMaxChunkK, g.k - p0), count, p0 > 0,
                                    s.residues, b.residues, stream);
    // The magnitude planes' GEMM into W, over the sampled values of k: a lower bound already.
    // Without the bound check W only carries the reconstruction's marks: zero it instead.
    const bool check_bound = options.fallback == EmulationFallback::OutsideBound;
    const QuantArgs magnitudes{.m = g.m,
                               .n = g.n,
                               .k = s.magnitudes.k,
                               .alpha = 1.0f,
                               .beta = 0.0f,
                               .A = b.planes_a + count * plane_a,
                               .lda = s.magnitudes.k,
                               .trans_a = true, // stored k x m: op(A) K-major
                               .B = b.planes_b + count * plane_b,
                               .ldb = s.magnitudes.k,
                               .trans_b = false, // stored k x n: op(B) K-major
                               .C = b.sums,
                               .ldc = s.ld,
                               .scales = {}};
    if (check_bound)
        launch_wgmma_int8<int32_t>(magnitudes, stream);
    else
        GEMMLAB_CUDA_CHECK(
            cudaMemsetAsync(b.sums, 0, size_t(s.ld) * size_t(s.n) * sizeof(int32_t), stream));

    GEMMLAB_CUDA_CHECK(cudaMemsetAsync(b.native.count, 0, sizeof(int), stream));
    const double tau =
        check_bound ? ozaki::kept_error_allowance(kDouble, g.k, s.magnitudes.k) : INFINITY;
    const ozaki::NativeRule rule = ozaki::native_rule(plan.bits, g.k, tau);
    launch_reconstruct<T>(count, unsigned(s.tiles), stream, g.m, g.n, g.alpha, g.beta, g.C, g.ldc,
                          rule, options.fallback != EmulationFallback::None, b.residues, s.residues,
                          b.sums, s.ld, b.scales_a, b.scales_b, b.native);
    const unsigned native_grid =
        unsigned(std::min<int64_t>(s.tiles, int64_t(current_device_caps().sm_count) * 4));
    ozaki::native_kernel<T><<<native_grid, ozaki::kThreads, 0, stream>>>(g, b.sums, s.ld, b.native);
    GEMMLAB_CHECK_LAUNCH();
} // ws is freed on the stream after the last kernel

/// Block i of `extent` elements along a side of `total`.
int64_t block_extent(int64_t total, int64_t blocks) {
    return std::min(total, ceil_div(ceil_div(total, blocks), int64_t(128)) * 128);
}

} // namespace

size_t int8_emulation_budget() {
    return current_device_caps().memory_bytes / kWorkspaceKeepShare;
}

EmulationBlocks int8_emulation_blocks(bool is_double, int64_t m, int64_t n, int64_t k, int moduli,
                                      size_t budget) {
    const int count = ozaki::plan_for(is_double, k, moduli).moduli;
    // The whole product splits least of all: the common case costs one sizing (auto asks this
    // on every double call it might emulate).
    if (workspace_bytes(sizes_for(is_double, count, m, n, k)) <= budget) return {m, n};
    EmulationBlocks best;
    double best_cost = 0;
    for (int64_t mb = 1; mb <= 64; mb *= 2)
        for (int64_t nb = 1; nb <= 64; nb *= 2) {
            const int64_t rows = block_extent(m, mb), cols = block_extent(n, nb);
            if (workspace_bytes(sizes_for(is_double, count, rows, cols, k)) > budget) continue;
            // Each block splits its rows of op(A) and its columns of op(B) over all of k.
            const double cost = double(ceil_div(n, cols)) * double(m) + double(ceil_div(m, rows)) * double(n);
            if (best.rows == 0 || cost < best_cost) best = {rows, cols}, best_cost = cost;
        }
    return best;
}

/// Rung 31: the product whole where its workspace fits the budget, else block by block of C
/// (int8_emulation_blocks), else (not even a 1/64 x 1/64 block fits) the native path.
template <class T>
void launch_int8_emulation(const GemmArgs<T>& g, cudaStream_t stream,
                           const Int8EmulationOptions& options) {
    constexpr bool kDouble = std::is_same_v<T, double>;
    const size_t budget = options.workspace_budget ? options.workspace_budget : int8_emulation_budget();
    const EmulationBlocks b = int8_emulation_blocks(kDouble, g.m, g.n, g.k, options.moduli, budget);
    if (b.rows == 0) return launch_native(g, stream);
    for (int64_t i0 = 0; i0 < g.m; i0 += b.rows)
        for (int64_t j0 = 0; j0 < g.n; j0 += b.cols) {
            GemmArgs<T> piece = g;
            piece.m = std::min(b.rows, g.m - i0);
            piece.n = std::min(b.cols, g.n - j0);
            piece.A = g.A + (g.trans_a ? i0 * g.lda : i0);
            piece.B = g.B + (g.trans_b ? j0 : j0 * g.ldb);
            piece.C = g.C + i0 + j0 * g.ldc;
            emulate(piece, stream, options);
        }
}

void launch_int8_emulation_call(const Problem& p, cudaStream_t stream) {
    const Int8EmulationOptions options = int8_emulation_options(p.emulation_moduli);
    if (p.type == DataType::F64) launch_int8_emulation(p.as<double>(), stream, options);
    else launch_int8_emulation(p.as<float>(), stream, options);
}

size_t int8_emulation_workspace_bytes(bool is_double, int64_t m, int64_t n, int64_t k) {
    return workspace_bytes(sizes_for(is_double, ozaki::plan_for(is_double, k, 0).moduli, m, n, k));
}

template void launch_int8_emulation<float>(const GemmArgs<float>&, cudaStream_t,
                                           const Int8EmulationOptions&);
template void launch_int8_emulation<double>(const GemmArgs<double>&, cudaStream_t,
                                            const Int8EmulationOptions&);

} // namespace gemmlab::detail
