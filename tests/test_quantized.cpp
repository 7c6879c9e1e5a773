// The quantized API without a GPU: argument validation (no CUDA call before it succeeds), the
// rung table, and the CPU reference on products small enough to check by hand.

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

#include "common/device_info.hpp"
#include "gemm/quantized_problem.hpp"
#include "gemm/reference/quantized_reference.hpp"
#include "gemmlab/gemmlab.hpp"

namespace gemmlab {
namespace {

using E4M3 = __nv_fp8_e4m3;
using E5M2 = __nv_fp8_e5m2;

/// A fake device address, never dereferenced: validation only looks at pointers.
template <class T>
const T* fake(uintptr_t addr = 0x10000) {
    return reinterpret_cast<const T*>(addr);
}

/// validate_gemm_fp8 for row-major A (m x k, op N) and B (n x k, op T), C m x n, with the
/// leading dimensions, scales and kernel given.
Status fp8_check(int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                 Scale sa = {}, Scale sb = {}, const char* kernel = "auto",
                 const E4M3* A = fake<E4M3>(), const float* C = fake<float>()) {
    GemmOptions o;
    o.kernel = kernel;
    return validate_gemm_fp8<E4M3, E4M3, float>(Layout::RowMajor, Op::N, Op::T, m, n, k, 1.0f, A,
                                                lda, sa, fake<E4M3>(), ldb, sb, 0.0f, C, ldc, o);
}

TEST(QuantizedValidation, AcceptsTheNativeAndEveryOtherLayout) {
    EXPECT_EQ(fp8_check(64, 48, 32, 32, 32, 48), Status::Success);
    for (Layout l : {Layout::RowMajor, Layout::ColMajor})
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T})
                EXPECT_EQ((validate_gemm_fp8<E4M3, E5M2, __nv_bfloat16>(
                              l, oa, ob, 33, 17, 65, 1.0f, fake<E4M3>(), 65, {}, fake<E5M2>(), 65,
                              {}, 0.0f, fake<__nv_bfloat16>(), 65)),
                          Status::Success)
                    << to_string(l) << " " << to_char(oa) << to_char(ob);
}

TEST(QuantizedValidation, UnalignedRowsAreAcceptedNotRejected) {
    // 16-byte rows are what TMA reads in place; others are copied K-major first (a slower,
    // correct path), so neither an odd base nor an odd leading dimension is an error.
    EXPECT_EQ(fp8_check(64, 48, 33, 33, 35, 48, {}, {}, "auto", fake<E4M3>(0x10001)), Status::Success);
}

TEST(QuantizedValidation, SizesAndLeadingDimensions) {
    EXPECT_EQ(fp8_check(-1, 8, 8, 8, 8, 8), Status::InvalidSize);
    EXPECT_EQ(fp8_check(8, -1, 8, 8, 8, 8), Status::InvalidSize);
    EXPECT_EQ(fp8_check(8, 8, -1, 8, 8, 8), Status::InvalidSize);
    EXPECT_EQ(fp8_check(8, 8, 16, 15, 16, 8), Status::InvalidLeadingDimension); // lda < k
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 15, 8), Status::InvalidLeadingDimension); // ldb < k
    EXPECT_EQ(fp8_check(8, 9, 16, 16, 16, 8), Status::InvalidLeadingDimension); // ldc < n
    EXPECT_EQ(fp8_check(int64_t(1) << 40, 8, 16, int64_t(1) << 40, 16, 8), Status::SizeOverflow);
    EXPECT_EQ(fp8_check(0, 8, 16, 16, 16, 8), Status::Success); // nothing to do
}

TEST(QuantizedValidation, NullPointersAndScales) {
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "auto", nullptr), Status::NullPointer);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "auto", fake<E4M3>(), nullptr), Status::NullPointer);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {nullptr, Scaling::PerChannel}), Status::NullPointer);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {nullptr, Scaling::PerChannel}), Status::NullPointer);
    // k == 0: A, B and the scales are not read.
    EXPECT_EQ(fp8_check(8, 8, 0, 1, 1, 8, {nullptr, Scaling::PerChannel}, {}, "auto", nullptr),
              Status::Success);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {fake<float>(), Scaling::PerChannel},
                        {fake<float>(), Scaling::PerChannel}),
              Status::Success);
}

