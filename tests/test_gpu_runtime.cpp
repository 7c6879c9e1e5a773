// The portability layer (src/common/gpu_runtime.hpp) on the CPU, in both builds: what the CUDA
// names mean, the warp width each build assumes, and that a failing runtime call reports the
// function and the error. In the HIP build also the rung table (src/hip/ladder.hpp) and, where an
// AMD GPU is present, every rung against the CPU reference (skipped without one).

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

#include "common/cuda_check.hpp"
#include "common/gpu_runtime.hpp"

#if defined(GEMMLAB_HIP)
#include <random>
#include <vector>

#include "common/device_buffer.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/reference.hpp"
#include "hip/ladder.hpp"
#endif

namespace {

#if defined(GEMMLAB_HIP)

TEST(GpuRuntime, HipBuildMapsCudaNamesToHip) {
    EXPECT_TRUE(gemmlab::kHipBuild);
    EXPECT_STREQ(gemmlab::kGpuPlatform, "HIP");
    static_assert(std::is_same_v<cudaStream_t, hipStream_t>);
    static_assert(std::is_same_v<cudaError_t, hipError_t>);
    static_assert(std::is_same_v<cudaEvent_t, hipEvent_t>);
    EXPECT_EQ(cudaSuccess, hipSuccess);
    EXPECT_EQ(cudaErrorMemoryAllocation, hipErrorOutOfMemory);
    EXPECT_EQ(cudaMemcpyHostToDevice, hipMemcpyHostToDevice);
}

TEST(GpuRuntime, HipBuildAssumes64LaneWavefronts) { EXPECT_EQ(gemmlab::kWarpSize, 64); }

TEST(GpuRuntime, Bfloat16StandInRoundsToNearestEven) {
    // 1 + 2^-8 lies halfway between two BF16 values (1 and 1 + 2^-7): ties go to even (1).
    EXPECT_EQ(__bfloat162float(__float2bfloat16_rn(1.0f + 0x1p-8f)), 1.0f);
    // 1 + 3 * 2^-8 is halfway between 1 + 2^-7 and 1 + 2^-6: even is 1 + 2^-6.
    EXPECT_EQ(__bfloat162float(__float2bfloat16_rn(1.0f + 3 * 0x1p-8f)), 1.0f + 0x1p-6f);
    EXPECT_EQ(__bfloat162float(__float2bfloat16_rn(-2.5f)), -2.5f);
}

TEST(GpuRuntime, DoubleToSixteenBitsRoundsOnce) {
    // Just above the tie between two BF16 (FP16) values: rounding through float first lands
    // exactly on the tie and goes to even (down); one correct rounding goes up.
    const double above_bf16_tie = 1.0 + 0x1p-8 + 0x1p-30;
    EXPECT_EQ(__bfloat162float(__double2bfloat16(above_bf16_tie)), 1.0f + 0x1p-7f);
    EXPECT_EQ(__bfloat162float(__double2bfloat16(-above_bf16_tie)), -1.0f - 0x1p-7f);
    EXPECT_EQ(__bfloat162float(__double2bfloat16(1.0 + 0x1p-8)), 1.0f); // the tie itself: even
    const double above_half_tie = 1.0 + 0x1p-11 + 0x1p-30;
    EXPECT_EQ(__half2float(__double2half(above_half_tie)), 1.0f + 0x1p-10f);
    EXPECT_EQ(__half2float(__double2half(1.0 + 0x1p-11)), 1.0f);
    EXPECT_EQ(__bfloat162float(__double2bfloat16(0.75)), 0.75f); // exact values stay exact
}

TEST(HipLadder, HasRungsOneToTwelveByNameAndNumber) {
    const auto rungs = gemmlab::hip::rungs();
    ASSERT_EQ(rungs.size(), 12u);
    for (size_t i = 0; i < rungs.size(); ++i) {
        EXPECT_EQ(rungs[i].number, int(i) + 1);
        EXPECT_NE(rungs[i].f32, nullptr);
        EXPECT_NE(rungs[i].f64, nullptr);
        EXPECT_EQ(gemmlab::hip::find_rung(std::to_string(i + 1)), &rungs[i]);
        EXPECT_EQ(gemmlab::hip::find_rung(rungs[i].name), &rungs[i]);
    }
    EXPECT_EQ(gemmlab::hip::find_rung("thread_tile_8x8")->number, 10);
    EXPECT_EQ(gemmlab::hip::find_rung("13"), nullptr); // warp tiles: 32-lane layout, not built
    EXPECT_EQ(gemmlab::hip::find_rung("cublas"), nullptr);
    EXPECT_EQ(gemmlab::hip::find_rung(""), nullptr);
}

TEST(HipLadder, RejectsEmptyShapesBeforeAnyLaunch) {
    const auto& r = gemmlab::hip::rungs()[0];
    EXPECT_THROW(gemmlab::hip::gemm<float>(r, gemmlab::Layout::ColMajor, gemmlab::Op::N,
                                           gemmlab::Op::N, 0, 4, 4, 1.0f, nullptr, 1, nullptr, 4,
                                           0.0f, nullptr, 1),
                 std::invalid_argument);
    EXPECT_THROW(gemmlab::hip::gemm<double>(r, gemmlab::Layout::RowMajor, gemmlab::Op::N,
                                            gemmlab::Op::T, 4, 4, 4, 1.0, nullptr, 3, nullptr, 4,
                                            0.0, nullptr, 4),
                 std::invalid_argument); // lda = 3 < k = 4
}

bool has_hip_device() {
    int count = 0;
    return hipGetDeviceCount(&count) == hipSuccess && count > 0;
}

template <class T>
void check_every_rung(gemmlab::Layout layout, gemmlab::Op op_a, gemmlab::Op op_b) {
    const int64_t m = 77, n = 45, k = 131; // not multiples of any tile
    const bool row = layout == gemmlab::Layout::RowMajor;
    const int64_t ar = op_a == gemmlab::Op::N ? m : k, ac = op_a == gemmlab::Op::N ? k : m;
    const int64_t br = op_b == gemmlab::Op::N ? k : n, bc = op_b == gemmlab::Op::N ? n : k;
    const int64_t lda = row ? ac : ar, ldb = row ? bc : br, ldc = row ? n : m;
    std::mt19937 gen(12345);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<T> a(size_t(ar * ac)), b(size_t(br * bc)), c0(size_t(m * n));
    for (auto& x : a) x = T(dist(gen));
    for (auto& x : b) x = T(dist(gen));
    for (auto& x : c0) x = T(dist(gen));
    const T alpha = T(1.5), beta = T(-0.5);
    std::vector<double> ref(size_t(m * n)), mag(size_t(m * n));
    gemmlab::reference::gemm<T>(layout, op_a, op_b, m, n, k, alpha, a.data(), lda, b.data(), ldb,
                                beta, c0.data(), ldc, ref.data(), mag.data());
    gemmlab::DeviceBuffer<T> da(a.size()), db(b.size()), dc(c0.size());
    da.copy_from_host(a.data(), a.size());
    db.copy_from_host(b.data(), b.size());
    for (const auto& rung : gemmlab::hip::rungs()) {
        dc.copy_from_host(c0.data(), c0.size());
        gemmlab::hip::gemm<T>(rung, layout, op_a, op_b, m, n, k, alpha, da.get(), lda, db.get(),
                              ldb, beta, dc.get(), ldc);
        GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
        std::vector<T> c(c0.size());
        dc.copy_to_host(c.data(), c.size());
        const auto res = gemmlab::reference::check<T>(layout, m, n, k, c.data(), ldc, ref.data(),
                                                      mag.data());
        EXPECT_TRUE(res.pass) << "rung " << rung.number << " " << rung.name << ": worst ("
                              << res.worst_row << ", " << res.worst_col << ") got " << res.got
                              << " want " << res.want;
    }
}

TEST(HipLadderGpu, EveryRungMatchesTheCpuReference) {
    if (!has_hip_device()) GTEST_SKIP() << "no HIP device";
    for (auto layout : {gemmlab::Layout::ColMajor, gemmlab::Layout::RowMajor})
        for (auto op_a : {gemmlab::Op::N, gemmlab::Op::T})
            for (auto op_b : {gemmlab::Op::N, gemmlab::Op::T}) {
                check_every_rung<float>(layout, op_a, op_b);
                check_every_rung<double>(layout, op_a, op_b);
            }
}

#else // CUDA

TEST(GpuRuntime, CudaBuildKeepsCudaNamesAnd32LaneWarps) {
    EXPECT_FALSE(gemmlab::kHipBuild);
    EXPECT_STREQ(gemmlab::kGpuPlatform, "CUDA");
    EXPECT_EQ(gemmlab::kWarpSize, 32);
}

#endif

// Both builds: a failing runtime call names the API function (the HIP one in the HIP build,
// through the mapping) and the error; no GPU needed, the error is a bad argument.
TEST(GpuRuntime, FailedCallNamesTheFunctionAndTheError) {
    try {
        GEMMLAB_CUDA_CHECK(cudaErrorMemoryAllocation);
        FAIL() << "GEMMLAB_CUDA_CHECK did not throw";
    } catch (const gemmlab::CudaFailure& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find(" failed: "), std::string::npos) << what;
        EXPECT_NE(what.find(gemmlab::kHipBuild ? "hipErrorOutOfMemory" : "cudaErrorMemoryAllocation"),
                  std::string::npos)
            << what;
    }
}

} // namespace
