// Argument validation: every rule of the API, checked without a GPU (validate_gemm makes no CUDA
// call), each with its own Status and a message naming the argument, its value and the rule.

#include <concepts>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <type_traits>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "gemmlab/quantized.hpp"
#include "gemmlab/gemmlab.hpp"

namespace {

using gemmlab::Layout;
using gemmlab::Op;
using gemmlab::Status;

// Stand-in pointers: validation never dereferences them.
const float* const kA = reinterpret_cast<const float*>(0x1000);
const float* const kB = reinterpret_cast<const float*>(0x2000);
const float* const kC = reinterpret_cast<const float*>(0x3000);

struct Call {
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::N;
    int64_t m = 4, n = 6, k = 5;
    float alpha = 1.f;
    const float* A = kA;
    int64_t lda = 5;
    const float* B = kB;
    int64_t ldb = 6;
    float beta = 0.f;
    const float* C = kC;
    int64_t ldc = 6;
    std::string kernel = "auto";
    int sm_count_target = 0;
    int emulation_moduli = 0;

    Status run() const {
        gemmlab::GemmOptions o;
        o.kernel = kernel;
        o.sm_count_target = sm_count_target;
        o.emulation_moduli = emulation_moduli;
        return gemmlab::validate_gemm<float>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb,
                                             beta, C, ldc, o);
    }
};

std::string msg() { return gemmlab::last_error(); }

TEST(Validation, ValidCallPassesAndClearsTheMessage) {
    Call c;
    c.lda = 3; // first a failing call leaves a message
    ASSERT_NE(c.run(), Status::Success);
    ASSERT_FALSE(msg().empty());
    EXPECT_EQ(Call{}.run(), Status::Success);
    EXPECT_TRUE(msg().empty());
}

TEST(Validation, NegativeSizes) {
    for (int which = 0; which < 3; ++which) {
        Call c;
        (which == 0 ? c.m : which == 1 ? c.n : c.k) = -2;
        EXPECT_EQ(c.run(), Status::InvalidSize);
        EXPECT_NE(msg().find(std::string(1, "mnk"[which]) + " = -2"), std::string::npos) << msg();
    }
}

// 0 means every SM and any positive count is a target (one above the device's SMs means all
// of them); only a negative one is refused.
TEST(Validation, SmCountTargetMayNotBeNegative) {
    Call c;
    c.sm_count_target = -1;
    EXPECT_EQ(c.run(), Status::InvalidSize);
    EXPECT_NE(msg().find("options.sm_count_target = -1"), std::string::npos) << msg();
    for (int target : {0, 1, 100000}) {
        c.sm_count_target = target;
        EXPECT_EQ(c.run(), Status::Success) << target << ": " << msg();
    }
}

// Rung 31's modulus count: 0 (automatic) through kMaxEmulationModuli, whatever the kernel.
TEST(Validation, EmulationModuliWithinTheTable) {
    Call c;
    for (int bad : {-1, gemmlab::kMaxEmulationModuli + 1}) {
        c.emulation_moduli = bad;
        EXPECT_EQ(c.run(), Status::InvalidSize) << bad;
        EXPECT_NE(msg().find("options.emulation_moduli = " + std::to_string(bad)), std::string::npos)
            << msg();
    }
    for (int good : {0, 1, gemmlab::kMaxEmulationModuli}) {
        c.emulation_moduli = good;
        EXPECT_EQ(c.run(), Status::Success) << good << ": " << msg();
    }
    EXPECT_STREQ(gemmlab::to_string(gemmlab::Precision::Int8Emulation), "int8_emulation");
}

TEST(Validation, RowMajorLeadingDimensionMessageNamesRule) {
    Call c;
    c.lda = 3;
    EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
    EXPECT_EQ(msg(), "lda = 3 is less than max(1, k) = 5 (row-major A, op N)");
}

// Minimal leading dimension of each operand for every layout and op: one below fails, equal passes.
TEST(Validation, EveryLeadingDimensionRule) {
    const int64_t m = 4, n = 6, k = 5;
    for (Layout layout : {Layout::RowMajor, Layout::ColMajor})
        for (Op oa : {Op::N, Op::T})
            for (Op ob : {Op::N, Op::T}) {
                const bool row = layout == Layout::RowMajor;
                const int64_t a_rows = oa == Op::T ? k : m, a_cols = oa == Op::T ? m : k;
                const int64_t b_rows = ob == Op::T ? n : k, b_cols = ob == Op::T ? k : n;
                Call c;
                c.layout = layout;
                c.op_a = oa;
                c.op_b = ob;
                c.lda = row ? a_cols : a_rows;
                c.ldb = row ? b_cols : b_rows;
                c.ldc = row ? n : m;
                ASSERT_EQ(c.run(), Status::Success) << msg();
                for (int which = 0; which < 3; ++which) {
                    Call bad = c;
                    int64_t& ld = which == 0 ? bad.lda : which == 1 ? bad.ldb : bad.ldc;
                    ld -= 1;
                    EXPECT_EQ(bad.run(), Status::InvalidLeadingDimension)
                        << "layout " << row << " ops " << int(oa) << int(ob) << " operand " << which;
                    EXPECT_NE(msg().find(std::string("ld") + "abc"[which] + " = " + std::to_string(ld)),
                              std::string::npos) << msg();
                    EXPECT_NE(msg().find(row ? "row-major" : "column-major"), std::string::npos);
                }
            }
}