TEST(QuantizedValidation, BlockWiseScales) {
    const Scale block{fake<float>(), Scaling::BlockWise};
    EXPECT_EQ(fp8_check(256, 384, 1000, 1000, 1000, 384, block, block), Status::Success);
    // Both operands or neither: 1 x 128 groups on A go with 128 x 128 blocks on B.
    EXPECT_EQ(fp8_check(256, 384, 1000, 1000, 1000, 384, block, {}), Status::UnsupportedType);
    EXPECT_NE(std::string(gemmlab::last_error()).find("both operands"), std::string::npos);
    EXPECT_EQ(fp8_check(256, 384, 1000, 1000, 1000, 384, {fake<float>(), Scaling::PerChannel}, block),
              Status::UnsupportedType);
    EXPECT_EQ(fp8_check(256, 384, 1000, 1000, 1000, 384, {nullptr, Scaling::BlockWise}, block),
              Status::NullPointer);
    EXPECT_EQ(fp8_check(256, 384, 1000, 1000, 1000, 384, block, {nullptr, Scaling::BlockWise}),
              Status::NullPointer);
    EXPECT_EQ(fp8_check(256, 384, 0, 1, 1, 384, {nullptr, Scaling::BlockWise},
                        {nullptr, Scaling::BlockWise}),
              Status::Success); // k == 0: no scale is read
    // INT8 takes per-tensor and per-channel scales only.
    EXPECT_EQ(validate_gemm_int8(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, 1.0f, fake<int8_t>(),
                                 16, block, fake<int8_t>(), 16, block, 0.0f, fake<float>(), 8),
              Status::UnsupportedType);
}

TEST(QuantizedValidation, Fp8Output) {
    const Fp8Output out{fake<float>(), const_cast<float*>(fake<float>(0x20000))};
    for (Layout l : {Layout::RowMajor, Layout::ColMajor}) {
        EXPECT_EQ((validate_gemm_fp8<E4M3, E4M3, E4M3>(l, Op::N, Op::T, 64, 48, 128, 1.0f,
                                                       fake<E4M3>(), 128, {}, fake<E4M3>(), 128,
                                                       {}, fake<E4M3>(), 64, out)),
                  Status::Success);
        EXPECT_EQ((validate_gemm_fp8<E4M3, E5M2, E5M2>(l, Op::N, Op::T, 64, 48, 128, 1.0f,
                                                       fake<E4M3>(), 128, {}, fake<E5M2>(), 128,
                                                       {}, nullptr, 64, {})),
                  Status::NullPointer);
    }
    EXPECT_EQ((validate_gemm_fp8<E4M3, E4M3, E4M3>(Layout::RowMajor, Op::N, Op::T, 64, 48, 128,
                                                   1.0f, fake<E4M3>(), 128, {}, fake<E4M3>(), 128,
                                                   {}, fake<E4M3>(), 47, out)),
              Status::InvalidLeadingDimension);
}

TEST(QuantizedValidation, KernelNames) {
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "wgmma_fp8"), Status::Success);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "29"), Status::Success);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "wgmma_int8"), Status::UnsupportedType);
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8, {}, {}, "persistent"), Status::UnknownKernel);
    EXPECT_NE(std::string(gemmlab::last_error()).find("persistent"), std::string::npos);
    GemmOptions o;
    o.kernel = "wgmma_fp8";
    EXPECT_EQ(validate_gemm_int8(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, fake<int8_t>(), 16,
                                 fake<int8_t>(), 16, fake<int32_t>(), 8, o),
              Status::UnsupportedType);
    o.kernel = "30";
    EXPECT_EQ(validate_gemm_int8(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, fake<int8_t>(), 16,
                                 fake<int8_t>(), 16, fake<int32_t>(), 8, o),
              Status::Success);
}

TEST(QuantizedValidation, MessagesNameTheArgument) {
    EXPECT_EQ(fp8_check(8, 8, 16, 15, 16, 8), Status::InvalidLeadingDimension);
    EXPECT_NE(std::string(gemmlab::last_error()).find("lda = 15"), std::string::npos)
        << gemmlab::last_error();
    EXPECT_EQ(fp8_check(8, 8, 16, 16, 16, 8), Status::Success);
    EXPECT_STREQ(gemmlab::last_error(), "");
}

TEST(QuantizedValidation, BadCallsFailBeforeAnyCudaCall) {
    // Invalid arguments are reported as such with or without a GPU.
    float* C = nullptr;
    EXPECT_EQ((gemm_fp8<E4M3, E4M3, float>(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, 1.0f,
                                           fake<E4M3>(), 8, {}, fake<E4M3>(), 16, {}, 0.0f, C, 8)),
              Status::InvalidLeadingDimension);
    EXPECT_EQ(gemm_int8(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, fake<int8_t>(), 16,
                        fake<int8_t>(), 16, nullptr, 8),
              Status::NullPointer);
    if (visible_device_count() == 0) // a valid call on a machine without a GPU
        EXPECT_EQ(gemm_int8(Layout::RowMajor, Op::N, Op::T, 8, 8, 16, fake<int8_t>(), 16,
                            fake<int8_t>(), 16, const_cast<int32_t*>(fake<int32_t>()), 8),
                  Status::NoDevice);
}

