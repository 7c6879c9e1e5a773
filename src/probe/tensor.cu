// tensor: the tensor cores' throughput and latency, and how tf32 and f64 mma round.
//
// Question: how many FLOP per clock does one SM's tensor cores retire through mma.sync, for the
// f64 shapes (m8n8k4 and Hopper's m16n8k4/k8/k16), tf32 m16n8k8 and bf16/fp16 m16n8k16 (f32
// accumulators), and through Hopper's warpgroup wgmma (bf16 m64nNk16, A and B from shared
// memory)? What is one mma's latency, so how many must be in flight? How many times the
// CUDA-core FMA peak is that? And for error analysis: how do the tf32, bf16 and fp16 mma and bf16
// wgmma round their FP32 accumulation (round to nearest or truncate, once per instruction or
// more), are their products exact, what does tf32 do with the low bits of an FP32 operand, and
// does the f64 mma round like IEEE fma?
//
// Method:
//  - mma.sync throughput: one block per SM (each block asks for more than half an SM's shared
//    memory, as `fma` does), 1..32 warps per block, each warp running 1, 4 or 8 independent
//    accumulator chains (acc[c] = A * B + acc[c]) on the same A and B fragments, as a register-
//    blocked GEMM reuses an A fragment across its N tiles. In-kernel clock64() between two
//    __syncthreads gives FLOP/clk per SM (median over SMs, median of 3 launches); CUDA events
//    around the launch give the same over the whole GPU as a cross-check. Chains x warps are
//    limited by registers: configurations needing more than 48 registers for fragments run
//    with at most 16 warps (512 threads), which leaves them 128 registers per thread.
//  - mma.sync latency: one warp, one chain of 2048 dependent mma (each one's D is the next one's
//    C), cycles / 2048.
//  - wgmma: bf16 m64nNk16, f32 accumulators, N = 64, 128, 256, 1 or 2 warpgroups per SM, each
//    issuing back-to-back batches of 4 wgmma on one accumulator (wgmma.fence, the batch,
//    commit_group, then wait_group 1, so one batch is always queued behind the running one),
//    A (one 64x16 tile per warpgroup) and B (Nx16) in shared memory, K-major, no swizzle
//    (tensor.hpp gives the layout and descriptor). Latency: one warpgroup, commit_group and
//    wait_group 0 after every wgmma. Before timing, one wgmma on small integers is checked
//    element by element against the host product, which validates the descriptor, the smem
//    layout and the D fragment layout.
//  - Rounding: single m16n8k8 mma (tf32 and f64) with C = +-1 and products of a few u = 2^-24
//    (2^-53 for f64) chosen so that round to nearest (ties to even or away), toward zero, down
//    and up each give a different set of results (tensor.hpp lists the cases and predictions).
//    Also: (2 - 2^-10)^2 with C = 0 (exact only if the tf32 product keeps all 22 bits);
//    1 + 2^-11 + 2^-12 passed as an FP32 operand (the result shows whether the 13 bits below
//    tf32 are truncated, rounded or used); f64 -1 + (1 + 2^-30)(1 - 2^-30), which is -2^-60
//    only if the product is not rounded before the addition (fused, like fma).
//    16-bit inputs with FP32 accumulators (docs/precision.md's BF16/FP16 bound assumes one
//    rounding per instruction): the same cases on bf16 and fp16 mma.sync m16n8k16 and on bf16
//    wgmma m64n64k16 (problem k on row k of A, column k of B and C(k, k), the descriptors the
//    layout check validated), with case 7 widened to 16 products of 0.5u and a case 8 that puts
//    1u at k = 0 and 1u at k = 8 (1 + 2u only if both halves of K are summed before rounding);
//    the factors are exact in bf16 and fp16 alike. Plus (2 - 2^-7)^2 (bf16, 16 bits) and
//    (2 - 2^-10)^2 (fp16, 22 bits) with C = 0: exact in FP32 if the products are.
//
// Keeping the work: every operand is a random non-zero normal number (zeros and constants make
// tensor cores draw less power and can look faster), the mma and wgmma are asm volatile, and
// every thread stores the sum of its accumulators.
//
// Expected on H100/H200 (what the published dense peaks imply per SM and clock): bf16/fp16 ~4096
// FLOP/clk/SM through wgmma, tf32 ~2048, f64 ~256 (2x the 128 of the FP64 FMA pipes); mma.sync
// of 16-bit types reportedly reaches only part of the wgmma rate on Hopper. wgmma with N = 64
// and both operands in shared memory reads 4 KiB per 32 clocks at 4096 FLOP/clk, the whole
// 128 B/clk shared-memory bandwidth, so small N may fall short of peak. Tensor-core FP32
// accumulation was found to truncate on earlier GPUs (Volta to Ampere studies); f64 mma is
// specified as IEEE fma, round to nearest even.

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <iterator>
#include <random>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "gemm/kernels/hopper_ptx.cuh"
#include "probe/probe_kit.hpp"
#include "probe/tensor.hpp"