TEST(Validation, LeadingDimensionAtLeastOneEvenForEmptyMatrices) {
    Call c;
    c.m = 0;
    c.n = 0;
    c.k = 0;
    c.lda = 0;
    EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
    EXPECT_NE(msg().find("max(1, k) = 1"), std::string::npos) << msg();
}

TEST(Validation, NullPointers) {
    Call c;
    c.A = nullptr;
    EXPECT_EQ(c.run(), Status::NullPointer);
    EXPECT_NE(msg().find("A is null"), std::string::npos);
    c = Call{};
    c.B = nullptr;
    EXPECT_EQ(c.run(), Status::NullPointer);
    EXPECT_NE(msg().find("B is null"), std::string::npos);
    c = Call{};
    c.C = nullptr;
    EXPECT_EQ(c.run(), Status::NullPointer);
    EXPECT_NE(msg().find("C is null"), std::string::npos);
}

TEST(Validation, PointersNotNeededMayBeNull) {
    Call c;
    c.k = 0; // C = beta*C: A and B are never read
    c.A = nullptr;
    c.B = nullptr;
    EXPECT_EQ(c.run(), Status::Success) << msg();
    c = Call{};
    c.alpha = 0.f;
    c.A = nullptr;
    EXPECT_EQ(c.run(), Status::Success) << msg();
    c = Call{};
    c.m = 0; // nothing at all is touched
    c.A = c.B = c.C = nullptr;
    EXPECT_EQ(c.run(), Status::Success) << msg();
}

TEST(Validation, OffsetOverflow) {
    Call c;
    c.layout = Layout::ColMajor;
    c.m = 4;
    c.k = int64_t(1) << 40;
    c.lda = int64_t(1) << 30; // (k - 1) * lda overflows int64
    c.ldb = c.k;
    c.ldc = 4;
    EXPECT_EQ(c.run(), Status::SizeOverflow);
    EXPECT_NE(msg().find("beyond int64"), std::string::npos) << msg();
    c.lda = std::numeric_limits<int64_t>::max();
    c.k = 2;
    c.ldb = 2;
    EXPECT_EQ(c.run(), Status::SizeOverflow) << msg();
}

TEST(Validation, KernelChoice) {
    Call c;
    for (const char* ok : {"auto", "cublas", "0", "naive", "1", "coalesced", "2"}) {
        c.kernel = ok;
        EXPECT_EQ(c.run(), Status::Success) << ok << ": " << msg();
    }
    // A number only in its canonical spelling: no sign, no leading zero, no space.
    for (const char* bad : {"fastest", "99", "-1", "", "Naive", "01", "-0", "+1", "1 ", "0x1", "00"}) {
        c.kernel = bad;
        EXPECT_EQ(c.run(), Status::UnknownKernel) << bad;
        EXPECT_NE(msg().find(std::string("'") + bad + "'"), std::string::npos) << msg();
    }
}

TEST(Validation, EveryRegisteredRungIsSelectableByNameAndNumberForItsTypes) {
    Call c;
    const double *a = reinterpret_cast<const double*>(0x1000), *b = a + 64, *cc = a + 128;
    for (const auto& k : gemmlab::gpu_kernels()) {
        gemmlab::GemmOptions o;
        for (std::string key : {std::string(k.name), std::to_string(k.number)}) {
            c.kernel = o.kernel = key;
            EXPECT_EQ(c.run(), k.supports(gemmlab::DataType::F32) ? Status::Success : Status::UnsupportedType)
                << key;
            EXPECT_EQ(gemmlab::validate_gemm<double>(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.0, a, 3,
                                                     b, 3, 0.0, cc, 3, o),
                      k.supports(gemmlab::DataType::F64) ? Status::Success : Status::UnsupportedType)
                << key;
        }
    }
}

TEST(Validation, ATypeTheRungLacksNamesBothTheRungAndTheType) {
    Call c;
    c.kernel = "dmma";
    EXPECT_EQ(c.run(), Status::UnsupportedType);
    EXPECT_EQ(msg(), "kernel 'dmma' (rung 15, dmma) supports f64 only; this call's type is f32");
    gemmlab::GemmOptions o;
    o.kernel = "tf32x3";
    const double *a = reinterpret_cast<const double*>(0x1000), *b = a + 64, *cc = a + 128;
    EXPECT_EQ(gemmlab::validate_gemm<double>(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.0, a, 3, b, 3,
                                             0.0, cc, 3, o),
              Status::UnsupportedType);
    EXPECT_NE(msg().find("supports f32 only; this call's type is f64"), std::string::npos) << msg();
}