TEST(QuantizedRungs, NumberedAfterTheLadderAndNeedSm90a) {
    const auto q = quantized_kernels();
    ASSERT_EQ(q.size(), 2u);
    EXPECT_EQ(q[0].name, "wgmma_fp8");
    EXPECT_EQ(q[1].name, "wgmma_int8");
    for (const KernelInfo& r : q) {
        EXPECT_TRUE(r.needs_sm90a);
        for (const KernelInfo& g : gpu_kernels())
            EXPECT_NE(r.number, g.number) << r.name << " shares its number with " << g.name;
    }
}

TEST(QuantizedReference, SmallProductByHand) {
    // Row-major 2 x 2 x 3, A op N, B op T (B stored n x k), per-channel scales.
    const float av[] = {1.5f, -2.0f, 0.25f, 448.0f, 1.0f, -0.5f};   // A (2 x 3)
    const float bv[] = {2.0f, 1.0f, 4.0f, -1.0f, 0.5f, 3.0f};       // B stored 2 x 3
    std::vector<E4M3> A, B;
    for (float x : av) A.push_back(E4M3(x));
    for (float x : bv) B.push_back(E4M3(x));
    const float sa[] = {2.0f, 0.5f}, sb[] = {1.0f, 0.25f};
    double ref[4], mag[4];
    reference::quantized_gemm<E4M3, E4M3, float>(Layout::RowMajor, Op::N, Op::T, 2, 2, 3, 1.0,
                                                 A.data(), 3, {sa, true}, B.data(), 3, {sb, true},
                                                 0.0, nullptr, 2, ref, mag, nullptr, 1);
    // Row 0: (1.5*2 - 2*1 + 0.25*4) = 2, and (-1.5 - 1 + 0.75) = -1.75.
    EXPECT_EQ(ref[0], 2.0 * 2.0 * 1.0);
    EXPECT_EQ(ref[1], -1.75 * 2.0 * 0.25);
    // Row 1: (896 + 1 - 2) = 895, and (-448 + 0.5 - 1.5) = -449.
    EXPECT_EQ(ref[2], 895.0 * 0.5);
    EXPECT_EQ(ref[3], -449.0 * 0.5 * 0.25);
    EXPECT_EQ(mag[3], (448.0 + 0.5 + 1.5) * 0.5 * 0.25);
}

TEST(QuantizedReference, BlockWiseDequantizesEachBlock) {
    // Row-major 2 x 130 x 200 (A op N, B op T): two k blocks (128 + 72), two column blocks.
    const int64_t m = 2, n = 130, k = 200;
    std::vector<E4M3> A(size_t(m * k), E4M3(1.0f)), B(size_t(n * k), E4M3(2.0f));
    A[size_t(1 * k + 150)] = E4M3(-3.0f); // row 1, k block 1
    // scale_a: m x 2 column-major (ld m); scale_b: 2 x 2 blocks, ld 4 (2 rounded up to 4).
    const float sa[] = {1.0f, 0.5f, 4.0f, 0.25f};
    const float sb[] = {2.0f, 0.125f, -1.0f, -1.0f, 8.0f, 16.0f, -1.0f, -1.0f};
    EXPECT_EQ(reference::HostScale::block_b_ld(k), 4);
    std::vector<double> ref(size_t(m * n)), mag(ref.size());
    reference::quantized_gemm<E4M3, E4M3, float>(
        Layout::RowMajor, Op::N, Op::T, m, n, k, 1.0, A.data(), k,
        reference::HostScale::block_a(sa, m), B.data(), k, reference::HostScale::block_b(sb, k),
        0.0, nullptr, n, ref.data(), mag.data(), nullptr, 1);
    // (i, j): sum_kb s_a(i, kb) s_b(kb, j / 128) * block sum; block sums are 2 * 128 and 2 * 72
    // (row 1's block 1: 2 * (71 - 3)).
    EXPECT_EQ(ref[0], 1.0 * 2.0 * 256 + 4.0 * 0.125 * 144);                // (0, 0)
    EXPECT_EQ(ref[129], 1.0 * 8.0 * 256 + 4.0 * 16.0 * 144);               // (0, 129)
    EXPECT_EQ(ref[size_t(n)], 0.5 * 2.0 * 256 + 0.25 * 0.125 * 136);       // (1, 0)
    EXPECT_EQ(mag[size_t(n)], 0.5 * 2.0 * 256 + 0.25 * 0.125 * (142 + 6)); // |-3 * 2| = 6
}