namespace gemmlab::probe {
namespace {

namespace tc = tensor;

constexpr int kPool = 4096;                  // random operand values per pool (power of two)
constexpr int kRepeats = 3;                  // timed launches per point, after one warm-up
constexpr double kTargetFlopPerSm = 1 << 29; // work per SM per launch (~1 ms at 256 FLOP/clk)
constexpr int kMinIters = 256, kMaxIters = 4096;
constexpr int kLatencySteps = 2048;
constexpr int kFragmentRegBudget = 48; // 32-bit fragment registers that still fit 64 per thread
constexpr int kWgmmaBatch = 4;         // wgmma per commit_group in the throughput loop
constexpr int kWgmmaLatencySteps = 256;
constexpr uint32_t kATileBytes = 64 * 16 * 2;  // one (64, 16) bf16 tile
constexpr uint32_t kBOffset = 2 * kATileBytes; // image: A for warpgroup 0, A for 1, then B

// ================================================================================================
// PTX wrappers. Each instruction is written once; the fragment sizes are checked against the
// shape: per lane, registers x elements per register x 32 lanes = elements of the matrix.
// Section numbers are those of PTX ISA 9.0.

constexpr bool covers(int rows, int cols, int regs, int elems_per_reg) {
    return regs * elems_per_reg * 32 == rows * cols;
}

enum class Format { F64, Tf32, Bf16, F16 };

/// mma.sync shapes. PTX ISA "Warp-level Matrix Multiply-Accumulate Instructions: mma"
/// (9.7.14.5.14), fragments in "Matrix Fragments for mma.m8n8k4 with .f64", "... mma.m16n8k4",
/// "... mma.m16n8k8" and "... mma.m16n8k16 with floating point type". All are row.col.
struct MmaF64m8n8k4 {
    static constexpr const char* kName = "f64 m8n8k4";
    static constexpr const char* kKey = "f64_m8n8k4";
    static constexpr int M = 8, N = 8, K = 4, kA = 1, kB = 1, kC = 2, kElems = 1;
    static constexpr Format kFormat = Format::F64;
    using AReg = double;
    using BReg = double;
    using CReg = double;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m8n8k4 f64: 1 A, 1 B and 2 C values per lane");
    __device__ static void mma(double (&d)[kC], const double (&a)[kA], const double (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        __trap(); // never launched: run_tensor reads the code's arch first
#else
        asm volatile(
            "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};"
            : "+d"(d[0]), "+d"(d[1])
            : "d"(a[0]), "d"(b[0]));
#endif
    }
};

struct MmaF64m16n8k4 {
    static constexpr const char* kName = "f64 m16n8k4";
    static constexpr const char* kKey = "f64_m16n8k4";
    static constexpr int M = 16, N = 8, K = 4, kA = 2, kB = 1, kC = 4, kElems = 1;
    static constexpr Format kFormat = Format::F64;
    using AReg = double;
    using BReg = double;
    using CReg = double;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k4 f64: 2 A, 1 B and 4 C values per lane");
    __device__ static void mma(double (&d)[kC], const double (&a)[kA], const double (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        __trap(); // sm_90 shape; never launched on older code
#else
        asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, "
                     "{%6}, {%0, %1, %2, %3};"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(b[0]));
#endif
    }
};

struct MmaF64m16n8k8 {
    static constexpr const char* kName = "f64 m16n8k8";
    static constexpr const char* kKey = "f64_m16n8k8";
    static constexpr int M = 16, N = 8, K = 8, kA = 4, kB = 2, kC = 4, kElems = 1;
    static constexpr Format kFormat = Format::F64;
    using AReg = double;
    using BReg = double;
    using CReg = double;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k8 f64: 4 A, 2 B and 4 C values per lane");
    static_assert(kA == tc::m16n8k8::kA && kB == tc::m16n8k8::kB && kC == tc::m16n8k8::kC,
                  "the host-side layout in tensor.hpp must describe these fragments");
    __device__ static void mma(double (&d)[kC], const double (&a)[kA], const double (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        __trap(); // sm_90 shape; never launched on older code
#else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#endif
    }
};

struct MmaF64m16n8k16 {
    static constexpr const char* kName = "f64 m16n8k16";
    static constexpr const char* kKey = "f64_m16n8k16";
    static constexpr int M = 16, N = 8, K = 16, kA = 8, kB = 4, kC = 4, kElems = 1;
    static constexpr Format kFormat = Format::F64;
    using AReg = double;
    using BReg = double;
    using CReg = double;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k16 f64: 8 A, 4 B and 4 C values per lane");
    __device__ static void mma(double (&d)[kC], const double (&a)[kA], const double (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
        __trap(); // sm_90 shape; never launched on older code
#else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};"
                     : "+d"(d[0]), "+d"(d[1]), "+d"(d[2]), "+d"(d[3])
                     : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]),
                       "d"(a[7]), "d"(b[0]), "d"(b[1]), "d"(b[2]), "d"(b[3]));
#endif
    }
};

/// tf32 inputs are FP32 bit patterns; the mma reads only their top 19 bits (tf32).
struct MmaTf32m16n8k8 {
    static constexpr const char* kName = "tf32 m16n8k8";
    static constexpr const char* kKey = "tf32_m16n8k8";
    static constexpr int M = 16, N = 8, K = 8, kA = 4, kB = 2, kC = 4, kElems = 1;
    static constexpr Format kFormat = Format::Tf32;
    using AReg = uint32_t;
    using BReg = uint32_t;
    using CReg = float;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k8 tf32: 4 A, 2 B and 4 C values per lane");
    static_assert(kA == tc::m16n8k8::kA && kB == tc::m16n8k8::kB && kC == tc::m16n8k8::kC,
                  "the host-side layout in tensor.hpp must describe these fragments");
    __device__ static void mma(float (&d)[kC], const uint32_t (&a)[kA], const uint32_t (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        __trap();
#else
        asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
    }
};

/// bf16 and fp16 m16n8k16 differ only in the type names; each register packs two elements.
struct MmaBf16m16n8k16 {
    static constexpr const char* kName = "bf16 m16n8k16";
    static constexpr const char* kKey = "bf16_m16n8k16";
    static constexpr int M = 16, N = 8, K = 16, kA = 4, kB = 2, kC = 4, kElems = 2;
    static constexpr Format kFormat = Format::Bf16;
    using AReg = uint32_t;
    using BReg = uint32_t;
    using CReg = float;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k16 bf16: 4 A and 2 B registers of two bf16, 4 f32 C values per lane");
    static_assert(kA == tc::m16n8k16::kA && kB == tc::m16n8k16::kB && kC == tc::m16n8k16::kC &&
                      kElems == tc::m16n8k16::kElems,
                  "the host-side layout in tensor.hpp must describe these fragments");
    __device__ static void mma(float (&d)[kC], const uint32_t (&a)[kA], const uint32_t (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        __trap();
#else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
    }
};

struct MmaF16m16n8k16 {
    static constexpr const char* kName = "fp16 m16n8k16";
    static constexpr const char* kKey = "fp16_m16n8k16";
    static constexpr int M = 16, N = 8, K = 16, kA = 4, kB = 2, kC = 4, kElems = 2;
    static constexpr Format kFormat = Format::F16;
    using AReg = uint32_t;
    using BReg = uint32_t;
    using CReg = float;
    static_assert(covers(M, K, kA, kElems) && covers(K, N, kB, kElems) && covers(M, N, kC, 1),
                  "m16n8k16 fp16: 4 A and 2 B registers of two fp16, 4 f32 C values per lane");
    static_assert(kA == tc::m16n8k16::kA && kB == tc::m16n8k16::kB && kC == tc::m16n8k16::kC &&
                      kElems == tc::m16n8k16::kElems,
                  "the host-side layout in tensor.hpp must describe these fragments");
    __device__ static void mma(float (&d)[kC], const uint32_t (&a)[kA], const uint32_t (&b)[kB]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
        __trap();
#else
        asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
                     "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
                     : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                     : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
#endif
    }
};

template <class Op>
constexpr double flop_per_mma() {
    return 2.0 * Op::M * Op::N * Op::K;
}

/// 32-bit registers one lane's fragments take with `chains` accumulators.
template <class Op>
constexpr int fragment_regs(int chains) {
    return (chains * Op::kC * int(sizeof(typename Op::CReg)) +
            Op::kA * int(sizeof(typename Op::AReg)) + Op::kB * int(sizeof(typename Op::BReg))) /
           4;
}

/// Threads per block a kernel with `chains` accumulators is compiled for: 1024 (64 registers per
/// thread) when its fragments leave room for addresses and counters, else 512 (128 registers).
template <class Op, int kChains>
constexpr int max_threads() {
    return fragment_regs<Op>(kChains) <= kFragmentRegBudget ? 1024 : 512;
}

// ---- wgmma (sm_90a): the instructions rungs 20-26 issue, wrapped once in hopper_ptx.cuh
// (wgmma.mma_async, fence, commit_group, wait_group). GEMMLAB_SM90A is defined only where the
// compiler targets sm_90a; elsewhere the wgmma kernels below are empty and never launched.
namespace hopper = gemmlab::detail::hopper;

// ================================================================================================
// Kernels

/// out[0] = the __CUDA_ARCH__ of the code that runs, out[1] = 1 when that code has the sm_90a
/// features (wgmma). The host decides from these, not from the device's compute capability,
/// because older code (sm_80, or sm_90 without `a`) may run on a newer device.
__global__ void tensor_arch_kernel(int* out) {
#ifdef __CUDA_ARCH__
    out[0] = __CUDA_ARCH__;
#endif
#ifdef GEMMLAB_SM90A
    out[1] = 1;
#else
    out[1] = 0;
#endif
}

template <class Op>
struct Operands {
    const typename Op::AReg* a; // kPool values each
    const typename Op::BReg* b;
    const typename Op::CReg* c;
};

/// Every warp runs kChains independent chains acc[c] = A * B + acc[c] for `iters` trips. Thread 0
/// stores the block's clock64() cycles between two __syncthreads; every thread stores the sum of
/// its accumulators so that no mma is dead.
template <class Op, int kChains, int kMaxThreads>
__global__ void __launch_bounds__(kMaxThreads)
    mma_chains_kernel(Operands<Op> in, int iters, typename Op::CReg* sink,
                      long long* block_cycles) {
    using C = typename Op::CReg;
    const unsigned t = threadIdx.x + 977u * blockIdx.x; // spreads lanes and blocks over the pools
    typename Op::AReg a[Op::kA];
    typename Op::BReg b[Op::kB];
    C acc[kChains][Op::kC];
#pragma unroll
    for (int i = 0; i < Op::kA; ++i) a[i] = in.a[(t * Op::kA + i) % kPool];
#pragma unroll
    for (int i = 0; i < Op::kB; ++i) b[i] = in.b[(t * Op::kB + i) % kPool];
#pragma unroll
    for (int c = 0; c < kChains; ++c)
#pragma unroll
        for (int i = 0; i < Op::kC; ++i)
            acc[c][i] = in.c[(t * kChains * Op::kC + c * Op::kC + i) % kPool];

    __syncthreads();
    const long long c0 = clock64();
#pragma unroll 4
    for (int it = 0; it < iters; ++it)
#pragma unroll
        for (int c = 0; c < kChains; ++c) Op::mma(acc[c], a, b);
    __syncthreads();
    const long long c1 = clock64();

    C sum = 0;
#pragma unroll
    for (int c = 0; c < kChains; ++c)
#pragma unroll
        for (int i = 0; i < Op::kC; ++i) sum += acc[c][i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) block_cycles[blockIdx.x] = c1 - c0;
}

/// One warp, `cases` single mma: case k reads lane l's registers at [(k * 32 + l) * regs + i]
/// (the host places matrix elements with the layouts of tensor.hpp) and writes D the same way.
template <class Op>
__global__ void __launch_bounds__(32)
    mma_cases_kernel(const typename Op::AReg* a, const typename Op::BReg* b,
                     const typename Op::CReg* c, typename Op::CReg* d, int cases) {
    const int lane = threadIdx.x;
    for (int k = 0; k < cases; ++k) {
        typename Op::AReg ra[Op::kA];
        typename Op::BReg rb[Op::kB];
        typename Op::CReg rc[Op::kC];
        const int base = k * 32 + lane;
#pragma unroll
        for (int i = 0; i < Op::kA; ++i) ra[i] = a[base * Op::kA + i];
#pragma unroll
        for (int i = 0; i < Op::kB; ++i) rb[i] = b[base * Op::kB + i];
#pragma unroll
        for (int i = 0; i < Op::kC; ++i) rc[i] = c[base * Op::kC + i];
        Op::mma(rc, ra, rb);
#pragma unroll
        for (int i = 0; i < Op::kC; ++i) d[base * Op::kC + i] = rc[i];
    }
}

#ifdef GEMMLAB_SM90A
/// Copies the operand image (A of warpgroup 0, A of warpgroup 1, B) into shared memory and makes
/// it visible to wgmma's operand reads; returns the shared-memory address of the image.
__device__ __forceinline__ uint32_t stage_image(unsigned char* smem, const uint4* image,
                                                int image_bytes) {
    for (int i = threadIdx.x; i < image_bytes / 16; i += blockDim.x)
        reinterpret_cast<uint4*>(smem)[i] = image[i];
    hopper::fence_proxy_async();
    __syncthreads();
    return static_cast<uint32_t>(__cvta_generic_to_shared(smem));
}
#endif

/// Throughput (kLatency false): each warpgroup issues `iters` batches of kWgmmaBatch wgmma on one
/// accumulator, keeping one batch queued behind the running one. Latency (true): one wgmma per
/// commit, waited for before the next. clock64 and the sink as in mma_chains_kernel.
template <int N, bool kLatency>
__global__ void __launch_bounds__(256, 1)
    wgmma_kernel(const uint4* image, int image_bytes, uint64_t desc_strides, int iters, float* sink,
                 long long* block_cycles) {
#ifdef GEMMLAB_SM90A
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t base = stage_image(smem, image, image_bytes);
    const int warpgroup = threadIdx.x / 128;
    const uint64_t desc_a =
        desc_strides | tc::wgmma_descriptor(base + warpgroup * kATileBytes, 0, 0);
    const uint64_t desc_b = desc_strides | tc::wgmma_descriptor(base + kBOffset, 0, 0);

    float acc[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = 1e-3f * float((threadIdx.x + i) % 7 + 1);
    hopper::wgmma_fence();
    __syncthreads();
    const long long c0 = clock64();
    // Every loop trip opens with wgmma.fence, as CUTLASS's mainloops do per k-block: without it
    // ptxas injects one anyway (info C7519), counting the loop's accumulators as touched.
    if constexpr (kLatency) {
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
            hopper::wgmma_fence();
            hopper::wgmma<__nv_bfloat16, N, 0, 0>(acc, desc_a, desc_b, 1);
            hopper::wgmma_commit();
            hopper::wgmma_wait<0>();
        }
    } else {
#pragma unroll 1
        for (int it = 0; it < iters; ++it) {
            hopper::wgmma_fence();
#pragma unroll
            for (int u = 0; u < kWgmmaBatch; ++u)
                hopper::wgmma<__nv_bfloat16, N, 0, 0>(acc, desc_a, desc_b, 1);
            hopper::wgmma_commit();
            hopper::wgmma_wait<1>();
        }
        hopper::wgmma_wait<0>();
    }
    hopper::pin_accumulators(acc);
    __syncthreads();
    const long long c1 = clock64();

    float sum = 0;
#pragma unroll
    for (int i = 0; i < N / 2; ++i) sum += acc[i];
    sink[blockIdx.x * blockDim.x + threadIdx.x] = sum;
    if (threadIdx.x == 0) block_cycles[blockIdx.x] = c1 - c0;
#endif
}

/// One warpgroup, one wgmma of warpgroup 0's A and B: D = A * B (no accumulate) when c is null,
/// else D = A * B + C with thread t's register r of C read from c[t * N/2 + r]; thread t writes
/// its register r of D to d[t * N/2 + r] (the host maps both with tensor::wgmma_d).
template <int N>
__global__ void __launch_bounds__(128)
    wgmma_once_kernel(const uint4* image, int image_bytes, uint64_t desc_strides, const float* c,
                      float* d) {
#ifdef GEMMLAB_SM90A
    extern __shared__ __align__(128) unsigned char smem[];
    const uint32_t base = stage_image(smem, image, image_bytes);
    const uint64_t desc_a = desc_strides | tc::wgmma_descriptor(base, 0, 0);
    const uint64_t desc_b = desc_strides | tc::wgmma_descriptor(base + kBOffset, 0, 0);
    float acc[N / 2];
#pragma unroll
    for (int i = 0; i < N / 2; ++i) acc[i] = c ? c[threadIdx.x * (N / 2) + i] : 0.0f;
    hopper::wgmma_fence();
    hopper::wgmma<__nv_bfloat16, N, 0, 0>(acc, desc_a, desc_b, c ? 1 : 0);
    hopper::wgmma_commit();
    hopper::wgmma_wait<0>();
    hopper::pin_accumulators(acc);
#pragma unroll
    for (int i = 0; i < N / 2; ++i) d[threadIdx.x * (N / 2) + i] = acc[i];
#endif
}

// ================================================================================================
// Host side

struct CodeArch {
    int arch = 0;       // __CUDA_ARCH__ of the code that runs, e.g. 900
    bool wgmma = false; // sm_90a features compiled in
};

CodeArch query_code_arch() {
    DeviceBuffer<int> flags(2);
    GEMMLAB_CUDA_CHECK(cudaMemset(flags.get(), 0, 2 * sizeof(int)));
    tensor_arch_kernel<<<1, 1>>>(flags.get());
    GEMMLAB_CHECK_LAUNCH();
    int h[2] = {0, 0};
    flags.copy_to_host(h, 2);
    return {h[0], h[1] != 0};
}

/// A random non-zero normal value of magnitude in [0.5, 2) with random mantissa bits, as the
/// register holds it: an FP32 pattern with tf32's 10 mantissa bits, two bf16 or two fp16.
uint32_t random_bits(Format f, std::mt19937& rng) {
    auto one16 = [&](bool bf16) {
        const uint32_t r = rng();
        const uint32_t sign = r & 1u, high = (r >> 1) & 1u; // exponent 2^-1 or 2^0
        return bf16 ? (sign << 15) | ((126u + high) << 7) | ((r >> 2) & 0x7Fu)
                    : (sign << 15) | ((14u + high) << 10) | ((r >> 2) & 0x3FFu);
    };
    if (f == Format::Tf32) {
        const uint32_t r = rng();
        return ((r & 1u) << 31) | ((126u + ((r >> 1) & 1u)) << 23) | (((r >> 2) & 0x3FFu) << 13);
    }
    const bool bf16 = f == Format::Bf16;
    return one16(bf16) | one16(bf16) << 16;
}

double random_double(std::mt19937& rng) {
    std::uniform_real_distribution<double> mag(0.5, 2.0);
    return (rng() & 1u ? -1.0 : 1.0) * mag(rng);
}

template <class T>
T random_operand(Format f, std::mt19937& rng) {
    if constexpr (std::is_same_v<T, double>)
        return random_double(rng);
    else if constexpr (std::is_same_v<T, float>)
        return float(random_double(rng) * 0.5);
    else
        return random_bits(f, rng);
}

template <class Op>
struct Pools {
    DeviceBuffer<typename Op::AReg> a{kPool};
    DeviceBuffer<typename Op::BReg> b{kPool};
    DeviceBuffer<typename Op::CReg> c{kPool};
    explicit Pools(std::mt19937& rng) {
        fill(a, rng);
        fill(b, rng);
        fill(c, rng);
    }
    Operands<Op> operands() const { return {a.get(), b.get(), c.get()}; }

private:
    template <class T>
    static void fill(DeviceBuffer<T>& d, std::mt19937& rng) {
        std::vector<T> h(kPool);
        for (auto& v : h) v = random_operand<T>(Op::kFormat, rng);
        d.copy_from_host(h.data(), h.size());
    }
};

/// Dynamic shared memory that keeps a second block off an SM (the kernels use none of it).
size_t one_block_per_sm(const Context& ctx) {
    return std::min(ctx.smem_per_sm / 2 + 1024, ctx.smem_per_block_optin);
}

struct Timed {
    double clock_cycles = 0; // median over repeats of the median block's clock64 cycles
    double event_cycles = 0; // median over repeats of the event time, in SM cycles
};

/// Launches `launch` once untimed, then kRepeats times between events; `cycles` holds one entry
/// per block afterwards.
template <class Launch>
Timed time_launches(const Context& ctx, Launch&& launch, const DeviceBuffer<long long>& cycles,
                    int blocks) {
    Event start, stop;
    std::vector<double> clk, ev;
    std::vector<long long> h(static_cast<size_t>(blocks));
    for (int rep = 0; rep <= kRepeats; ++rep) {
        start.record();
        launch();
        GEMMLAB_CHECK_LAUNCH();
        stop.record();
        const double ms = stop.ms_since(start);
        cycles.copy_to_host(h.data(), h.size());
        if (rep == 0) continue;
        clk.push_back(kit::median(std::vector<double>(h.begin(), h.end())));
        ev.push_back(kit::ms_to_cycles(ctx, ms));
    }
    return {kit::median(clk), kit::median(ev)};
}

struct Best {
    double rate = 0;
    int warps = 0, chains = 0;
};

struct ShapeResult {
    const char* name = "";
    const char* key = "";
    bool f64 = false;
    double flop = 0;
    Best best;
    double latency_cycles = 0;
    Table table;
};

/// One sweep point: `warps` warps of kChains chains on every SM.
template <class Op, int kChains>
void sweep_point(const Context& ctx, const Pools<Op>& pools, int warps, ShapeResult& out) {
    constexpr int kThreads = max_threads<Op, kChains>();
    if (warps * 32 > kThreads) return;
    auto* kernel = mma_chains_kernel<Op, kChains, kThreads>;
    const size_t smem = one_block_per_sm(ctx);
    GEMMLAB_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    const int threads = warps * 32;
    const double per_chain = kTargetFlopPerSm / (flop_per_mma<Op>() * warps * kChains);
    const int iters = int(std::clamp(per_chain, double(kMinIters), double(kMaxIters)));
    DeviceBuffer<typename Op::CReg> sink(size_t(ctx.sm_count) * threads);
    DeviceBuffer<long long> cycles(size_t(ctx.sm_count));
    const Timed t = time_launches(
        ctx,
        [&] {
            kernel<<<ctx.sm_count, threads, smem>>>(pools.operands(), iters, sink.get(),
                                                    cycles.get());
        },
        cycles, ctx.sm_count);
    const double mmas = double(iters) * kChains;              // per warp
    const double flop_sm = mmas * warps * flop_per_mma<Op>(); // per block = per SM
    const double rate = flop_sm / t.clock_cycles;
    const double per_mma = t.clock_cycles / mmas;
    out.table.rows.push_back({double(warps), double(kChains), rate, flop_sm / t.event_cycles,
                              rate * ctx.sm_count * ctx.clock_mhz * 1e-6, per_mma,
                              ctx.cycles_to_ns(per_mma)});
    if (rate > out.best.rate) out.best = {rate, warps, kChains};
}

template <class Op>
ShapeResult measure_shape(const Context& ctx, std::mt19937& rng) {
    kit::progress(ctx, std::string("tensor mma.sync ") + Op::kName);
    ShapeResult r;
    r.name = Op::kName;
    r.key = Op::kKey;
    r.f64 = Op::kFormat == Format::F64;
    r.flop = flop_per_mma<Op>();
    const Pools<Op> pools(rng);

    r.table.title = std::string(Op::kName) +
                    " mma.sync throughput vs warps per SM and chains per warp "
                    "(one block per SM)";
    r.table.columns = {"warps per SM",
                       "chains per warp",
                       "FLOP per clk per SM (clock64)",
                       "FLOP per clk per SM (events)",
                       "whole GPU",
                       "time per mma per warp",
                       "time per mma per warp"};
    r.table.units = {"warps", "chains", "FLOP/clk/SM", "FLOP/clk/SM", "TFLOP/s", "cycles", "ns"};
    for (int warps : {1, 2, 4, 8, 16, 32}) {
        sweep_point<Op, 1>(ctx, pools, warps, r);
        sweep_point<Op, 4>(ctx, pools, warps, r);
        sweep_point<Op, 8>(ctx, pools, warps, r);
    }

    // Latency: one warp, one chain; its cycles per trip are one mma's latency.
    constexpr int kThreads = max_threads<Op, 1>();
    DeviceBuffer<typename Op::CReg> sink(32);
    DeviceBuffer<long long> cycles(1);
    const Timed t = time_launches(
        ctx,
        [&] {
            mma_chains_kernel<Op, 1, kThreads>
                <<<1, 32>>>(pools.operands(), kLatencySteps, sink.get(), cycles.get());
        },
        cycles, 1);
    r.latency_cycles = t.clock_cycles / kLatencySteps;
    return r;
}

// ---- wgmma

struct WgmmaImage {
    std::vector<uint16_t> bits; // A0 (64x16), A1 (64x16), B (Nx16), each in the tensor.hpp layout
    int bytes() const { return int(bits.size() * 2); }
};

/// Places element (row, k) of each operand at its byte offset; value(operand, row, k) gives the
/// bf16 bits, operand 0/1 = A of warpgroup 0/1, 2 = B (rows are B's columns n).
template <class Value>
WgmmaImage make_image(int n, Value value) {
    WgmmaImage img;
    img.bits.assign((kBOffset + uint32_t(n) * 32) / 2, 0);
    for (int op = 0; op < 3; ++op) {
        const int rows = op < 2 ? 64 : n;
        const uint32_t base = op < 2 ? op * kATileBytes : kBOffset;
        for (int row = 0; row < rows; ++row)
            for (int k = 0; k < 16; ++k)
                img.bits[(base + tc::kmajor_offset(row, k)) / 2] = value(op, row, k);
    }
    return img;
}

/// The bf16 pattern of x, which must be exactly a bf16 (the probe builds its operands so).
uint16_t exact_bf16(double x) {
    const tc::Bits16 b = tc::bf16_bits(x);
    if (!b.exact) throw std::logic_error("tensor: an operand is not exactly a bf16");
    return b.bits;
}

/// The fp16 pattern of x, which must be exactly an fp16.
uint16_t exact_fp16(double x) {
    const tc::Bits16 b = tc::fp16_bits(x);
    if (!b.exact) throw std::logic_error("tensor: an operand is not exactly an fp16");
    return b.bits;
}

struct WgmmaRow {
    int n = 0;
    bool checked = false;    // D matched the host product
    uint64_t strides = 0;    // the descriptor strides it matched with
    std::string layout_note; // which descriptor strides passed
    double best_rate = 0;
    int best_warpgroups = 0;
    double latency_cycles = 0;
};

/// Runs one exact wgmma on small integers with the descriptor strides `strides` and compares every
/// element of D with the host product.
template <int N>
bool wgmma_check(uint64_t strides, std::mt19937& rng) {
    std::uniform_int_distribution<int> small(-2, 2);
    std::vector<float> av(64 * 16), bv(N * 16);
    for (auto& v : av) v = float(small(rng));
    for (auto& v : bv) v = float(small(rng));
    const WgmmaImage img = make_image(N, [&](int op, int row, int k) {
        return op == 0   ? exact_bf16(av[size_t(row * 16 + k)])
               : op == 2 ? exact_bf16(bv[size_t(row * 16 + k)])
                         : uint16_t(0);
    });
    DeviceBuffer<uint16_t> dimg(img.bits.size());
    dimg.copy_from_host(img.bits.data(), img.bits.size());
    DeviceBuffer<float> d(size_t(128) * (N / 2));
    wgmma_once_kernel<N><<<1, 128, size_t(img.bytes())>>>(
        reinterpret_cast<const uint4*>(dimg.get()), img.bytes(), strides, nullptr, d.get());
    GEMMLAB_CHECK_LAUNCH();
    std::vector<float> h(size_t(128) * (N / 2));
    d.copy_to_host(h.data(), h.size());
    for (int t = 0; t < 128; ++t)
        for (int reg = 0; reg < N / 2; ++reg) {
            const tc::Coord at = tc::wgmma_d(t, reg);
            float want = 0;
            for (int k = 0; k < 16; ++k)
                want += av[size_t(at.row * 16 + k)] * bv[size_t(at.col * 16 + k)];
            if (h[size_t(t * (N / 2) + reg)] != want) return false;
        }
    return true;
}

template <int N>
WgmmaRow measure_wgmma(const Context& ctx, std::mt19937& rng, Table& table, Table& latency) {
    kit::progress(ctx, "tensor wgmma m64n" + std::to_string(N) + "k16");
    WgmmaRow row;
    row.n = N;
    // The documented strides first; if D comes out wrong, the two fields swapped, which tells
    // the first GPU run which reading of "leading" and "stride" the hardware has.
    const uint64_t documented =
        tc::wgmma_descriptor(0, tc::kLeadingByteOffset, tc::kStrideByteOffset);
    const uint64_t swapped = tc::wgmma_descriptor(0, tc::kStrideByteOffset, tc::kLeadingByteOffset);
    uint64_t strides = documented;
    if (wgmma_check<N>(documented, rng)) {
        row.checked = true;
        row.layout_note = "LBO 128 B along K, SBO 256 B along M/N, as documented";
    } else if (wgmma_check<N>(swapped, rng)) {
        row.checked = true;
        strides = swapped;
        row.layout_note = "only with LBO and SBO swapped (256 B in the LBO field, 128 B in SBO)";
    } else {
        row.layout_note = "D differs from the host product with either stride reading";
    }
    row.strides = strides;

    std::vector<uint32_t> random(kPool);
    for (auto& v : random) v = random_bits(Format::Bf16, rng);
    int next = 0;
    const WgmmaImage img = make_image(
        N, [&](int, int, int) { return uint16_t(random[size_t(next++ % kPool)] & 0xFFFFu); });
    DeviceBuffer<uint16_t> dimg(img.bits.size());
    dimg.copy_from_host(img.bits.data(), img.bits.size());
    const auto* image = reinterpret_cast<const uint4*>(dimg.get());
    const size_t smem = std::max(size_t(img.bytes()), one_block_per_sm(ctx));
    const double flop = 2.0 * 64 * N * 16;

    GEMMLAB_CUDA_CHECK(cudaFuncSetAttribute(
        wgmma_kernel<N, false>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
    for (int warpgroups : {1, 2}) {
        const int threads = 128 * warpgroups;
        const int iters =
            std::max(16, int(kTargetFlopPerSm * 4 / (flop * kWgmmaBatch * warpgroups)));
        DeviceBuffer<float> sink(size_t(ctx.sm_count) * threads);
        DeviceBuffer<long long> cycles(size_t(ctx.sm_count));
        const Timed t = time_launches(
            ctx,
            [&] {
                wgmma_kernel<N, false><<<ctx.sm_count, threads, smem>>>(
                    image, img.bytes(), strides, iters, sink.get(), cycles.get());
            },
            cycles, ctx.sm_count);
        const double per_wg = double(iters) * kWgmmaBatch;
        const double flop_sm = per_wg * warpgroups * flop;
        const double rate = flop_sm / t.clock_cycles;
        const double per_wgmma = t.clock_cycles / per_wg;
        table.rows.push_back({double(N), double(warpgroups), rate, flop_sm / t.event_cycles,
                              rate * ctx.sm_count * ctx.clock_mhz * 1e-6, per_wgmma,
                              ctx.cycles_to_ns(per_wgmma)});
        if (rate > row.best_rate) {
            row.best_rate = rate;
            row.best_warpgroups = warpgroups;
        }
    }

    DeviceBuffer<float> sink(128);
    DeviceBuffer<long long> cycles(1);
    const Timed t = time_launches(
        ctx,
        [&] {
            wgmma_kernel<N, true><<<1, 128, size_t(img.bytes())>>>(
                image, img.bytes(), strides, kWgmmaLatencySteps, sink.get(), cycles.get());
        },
        cycles, 1);
    row.latency_cycles = t.clock_cycles / kWgmmaLatencySteps;
    latency.rows.push_back(
        {double(N), flop, row.latency_cycles, ctx.cycles_to_ns(row.latency_cycles)});
    return row;
}

// ---- rounding

/// Which element of A, B and C/D register `reg` (element `e` of it) of `lane` holds, for the two
/// shapes the rounding cases run on: m16n8k8 (tf32, f64: one element per register) and m16n8k16
/// (bf16, fp16: two).
template <class Op>
struct CaseLayout {
    static_assert(Op::M == 16 && Op::N == 8 && (Op::K == 8 || Op::K == 16),
                  "the rounding cases run on m16n8k8 and m16n8k16 only");
    static tc::Coord a(int lane, int reg, int e) {
        if constexpr (Op::K == 8)
            return tc::m16n8k8::a(lane, reg);
        else
            return tc::m16n8k16::a(lane, reg, e);
    }
    static tc::Coord b(int lane, int reg, int e) {
        if constexpr (Op::K == 8)
            return tc::m16n8k8::b(lane, reg);
        else
            return tc::m16n8k16::b(lane, reg, e);
    }
    static tc::Coord c(int lane, int reg) { return tc::m16n8k8::c(lane, reg); }
};

/// One operand register of Op holding the values v[0 .. kElems): a double (f64), an FP32 bit
/// pattern (tf32: the mma reads its top 19 bits, and the operand case passes more on purpose), or
/// two exact bf16/fp16, v[0] in the low half.
template <class Op, class Reg>
Reg encode_register(const std::array<double, 2>& v) {
    if constexpr (Op::kFormat == Format::F64) {
        return v[0];
    } else if constexpr (Op::kFormat == Format::Tf32) {
        const float f = float(v[0]);
        uint32_t u;
        std::memcpy(&u, &f, 4);
        return u;
    } else {
        auto bits = Op::kFormat == Format::Bf16 ? exact_bf16 : exact_fp16;
        return uint32_t(bits(v[0])) | uint32_t(bits(v[1])) << 16;
    }
}

/// D(0, 0) of each problem, one mma per problem: A(0, k) = a[k], B(k, 0) = b[k], C(0, 0) = c,
/// every other element 0.
template <class Op>
std::vector<double> run_cases(const std::vector<tc::Problem>& problems) {
    using L = CaseLayout<Op>;
    using AReg = typename Op::AReg;
    using BReg = typename Op::BReg;
    using CReg = typename Op::CReg;
    const int cases = int(problems.size());
    std::vector<AReg> a(size_t(cases) * 32 * Op::kA);
    std::vector<BReg> b(size_t(cases) * 32 * Op::kB);
    std::vector<CReg> c(size_t(cases) * 32 * Op::kC, CReg(0));
    for (int k = 0; k < cases; ++k) {
        const tc::Problem& pr = problems[size_t(k)];
        for (int lane = 0; lane < 32; ++lane) {
            const size_t base = size_t(k * 32 + lane);
            for (int i = 0; i < Op::kA; ++i) {
                std::array<double, 2> v{};
                for (int e = 0; e < Op::kElems; ++e) {
                    const tc::Coord at = L::a(lane, i, e);
                    v[size_t(e)] = at.row == 0 ? pr.a[size_t(at.col)] : 0.0;
                }
                a[base * Op::kA + size_t(i)] = encode_register<Op, AReg>(v);
            }
            for (int i = 0; i < Op::kB; ++i) {
                std::array<double, 2> v{};
                for (int e = 0; e < Op::kElems; ++e) {
                    const tc::Coord at = L::b(lane, i, e);
                    v[size_t(e)] = at.col == 0 ? pr.b[size_t(at.row)] : 0.0;
                }
                b[base * Op::kB + size_t(i)] = encode_register<Op, BReg>(v);
            }
            for (int i = 0; i < Op::kC; ++i) {
                const tc::Coord at = L::c(lane, i);
                if (at.row == 0 && at.col == 0) c[base * Op::kC + size_t(i)] = CReg(pr.c);
            }
        }
    }
    DeviceBuffer<AReg> da(a.size());
    DeviceBuffer<BReg> db(b.size());
    DeviceBuffer<CReg> dc(c.size()), dd(c.size());
    da.copy_from_host(a.data(), a.size());
    db.copy_from_host(b.data(), b.size());
    dc.copy_from_host(c.data(), c.size());
    mma_cases_kernel<Op><<<1, 32>>>(da.get(), db.get(), dc.get(), dd.get(), cases);
    GEMMLAB_CHECK_LAUNCH();
    std::vector<CReg> h(c.size());
    dd.copy_to_host(h.data(), h.size());
    std::vector<double> out;
    for (int k = 0; k < cases; ++k)
        for (int lane = 0; lane < 32; ++lane)
            for (int i = 0; i < Op::kC; ++i)
                if (L::c(lane, i).row == 0 && L::c(lane, i).col == 0)
                    out.push_back(double(h[size_t((k * 32 + lane) * Op::kC + i)]));
    return out;
}

/// D(k, k) of problem k < 64 through one wgmma bf16 m64n64k16 accumulating onto C: problem k is
/// row k of A, column k of B and C(k, k); the rest of A, B and C is 0. `strides` are the
/// descriptor strides the layout check validated.
std::vector<double> run_wgmma_cases(uint64_t strides, const std::vector<tc::Problem>& problems) {
    constexpr int N = 64;
    const int cases = int(problems.size());
    if (cases > N) throw std::logic_error("tensor: more wgmma rounding problems than columns");
    const WgmmaImage img = make_image(N, [&](int op, int row, int k) {
        if (op == 1 || row >= cases) return uint16_t(0);
        const tc::Problem& pr = problems[size_t(row)];
        return exact_bf16(op == 0 ? pr.a[size_t(k)] : pr.b[size_t(k)]);
    });
    std::vector<float> c(size_t(128) * (N / 2), 0.0f);
    for (int t = 0; t < 128; ++t)
        for (int reg = 0; reg < N / 2; ++reg) {
            const tc::Coord at = tc::wgmma_d(t, reg);
            if (at.row == at.col && at.row < cases)
                c[size_t(t * (N / 2) + reg)] = float(problems[size_t(at.row)].c);
        }
    DeviceBuffer<uint16_t> dimg(img.bits.size());
    dimg.copy_from_host(img.bits.data(), img.bits.size());
    DeviceBuffer<float> dc(c.size()), dd(c.size());
    dc.copy_from_host(c.data(), c.size());
    wgmma_once_kernel<N><<<1, 128, size_t(img.bytes())>>>(
        reinterpret_cast<const uint4*>(dimg.get()), img.bytes(), strides, dc.get(), dd.get());
    GEMMLAB_CHECK_LAUNCH();
    std::vector<float> h(c.size());
    dd.copy_to_host(h.data(), h.size());
    std::vector<double> out(size_t(cases), 0.0);
    for (int t = 0; t < 128; ++t)
        for (int reg = 0; reg < N / 2; ++reg) {
            const tc::Coord at = tc::wgmma_d(t, reg);
            if (at.row == at.col && at.row < cases)
                out[size_t(at.row)] = double(h[size_t(t * (N / 2) + reg)]);
        }
    return out;
}

/// One list of accumulation cases and the title that names them.
struct CaseList {
    std::span<const tc::AccumulationCase> cases;
    std::string_view title;
};
const CaseList kCasesK8 = {tc::kAccumulationCases, tc::kAccumulationCasesTitle};
const CaseList kCasesK16 = {tc::kAccumulationCasesK16, tc::kAccumulationCasesK16Title};

/// The accumulation problems of `list` for u = 2^-p, then `extra` after them.
std::vector<tc::Problem> rounding_problems(int p, const CaseList& list,
                                           const std::vector<tc::Problem>& extra) {
    std::vector<tc::Problem> out;
    for (const auto& cs : list.cases) out.push_back(tc::accumulation_problem(cs, p));
    out.insert(out.end(), extra.begin(), extra.end());
    return out;
}

struct RoundingResult {
    Table accumulation, operands;
    std::span<const tc::AccumulationCase> cases;
    std::vector<double> measured_u; // per case
    std::vector<tc::Rounding> modes;
    std::vector<double> extra; // measured values of the operand/product problems
};

/// The accumulation table and verdict from `d`, the D of rounding_problems(p, list, ...) in order.
RoundingResult tabulate_rounding(int p, const std::string& name, const CaseList& list,
                                 const std::vector<double>& d) {
    const double u = std::ldexp(1.0, -p);
    RoundingResult r;
    r.cases = list.cases;
    r.accumulation.title = name +
                           " accumulation: D = C + products, offsets from C in units of u = 2^-" +
                           std::to_string(p) + " (cases: " + std::string(list.title) + ")";
    r.accumulation.columns = {"case",
                              "C",
                              "exact",
                              "measured",
                              "round to nearest even",
                              "round to nearest away",
                              "toward zero",
                              "down",
                              "up"};
    r.accumulation.units = {"", "", "u", "u", "u", "u", "u", "u", "u"};
    for (size_t i = 0; i < list.cases.size(); ++i) {
        const auto& cs = list.cases[i];
        const double measured = (d[i] - cs.c_sign) / u; // exact: d lies within a factor 2 of C
        r.measured_u.push_back(measured);
        std::vector<double> row = {double(i + 1), double(cs.c_sign), cs.exact_u(), measured};
        for (tc::Rounding mode : tc::kRoundings)
            row.push_back(tc::rounded_offset(cs.c_sign, cs.exact_u(), mode));
        r.accumulation.rows.push_back(std::move(row));
    }
    r.modes = tc::matching_modes(r.measured_u, list.cases);
    r.extra.assign(d.begin() + std::ptrdiff_t(list.cases.size()), d.end());
    return r;
}

/// Runs the accumulation cases of `list` (and `extra` problems after them) on one mma.sync
/// shape, for an accumulator of u = 2^-p.
template <class Op>
RoundingResult measure_rounding(int p, const std::string& name, const CaseList& list,
                                const std::vector<tc::Problem>& extra) {
    return tabulate_rounding(p, name, list, run_cases<Op>(rounding_problems(p, list, extra)));
}

/// A problem with C = c and products a[j] * b[j], j < 16.
tc::Problem problem(double c, std::initializer_list<double> a, std::initializer_list<double> b) {
    tc::Problem out;
    out.c = c;
    std::copy(a.begin(), a.end(), out.a.begin());
    std::copy(b.begin(), b.end(), out.b.begin());
    return out;
}

std::string mode_list(const std::vector<tc::Rounding>& modes) {
    if (modes.empty())
        return "matches none of round to nearest (even or away), toward zero, down, up";
    std::string s;
    for (size_t i = 0; i < modes.size(); ++i)
        s += (i ? " / " : "") + std::string(tc::rounding_name(modes[i]));
    return s;
}

/// "1 + 1.5u -> 1, 1 + 0.5u -> 1, ..." for the cases [from, to).
std::string cases_text(const RoundingResult& r, size_t from, size_t to) {
    std::string s;
    for (size_t i = from; i < to && i < r.measured_u.size(); ++i) {
        const auto& cs = r.cases[i];
        s += (i > from ? ", " : "") + std::string(cs.label) + " -> " +
             tc::offset_text(cs.c_sign, r.measured_u[i]);
    }
    return s;
}

/// Cases 7 and (where the list has it) 8 came back exact: C and all the products of one mma are
/// rounded once.
bool sum_rounded_once(const RoundingResult& r) {
    bool once = true;
    for (size_t i = 6; i < r.cases.size() && i < r.measured_u.size(); ++i)
        once = once && r.measured_u[i] == r.cases[i].exact_u();
    return once;
}

/// The verdict on cases 6, 7 and (k16 lists) 8, in words, against the mode cases 1-5 showed.
std::string subtraction_and_sum_text(const RoundingResult& r) {
    const auto& c6 = r.cases[5];
    const auto& c7 = r.cases[6];
    const double m6 = r.measured_u[5], m7 = r.measured_u[6];
    std::string s = std::string(c6.label) + " -> " + tc::offset_text(c6.c_sign, m6);
    if (r.modes.size() == 1) {
        const tc::Rounding mode = r.modes.front();
        const double want = tc::rounded_offset(c6.c_sign, c6.exact_u(), mode);
        if (m6 == want)
            s += " (as that mode gives for the exact value)";
        else if (mode == tc::Rounding::TowardZero && m6 == 0)
            s += " (truncating the exact value would give " + tc::offset_text(c6.c_sign, want) +
                 ": the part of the smaller addend below C's last place is dropped before the "
                 "subtraction)";
        else
            s += " (that mode would give " + tc::offset_text(c6.c_sign, want) +
                 " for the exact value)";
    }
    const std::string count = c7.products == 8    ? "eight"
                              : c7.products == 16 ? "sixteen"
                                                  : std::to_string(c7.products);
    s += "; " + std::string(c7.label) + " -> " + tc::offset_text(c7.c_sign, m7);
    s += m7 == c7.exact_u() ? " (the " + count + " products are summed before one rounding)"
                            : std::string(" (the products are not summed exactly before rounding)");
    if (r.cases.size() > 7 && r.measured_u.size() > 7) {
        const auto& c8 = r.cases[7];
        const double m8 = r.measured_u[7];
        s += "; " + std::string(c8.label) + " -> " + tc::offset_text(c8.c_sign, m8);
        if (m8 == c8.exact_u())
            s += " (the two halves of K are summed before one rounding)";
        else if (r.modes.size() == 1 && m8 == tc::two_step_offset(c8, r.modes.front()))
            s += " (C + the products of k 0-7 is rounded before those of k 8-15 are added: two "
                 "roundings per instruction)";
        else
            s += " (neither one rounding of the whole sum, " +
                 tc::offset_text(c8.c_sign, c8.exact_u()) + ", nor one per half of K)";
    }
    return s;
}

int mode_code(const std::vector<tc::Rounding>& modes) {
    return modes.size() == 1 ? int(modes.front()) : -1;
}

/// Headlines and tables of one 16-bit-input instruction's rounding cases (kCasesK16 and, after
/// them, one product problem q^2 with C = 0). `key` names the metrics (tensor_<key>_...), `name`
/// the instruction, `format` its input type; `q_text` and `exact_text` spell q and q^2.
void report_half_rounding(Result& out, RoundingResult&& h, const std::string& key,
                          const std::string& name, const std::string& format, double q,
                          const std::string& q_text, const std::string& exact_text) {
    const double exact = q * q, measured = h.extra.at(0);
    h.operands.title = name + ": product case (1: (" + q_text +
                       ")^2, C = 0; expected = the exact value " + exact_text + ")";
    h.operands.columns = {"case", "expected", "measured", "measured - expected"};
    h.operands.units = {"", "", "", ""};
    h.operands.rows.push_back({1, exact, measured, measured - exact});
    const bool once = sum_rounded_once(h);
    out.headlines.push_back({"tensor_" + key + "_accumulation_rounding",
                             double(mode_code(h.modes)), "mode",
                             name + " accumulation into FP32: " + mode_list(h.modes) +
                                 " (u = 2^-24: " + cases_text(h, 0, tc::kSameSignCases) + "); " +
                                 subtraction_and_sum_text(h)});
    out.headlines.push_back(
        {"tensor_" + key + "_sum_rounded_once", once ? 1.0 : 0.0, "bool",
         name + ": " +
             (once ? std::string("C and the 16 products of one instruction are rounded once "
                                 "(cases 7 and 8 exact)")
                   : std::string("C and the 16 products of one instruction are NOT rounded "
                                 "once (case 7 or 8 inexact)"))});
    out.headlines.push_back(
        {"tensor_" + key + "_products_exact", measured == exact ? 1.0 : 0.0, "bool",
         format + " products (" + name + "): " +
             (measured == exact ? "exact ((" + q_text + ")^2 = " + exact_text + " comes back whole)"
                                : "NOT exact ((" + q_text + ")^2 came back as " +
                                      kit::num(measured, 9) + ", exact " + kit::num(exact, 9) +
                                      ")")});
    out.tables.push_back(std::move(h.accumulation));
    out.tables.push_back(std::move(h.operands));
}

std::string ratio_text(double x) { return kit::num(x, x >= 10 ? 0 : 1) + "x"; }

} // namespace

Result run_tensor(Context& ctx) {
    kit::ensure_clock(ctx);
    Result r;
    const int cc = ctx.cc_major * 10 + ctx.cc_minor;
    if (cc < 80) {
        r.headlines.push_back({"tensor_skipped", 1.0, "flag",
                               "tensor: skipped: mma.sync of these shapes needs compute "
                               "capability 8.0 or newer; this device is " +
                                   std::to_string(ctx.cc_major) + "." +
                                   std::to_string(ctx.cc_minor)});
        return r;
    }
    const CodeArch code = query_code_arch();
    if (code.arch < 800) {
        r.headlines.push_back({"tensor_skipped", 1.0, "flag",
                               "tensor: skipped: the code running is sm_" +
                                   std::to_string(code.arch / 10) +
                                   ", and mma.sync of these shapes needs sm_80 code"});
        return r;
    }
    const bool sm90_shapes = code.arch >= 900;
    std::mt19937 rng(20261122u);

    // ---- mma.sync throughput and latency
    std::vector<ShapeResult> shapes;
    shapes.push_back(measure_shape<MmaF64m8n8k4>(ctx, rng));
    if (sm90_shapes) {
        shapes.push_back(measure_shape<MmaF64m16n8k4>(ctx, rng));
        shapes.push_back(measure_shape<MmaF64m16n8k8>(ctx, rng));
        shapes.push_back(measure_shape<MmaF64m16n8k16>(ctx, rng));
    }
    shapes.push_back(measure_shape<MmaTf32m16n8k8>(ctx, rng));
    shapes.push_back(measure_shape<MmaBf16m16n8k16>(ctx, rng));
    shapes.push_back(measure_shape<MmaF16m16n8k16>(ctx, rng));

    const double fp64_peak = 2.0 * ctx.fp64_lanes_per_sm, fp32_peak = 2.0 * ctx.fp32_lanes_per_sm;
    const char* kShapeOrder[] = {"f64 m8n8k4",   "f64 m16n8k4",   "f64 m16n8k8",  "f64 m16n8k16",
                                 "tf32 m16n8k8", "bf16 m16n8k16", "fp16 m16n8k16"};
    Table summary;
    summary.title =
        "mma.sync per shape (shape 1 f64 m8n8k4, 2 f64 m16n8k4, 3 f64 m16n8k8, 4 f64 m16n8k16, "
        "5 tf32 m16n8k8, 6 bf16 m16n8k16, 7 fp16 m16n8k16; CUDA-core peak = 2 x FP64 or FP32 "
        "lanes)";
    summary.columns = {"shape",     "FLOP per mma",   "best",
                       "whole GPU", "CUDA-core peak", "tensor / CUDA-core",
                       "latency",   "latency",        "mma in flight per SM at best"};
    summary.units = {"",  "FLOP",   "FLOP/clk/SM", "TFLOP/s", "FLOP/clk/SM",
                     "x", "cycles", "ns",          "mma"};
    double bf16_mma_best = 0;
    for (const auto& s : shapes) {
        const int index =
            int(std::find_if(std::begin(kShapeOrder), std::end(kShapeOrder),
                             [&](const char* n) { return std::string(n) == s.name; }) -
                std::begin(kShapeOrder)) +
            1;
        const double peak = s.f64 ? fp64_peak : fp32_peak;
        const double tflops = s.best.rate * ctx.sm_count * ctx.clock_mhz * 1e-6;
        const double ratio = peak > 0 ? s.best.rate / peak : 0.0;
        summary.rows.push_back({double(index), s.flop, s.best.rate, tflops, peak, ratio,
                                s.latency_cycles, ctx.cycles_to_ns(s.latency_cycles),
                                s.best.rate * s.latency_cycles / s.flop});
        if (std::string(s.name) == "bf16 m16n8k16") bf16_mma_best = s.best.rate;

        std::string text = std::string(s.name) + " mma.sync: " + kit::num(s.best.rate) +
                           " FLOP/clk/SM (" + kit::num(tflops, 1) + " TFLOP/s over " +
                           std::to_string(ctx.sm_count) + " SMs at " + kit::num(ctx.clock_mhz) +
                           " MHz; " + std::to_string(s.best.warps) + " warps/SM x " +
                           std::to_string(s.best.chains) + " chains), ";
        text += peak > 0 ? ratio_text(ratio) + " the " + std::string(s.f64 ? "FP64" : "FP32") +
                               " CUDA-core FMA peak of " + kit::num(peak) + " FLOP/clk/SM"
                         : std::string("CUDA-core peak unknown for this device");
        text += "; latency " + kit::cycles_text(ctx, s.latency_cycles) + ", so " +
                kit::num(s.best.rate * s.latency_cycles / s.flop, 1) +
                " mma in flight per SM at that rate";
        r.headlines.push_back({std::string("tensor_") + s.key + "_flop_per_clk_sm", s.best.rate,
                               "FLOP/clk/SM", text});
    }
    for (auto& s : shapes) r.tables.push_back(std::move(s.table));
    r.tables.push_back(std::move(summary));
    if (!sm90_shapes)
        r.headlines.push_back(
            {"tensor_f64_sm90_shapes_skipped", 1.0, "flag",
             "f64 m16n8k4 / m16n8k8 / m16n8k16 mma.sync and the f64 rounding cases skipped: they "
             "need sm_90 code, and the code running is sm_" +
                 std::to_string(code.arch / 10)});

    // ---- wgmma
    const bool wgmma = ctx.cc_major == 9 && ctx.cc_minor == 0 && code.wgmma;
    bool wgmma_checked = false;  // the m64n64k16 layout check passed (the rounding cases need it)
    uint64_t wgmma_strides = 0; // with these descriptor strides
    if (wgmma) {
        Table wt, wl;
        wt.title = "wgmma bf16 m64nNk16 (f32 accumulators, A and B from shared memory) throughput, "
                   "one block per SM";
        wt.columns = {"N",
                      "warpgroups per SM",
                      "FLOP per clk per SM (clock64)",
                      "FLOP per clk per SM (events)",
                      "whole GPU",
                      "time per wgmma per warpgroup",
                      "time per wgmma per warpgroup"};
        wt.units = {"columns", "warpgroups", "FLOP/clk/SM", "FLOP/clk/SM",
                    "TFLOP/s", "cycles",     "ns"};
        wl.title = "wgmma bf16 m64nNk16 latency (one warpgroup, wait_group 0 after each wgmma)";
        wl.columns = {"N", "FLOP per wgmma", "latency", "latency"};
        wl.units = {"columns", "FLOP", "cycles", "ns"};
        std::vector<WgmmaRow> rows;
        rows.push_back(measure_wgmma<64>(ctx, rng, wt, wl));
        rows.push_back(measure_wgmma<128>(ctx, rng, wt, wl));
        rows.push_back(measure_wgmma<256>(ctx, rng, wt, wl));
        wgmma_checked = rows.front().checked;
        wgmma_strides = rows.front().strides;
        bool all_checked = true;
        std::string notes;
        for (const auto& w : rows) {
            all_checked = all_checked && w.checked;
            notes += (notes.empty() ? "" : "; ") + std::string("N = ") + std::to_string(w.n) +
                     ": " + w.layout_note;
            const double tflops = w.best_rate * ctx.sm_count * ctx.clock_mhz * 1e-6;
            std::string text = "wgmma bf16 m64n" + std::to_string(w.n) +
                               "k16 (A, B in shared memory): " + kit::num(w.best_rate) +
                               " FLOP/clk/SM (" + kit::num(tflops, 1) + " TFLOP/s at " +
                               kit::num(ctx.clock_mhz) + " MHz; " +
                               std::to_string(w.best_warpgroups) + " warpgroup(s)/SM)";
            if (fp32_peak > 0)
                text += ", " + ratio_text(w.best_rate / fp32_peak) + " the FP32 CUDA-core FMA peak";
            if (bf16_mma_best > 0)
                text += ", " + ratio_text(w.best_rate / bf16_mma_best) + " bf16 mma.sync's best";
            text += "; latency " + kit::cycles_text(ctx, w.latency_cycles);
            if (!w.checked)
                text += " (D was WRONG in the layout check: the rate is of a misread operand)";
            r.headlines.push_back(
                {"tensor_wgmma_bf16_m64n" + std::to_string(w.n) + "k16_flop_per_clk_sm",
                 w.best_rate, "FLOP/clk/SM", text});
        }
        r.headlines.push_back(
            {"tensor_wgmma_layout_check", all_checked ? 1.0 : 0.0, "pass",
             std::string("wgmma layout check (one m64nNk16 on small integers vs the host product, "
                         "K-major no-swizzle descriptors): ") +
                 (all_checked ? "exact" : "FAILED") + " (" + notes + ")"});
        r.tables.push_back(std::move(wt));
        r.tables.push_back(std::move(wl));
    } else {
        const std::string why =
            !(ctx.cc_major == 9 && ctx.cc_minor == 0)
                ? "wgmma needs compute capability 9.0; this device is " +
                      std::to_string(ctx.cc_major) + "." + std::to_string(ctx.cc_minor)
                : "this binary has no sm_90a code (its code is sm_" +
                      std::to_string(code.arch / 10) + "); build with CMAKE_CUDA_ARCHITECTURES=90a";
        r.headlines.push_back({"tensor_wgmma_skipped", 1.0, "flag",
                               "wgmma rows (throughput, latency, rounding) skipped: " + why});
    }

    // ---- rounding
    kit::progress(ctx, "tensor rounding");
    {
        // Extra tf32 problems: 1) (2 - 2^-10)^2 with C = 0, exact in FP32 only if the product keeps
        // its 22 bits; 2) a = 1 + 2^-11 + 2^-12 given as FP32 (bits below tf32's 10), b = 1, C = 0.
        const double q = 2.0 - std::ldexp(1.0, -10);
        const double low = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -12);
        RoundingResult t =
            measure_rounding<MmaTf32m16n8k8>(24, "tf32 mma.sync m16n8k8", kCasesK8,
                                             {problem(0, {q}, {q}), problem(0, {low}, {1.0})});
        const double product_exact = q * q, product_measured = t.extra[0],
                     operand_measured = t.extra[1];
        t.operands.title =
            "tf32 mma.sync m16n8k8: product and operand cases (1: (2 - 2^-10)^2, C = 0; "
            "2: a = 1 + 2^-11 + 2^-12 given as FP32, b = 1, C = 0; expected = the exact value)";
        t.operands.columns = {"case", "expected", "measured", "measured - expected"};
        t.operands.units = {"", "", "", ""};
        t.operands.rows.push_back(
            {1, product_exact, product_measured, product_measured - product_exact});
        t.operands.rows.push_back({2, low, operand_measured, operand_measured - low});

        r.headlines.push_back(
            {"tensor_tf32_accumulation_rounding", double(mode_code(t.modes)), "mode",
             "tf32 mma.sync accumulation into FP32: " + mode_list(t.modes) + " (u = 2^-24: " +
                 cases_text(t, 0, tc::kSameSignCases) + "); " + subtraction_and_sum_text(t)});
        r.headlines.push_back(
            {"tensor_tf32_products_exact", product_measured == product_exact ? 1.0 : 0.0, "bool",
             std::string("tf32 products: ") +
                 (product_measured == product_exact
                      ? "exact ((2 - 2^-10)^2 = 4 - 2^-8 + 2^-20 comes back whole)"
                      : "NOT exact ((2 - 2^-10)^2 came back as " + kit::num(product_measured, 9) +
                            ", exact " + kit::num(product_exact, 9) + ")")});
        const double truncated = 1.0, rounded = 1.0 + std::ldexp(1.0, -10);
        const int operand_code = operand_measured == truncated ? 0
                                 : operand_measured == rounded ? 1
                                 : operand_measured == low     ? 2
                                                               : -1;
        const char* operand_words[] = {
            "ignored (truncated to tf32): 1 + 2^-11 + 2^-12 acts as 1",
            "rounded to the nearest tf32: 1 + 2^-11 + 2^-12 acts as 1 + 2^-10",
            "used in full (FP32): 1 + 2^-11 + 2^-12 acts as itself"};
        r.headlines.push_back(
            {"tensor_tf32_operand_low_bits", double(operand_code), "mode",
             "tf32 mma.sync, the 13 FP32 operand bits below tf32: " +
                 (operand_code >= 0 ? std::string(operand_words[operand_code])
                                    : "unexpected result " + kit::num(operand_measured, 9)) +
                 (operand_code == 0 ? " (convert with cvt.rna.tf32.f32 first to round instead)"
                                    : "")});
        r.tables.push_back(std::move(t.accumulation));
        r.tables.push_back(std::move(t.operands));
    }
    if (sm90_shapes) {
        // Extra f64 problem: C = -1, (1 + 2^-30)(1 - 2^-30) = 1 - 2^-60: D = -2^-60 if fused,
        // 0 if the product is rounded to double first.
        const double fa = 1.0 + std::ldexp(1.0, -30), fb = 1.0 - std::ldexp(1.0, -30);
        RoundingResult f = measure_rounding<MmaF64m16n8k8>(53, "f64 mma.sync m16n8k8", kCasesK8,
                                                           {problem(-1.0, {fa}, {fb})});
        const double fused = -std::ldexp(1.0, -60), measured = f.extra[0];
        f.operands.title =
            "f64 mma.sync m16n8k8: fused product case (C = -1, a = 1 + 2^-30, b = 1 - 2^-30; "
            "expected -2^-60 if the product is not rounded before the addition)";
        f.operands.columns = {"case", "expected", "measured", "measured - expected"};
        f.operands.units = {"", "", "", ""};
        f.operands.rows.push_back({1, fused, measured, measured - fused});
        r.headlines.push_back(
            {"tensor_f64_accumulation_rounding", double(mode_code(f.modes)), "mode",
             "f64 mma.sync accumulation: " + mode_list(f.modes) + " (u = 2^-53: " +
                 cases_text(f, 0, tc::kSameSignCases) + "); " + subtraction_and_sum_text(f)});
        r.headlines.push_back(
            {"tensor_f64_product_fused", measured == fused ? 1.0 : 0.0, "bool",
             std::string("f64 mma.sync product: ") +
                 (measured == fused
                      ? "fused like fma (-1 + (1 + 2^-30)(1 - 2^-30) = -2^-60 exactly)"
                      : "rounded before the addition (-1 + (1 + 2^-30)(1 - 2^-30) "
                        "gave " +
                            kit::num(measured * std::ldexp(1.0, 60), 3) + " x 2^-60)")});
        r.tables.push_back(std::move(f.accumulation));
        r.tables.push_back(std::move(f.operands));
    }
    {
        // 16-bit inputs, FP32 accumulators: the k16 cases, then the widest product of each format
        // with C = 0 ((2 - 2^-7)^2 has 16 significant bits, (2 - 2^-10)^2 22: both fit FP32's 24).
        const double qb = 2.0 - std::ldexp(1.0, -7), qh = 2.0 - std::ldexp(1.0, -10);
        report_half_rounding(
            r,
            measure_rounding<MmaBf16m16n8k16>(24, "bf16 mma.sync m16n8k16", kCasesK16,
                                              {problem(0, {qb}, {qb})}),
            "bf16", "bf16 mma.sync m16n8k16", "bf16", qb, "2 - 2^-7", "4 - 2^-5 + 2^-14");
        report_half_rounding(
            r,
            measure_rounding<MmaF16m16n8k16>(24, "fp16 mma.sync m16n8k16", kCasesK16,
                                             {problem(0, {qh}, {qh})}),
            "fp16", "fp16 mma.sync m16n8k16", "fp16", qh, "2 - 2^-10", "4 - 2^-8 + 2^-20");
        if (wgmma && wgmma_checked) {
            const std::string name = "wgmma bf16 m64n64k16";
            const std::vector<double> d = run_wgmma_cases(
                wgmma_strides, rounding_problems(24, kCasesK16, {problem(0, {qb}, {qb})}));
            report_half_rounding(r, tabulate_rounding(24, name, kCasesK16, d), "wgmma_bf16", name,
                                 "bf16", qb, "2 - 2^-7", "4 - 2^-5 + 2^-14");
        } else if (wgmma) {
            r.headlines.push_back({"tensor_wgmma_rounding_skipped", 1.0, "flag",
                                   "wgmma bf16 rounding cases skipped: the m64n64k16 layout "
                                   "check failed, so the operands would be misread"});
        }
    }
    return r;
}

} // namespace gemmlab::probe