TEST(Registry, TensorCoreRungsDeclareTheirTypesAndPrecision) {
    const auto dmma = gemmlab::find_gpu_kernel("dmma");
    const auto tf32 = gemmlab::find_gpu_kernel("tf32");
    const auto tf32x3 = gemmlab::find_gpu_kernel("tf32x3");
    ASSERT_TRUE(dmma && tf32 && tf32x3);
    EXPECT_TRUE(dmma->supports(gemmlab::DataType::F64));
    EXPECT_FALSE(dmma->supports(gemmlab::DataType::F32));
    EXPECT_EQ(dmma->precision, gemmlab::Precision::Default);
    EXPECT_EQ(tf32->precision, gemmlab::Precision::Tf32);
    EXPECT_FALSE(tf32->supports(gemmlab::DataType::F64));
    // The FP32-accurate split claims the float type's own precision.
    EXPECT_EQ(tf32x3->precision, gemmlab::Precision::Default);
    for (const auto& k : gemmlab::gpu_kernels())
        if (k.precision == gemmlab::Precision::Tf32) EXPECT_EQ(k.engine, gemmlab::Engine::TensorCores) << k.name;
}

TEST(Validation, DoubleUsesTheSameRules) {
    const double *a = reinterpret_cast<const double*>(0x1000), *b = a + 64, *cc = a + 128;
    EXPECT_EQ(gemmlab::validate_gemm<double>(Layout::ColMajor, Op::T, Op::N, 3, 3, 7, 1.0, a, 6, b,
                                             7, 0.0, cc, 3),
              Status::InvalidLeadingDimension);
    EXPECT_EQ(msg(), "lda = 6 is less than max(1, k) = 7 (column-major A, op T)");
}

TEST(Status, EveryStatusHasAName) {
    for (int s = 0; s <= int(Status::InvalidStride); ++s)
        EXPECT_NE(gemmlab::to_string(Status(s)), "Unknown") << s;
    EXPECT_EQ(gemmlab::to_string(Status::UnsupportedDevice), "UnsupportedDevice");
    EXPECT_EQ(gemmlab::to_string(Status::InvalidStride), "InvalidStride");
}

TEST(Registry, RungsAreNumberedInOrderWithUniqueNames) {
    const auto rungs = gemmlab::gpu_kernels();
    ASSERT_GE(rungs.size(), 3u);
    // Numbers rise in table order; the 8-bit rungs (29, 30) sit in their own table
    // (quantized_kernels()), so the ladder's numbers skip them here.
    for (size_t i = 0; i < rungs.size(); ++i) {
        if (i > 0) EXPECT_GT(rungs[i].number, rungs[i - 1].number) << rungs[i].name;
        if (rungs[i].number <= 28) EXPECT_EQ(rungs[i].number, int(i));
        EXPECT_FALSE(rungs[i].technique.empty());
        EXPECT_FALSE(rungs[i].sources.empty());
        for (size_t j = 0; j < i; ++j) EXPECT_NE(rungs[i].name, rungs[j].name);
        EXPECT_EQ(gemmlab::find_gpu_kernel(rungs[i].name)->number, rungs[i].number);
    }
    for (const auto& q : gemmlab::quantized_kernels())
        for (const auto& r : rungs) EXPECT_NE(q.number, r.number) << q.name << " and " << r.name;
    EXPECT_EQ(rungs[0].name, "cublas");
    EXPECT_FALSE(gemmlab::find_gpu_kernel("auto"));
    EXPECT_EQ(gemmlab::cpu_kernels().size(), 4u);
}

// ------------------------------------------------------------------ half precision (BF16/FP16)

using gemmlab::DataType;

// Which overload a call resolves to, at compile time: float and double stay on the template,
// half inputs pick the non-template overload of their C type, and mixes that have no overload
// do not compile.
template <class TA, class TC, class TS>
concept GemmCallable = requires(const TA* a, TC* c, TS s) {
    { gemmlab::gemm(Layout::RowMajor, Op::N, Op::N, 1, 1, 1, s, a, 1, a, 1, s, c, 1) } -> std::same_as<Status>;
};
static_assert(GemmCallable<float, float, float>);
static_assert(GemmCallable<double, double, double>);
static_assert(GemmCallable<__nv_bfloat16, __nv_bfloat16, float>);
static_assert(GemmCallable<__nv_bfloat16, float, float>);
static_assert(GemmCallable<__half, __half, float>);
static_assert(GemmCallable<__half, float, float>);
static_assert(GemmCallable<__nv_bfloat16, float, double>); // alpha and beta convert to float
static_assert(GemmCallable<__half, float, int>);
static_assert(!GemmCallable<float, double, float>);          // as before: no mixed float/double
static_assert(!GemmCallable<float, float, double>);
static_assert(!GemmCallable<float, __nv_bfloat16, float>);   // float A with a half C: none
static_assert(!GemmCallable<__nv_bfloat16, __half, float>);  // the other half type: none
static_assert(!GemmCallable<__half, double, float>);         // double C: none
static_assert(!GemmCallable<__nv_bfloat16, __nv_bfloat16, void*>);

static_assert(gemmlab::data_type_of<__nv_bfloat16>() == DataType::BF16);
static_assert(gemmlab::data_type_of<__half>() == DataType::F16);
static_assert(std::string_view(gemmlab::to_string(DataType::BF16)) == "bf16");
static_assert(std::string_view(gemmlab::to_string(DataType::F16)) == "f16");

