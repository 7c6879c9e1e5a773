// The quantized rungs on the GPU (skipped without one): FP8 (rung 29) against the CPU reference
// within the bound of docs/precision.md ("FP8"), exactly on small-integer inputs; INT8 (rung 30)
// exactly in int32, extremes included. Every layout and op (the native "TN" and the K-major copy
// path), odd sizes, unaligned rows, k far past the promotion interval, scales over many
// binades, saturated inputs, NaN and Inf. C is poisoned with NaN (beta == 0) and must come out
// fully written. The seed is fresh each run and printed.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "common/device_buffer.hpp"
#include "gemm/quantized_problem.hpp"
#include "gemm/reference/quantized_reference.hpp"
#include "gemmlab/gemmlab.hpp"
#include "test_support.hpp"

namespace gemmlab {
namespace {

using E4M3 = __nv_fp8_e4m3;
using E5M2 = __nv_fp8_e5m2;

/// Skips where the GPU or the build cannot run the sm_90a rungs.
#define REQUIRE_SM90A()                                                                            \
    do {                                                                                           \
        REQUIRE_GPU();                                                                             \
        if (check_device_support(quantized_kernels()[0]) != Status::Success)                       \
            GTEST_SKIP() << "the 8-bit rungs need an sm_90a GPU and build: " << last_error();      \
    } while (0)

uint64_t run_seed() {
    static const uint64_t seed = [] {
        const uint64_t s = std::random_device{}();
        std::printf("test_quantized_gpu seed %llu\n", static_cast<unsigned long long>(s));
        return s;
    }();
    return seed;
}

/// How the inputs are drawn.
enum class Fill {
    Signed,        ///< values in [-2, 2], rounded to the format
    SmallIntegers, ///< integers in [-3, 3]: every sum exact (the exact tier)
    SameSign,      ///< values in [0.5, 1.5]: no cancellation, the long-k accuracy case
    WideRange,     ///< every finite value of the format (random bytes): all binades
    Saturated,     ///< mostly the format's largest finite value, either sign
    Specials,      ///< Signed, with a NaN (and for E5M2 an Inf) in a few rows and columns
};

const char* to_string(Fill f) {
    switch (f) {
    case Fill::Signed: return "signed";
    case Fill::SmallIntegers: return "small-integers";
    case Fill::SameSign: return "same-sign";
    case Fill::WideRange: return "wide-range";
    case Fill::Saturated: return "saturated";
    case Fill::Specials: return "specials";
    }
    return "?";
}

template <class T>
constexpr float kFormatMax = std::is_same_v<T, E4M3> ? 448.0f : 57344.0f;

/// A random finite value of FP8 format T as `fill` says (Specials: the Signed values; the
/// caller plants the specials).
template <class T>
T draw(Fill fill, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    switch (fill) {
    case Fill::SmallIntegers: return T(float(int(rng() % 7) - 3));
    case Fill::SameSign: return T(0.5f + u(rng));
    case Fill::WideRange:
        for (;;) { // random bytes until a finite one
            T x;
            x.__x = static_cast<__nv_fp8_storage_t>(rng() & 0xFF);
            if (std::isfinite(float(x))) return x;
        }
    case Fill::Saturated: {
        const float v = (rng() % 4 == 0) ? 4.0f * u(rng) : kFormatMax<T>;
        return T(rng() % 2 ? v : -v);
    }
    case Fill::Signed:
    case Fill::Specials: break;
    }
    return T(4.0f * u(rng) - 2.0f);
}

/// One FP8 case: layout, ops, shape, leading-dimension padding, a byte offset of A and B's base
/// (0: 16-byte aligned), the scales, the fill, alpha and beta.
struct Fp8Case {
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::T;
    int64_t m = 128, n = 128, k = 128;
    int64_t pad = 0;
    int offset = 0;
    Scaling scaling_a = Scaling::PerTensor, scaling_b = Scaling::PerTensor;
    Fill fill = Fill::Signed;
    bool wide_scales = false; ///< scales 2^e, e in [-20, 20] (else in [0.5, 2])
    bool unit_scales = false; ///< scales 1 (the exact tier)
    float alpha = 1.0f, beta = 0.0f;

