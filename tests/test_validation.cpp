// Argument validation: every rule of the API, checked without a GPU (validate_gemm makes no CUDA
// call), each with its own Status and a message naming the argument, its value and the rule.

#include <cstdint>
#include <limits>
#include <string>

#include <gtest/gtest.h>

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

    Status run() const {
        gemmlab::GemmOptions o;
        o.kernel = kernel;
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
    for (const char* bad : {"fastest", "99", "-1", "", "Naive"}) {
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
    for (int s = 0; s <= int(Status::CublasError); ++s)
        EXPECT_NE(gemmlab::to_string(Status(s)), "Unknown") << s;
}

TEST(Registry, RungsAreNumberedInOrderWithUniqueNames) {
    const auto rungs = gemmlab::gpu_kernels();
    ASSERT_GE(rungs.size(), 3u);
    for (size_t i = 0; i < rungs.size(); ++i) {
        EXPECT_EQ(rungs[i].number, int(i));
        EXPECT_FALSE(rungs[i].technique.empty());
        EXPECT_FALSE(rungs[i].seeds.empty());
        for (size_t j = 0; j < i; ++j) EXPECT_NE(rungs[i].name, rungs[j].name);
        EXPECT_EQ(gemmlab::find_gpu_kernel(rungs[i].name)->number, int(i));
    }
    EXPECT_EQ(rungs[0].name, "cublas");
    EXPECT_FALSE(gemmlab::find_gpu_kernel("auto"));
    EXPECT_EQ(gemmlab::cpu_kernels().size(), 4u);
}

} // namespace