/// One half-precision validate_gemm call: A and B in TIn, C in TOut.
template <class TIn, class TOut>
struct HalfCall {
    Layout layout = Layout::RowMajor;
    Op op_a = Op::N, op_b = Op::N;
    int64_t m = 4, n = 6, k = 5;
    float alpha = 1.f;
    const TIn* A = reinterpret_cast<const TIn*>(0x1000);
    int64_t lda = 5;
    const TIn* B = reinterpret_cast<const TIn*>(0x2000);
    int64_t ldb = 6;
    float beta = 0.f;
    const TOut* C = reinterpret_cast<const TOut*>(0x3000);
    int64_t ldc = 6;
    std::string kernel = "auto";
    int sm_count_target = 0;

    Status run() const {
        gemmlab::GemmOptions o;
        o.kernel = kernel;
        o.sm_count_target = sm_count_target;
        return gemmlab::validate_gemm(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C,
                                      ldc, o);
    }
};

template <class P>
class HalfValidation : public ::testing::Test {};
struct Bf16ToBf16 { using In = __nv_bfloat16; using Out = __nv_bfloat16; static constexpr const char* kName = "bf16"; };
struct Bf16ToF32 { using In = __nv_bfloat16; using Out = float; static constexpr const char* kName = "bf16 with C in f32"; };
struct F16ToF16 { using In = __half; using Out = __half; static constexpr const char* kName = "f16"; };
struct F16ToF32 { using In = __half; using Out = float; static constexpr const char* kName = "f16 with C in f32"; };
using HalfPairs = ::testing::Types<Bf16ToBf16, Bf16ToF32, F16ToF16, F16ToF32>;
TYPED_TEST_SUITE(HalfValidation, HalfPairs);

TYPED_TEST(HalfValidation, ValidCallPasses) {
    HalfCall<typename TypeParam::In, typename TypeParam::Out> c;
    for (const char* k : {"auto", "cublas", "0", "half_simt", "18"}) {
        c.kernel = k;
        EXPECT_EQ(c.run(), Status::Success) << k << ": " << msg();
        EXPECT_TRUE(msg().empty());
    }
}

TYPED_TEST(HalfValidation, EachBadArgumentHasItsOwnStatus) {
    using Call = HalfCall<typename TypeParam::In, typename TypeParam::Out>;
    for (int which = 0; which < 3; ++which) {
        Call c;
        (which == 0 ? c.m : which == 1 ? c.n : c.k) = -1;
        EXPECT_EQ(c.run(), Status::InvalidSize);
        EXPECT_NE(msg().find(std::string(1, "mnk"[which]) + " = -1"), std::string::npos) << msg();
    }
    {
        Call c;
        c.lda = 4;
        EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
        EXPECT_EQ(msg(), "lda = 4 is less than max(1, k) = 5 (row-major A, op N)");
        c = Call{};
        c.ldb = 5;
        EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
        EXPECT_NE(msg().find("ldb = 5"), std::string::npos) << msg();
        c = Call{};
        c.layout = Layout::ColMajor;
        c.lda = 4, c.ldb = 5, c.ldc = 3;
        EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
        EXPECT_EQ(msg(), "ldc = 3 is less than max(1, m) = 4 (column-major C)");
    }
    {
        Call c;
        c.A = nullptr;
        EXPECT_EQ(c.run(), Status::NullPointer);
        EXPECT_NE(msg().find("A is null"), std::string::npos);
        c = Call{};
        c.B = nullptr;
        EXPECT_EQ(c.run(), Status::NullPointer);
        EXPECT_NE(msg().find("B is null"), std::string::npos);
        c = Call{};
        c.C = nullptr;
        EXPECT_EQ(c.run(), Status::NullPointer);
        EXPECT_NE(msg().find("C is null"), std::string::npos);
        // Not read, so may be null: A and B when k == 0 or alpha == 0.
        c = Call{};
        c.alpha = 0.f;
        c.A = c.B = nullptr;
        EXPECT_EQ(c.run(), Status::Success) << msg();
        c.alpha = 1.f;
        c.k = 0;
        EXPECT_EQ(c.run(), Status::Success) << msg();
    }
    {
        Call c;
        c.layout = Layout::ColMajor;
        c.k = 2;
        c.lda = std::numeric_limits<int64_t>::max();
        c.ldb = 2, c.ldc = 4;
        EXPECT_EQ(c.run(), Status::SizeOverflow);
        EXPECT_NE(msg().find("beyond int64"), std::string::npos) << msg();
    }
    {
        Call c;
        c.kernel = "fastest";
        EXPECT_EQ(c.run(), Status::UnknownKernel);
        EXPECT_NE(msg().find("'fastest'"), std::string::npos) << msg();
    }
    {
        Call c;
        c.kernel = "naive"; // a float/double rung
        EXPECT_EQ(c.run(), Status::UnsupportedType);
        EXPECT_EQ(msg(), std::string("kernel 'naive' (rung 1, naive) supports f32, f64 only; this call's type is ") +
                             TypeParam::kName);
    }
}