TEST(QuantizedReference, Fp8OutputSaturates) {
    // The conversion the epilogue uses (satfinite): past the largest finite value, Inf
    // included, gives that value; NaN stays NaN.
    const auto e4m3 = [](float x) {
        E4M3 r;
        r.__x = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E4M3);
        return float(r);
    };
    const auto e5m2 = [](float x) {
        E5M2 r;
        r.__x = __nv_cvt_float_to_fp8(x, __NV_SATFINITE, __NV_E5M2);
        return float(r);
    };
    EXPECT_EQ(e4m3(1000.0f), 448.0f);
    EXPECT_EQ(e4m3(-INFINITY), -448.0f);
    EXPECT_EQ(e4m3(464.0f), 448.0f); // halfway to the next binade's first value: saturates
    EXPECT_TRUE(std::isnan(e4m3(NAN)));
    EXPECT_EQ(e5m2(1e6f), 57344.0f);
    EXPECT_EQ(e5m2(INFINITY), 57344.0f);
    EXPECT_TRUE(std::isnan(e5m2(NAN)));
    // The check wants exactly that value past the bound, and the ordinary bound below it.
    const double ref[] = {1000.0, -INFINITY, 100.0, NAN}, mag[] = {1000.0, 0.0, 100.0, 0.0};
    const E4M3 good[] = {E4M3(448.0f), E4M3(-448.0f), E4M3(104.0f), E4M3(NAN)};
    EXPECT_TRUE(reference::check_quantized(Layout::ColMajor, 4, 1, good, 4, ref, mag, 0.0).pass());
    const E4M3 bad[] = {E4M3(416.0f), E4M3(NAN), E4M3(112.0f), E4M3(448.0f)};
    EXPECT_EQ(reference::check_quantized(Layout::ColMajor, 4, 1, bad, 4, ref, mag, 0.0).failures, 4);
}

TEST(QuantizedReference, CheckFlagsWrongValuesAndSpecials) {
    const double ref[] = {1.0, NAN, INFINITY, 70000.0}, mag[] = {1.0, 0.0, 0.0, 70000.0};
    const __half good[] = {__float2half(1.0f), __float2half(NAN), __float2half(INFINITY),
                           __float2half(INFINITY)}; // 70000 rounds past FP16's range
    EXPECT_TRUE(reference::check_quantized(Layout::ColMajor, 4, 1, good, 4, ref, mag, 0.0).pass());
    const __half bad[] = {__float2half(1.01f), __float2half(0.0f), __float2half(-INFINITY),
                          __float2half(65504.0f)};
    const auto r = reference::check_quantized(Layout::ColMajor, 4, 1, bad, 4, ref, mag, 0.0);
    EXPECT_EQ(r.failures, 4); // 1.01 is past FP16's rounding of 1 (u |Ref|), and no special matches
}

TEST(QuantizedReference, InfinityOfTheSignTheBoundReaches) {
    // gamma 1: bounds of about |mag|. A sum of -1.27e6 whose bound is 1e10 may have been anything
    // from -1e10 to 1e10 before FP16's rounding, so +Inf and -Inf are both right; -70000 with a
    // bound of 70000 only reaches FP16's overflow below zero; 100 reaches neither.
    const double ref[] = {-1.27e6, -1.27e6, -70000.0, 100.0}, mag[] = {1e10, 1e10, 70000.0, 100.0};
    const __half good[] = {__float2half(INFINITY), __float2half(-INFINITY),
                           __float2half(-INFINITY), __float2half(100.0f)};
    EXPECT_TRUE(reference::check_quantized(Layout::ColMajor, 4, 1, good, 4, ref, mag, 1.0).pass());
    const __half bad[] = {__float2half(NAN), __float2half(NAN), __float2half(INFINITY),
                          __float2half(INFINITY)};
    EXPECT_EQ(reference::check_quantized(Layout::ColMajor, 4, 1, bad, 4, ref, mag, 1.0).failures, 4);
}

TEST(QuantizedReference, Fp8BoundGrowsWithTheIntervals) {
    // 128 products in a 14-bit accumulator, then FP32 adds: the first term dominates for short k.
    EXPECT_DOUBLE_EQ(reference::fp8_gamma(128), 128 * 0x1p-13 + 5 * 0x1p-24);
    EXPECT_DOUBLE_EQ(reference::fp8_gamma(16384), 128 * 0x1p-13 + 132 * 0x1p-24);
    EXPECT_DOUBLE_EQ(reference::fp8_gamma(32), 32 * 0x1p-13 + 5 * 0x1p-24);
    // Block-wise: one more rounding, of each block's factor product.
    EXPECT_DOUBLE_EQ(reference::fp8_block_gamma(16384), 128 * 0x1p-13 + 133 * 0x1p-24);
}

} // namespace
} // namespace gemmlab
