// The host side of a gemm call stays cheap (issue 10): a successful call allocates nothing on the
// host heap, for every entry point, whether it names a rung or asks for auto. Validation is
// checked without a GPU; the full call (pointer checks, auto's pick, the launch) where one is
// visible. `gemmlab overhead` measures the time; this file guards the rule that keeps it low,
// deterministically.
//
// Allocations are counted by replacing the global operator new in this test binary: every
// `new`, std::string or std::vector growth of the library's code reaches it. Counting is
// switched on per thread, only around the calls under test.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <gtest/gtest.h>

#include "common/device_buffer.hpp"
#include "common/device_info.hpp"
#include "gemm/pointer_check.hpp"
#include "gemmlab/gemmlab.hpp"
#include "test_support.hpp"

namespace {

std::atomic<long> g_allocations{0};
thread_local bool t_counting = false; // constant-initialized: safe to read inside operator new

void* counted_malloc(std::size_t size) {
    if (t_counting) g_allocations.fetch_add(1, std::memory_order_relaxed);
    if (void* p = std::malloc(size ? size : 1)) return p;
    throw std::bad_alloc();
}

} // namespace

void* operator new(std::size_t size) { return counted_malloc(size); }
void* operator new[](std::size_t size) { return counted_malloc(size); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace {

using gemmlab::DataType;
using gemmlab::GemmOptions;
using gemmlab::Layout;
using gemmlab::Op;
using gemmlab::Status;

/// Heap allocations the calling thread makes while running f.
template <class F>
long allocations_during(F&& f) {
    const long before = g_allocations.load();
    t_counting = true;
    f();
    t_counting = false;
    return g_allocations.load() - before;
}

/// Every element-type combination of the API: A/B in TIn, C in TOut, alpha/beta in TS.
template <class TIn, class TOut, class TS>
struct Types {
    using In = TIn;
    using Out = TOut;
    using Scalar = TS;
};
using F32 = Types<float, float, float>;
using F64 = Types<double, double, double>;
using Bf16 = Types<__nv_bfloat16, __nv_bfloat16, float>;
using Bf16F32 = Types<__nv_bfloat16, float, float>;
using F16 = Types<__half, __half, float>;
using F16F32 = Types<__half, float, float>;

/// One row-major NT call of m x n x k through the overload for T's types.
template <class T>
Status call_gemm(bool validate_only, int64_t m, int64_t n, int64_t k, const typename T::In* A,
                 const typename T::In* B, typename T::Out* C, const GemmOptions& o) {
    using S = typename T::Scalar;
    if constexpr (std::is_same_v<typename T::In, float> || std::is_same_v<typename T::In, double>) {
        if (validate_only)
            return gemmlab::validate_gemm<S>(Layout::RowMajor, Op::N, Op::T, m, n, k, S(1), A, k, B,
                                             k, S(0.5), C, n, o);
        return gemmlab::gemm<S>(Layout::RowMajor, Op::N, Op::T, m, n, k, S(1), A, k, B, k, S(0.5), C,
                                n, o);
    } else {
        if (validate_only)
            return gemmlab::validate_gemm(Layout::RowMajor, Op::N, Op::T, m, n, k, 1.f, A, k, B, k,
                                          0.5f, C, n, o);
        return gemmlab::gemm(Layout::RowMajor, Op::N, Op::T, m, n, k, 1.f, A, k, B, k, 0.5f, C, n, o);
    }
}

/// "auto", then every rung that has T's input type, by name and by number.
template <class T>
std::vector<std::string> kernel_keys() {
    std::vector<std::string> keys = {"auto"};
    for (const auto& k : gemmlab::gpu_kernels())
        if (k.supports(gemmlab::data_type_of<typename T::In>())) {
            keys.emplace_back(k.name);
            keys.push_back(std::to_string(k.number));
        }
    return keys;
}

template <class T>
void expect_validation_allocates_nothing() {
    // Stand-in pointers: validation never dereferences them.
    const auto* a = reinterpret_cast<const typename T::In*>(0x1000);
    const auto* b = reinterpret_cast<const typename T::In*>(0x2000);
    auto* c = reinterpret_cast<typename T::Out*>(0x3000);
    for (const std::string& key : kernel_keys<T>()) {
        GemmOptions o;
        o.kernel = key; // built outside the counted region: the caller's string, not ours
        Status s = Status::CudaError;
        const long n = allocations_during([&] { s = call_gemm<T>(true, 67, 45, 33, a, b, c, o); });
        EXPECT_EQ(s, Status::Success) << key << ": " << gemmlab::last_error();
        EXPECT_EQ(n, 0) << "validate_gemm with kernel '" << key << "' made " << n
                        << " heap allocations";
    }
}

TEST(HostPath, ValidationAllocatesNothingForAnyEntryPointOrKernel) {
    expect_validation_allocates_nothing<F32>();
    expect_validation_allocates_nothing<F64>();
    expect_validation_allocates_nothing<Bf16>();
    expect_validation_allocates_nothing<Bf16F32>();
    expect_validation_allocates_nothing<F16>();
    expect_validation_allocates_nothing<F16F32>();
}

// A failure still builds its full message (the strings moved to the failure path only).
TEST(HostPath, AFailureStillNamesTheOperandAndItsLayout) {
    const float* p = reinterpret_cast<const float*>(0x1000);
    EXPECT_EQ(gemmlab::validate_gemm<float>(Layout::ColMajor, Op::T, Op::N, 4, 6, 5, 1.f, p, 4, p, 5,
                                            0.f, p, 4),
              Status::InvalidLeadingDimension);
    EXPECT_EQ(std::string(gemmlab::last_error()),
              "lda = 4 is less than max(1, k) = 5 (column-major A, op T)");
}

// Informational: the validation cost per call on this host (no assertion on time: a loaded
// CI machine would make one flaky; the allocation count above is the deterministic guard).
TEST(HostPath, ValidationCostPerCall) {
    const float* p = reinterpret_cast<const float*>(0x1000);
    float* c = reinterpret_cast<float*>(0x3000);
    GemmOptions automatic, named;
    named.kernel = "17";
    for (const GemmOptions* o : {&automatic, &named}) {
        std::vector<double> ns;
        for (int rep = 0; rep < 9; ++rep) {
            constexpr int kCalls = 20000;
            int failures = 0;
            const auto t0 = std::chrono::steady_clock::now();
            for (int i = 0; i < kCalls; ++i)
                failures += gemmlab::validate_gemm<float>(Layout::RowMajor, Op::N, Op::N, 1, 1, 1, 1.f,
                                                          p, 1, p, 1, 0.f, c, 1, *o) != Status::Success;
            const auto t1 = std::chrono::steady_clock::now();
            ASSERT_EQ(failures, 0);
            ns.push_back(std::chrono::duration<double, std::nano>(t1 - t0).count() / kCalls);
        }
        std::sort(ns.begin(), ns.end());
        std::printf("validate_gemm<float> 1x1x1, kernel %s: %.1f ns per call (median of 9)\n",
                    o->kernel.c_str(), ns[ns.size() / 2]);
    }
}

// ------------------------------------------------------------------------------ with a GPU

/// After one warm-up call (module loading, one-time attributes, cuBLAS handle creation), further
/// calls allocate nothing on the host heap: validation, the pointer checks, auto's pick and the
/// launch. cuBLAS (rung 0) is left out: what cuBLAS allocates inside its own calls is its
/// business, and the gemmlab part of that path (a pooled handle) is the same pool lookup after
/// the first call.
template <class T>
void expect_calls_allocate_nothing() {
    constexpr int64_t m = 70, n = 66, k = 72; // n, k multiples of 8: the Hopper rungs' TMA path
    gemmlab::DeviceBuffer<typename T::In> A(size_t(m * k)), B(size_t(n * k));
    gemmlab::DeviceBuffer<typename T::Out> C(size_t(m * n));
    // Finite, nonzero values (0x3c bytes: 0.0115 as float, 1.06 as FP16, ...); the results are
    // not checked here, only that the calls succeed.
    GEMMLAB_CUDA_CHECK(cudaMemset(A.get(), 0x3c, A.bytes()));
    GEMMLAB_CUDA_CHECK(cudaMemset(B.get(), 0x3c, B.bytes()));
    GEMMLAB_CUDA_CHECK(cudaMemset(C.get(), 0x3c, C.bytes()));
    gemmlab::Stream stream;
    for (const std::string& key : kernel_keys<T>()) {
        const auto info = gemmlab::find_gpu_kernel(key);
        if (info && info->number == 0) continue; // cuBLAS: see above
        if (info && gemmlab::check_device_support(*info) != Status::Success) continue;
        GemmOptions o;
        o.kernel = key;
        o.stream = stream.get();
        ASSERT_EQ(call_gemm<T>(false, m, n, k, A.get(), B.get(), C.get(), o), Status::Success)
            << key << ": " << gemmlab::last_error();
        int failures = 0;
        const long count = allocations_during([&] {
            for (int i = 0; i < 10; ++i)
                failures += call_gemm<T>(false, m, n, k, A.get(), B.get(), C.get(), o) != Status::Success;
        });
        EXPECT_EQ(failures, 0) << key << ": " << gemmlab::last_error();
        EXPECT_EQ(count, 0) << "10 gemm calls with kernel '" << key << "' made " << count
                            << " heap allocations";
        GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    }
}

TEST(HostPathGpu, CallsAllocateNothingAfterTheFirst) {
    REQUIRE_GPU();
    expect_calls_allocate_nothing<F32>();
    expect_calls_allocate_nothing<F64>();
    expect_calls_allocate_nothing<Bf16>();
    expect_calls_allocate_nothing<Bf16F32>();
    expect_calls_allocate_nothing<F16>();
    expect_calls_allocate_nothing<F16F32>();
}

// The pointer checks run on every call (nothing about pointers is cached): a host pointer where
// a device pointer was accepted the call before is refused, and so is memory of another device
// (with two GPUs or more).
TEST(HostPathGpu, PointerChecksRunOnEveryCall) {
    REQUIRE_GPU();
    std::vector<float> host(64, 1.f);
    gemmlab::DeviceBuffer<float> dev(64);
    GEMMLAB_CUDA_CHECK(cudaMemset(dev.get(), 0x3c, dev.bytes()));
    float* d = dev.get();
    for (int rep = 0; rep < 2; ++rep) {
        ASSERT_EQ(gemmlab::gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, d, 4, d + 16, 4,
                                       0.f, d + 32, 4),
                  Status::Success) << gemmlab::last_error();
        EXPECT_EQ(gemmlab::gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, d, 4, host.data(),
                                       4, 0.f, d + 32, 4),
                  Status::NotDevicePointer);
        EXPECT_NE(std::string(gemmlab::last_error()).find("B is a host pointer"), std::string::npos)
            << gemmlab::last_error();
    }
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

// The driver query gemm makes (pointer_place) classifies every kind of memory as the runtime's
// cudaPointerGetAttributes does, on the calling thread and on a new thread that has made no CUDA
// call yet (no current context: the driver may not know the pointer there, and the runtime
// must settle it).
TEST(HostPathGpu, PointerChecksAgreeWithTheRuntime) {
    REQUIRE_GPU();
    namespace d = gemmlab::detail;
    int device = 0;
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
    gemmlab::DeviceBuffer<float> dev(64);
    void *pinned = nullptr, *managed = nullptr, *pooled = nullptr;
    GEMMLAB_CUDA_CHECK(cudaMallocHost(&pinned, 256));
    GEMMLAB_CUDA_CHECK(cudaMallocManaged(&managed, 256));
    GEMMLAB_CUDA_CHECK(cudaMallocAsync(&pooled, 256, nullptr));
    GEMMLAB_CUDA_CHECK(cudaStreamSynchronize(nullptr));
    std::vector<float> pageable(64);
    const struct {
        const char* what;
        const void* p;
        d::PointerPlace::Kind expected;
    } cases[] = {{"cudaMalloc", dev.get() + 3, d::PointerPlace::Usable},
                 {"cudaMallocHost", pinned, d::PointerPlace::Usable},
                 {"cudaMallocManaged", managed, d::PointerPlace::Usable},
                 {"cudaMallocAsync", pooled, d::PointerPlace::Usable},
                 {"std::vector", pageable.data(), d::PointerPlace::Host}};
    const auto check_all = [&](const char* where) {
        for (const auto& c : cases) {
            EXPECT_EQ(d::pointer_place(c.p, device).kind, c.expected) << c.what << " " << where;
            EXPECT_EQ(d::pointer_place_runtime(c.p, device).kind, c.expected) << c.what << " " << where;
        }
    };
    check_all("(this thread)");
    std::thread([&] {
        GEMMLAB_CUDA_CHECK(cudaSetDevice(device)); // sets the device, makes no context current
        check_all("(new thread)");
    }).join();
    GEMMLAB_CUDA_CHECK(cudaFreeAsync(pooled, nullptr));
    GEMMLAB_CUDA_CHECK(cudaFree(managed));
    GEMMLAB_CUDA_CHECK(cudaFreeHost(pinned));
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
}

TEST(HostPathGpu, MemoryOfAnotherDeviceIsRefused) {
    REQUIRE_GPU();
    if (gemmlab::visible_device_count() < 2) GTEST_SKIP() << "needs two GPUs";
    GEMMLAB_CUDA_CHECK(cudaSetDevice(1));
    gemmlab::DeviceBuffer<float> other(64);
    GEMMLAB_CUDA_CHECK(cudaSetDevice(0));
    gemmlab::DeviceBuffer<float> mine(64);
    EXPECT_EQ(gemmlab::gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, mine.get(), 4,
                                   other.get(), 4, 0.f, mine.get() + 32, 4),
              Status::NotDevicePointer);
    EXPECT_NE(std::string(gemmlab::last_error()).find("lives on device 1"), std::string::npos)
        << gemmlab::last_error();
}