// The overload a call picked shows in the type its message names.
TEST(HalfValidation, TheMessageNamesTheTypesOfTheOverloadThatRan) {
    gemmlab::GemmOptions o;
    o.kernel = "dmma";
    const auto* a16 = reinterpret_cast<const __nv_bfloat16*>(0x1000);
    const auto* c32 = reinterpret_cast<const float*>(0x3000);
    EXPECT_EQ(gemmlab::validate_gemm(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.0, a16, 3, a16, 3, 0.0,
                                     c32, 3, o),
              Status::UnsupportedType);
    EXPECT_NE(msg().find("this call's type is bf16 with C in f32"), std::string::npos) << msg();
    const auto* h = reinterpret_cast<const __half*>(0x1000);
    EXPECT_EQ(gemmlab::validate_gemm(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.f, h, 3, h, 3, 0.f, h, 3, o),
              Status::UnsupportedType);
    EXPECT_NE(msg().find("this call's type is f16"), std::string::npos) << msg();
    // A plain float call still goes to the template.
    const auto* f = reinterpret_cast<const float*>(0x1000);
    EXPECT_EQ(gemmlab::validate_gemm(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.f, f, 3, f, 3, 0.f, f, 3, o),
              Status::UnsupportedType);
    EXPECT_NE(msg().find("this call's type is f32"), std::string::npos) << msg();
    // Half rungs have no float or double.
    o.kernel = "half_simt";
    EXPECT_EQ(gemmlab::validate_gemm(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.f, f, 3, f, 3, 0.f, f, 3, o),
              Status::UnsupportedType);
    EXPECT_EQ(msg(), "kernel 'half_simt' (rung 18, half_simt) supports bf16, f16 only; this call's type is f32");
}

TEST(Registry, HalfPrecisionRungsAndTheirArchitecture) {
    const auto cublas = gemmlab::find_gpu_kernel("cublas");
    const auto simt = gemmlab::find_gpu_kernel("half_simt");
    ASSERT_TRUE(cublas && simt);
    for (DataType t : gemmlab::kAllDataTypes) EXPECT_TRUE(cublas->supports(t)) << gemmlab::to_string(t);
    EXPECT_TRUE(simt->supports(DataType::BF16));
    EXPECT_TRUE(simt->supports(DataType::F16));
    EXPECT_FALSE(simt->supports(DataType::F32));
    EXPECT_FALSE(simt->supports(DataType::F64));
    EXPECT_FALSE(simt->needs_sm90a);
    EXPECT_EQ(simt->engine, gemmlab::Engine::CudaCores);
    EXPECT_EQ(simt->precision, gemmlab::Precision::Default);
    bool portable_half = false; // auto needs a half rung that runs on any GPU
    for (const auto& k : gemmlab::gpu_kernels()) {
        EXPECT_NE(k.types.bits, 0u) << k.name;
        // A half rung has both half types (and, with them, both C types), and float and double
        // both (a rung of every type: cuBLAS, 27 small) or neither.
        const bool bf16 = k.supports(DataType::BF16), f16 = k.supports(DataType::F16);
        EXPECT_EQ(bf16, f16) << k.name;
        if (bf16) EXPECT_EQ(k.supports(DataType::F32), k.supports(DataType::F64)) << k.name;
        if (bf16 && k.engine != gemmlab::Engine::Library) {
            EXPECT_EQ(k.precision, gemmlab::Precision::Default) << k.name;
            portable_half |= !k.needs_sm90a;
        }
        if (k.needs_sm90a) EXPECT_EQ(k.engine, gemmlab::Engine::TensorCores) << k.name;
    }
    EXPECT_TRUE(portable_half);
    for (const auto& k : gemmlab::cpu_kernels()) EXPECT_FALSE(k.needs_sm90a) << k.name;
}

TEST(Registry, TheBuildSaysWhetherItHasSm90aCode) {
    // CMakeLists.txt: 90a among CMAKE_CUDA_ARCHITECTURES (the ci and device presets: 90a).
    EXPECT_EQ(gemmlab::built_with_sm90a(), bool(GEMMLAB_EXPECT_SM90A));
}

TEST(DeviceSupport, AnSm90aRungRunsOnlyOnComputeCapability90WithSm90aCode) {
    gemmlab::KernelInfo hopper = *gemmlab::find_gpu_kernel("half_simt");
    hopper.name = "pretend_wgmma";
    hopper.number = 99;
    hopper.engine = gemmlab::Engine::TensorCores;
    hopper.needs_sm90a = true;
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        EXPECT_EQ(gemmlab::check_device_support(hopper), Status::NoDevice);
        EXPECT_NE(msg().find("no CUDA device"), std::string::npos) << msg();
        EXPECT_EQ(gemmlab::check_device_support(*gemmlab::find_gpu_kernel("half_simt")), Status::NoDevice);
        return;
    }
    EXPECT_EQ(gemmlab::check_device_support(*gemmlab::find_gpu_kernel("half_simt")), Status::Success) << msg();
    int major = 0, minor = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    ASSERT_EQ(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0), cudaSuccess);
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    const bool can = major == 9 && minor == 0 && gemmlab::built_with_sm90a();
    for (int device : {-1, 0}) {
        const Status s = gemmlab::check_device_support(hopper, device);
        EXPECT_EQ(s, can ? Status::Success : Status::UnsupportedDevice) << msg();
        if (!can) {
            EXPECT_NE(msg().find("'pretend_wgmma' (rung 99)"), std::string::npos) << msg();
            EXPECT_NE(msg().find("sm_90a"), std::string::npos) << msg();
            EXPECT_NE(msg().find("compute capability " + std::to_string(major) + "." + std::to_string(minor)),
                      std::string::npos) << msg();
        }
    }
    EXPECT_EQ(gemmlab::check_device_support(hopper, count), Status::NoDevice);
}