    std::string describe() const {
        return std::string(gemmlab::to_string(layout)) + " " + to_char(op_a) + to_char(op_b) + " " +
               std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + " pad " +
               std::to_string(pad) + " offset " + std::to_string(offset) + " " + to_string(fill) +
               (scaling_a == Scaling::BlockWise    ? " block-wise"
                : scaling_a == Scaling::PerChannel ? " per-row"
                                                   : " per-tensor") +
               (scaling_b == Scaling::BlockWise    ? "/block-wise"
                : scaling_b == Scaling::PerChannel ? "/per-column"
                                                   : "/per-tensor") +
               (wide_scales ? " wide-scales" : "") + " alpha " + std::to_string(alpha) + " beta " +
               std::to_string(beta);
    }
};

/// Stored rows and columns of an operand that is r x c after its op, and its element count with
/// leading dimension ld.
struct Stored {
    int64_t ld, count;
};
Stored stored(Layout layout, bool trans, int64_t r, int64_t c, int64_t pad) {
    const int64_t rows = trans ? c : r, cols = trans ? r : c;
    const bool row = layout == Layout::RowMajor;
    const int64_t ld = std::max<int64_t>(1, row ? cols : rows) + pad;
    return {ld, ld * (row ? rows : cols)};
}

/// Host data on the device at a byte offset from a 256-byte-aligned allocation.
template <class T>
struct OffsetBuffer {
    DeviceBuffer<unsigned char> raw;
    T* ptr;
    OffsetBuffer(const std::vector<T>& host, int offset)
        : raw(host.size() * sizeof(T) + 16), ptr(reinterpret_cast<T*>(raw.get() + offset)) {
        GEMMLAB_CUDA_CHECK(cudaMemcpy(ptr, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
};

template <class T>
std::vector<T> fetch(const T* device, size_t count) {
    std::vector<T> out(count);
    GEMMLAB_CUDA_CHECK(cudaMemcpy(out.data(), device, count * sizeof(T), cudaMemcpyDeviceToHost));
    return out;
}

/// Scale factors: n values, in [0.5, 2] or 2^e over [-20, 20].
std::vector<float> draw_scales(size_t n, bool wide, std::mt19937_64& rng) {
    std::vector<float> s(n);
    for (auto& x : s)
        x = wide ? std::ldexp(1.0f, int(rng() % 41) - 20)
                 : 0.5f + 1.5f * std::uniform_real_distribution<float>(0.0f, 1.0f)(rng);
    return s;
}

/// A case's host inputs: A and B stored as the case says, and the scale factors (block-wise:
/// scale_a m x ceil(k / 128), ld m; scale_b ceil(k / 128) x ceil(n / 128), ld block_b_ld(k)).
template <class TA, class TB>
struct Fp8Inputs {
    Stored sa, sb, sc;
    std::vector<TA> A;
    std::vector<TB> B;
    std::vector<float> scale_a, scale_b;

    Fp8Inputs(const Fp8Case& c, std::mt19937_64& rng)
        : sa(stored(c.layout, c.op_a == Op::T, c.m, c.k, c.pad)),
          sb(stored(c.layout, c.op_b == Op::T, c.k, c.n, c.pad)),
          sc(stored(c.layout, false, c.m, c.n, c.pad)), A(size_t(sa.count)), B(size_t(sb.count)) {
        for (auto& x : A) x = draw<TA>(c.fill, rng);
        for (auto& x : B) x = draw<TB>(c.fill, rng);
        if (c.fill == Fill::Specials) {
            // NaN in A at a few positions; E5M2 has Inf too (E4M3 has none), planted in B.
            for (size_t i = 0; i < A.size(); i += A.size() / 5 + 1) A[i].__x = 0x7F;
            if constexpr (std::is_same_v<TB, E5M2>)
                for (size_t i = 3; i < B.size(); i += B.size() / 3 + 1) B[i].__x = (i % 2) ? 0x7C : 0xFC;
        }
        const int64_t k_blocks = (c.k + 127) / 128;
        const auto count = [&](Scaling s, int64_t channels, int64_t blocks) -> size_t {
            return size_t(s == Scaling::PerChannel ? channels : s == Scaling::BlockWise ? blocks : 1);
        };
        scale_a = draw_scales(count(c.scaling_a, c.m, c.m * k_blocks), c.wide_scales, rng);
        scale_b = draw_scales(count(c.scaling_b, c.n, reference::HostScale::block_b_ld(c.k) *
                                                          ((c.n + 127) / 128)),
                              c.wide_scales, rng);
        if (c.unit_scales) {
            scale_a.assign(scale_a.size(), 1.0f);
            scale_b.assign(scale_b.size(), 1.0f);
        }
    }
    reference::HostScale host_scale_a(const Fp8Case& c) const {
        return c.scaling_a == Scaling::BlockWise
                   ? reference::HostScale::block_a(scale_a.data(), c.m)
                   : reference::HostScale{scale_a.data(), c.scaling_a == Scaling::PerChannel};
    }
    reference::HostScale host_scale_b(const Fp8Case& c) const {
        return c.scaling_b == Scaling::BlockWise
                   ? reference::HostScale::block_b(scale_b.data(), c.k)
                   : reference::HostScale{scale_b.data(), c.scaling_b == Scaling::PerChannel};
    }
};

/// The accumulation coefficient of a case's bound.
double case_gamma(const Fp8Case& c) {
    return c.scaling_a == Scaling::BlockWise ? reference::fp8_block_gamma(c.k)
                                             : reference::fp8_gamma(c.k);
}

/// Runs one FP8 case on the GPU and checks it; returns the worst error / bound.
template <class TA, class TB, class TOut>
double run_fp8(const Fp8Case& c) {
    std::mt19937_64 rng(run_seed() ^ std::hash<std::string>{}(c.describe()));
    const Fp8Inputs<TA, TB> in(c, rng);
    const auto& [sa, sb, sc, A, B, scale_a, scale_b] = in;
    std::vector<TOut> C0(size_t(sc.count));
    for (auto& x : C0)
        x = c.beta == 0.0f ? TOut(std::numeric_limits<float>::quiet_NaN())
                           : TOut(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));

    OffsetBuffer<TA> dA(A, c.offset);
    OffsetBuffer<TB> dB(B, c.offset);
    OffsetBuffer<TOut> dC(C0, 0);
    OffsetBuffer<float> dsa(scale_a, 0), dsb(scale_b, 0);
    const Status s = gemm_fp8<TA, TB, TOut>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, dA.ptr,
                                            sa.ld, {dsa.ptr, c.scaling_a}, dB.ptr, sb.ld,
                                            {dsb.ptr, c.scaling_b}, c.beta, dC.ptr, sc.ld);
    EXPECT_EQ(s, Status::Success) << c.describe() << ": " << gemmlab::last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<TOut> C = fetch(dC.ptr, C0.size());

    std::vector<double> ref(size_t(c.m * c.n)), mag(ref.size());
    reference::quantized_gemm<TA, TB, TOut>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha,
                                            A.data(), sa.ld, in.host_scale_a(c), B.data(), sb.ld,
                                            in.host_scale_b(c), c.beta, C0.data(), sc.ld,
                                            ref.data(), mag.data());
    const auto r = reference::check_quantized(c.layout, c.m, c.n, C.data(), sc.ld, ref.data(),
                                              mag.data(), case_gamma(c));
    EXPECT_TRUE(r.pass()) << c.describe() << ": " << r.describe();
    if constexpr (std::is_same_v<TOut, float>) {
        // The exact tier: integer products and sums below 2^11 per interval and 2^24 in all are
        // exact in every accumulator on the way, so only the epilogue's scaling rounds; with
        // unit scales and alpha and beta == 0, nothing does.
        if (c.fill == Fill::SmallIntegers && c.unit_scales && c.alpha == 1.0f && c.beta == 0.0f) {
            int64_t wrong = 0;
            for (int64_t i = 0; i < c.m; ++i)
                for (int64_t j = 0; j < c.n; ++j) {
                    const bool row = c.layout == Layout::RowMajor;
                    const double got = double(C[size_t(row ? i * sc.ld + j : i + j * sc.ld)]);
                    const double want = ref[size_t(row ? i * c.n + j : i + j * c.m)];
                    if (got != want && wrong++ == 0)
                        ADD_FAILURE() << c.describe() << ": (" << i << ", " << j << ") got " << got
                                      << ", want " << want << " exactly";
                }
            EXPECT_EQ(wrong, 0);
        }
    }
    return r.worst_ratio;
}

/// Runs one FP8 case with an FP8 C (beta 0): C = saturate(out_scale * result) checked against
/// out_scale * Ref in the saturating sense, and amax against max |Ref|: exactly where the case
/// is exact (small integers, unit scales: every result is an integer), else within the bound.
template <class TA, class TB, class TC>
void run_fp8_out(const Fp8Case& c, float out_scale) {
    std::mt19937_64 rng(run_seed() ^ std::hash<std::string>{}(c.describe() + " fp8-out"));
    const Fp8Inputs<TA, TB> in(c, rng);
    const auto& [sa, sb, sc, A, B, scale_a, scale_b] = in;
    OffsetBuffer<TA> dA(A, c.offset);
    OffsetBuffer<TB> dB(B, c.offset);
    OffsetBuffer<TC> dC(std::vector<TC>(size_t(sc.count), TC(std::nanf(""))), 0);
    OffsetBuffer<float> dsa(scale_a, 0), dsb(scale_b, 0);
    OffsetBuffer<float> dout(std::vector<float>{out_scale}, 0), damax(std::vector<float>{-1.0f}, 0);
    const Status s = gemm_fp8<TA, TB, TC>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha, dA.ptr,
                                          sa.ld, {dsa.ptr, c.scaling_a}, dB.ptr, sb.ld,
                                          {dsb.ptr, c.scaling_b}, dC.ptr, sc.ld,
                                          Fp8Output{dout.ptr, damax.ptr});
    EXPECT_EQ(s, Status::Success) << c.describe() << ": " << gemmlab::last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<TC> C = fetch(dC.ptr, size_t(sc.count));
    const float amax = fetch(damax.ptr, 1)[0];