// A tiny product runs on rung 27, launched through the driver on a function handle cached per
// thread and context (gemm/kernels/driver_launch.cuh): right on the first call, on a thread of
// its own, and after cudaDeviceReset has destroyed the context the cached handle came from
// (last in this file: the reset leaves the process a new context).
void expect_tiny_product_right() {
    std::vector<float> a(16, 1.f), b(16), c(16, -1.f);
    for (int k = 0; k < 4; ++k)
        for (int j = 0; j < 4; ++j) b[size_t(k * 4 + j)] = float(j + 1);
    gemmlab::DeviceBuffer<float> A(16), B(16), C(16);
    A.copy_from_host(a.data(), a.size());
    B.copy_from_host(b.data(), b.size());
    C.copy_from_host(c.data(), c.size());
    ASSERT_EQ(gemmlab::gemm<float>(Layout::RowMajor, Op::N, Op::N, 4, 4, 4, 1.f, A.get(), 4, B.get(),
                                   4, 0.f, C.get(), 4),
              Status::Success)
        << gemmlab::last_error();
    GEMMLAB_CUDA_CHECK(cudaDeviceSynchronize());
    C.copy_to_host(c.data(), c.size());
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j)
            EXPECT_EQ(c[size_t(i * 4 + j)], 4.f * float(j + 1)) << i << ", " << j;
}

TEST(HostPathGpu, TinyCallsAreRightOnNewThreadsAndAfterADeviceReset) {
    REQUIRE_GPU();
    expect_tiny_product_right();
    std::thread([] { expect_tiny_product_right(); }).join();
    GEMMLAB_CUDA_CHECK(cudaDeviceReset());
    expect_tiny_product_right();
    expect_tiny_product_right();
}

} // namespace