// ------------------------------------------------------------------ strided batched GEMM

/// One validate_gemm_strided_batched call: Call's row-major 4x6x5 problem (A 4 x 5, B 5 x 6,
/// C 4 x 6: 20, 30 and 24 elements) three times, stored one after another.
struct BatchCall {
    Call base;
    int64_t stride_a = 20, stride_b = 30, stride_c = 24, batch_count = 3;

    Status run() const {
        gemmlab::GemmOptions o;
        o.kernel = base.kernel;
        return gemmlab::validate_gemm_strided_batched<float>(
            base.layout, base.op_a, base.op_b, base.m, base.n, base.k, base.alpha, base.A,
            base.lda, stride_a, base.B, base.ldb, stride_b, base.beta, base.C, base.ldc, stride_c,
            batch_count, o);
    }
};

TEST(BatchedValidation, ValidCallPassesAndClearsTheMessage) {
    BatchCall c;
    c.stride_a = -1;
    ASSERT_NE(c.run(), Status::Success);
    ASSERT_FALSE(msg().empty());
    EXPECT_EQ(BatchCall{}.run(), Status::Success) << msg();
    EXPECT_TRUE(msg().empty());
}

TEST(BatchedValidation, NegativeBatchCountIsAnInvalidSize) {
    BatchCall c;
    c.batch_count = -1;
    EXPECT_EQ(c.run(), Status::InvalidSize);
    EXPECT_EQ(msg(), "batch_count = -1 is negative (sizes must be >= 0)");
}

TEST(BatchedValidation, EachNegativeStrideIsNamed) {
    for (int which = 0; which < 3; ++which) {
        BatchCall c;
        (which == 0 ? c.stride_a : which == 1 ? c.stride_b : c.stride_c) = -7;
        EXPECT_EQ(c.run(), Status::InvalidStride) << which;
        EXPECT_EQ(msg().rfind(std::string("stride_") + "abc"[which] + " = -7 is negative", 0), 0u) << msg();
    }
    BatchCall c;
    c.stride_b = -1;
    EXPECT_EQ(c.run(), Status::InvalidStride);
    EXPECT_EQ(msg(), "stride_b = -1 is negative (batch strides must be >= 0; 0 gives every batch the same B)");
    // Negative is rejected whatever the batch count, even when nothing would be touched.
    for (int64_t count : {0, 1}) {
        BatchCall d;
        d.batch_count = count;
        d.stride_c = -1;
        EXPECT_EQ(d.run(), Status::InvalidStride) << count;
    }
}

TEST(BatchedValidation, StrideZeroBroadcastsAOrB) {
    for (int which = 0; which < 3; ++which) {
        BatchCall c;
        if (which != 1) c.stride_a = 0;
        if (which != 0) c.stride_b = 0;
        EXPECT_EQ(c.run(), Status::Success) << which << ": " << msg();
    }
}

// C's batches must not share an element: stride_c >= (m - 1) x ldc + n (row-major) or
// (n - 1) x ldc + m (column-major), the span of one C, once there are two batches.
TEST(BatchedValidation, OverlappingBatchesOfCAreRejected) {
    BatchCall c; // row-major 4 x 6, ldc 6: span 3 * 6 + 6 = 24
    for (int64_t stride : {0, 1, 6, 23}) {
        c.stride_c = stride;
        EXPECT_EQ(c.run(), Status::InvalidStride) << stride;
    }
    EXPECT_EQ(msg(), "stride_c = 23 is less than the 24 elements one C spans ((m - 1) x ldc + n, "
                     "row-major C): the 3 batches of C would overlap");
    for (int64_t stride : {24, 25, 1000}) {
        c.stride_c = stride;
        EXPECT_EQ(c.run(), Status::Success) << stride << ": " << msg();
    }
    // Row padding counts only up to the last row's last element: ldc 8 spans 3 * 8 + 6 = 30.
    c.base.ldc = 8;
    c.stride_c = 29;
    EXPECT_EQ(c.run(), Status::InvalidStride);
    c.stride_c = 30;
    EXPECT_EQ(c.run(), Status::Success) << msg();

    BatchCall col; // column-major 4 x 6, ldc 5: span 5 * 5 + 4 = 29
    col.base.layout = Layout::ColMajor;
    col.base.lda = 4, col.base.ldb = 5, col.base.ldc = 5;
    col.stride_c = 28;
    EXPECT_EQ(col.run(), Status::InvalidStride);
    EXPECT_EQ(msg(), "stride_c = 28 is less than the 29 elements one C spans ((n - 1) x ldc + m, "
                     "column-major C): the 3 batches of C would overlap");
    col.stride_c = 29;
    EXPECT_EQ(col.run(), Status::Success) << msg();
}