    std::vector<double> ref(size_t(c.m * c.n)), mag(ref.size());
    reference::quantized_gemm<TA, TB, float>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha,
                                             A.data(), sa.ld, in.host_scale_a(c), B.data(), sb.ld,
                                             in.host_scale_b(c), 0.0, nullptr, sc.ld, ref.data(),
                                             mag.data());
    double want_amax = 0, amax_slack = 0;
    for (size_t i = 0; i < ref.size(); ++i) {
        if (std::fabs(ref[i]) > want_amax) {
            want_amax = std::fabs(ref[i]);
            amax_slack = case_gamma(c) * mag[i] + 0x1p-24 * want_amax; // result rounds to FP32
        }
        ref[i] *= out_scale;
        mag[i] *= std::fabs(out_scale);
    }
    const auto r = reference::check_quantized(c.layout, c.m, c.n, C.data(), sc.ld, ref.data(),
                                              mag.data(), case_gamma(c));
    EXPECT_TRUE(r.pass()) << c.describe() << " out_scale " << out_scale << ": " << r.describe();
    const bool exact = c.fill == Fill::SmallIntegers && c.unit_scales && c.alpha == 1.0f;
    if (exact) EXPECT_EQ(double(amax), want_amax) << c.describe();
    else EXPECT_NEAR(double(amax), want_amax, amax_slack) << c.describe();
}