TEST(BatchedValidation, OneBatchOrAnEmptyCMayUseAnyStrideOfC) {
    BatchCall c;
    c.batch_count = 1;
    c.stride_c = 0;
    EXPECT_EQ(c.run(), Status::Success) << msg();
    c.batch_count = 3;
    c.base.m = 0; // no element of C to share
    EXPECT_EQ(c.run(), Status::Success) << msg();
}

TEST(BatchedValidation, BatchZeroTouchesNothingSoPointersMayBeNull) {
    BatchCall c;
    c.batch_count = 0;
    c.base.A = c.base.B = c.base.C = nullptr;
    c.stride_c = 0;
    EXPECT_EQ(c.run(), Status::Success) << msg();
    // The call itself returns before any CUDA call: no device is needed.
    float* none = nullptr;
    EXPECT_EQ(gemmlab::gemm_strided_batched<float>(Layout::RowMajor, Op::N, Op::N, 4, 6, 5, 1.f, none, 5,
                                                   20, none, 6, 30, 0.f, none, 6, 24, 0),
              Status::Success) << msg();
    // Other rules still hold at batch 0.
    c.base.lda = 4;
    EXPECT_EQ(c.run(), Status::InvalidLeadingDimension);
}

TEST(BatchedValidation, NullPointersAreStillCheckedForABatch) {
    BatchCall c;
    c.base.C = nullptr;
    EXPECT_EQ(c.run(), Status::NullPointer);
    EXPECT_NE(msg().find("C is null"), std::string::npos) << msg();
    c = BatchCall{};
    c.base.A = nullptr;
    EXPECT_EQ(c.run(), Status::NullPointer);
}

TEST(BatchedValidation, TheLastBatchMustLieInsideInt64) {
    const int64_t max = std::numeric_limits<int64_t>::max();
    BatchCall c;
    c.stride_a = max / 2; // 2 x (max / 2) + 19 > max
    EXPECT_EQ(c.run(), Status::SizeOverflow);
    EXPECT_EQ(msg(), "the last element of the last batch of A lies beyond int64: (batch_count - 1) x stride_a = 2 x " +
                         std::to_string(max / 2));
    c = BatchCall{};
    c.stride_b = max / 2 - 10; // 2 x stride = max - 21, + 29 overflows
    EXPECT_EQ(c.run(), Status::SizeOverflow);
    EXPECT_NE(msg().find("last batch of B"), std::string::npos) << msg();
    c.stride_b = max / 2 - 15; // max - 31 + 29: the last element fits
    EXPECT_EQ(c.run(), Status::Success) << msg();
    c = BatchCall{};
    c.batch_count = max / 10; // (count - 1) x 24 overflows; A and B are shared, so only C's does
    c.stride_a = c.stride_b = 0;
    EXPECT_EQ(c.run(), Status::SizeOverflow);
    EXPECT_NE(msg().find("last batch of C"), std::string::npos) << msg();
    // An operand the call does not read may have any stride: alpha == 0 never reads A or B.
    c = BatchCall{};
    c.base.alpha = 0.f;
    c.stride_a = max;
    EXPECT_EQ(c.run(), Status::Success) << msg();
}

TEST(BatchedValidation, GemmStridedBatchedValidatesBeforeAnyCudaCall) {
    // No GPU is needed to get each argument's own Status back from the call itself.
    const float* a = kA;
    float* cc = const_cast<float*>(kC);
    EXPECT_EQ(gemmlab::gemm_strided_batched<float>(Layout::RowMajor, Op::N, Op::N, 4, 6, 5, 1.f, a, 5,
                                                   20, kB, 6, 30, 0.f, cc, 6, 10, 3),
              Status::InvalidStride);
    EXPECT_NE(msg().find("would overlap"), std::string::npos) << msg();
    EXPECT_EQ(gemmlab::gemm_strided_batched<float>(Layout::RowMajor, Op::N, Op::N, 4, 6, 5, 1.f, a, 5,
                                                   20, kB, 6, 30, 0.f, cc, 6, 24, -2),
              Status::InvalidSize);
}

TEST(BatchedValidation, KernelChoiceAsForGemm) {
    BatchCall c;
    // Every rung may be named: one that does not batch natively runs once per batch.
    for (const char* ok : {"auto", "cublas", "naive", "12", "warp_tile", "13"}) {
        c.base.kernel = ok;
        EXPECT_EQ(c.run(), Status::Success) << ok << ": " << msg();
    }
    c.base.kernel = "fastest";
    EXPECT_EQ(c.run(), Status::UnknownKernel);
    c.base.kernel = "dmma";
    EXPECT_EQ(c.run(), Status::UnsupportedType);
}