/// Unit scales: the exact tier's case.
Fp8Case exact_case(Layout l, Op a, Op b, int64_t m, int64_t n, int64_t k) {
    Fp8Case c;
    c.layout = l, c.op_a = a, c.op_b = b, c.m = m, c.n = n, c.k = k;
    c.fill = Fill::SmallIntegers;
    c.unit_scales = true;
    return c;
}

TEST(Fp8Gpu, SmallExact) { // also the compute-sanitizer case of scripts/check-quantized.sh
    REQUIRE_SM90A();
    run_fp8<E4M3, E4M3, float>(exact_case(Layout::RowMajor, Op::N, Op::T, 130, 72, 200));
}

TEST(Fp8Gpu, EveryLayoutAndOpExact) {
    REQUIRE_SM90A();
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Op a : {Op::N, Op::T})
            for (Op b : {Op::N, Op::T})
                run_fp8<E4M3, E4M3, float>(exact_case(l, a, b, 197, 131, 389));
}

TEST(Fp8Gpu, OddSizesPaddingAndUnalignedRows) {
    REQUIRE_SM90A();
    const int64_t shapes[][3] = {{1, 1, 1}, {1, 300, 17}, {129, 1, 64}, {127, 129, 257},
                                 {256, 384, 512}, {64, 136, 4095}};
    for (const auto& s : shapes)
        for (int64_t pad : {0, 16, 3})
            for (int offset : {0, 1}) {
                Fp8Case c = exact_case(Layout::RowMajor, Op::N, Op::T, s[0], s[1], s[2]);
                c.pad = pad, c.offset = offset;
                run_fp8<E4M3, E4M3, float>(c);
            }
}

TEST(Fp8Gpu, TypePairsAndOutputs) {
    REQUIRE_SM90A();
    Fp8Case c;
    c.m = 200, c.n = 264, c.k = 1000;
    run_fp8<E4M3, E4M3, __nv_bfloat16>(c);
    run_fp8<E4M3, E4M3, __half>(c);
    run_fp8<E4M3, E4M3, float>(c);
    run_fp8<E4M3, E5M2, __nv_bfloat16>(c);
    run_fp8<E5M2, E4M3, __half>(c);
    run_fp8<E4M3, E5M2, float>(c);
    c.fill = Fill::SmallIntegers;
    c.unit_scales = true;
    run_fp8<E5M2, E4M3, float>(c);
    run_fp8<E4M3, E5M2, float>(c);
}

TEST(Fp8Gpu, LongKPastThePromotionInterval) {
    REQUIRE_SM90A();
    for (Fill f : {Fill::SameSign, Fill::Signed}) {
        Fp8Case c;
        c.m = 136, c.n = 200, c.k = 16384, c.fill = f;
        const double worst = run_fp8<E4M3, E4M3, float>(c);
        std::printf("FP8 k = 16384 %s: worst error / bound %.3g\n", to_string(f), worst);
    }
    Fp8Case c = exact_case(Layout::RowMajor, Op::N, Op::T, 130, 140, 16384 + 96);
    run_fp8<E4M3, E4M3, float>(c);
}

TEST(Fp8Gpu, ScalesOverManyBinades) {
    REQUIRE_SM90A();
    for (Fill f : {Fill::Signed, Fill::WideRange}) {
        Fp8Case c;
        c.m = 192, c.n = 160, c.k = 640, c.fill = f;
        c.scaling_a = c.scaling_b = Scaling::PerChannel;
        c.wide_scales = true;
        run_fp8<E4M3, E4M3, float>(c);
        run_fp8<E5M2, E4M3, __nv_bfloat16>(c);
        c.scaling_b = Scaling::PerTensor;
        c.layout = Layout::ColMajor;
        run_fp8<E4M3, E5M2, float>(c);
    }
}

TEST(Fp8Gpu, AlphaBetaAndPerChannelOnEveryLayout) {
    REQUIRE_SM90A();
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Op a : {Op::N, Op::T})
            for (Op b : {Op::N, Op::T}) {
                Fp8Case c;
                c.layout = l, c.op_a = a, c.op_b = b, c.m = 150, c.n = 170, c.k = 300;
                c.scaling_a = Scaling::PerChannel, c.scaling_b = Scaling::PerChannel;
                c.alpha = -0.75f, c.beta = 0.5f;
                run_fp8<E4M3, E4M3, __nv_bfloat16>(c);
            }
}

TEST(Fp8Gpu, SaturatedInputsAndOverflowingOutput) {
    REQUIRE_SM90A();
    Fp8Case c;
    c.m = 130, c.n = 140, c.k = 2048, c.fill = Fill::Saturated;
    run_fp8<E4M3, E4M3, float>(c);
    run_fp8<E4M3, E4M3, __half>(c); // 448^2 x k is far past FP16's 65504: Inf of the sign
    run_fp8<E5M2, E4M3, __nv_bfloat16>(c);
}

TEST(Fp8Gpu, NanAndInfPropagate) {
    REQUIRE_SM90A();
    Fp8Case c;
    c.m = 140, c.n = 150, c.k = 700, c.fill = Fill::Specials;
    run_fp8<E4M3, E4M3, float>(c);
    run_fp8<E4M3, E5M2, float>(c);
}

Fp8Case block_case(Layout l, Op a, Op b, int64_t m, int64_t n, int64_t k) {
    Fp8Case c;
    c.layout = l, c.op_a = a, c.op_b = b, c.m = m, c.n = n, c.k = k;
    c.scaling_a = c.scaling_b = Scaling::BlockWise;
    return c;
}

TEST(Fp8Gpu, BlockWiseExactWithUnitScales) {
    REQUIRE_SM90A();
    for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        Fp8Case c = block_case(l, Op::N, Op::T, 197, 300, 389);
        c.fill = Fill::SmallIntegers, c.unit_scales = true;
        run_fp8<E4M3, E4M3, float>(c);
    }
}

TEST(Fp8Gpu, BlockWiseEveryLayoutOpAndOddSize) {
    REQUIRE_SM90A();
    // The row-major block-wise call keeps A and B (its C is written row-major): every op and
    // both layouts, sizes off the 128 blocks, padding and an unaligned base.
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Op a : {Op::N, Op::T})
            for (Op b : {Op::N, Op::T}) {
                Fp8Case c = block_case(l, a, b, 150, 261, 300);
                c.alpha = -0.75f, c.beta = 0.5f;
                run_fp8<E4M3, E4M3, __nv_bfloat16>(c);
            }
    const int64_t shapes[][3] = {{1, 1, 1}, {64, 7168, 129}, {129, 128, 4095}, {300, 257, 1000}};
    for (const auto& s : shapes)
        for (int offset : {0, 1}) {
            Fp8Case c = block_case(Layout::RowMajor, Op::N, Op::T, s[0], s[1], s[2]);
            c.pad = offset ? 3 : 0, c.offset = offset;
            run_fp8<E4M3, E4M3, float>(c);
        }
}

TEST(Fp8Gpu, BlockWiseScalesOverManyBinadesAndLongK) {
    REQUIRE_SM90A();
    for (Fill f : {Fill::Signed, Fill::WideRange}) {
        Fp8Case c = block_case(Layout::RowMajor, Op::N, Op::T, 192, 384, 1536);
        c.fill = f, c.wide_scales = true;
        run_fp8<E4M3, E4M3, float>(c);
        run_fp8<E4M3, E5M2, __nv_bfloat16>(c);
        c.layout = Layout::ColMajor;
        // FP16 C stops at 65504: with every E5M2 binade and scales up to 2^20 a side most
        // results overflow it, and where a sum cancels to less than its error bound the FP32
        // result and the reference may overflow to opposite infinities (seen on an H100: -inf
        // against 9.3e11 with a bound of 5.6e14). The wide-range case writes float C instead.
        if (f == Fill::WideRange) run_fp8<E5M2, E4M3, float>(c);
        else run_fp8<E5M2, E4M3, __half>(c);
    }
    for (Fill f : {Fill::SameSign, Fill::Signed}) {
        Fp8Case c = block_case(Layout::RowMajor, Op::N, Op::T, 136, 256, 16384);
        c.fill = f;
        const double worst = run_fp8<E4M3, E4M3, float>(c);
        std::printf("FP8 block-wise k = 16384 %s: worst error / bound %.3g\n", to_string(f), worst);
    }
}

TEST(Fp8Gpu, Fp8OutputAmaxExact) {
    REQUIRE_SM90A();
    for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        Fp8Case c = exact_case(l, Op::N, Op::T, 197, 131, 389);
        run_fp8_out<E4M3, E4M3, E4M3>(c, 0.25f);
        run_fp8_out<E4M3, E5M2, E5M2>(c, 1.0f);
        c.scaling_a = c.scaling_b = Scaling::BlockWise;
        run_fp8_out<E4M3, E4M3, E4M3>(c, 0.5f);
    }
}

TEST(Fp8Gpu, Fp8OutputScaledAndRandom) {
    REQUIRE_SM90A();
    Fp8Case c;
    c.m = 200, c.n = 264, c.k = 1000;
    c.scaling_a = c.scaling_b = Scaling::PerChannel;
    run_fp8_out<E4M3, E4M3, E4M3>(c, 3.0f);
    run_fp8_out<E5M2, E4M3, E5M2>(c, 0.01f);
    c.layout = Layout::ColMajor, c.op_a = Op::T, c.op_b = Op::N;
    c.scaling_a = c.scaling_b = Scaling::BlockWise;
    run_fp8_out<E4M3, E4M3, E4M3>(c, 2.0f);
}

TEST(Fp8Gpu, Fp8OutputSaturates) {
    REQUIRE_SM90A();
    // Results far past 448 (E4M3) and 57344 (E5M2) come out as the largest finite value of
    // their sign, never NaN or Inf; amax is still the unsaturated max |result|.
    Fp8Case c = exact_case(Layout::RowMajor, Op::N, Op::T, 130, 140, 2048);
    run_fp8_out<E4M3, E4M3, E4M3>(c, 64.0f);
    run_fp8_out<E4M3, E4M3, E5M2>(c, 4096.0f);
    c.fill = Fill::Saturated, c.unit_scales = false;
    run_fp8_out<E4M3, E4M3, E4M3>(c, 1.0f);
}

TEST(Fp8Gpu, ZeroKAndZeroAlphaScaleC) {
    REQUIRE_SM90A();
    Fp8Case c;
    c.k = 0, c.beta = 0.5f;
    run_fp8<E4M3, E4M3, float>(c);
    c.k = 64, c.alpha = 0.0f, c.beta = 0.0f;
    run_fp8<E4M3, E4M3, __half>(c);
}