TEST(BatchedValidation, DoubleUsesTheSameRules) {
    const double *a = reinterpret_cast<const double*>(0x1000), *b = a + 64, *cc = a + 128;
    EXPECT_EQ(gemmlab::validate_gemm_strided_batched<double>(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.0,
                                                             a, 3, 9, b, 3, 0, 0.0, cc, 3, 8, 2),
              Status::InvalidStride);
    EXPECT_NE(msg().find("stride_c = 8 is less than the 9 elements"), std::string::npos) << msg();
    EXPECT_EQ(gemmlab::validate_gemm_strided_batched<double>(Layout::ColMajor, Op::N, Op::N, 3, 3, 3, 1.0,
                                                             a, 3, 9, b, 3, 0, 0.0, cc, 3, 9, 2),
              Status::Success) << msg();
}

template <class TA, class TC, class TS>
concept BatchedCallable = requires(const TA* a, TC* c, TS s) {
    { gemmlab::gemm_strided_batched(Layout::RowMajor, Op::N, Op::N, 1, 1, 1, s, a, 1, 1, a, 1, 1, s, c,
                                    1, 1, 1) } -> std::same_as<Status>;
};
static_assert(BatchedCallable<float, float, float>);
static_assert(BatchedCallable<double, double, double>);
static_assert(BatchedCallable<__nv_bfloat16, __nv_bfloat16, float>);
static_assert(BatchedCallable<__nv_bfloat16, float, float>);
static_assert(BatchedCallable<__half, __half, float>);
static_assert(BatchedCallable<__half, float, float>);
static_assert(!BatchedCallable<float, double, float>);
static_assert(!BatchedCallable<__nv_bfloat16, __half, float>);

TYPED_TEST(HalfValidation, StridedBatchedRules) {
    using In = typename TypeParam::In;
    using Out = typename TypeParam::Out;
    const In* a = reinterpret_cast<const In*>(0x1000);
    const In* b = reinterpret_cast<const In*>(0x2000);
    const Out* cc = reinterpret_cast<const Out*>(0x3000);
    const auto call = [&](int64_t sa, int64_t sb, int64_t sc, int64_t count) {
        return gemmlab::validate_gemm_strided_batched(Layout::RowMajor, Op::N, Op::N, 4, 6, 5, 1.f, a, 5,
                                                      sa, b, 6, sb, 0.f, cc, 6, sc, count);
    };
    EXPECT_EQ(call(20, 30, 24, 3), Status::Success) << msg();
    EXPECT_EQ(call(0, 0, 24, 3), Status::Success) << msg(); // one A and one B for every batch
    EXPECT_EQ(call(20, 30, 23, 3), Status::InvalidStride);
    EXPECT_NE(msg().find("would overlap"), std::string::npos) << msg();
    EXPECT_EQ(call(-1, 30, 24, 3), Status::InvalidStride);
    EXPECT_EQ(call(20, 30, 24, -3), Status::InvalidSize);
    EXPECT_EQ(call(20, 30, 0, 0), Status::Success) << msg();
}

TEST(Registry, NativelyBatchedRungs) {
    // cuBLAS (strided batched calls) and the kernel families auto uses loop over gridDim.z
    // (rung 27 over work items of all batches, rung 28 over batches x column tiles), and the
    // Hopper skeleton's rungs 22-24 count a batch's tiles as work units of one grid; every other
    // rung is run once per batch by the API.
    const std::set<std::string_view> native = {"cublas", "warp_tile", "async_pipeline", "dmma",
                                               "tf32", "tf32x3", "half_simt", "mma_sync_f16",
                                               "warp_specialized", "cluster_multicast",
                                               "persistent", "small", "decode"};
    for (const auto& k : gemmlab::gpu_kernels())
        EXPECT_EQ(k.native_batch, native.count(k.name) == 1) << k.name;
    for (const auto& k : gemmlab::cpu_kernels()) EXPECT_FALSE(k.native_batch) << k.name;
}

TEST(DeviceSupport, ARungBelowItsComputeCapabilityIsRefusedWithTheReason) {
    // Rung 15's FP64 m16n8k16 DMMA exists from sm_90 on.
    const auto dmma = gemmlab::find_gpu_kernel("dmma");
    ASSERT_TRUE(dmma);
    EXPECT_EQ(dmma->min_compute_capability, 90);
    EXPECT_FALSE(dmma->needs_sm90a);
    for (const auto& k : gemmlab::cpu_kernels()) EXPECT_EQ(k.min_compute_capability, 0) << k.name;

    gemmlab::KernelInfo future = *gemmlab::find_gpu_kernel("warp_tile");
    future.name = "pretend_future";
    future.number = 98;
    future.min_compute_capability = 255; // no GPU has 25.5
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        EXPECT_EQ(gemmlab::check_device_support(future), Status::NoDevice);
        return;
    }
    EXPECT_EQ(gemmlab::check_device_support(future), Status::UnsupportedDevice);
    EXPECT_NE(msg().find("'pretend_future' (rung 98) needs compute capability 25.5 or later"),
              std::string::npos) << msg();
    int major = 0;
    ASSERT_EQ(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0), cudaSuccess);
    EXPECT_EQ(gemmlab::check_device_support(*dmma, 0),
              major >= 9 ? Status::Success : Status::UnsupportedDevice) << msg();
}

} // namespace