/// One FP8 product into a C of leading dimension ldc (NaN-poisoned), returned packed (ld m or n).
template <class TOut>
std::vector<TOut> fp8_into_ldc(const Fp8Case& c, const Fp8Inputs<E4M3, E4M3>& in, int64_t ldc) {
    const bool row = c.layout == Layout::RowMajor;
    const int64_t outer = row ? c.m : c.n, inner = row ? c.n : c.m;
    OffsetBuffer<E4M3> dA(in.A, 0), dB(in.B, 0);
    OffsetBuffer<float> dsa(in.scale_a, 0), dsb(in.scale_b, 0);
    OffsetBuffer<TOut> dC(std::vector<TOut>(size_t(outer * ldc), TOut(std::nanf(""))), 0);
    const Status s = gemm_fp8<E4M3, E4M3, TOut>(c.layout, c.op_a, c.op_b, c.m, c.n, c.k, c.alpha,
                                                dA.ptr, in.sa.ld, {dsa.ptr, c.scaling_a}, dB.ptr,
                                                in.sb.ld, {dsb.ptr, c.scaling_b}, 0.0f, dC.ptr, ldc);
    EXPECT_EQ(s, Status::Success) << c.describe() << ": " << gemmlab::last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    const std::vector<TOut> stored = fetch(dC.ptr, size_t(outer * ldc));
    std::vector<TOut> C(size_t(outer * inner));
    for (int64_t o = 0; o < outer; ++o)
        for (int64_t e = 0; e < inner; ++e) C[size_t(o * inner + e)] = stored[size_t(o * ldc + e)];
    return C;
}

/// Expects two results equal bit for bit, none of them NaN (C was poisoned with NaN); `what`
/// names the case.
template <class T>
void expect_same_bits(const std::vector<T>& x, const std::vector<T>& y, const std::string& what) {
    ASSERT_EQ(x.size(), y.size());
    int64_t differ = 0, unwritten = 0;
    for (size_t e = 0; e < x.size(); ++e) {
        if (std::isnan(float(x[e])) && unwritten++ == 0)
            ADD_FAILURE() << what << ": element " << e << " not written";
        if (std::memcmp(&x[e], &y[e], sizeof(T)) != 0 && differ++ == 0)
            ADD_FAILURE() << what << ": element " << e << " differs (" << float(x[e]) << " vs "
                          << float(y[e]) << ")";
    }
    EXPECT_EQ(differ, 0) << what;
    EXPECT_EQ(unwritten, 0) << what;
}

TEST(Fp8Gpu, StagedAndRegisterStoresGiveTheSameBits) {
    // A 16- or 32-bit C with beta 0, one scale factor per column of the kernel's column-major C
    // and rows TMA can store goes through shared memory by TMA; the same product into a C of
    // leading dimension one longer, which TMA cannot store, goes from registers. Both must
    // write every element and round the same value: per-row scales over many binades (the
    // kernel's rows: B's columns for a row-major call), partial last tiles both ways, alpha != 1.
    REQUIRE_SM90A();
    for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        Fp8Case c;
        c.layout = l, c.m = 200, c.n = 264, c.k = 700;
        c.scaling_a = l == Layout::RowMajor ? Scaling::PerTensor : Scaling::PerChannel;
        c.scaling_b = l == Layout::RowMajor ? Scaling::PerChannel : Scaling::PerTensor;
        c.wide_scales = true;
        c.alpha = -0.75f;
        std::mt19937_64 rng(run_seed() + 2);
        const Fp8Inputs<E4M3, E4M3> in(c, rng);
        const int64_t ld = l == Layout::RowMajor ? c.n : c.m;
        const std::string where = std::string(to_string(l)) + ": ";
        expect_same_bits(fp8_into_ldc<__nv_bfloat16>(c, in, ld),
                         fp8_into_ldc<__nv_bfloat16>(c, in, ld + 1), where + "BF16 C");
        expect_same_bits(fp8_into_ldc<__half>(c, in, ld), fp8_into_ldc<__half>(c, in, ld + 1),
                         where + "FP16 C");
        expect_same_bits(fp8_into_ldc<float>(c, in, ld), fp8_into_ldc<float>(c, in, ld + 1),
                         where + "float C");
        // Block-wise scales: a row-major call keeps C row-major (staged without the transpose
        // in 16 bits; a float C from registers either way).
        c.scaling_a = c.scaling_b = Scaling::BlockWise;
        std::mt19937_64 rng_blocks(run_seed() + 3);
        const Fp8Inputs<E4M3, E4M3> blocks(c, rng_blocks);
        expect_same_bits(fp8_into_ldc<__nv_bfloat16>(c, blocks, ld),
                         fp8_into_ldc<__nv_bfloat16>(c, blocks, ld + 1), where + "block-wise BF16 C");
        expect_same_bits(fp8_into_ldc<__half>(c, blocks, ld),
                         fp8_into_ldc<__half>(c, blocks, ld + 1), where + "block-wise FP16 C");
    }
}

TEST(Fp8Gpu, ManyTilesPerBlock) {
    // More 128 x 128 tiles than twice the SMs: each persistent block stores a tile while the
    // next tile's first k tile runs (the deferred store), so every tile but a block's last is
    // stored inside the k loop of another. k of one, two and five k tiles (the tile loop's
    // every remainder after the first tile); per-tensor into the staged float and BF16 C and
    // into a C with beta (registers), and block-wise.
    REQUIRE_SM90A();
    int sms = 0;
    GEMMLAB_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    const int64_t m = 256, n = 128 * (sms + 2) - 40; // 2 x (sms + 2) tiles, a partial last column
    for (int64_t k : {128, 256, 640}) {
        Fp8Case exact = exact_case(Layout::ColMajor, Op::T, Op::N, m, n, k);
        run_fp8<E4M3, E4M3, float>(exact);
        Fp8Case scaled;
        scaled.layout = Layout::ColMajor, scaled.op_a = Op::T, scaled.m = m, scaled.n = n, scaled.k = k;
        run_fp8<E4M3, E4M3, __nv_bfloat16>(scaled);
        scaled.beta = 0.5f;
        run_fp8<E4M3, E4M3, __nv_bfloat16>(scaled);
        Fp8Case blocks = block_case(Layout::RowMajor, Op::N, Op::T, n, m, k);
        run_fp8<E4M3, E4M3, __nv_bfloat16>(blocks);
    }
}

// ------------------------------------------------------------------------------------- INT8

/// Runs gemm_int8 (int32 C) on host A and B (stored as the call says) and returns C, stored.
std::vector<int32_t> run_int8_exact(Layout l, Op oa, Op ob, int64_t m, int64_t n, int64_t k,
                                    const std::vector<int8_t>& A, int64_t lda,
                                    const std::vector<int8_t>& B, int64_t ldb, int64_t ldc,
                                    int64_t c_count, int offset = 0) {
    OffsetBuffer<int8_t> dA(A, offset), dB(B, offset);
    std::vector<int32_t> poison(size_t(c_count), int32_t(0x7FC00000));
    OffsetBuffer<int32_t> dC(poison, 0);
    const Status s = gemm_int8(l, oa, ob, m, n, k, dA.ptr, lda, dB.ptr, ldb, dC.ptr, ldc);
    EXPECT_EQ(s, Status::Success) << gemmlab::last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    return fetch(dC.ptr, size_t(c_count));
}

TEST(Int8Gpu, RandomExactOnEveryLayout) {
    REQUIRE_SM90A();
    std::mt19937_64 rng(run_seed());
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T})
                for (const auto& [m, n, k, pad, offset] :
                     {std::tuple{1, 1, 1, 0, 0}, {197, 263, 389, 0, 0}, {256, 512, 1024, 16, 0},
                      {129, 130, 3000, 5, 1}}) {
                    const Stored sa = stored(l, oa == Op::T, m, k, pad);
                    const Stored sb = stored(l, ob == Op::T, k, n, pad);
                    const Stored sc = stored(l, false, m, n, pad);
                    std::vector<int8_t> A(size_t(sa.count)), B(size_t(sb.count));
                    for (auto& x : A) x = int8_t(rng() & 0xFF);
                    for (auto& x : B) x = int8_t(rng() & 0xFF);
                    const auto C = run_int8_exact(l, oa, ob, m, n, k, A, sa.ld, B, sb.ld, sc.ld,
                                                  sc.count, offset);
                    std::vector<double> ref(size_t(m * n)), mag(ref.size());
                    std::vector<int64_t> exact(ref.size());
                    reference::quantized_gemm<int8_t, int8_t, int32_t>(
                        l, oa, ob, m, n, k, 1.0, A.data(), sa.ld, {}, B.data(), sb.ld, {}, 0.0,
                        nullptr, sc.ld, ref.data(), mag.data(), exact.data());
                    int64_t wrong = 0;
                    for (int64_t i = 0; i < m; ++i)
                        for (int64_t j = 0; j < n; ++j) {
                            const bool row = l == Layout::RowMajor;
                            const int32_t got = C[size_t(row ? i * sc.ld + j : i + j * sc.ld)];
                            const int64_t want = exact[size_t(row ? i * n + j : i + j * m)];
                            if (got != want && wrong++ == 0)
                                ADD_FAILURE() << to_string(l) << " " << to_char(oa) << to_char(ob)
                                              << " " << m << "x" << n << "x" << k << " pad " << pad
                                              << " offset " << offset << ": (" << i << ", " << j
                                              << ") got " << got << ", want " << want;
                        }
                    EXPECT_EQ(wrong, 0);
                }
}

/// Every element of a (m x n, row-major A op N / B op T) product of constant operands a and b
/// over k must be k a b.
void expect_constant_product(int8_t a, int8_t b, int64_t m, int64_t n, int64_t k, int64_t want) {
    const std::vector<int8_t> A(size_t(m * k), a), B(size_t(n * k), b);
    const auto C = run_int8_exact(Layout::RowMajor, Op::N, Op::T, m, n, k, A, k, B, k, n, m * n);
    int64_t wrong = 0;
    for (size_t e = 0; e < C.size(); ++e)
        if (C[e] != want && wrong++ == 0)
            ADD_FAILURE() << int(a) << " x " << int(b) << " k " << k << ": element " << e << " got "
                          << C[e] << ", want " << want;
    EXPECT_EQ(wrong, 0);
}

TEST(Int8Gpu, ExtremesExact) {
    REQUIRE_SM90A();
    // (-128)(-128) = 2^14 is the largest product: k (2^17 - 1) of them is 2^31 - 2^14, the
    // largest sum int32 must hold. k not a multiple of the 128 of a k tile: a partial last tile.
    for (int64_t k : {int64_t(1), int64_t(4096), int64_t(131040), int64_t(131071)}) {
        expect_constant_product(-128, -128, 130, 136, k, k * 16384);
        expect_constant_product(-128, 127, 130, 136, k, -k * 16256);
        expect_constant_product(127, 127, 130, 136, k, k * 16129);
    }
}

TEST(Int8Gpu, PastInt32AtTwoToTheSeventeen) {
    REQUIRE_SM90A();
    // k = 2^17 products of 2^14: 2^31, one past INT32_MAX. Not representable: the documented
    // behaviour (docs/precision.md, "INT8") is the s32 accumulator's; this reports which it is
    // and checks that every element agrees.
    const int64_t m = 64, n = 64, k = int64_t(1) << 17;
    const std::vector<int8_t> A(size_t(m * k), int8_t(-128)), B(size_t(n * k), int8_t(-128));
    const auto C = run_int8_exact(Layout::RowMajor, Op::N, Op::T, m, n, k, A, k, B, k, n, m * n);
    const int32_t first = C[0];
    std::printf("INT8 sum of 2^17 products (-128)(-128) = 2^31 came out as %d (%s)\n", first,
                first == std::numeric_limits<int32_t>::min()   ? "wrapped modulo 2^32"
                : first == std::numeric_limits<int32_t>::max() ? "saturated"
                                                               : "neither");
    EXPECT_TRUE(first == std::numeric_limits<int32_t>::min() ||
                first == std::numeric_limits<int32_t>::max());
    for (int32_t v : C) ASSERT_EQ(v, first);
}

TEST(Int8Gpu, ScaledFloatOutput) {
    // beta -2 reads C, with per-row and per-column scales (stores from registers); beta 0 on
    // sizes whose rows TMA can store, per-channel scales on the kernel's rows only (the staged
    // store: B's columns of a row-major call, A's rows of a column-major one), C poisoned with
    // NaN. Partial last tiles.
    REQUIRE_SM90A();
    std::mt19937_64 rng(run_seed() + 1);
    for (const float beta : {-2.0f, 0.0f})
        for (Layout l : {Layout::RowMajor, Layout::ColMajor})
            for (Op oa : {Op::N, Op::T}) {
                const int64_t m = beta == 0.0f ? 176 : 177, n = beta == 0.0f ? 300 : 301, k = 2500;
                const Op ob = Op::T;
                const Stored sa = stored(l, oa == Op::T, m, k, 0), sb = stored(l, ob == Op::T, k, n, 0);
                const Stored sc = stored(l, false, m, n, 0);
                std::vector<int8_t> A(size_t(sa.count)), B(size_t(sb.count));
                for (auto& x : A) x = int8_t(rng() & 0xFF);
                for (auto& x : B) x = int8_t(rng() & 0xFF);
                const bool staged = beta == 0.0f;
                const bool per_row = !staged || l == Layout::ColMajor;
                const bool per_col = !staged || l == Layout::RowMajor;
                const std::vector<float> scale_a = draw_scales(size_t(per_row ? m : 1), true, rng);
                const std::vector<float> scale_b = draw_scales(size_t(per_col ? n : 1), false, rng);
                const auto scaling = [](bool per_channel) {
                    return per_channel ? Scaling::PerChannel : Scaling::PerTensor;
                };
                std::vector<float> C0(size_t(sc.count), std::nanf(""));
                if (beta != 0.0f)
                    for (auto& x : C0) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
                OffsetBuffer<int8_t> dA(A, 0), dB(B, 0);
                OffsetBuffer<float> dC(C0, 0), dsa(scale_a, 0), dsb(scale_b, 0);
                const float alpha = 1.5f;
                const Status s = gemm_int8(l, oa, ob, m, n, k, alpha, dA.ptr, sa.ld,
                                           {dsa.ptr, scaling(per_row)}, dB.ptr, sb.ld,
                                           {dsb.ptr, scaling(per_col)}, beta, dC.ptr, sc.ld);
                ASSERT_EQ(s, Status::Success) << gemmlab::last_error();
                GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
                const auto C = fetch(dC.ptr, C0.size());
                std::vector<double> ref(size_t(m * n)), mag(ref.size());
                reference::quantized_gemm<int8_t, int8_t, float>(
                    l, oa, ob, m, n, k, alpha, A.data(), sa.ld, {scale_a.data(), per_row},
                    B.data(), sb.ld, {scale_b.data(), per_col}, beta, C0.data(), sc.ld, ref.data(),
                    mag.data());
                const auto r = reference::check_quantized(l, m, n, C.data(), sc.ld, ref.data(),
                                                          mag.data(), reference::kInt8FloatGamma);
                EXPECT_TRUE(r.pass()) << to_string(l) << " " << to_char(oa) << to_char(ob)
                                      << " beta " << beta << ": " << r.describe();
            }
}

} // namespace
} // namespace gemmlab
