#pragma once
// One source, two platforms: the GPU runtime as the CUDA-core rungs, the probes and their host
// code use it. The CUDA build includes the CUDA runtime and nothing else changes. The HIP build
// (cmake -DGEMMLAB_HIP=ON, cmake/gemmlab_hip.cmake, which defines GEMMLAB_HIP) includes the HIP
// runtime and maps each CUDA name those files use to its HIP twin, so that one file compiles for
// both. A CUDA name missing from the list below does not compile under HIP: nothing falls back
// to a different meaning silently. docs/hip.md says what the HIP build covers.
//
// The width of a warp is the one hardware fact the mapping cannot hide: 32 lanes on NVIDIA GPUs,
// 64 on the AMD GCN/CDNA GPUs the HIP build targets (gfx900, gfx906, gfx908, gfx90a). Code whose
// correctness depends on it reads kWarpSize; code written for 32 lanes only stays out of the HIP
// build, each exclusion with its reason in cmake/gemmlab_hip.cmake.

#if defined(GEMMLAB_HIP)

#include <hip/hip_bfloat16.h>
#include <hip/hip_fp16.h>
#include <hip/hip_runtime.h>

// ------------------------------------------------------------------------------------ types
#define cudaDeviceProp hipDeviceProp_t
#define cudaError_t hipError_t
#define cudaEvent_t hipEvent_t
#define cudaGraphExec_t hipGraphExec_t
#define cudaGraph_t hipGraph_t
#define cudaStream_t hipStream_t

// ----------------------------------------------------------------------------------- values
#define cudaDevAttrClockRate hipDeviceAttributeClockRate
#define cudaDevAttrL2CacheSize hipDeviceAttributeL2CacheSize
#define cudaDevAttrMultiProcessorCount hipDeviceAttributeMultiprocessorCount
#define cudaErrorMemoryAllocation hipErrorOutOfMemory
#define cudaFuncAttributeMaxDynamicSharedMemorySize hipFuncAttributeMaxDynamicSharedMemorySize
#define cudaMemcpyDeviceToDevice hipMemcpyDeviceToDevice
#define cudaMemcpyDeviceToHost hipMemcpyDeviceToHost
#define cudaMemcpyHostToDevice hipMemcpyHostToDevice
#define cudaStreamCaptureModeThreadLocal hipStreamCaptureModeThreadLocal
#define cudaStreamNonBlocking hipStreamNonBlocking
#define cudaSuccess hipSuccess

// -------------------------------------------------------------------------------- functions
#define cudaDeviceGetAttribute hipDeviceGetAttribute
#define cudaDeviceSynchronize hipDeviceSynchronize
#define cudaEventCreate hipEventCreate
#define cudaEventDestroy hipEventDestroy
#define cudaEventElapsedTime hipEventElapsedTime
#define cudaEventRecord hipEventRecord
#define cudaEventSynchronize hipEventSynchronize
#define cudaFree hipFree
#define cudaFreeHost hipHostFree
#define cudaFuncSetAttribute gemmlab_hip_func_set_attribute
#define cudaGetDevice hipGetDevice
#define cudaGraphDestroy hipGraphDestroy
#define cudaGraphExecDestroy hipGraphExecDestroy
// CUDA 12's three-argument form; HIP's hipGraphInstantiate takes an error node and a log.
#define cudaGraphInstantiate hipGraphInstantiateWithFlags
#define cudaGraphLaunch hipGraphLaunch
#define cudaGetDeviceCount hipGetDeviceCount
#define cudaGetDeviceProperties hipGetDeviceProperties
#define cudaGetErrorName hipGetErrorName
#define cudaGetErrorString hipGetErrorString
#define cudaGetLastError hipGetLastError
#define cudaMalloc hipMalloc
#define cudaMallocHost hipHostMalloc
#define cudaMemcpy hipMemcpy
#define cudaMemcpyAsync hipMemcpyAsync
#define cudaMemset hipMemset
#define cudaMemsetAsync hipMemsetAsync
#define cudaSetDevice hipSetDevice
#define cudaStreamCreateWithFlags hipStreamCreateWithFlags
#define cudaStreamBeginCapture hipStreamBeginCapture
#define cudaStreamDestroy hipStreamDestroy
#define cudaStreamEndCapture hipStreamEndCapture
#define cudaStreamSynchronize hipStreamSynchronize

/// cudaFuncSetAttribute takes the kernel itself; hipFuncSetAttribute its address as a pointer.
template <class Kernel>
inline hipError_t gemmlab_hip_func_set_attribute(Kernel kernel, hipFuncAttribute attr, int value) {
    return hipFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}

// ------------------------------------------------------------------- 16-bit element types
// HIP 5.2 has no __nv_bfloat16. Its hip_bfloat16 is, in host-only C++, a bare struct of the 16
// bits, so the conversions work on the bits: the upper half of a float, rounded to nearest even
// (NaN kept quiet), as CUDA's __float2bfloat16_rn. The HIP build runs float and double only;
// these names let the headers that declare the half-precision API compile unchanged.
using __nv_bfloat16 = hip_bfloat16;
__host__ __device__ inline float __bfloat162float(hip_bfloat16 x) {
    return __builtin_bit_cast(float, unsigned(x.data) << 16);
}
__host__ __device__ inline hip_bfloat16 __float2bfloat16_rn(float x) {
    const unsigned u = __builtin_bit_cast(unsigned, x);
    hip_bfloat16 r;
    if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) r.data = uint16_t((u >> 16) | 0x40u);
    else r.data = uint16_t((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    return r;
}

/// x rounded to float toward zero, with the last bit set when that lost anything ("round to
/// odd"): rounding this float once more to a type of at most 22 significant bits gives x rounded
/// to that type directly, so double -> BF16/FP16 below round once, as CUDA's do.
__host__ __device__ inline float gemmlab_round_to_odd_float(double x) {
    float f = float(x);
    if (double(f) == x || f != f) return f;
    if ((f < 0 ? -double(f) : double(f)) > (x < 0 ? -x : x)) // rounded away from zero: step back
        f = __builtin_nextafterf(f, 0.0f);
    unsigned bits = __builtin_bit_cast(unsigned, f);
    return __builtin_bit_cast(float, bits | 1u);
}
__host__ __device__ inline hip_bfloat16 __double2bfloat16(double x) {
    return __float2bfloat16_rn(gemmlab_round_to_odd_float(x));
}
__host__ __device__ inline __half __double2half(double x) {
    return __float2half_rn(gemmlab_round_to_odd_float(x));
}

/// Lanes of a wavefront on the HIP build's targets (GCN and CDNA GPUs run 64; RDNA's wave32
/// mode is not a target).
#define GEMMLAB_WARP_SIZE 64
#if defined(__AMDGCN_WAVEFRONT_SIZE) && __AMDGCN_WAVEFRONT_SIZE != GEMMLAB_WARP_SIZE
#error "the HIP build assumes 64-lane wavefronts; this target runs another width"
#endif

#else // CUDA

#include <cuda_runtime_api.h>

/// Lanes of a warp.
#define GEMMLAB_WARP_SIZE 32

#endif

namespace gemmlab {

/// True in the HIP build (AMD GPUs).
inline constexpr bool kHipBuild =
#if defined(GEMMLAB_HIP)
    true;
#else
    false;
#endif

/// Threads that execute one instruction together: a warp (NVIDIA, 32) or a wavefront (AMD, 64).
inline constexpr int kWarpSize = GEMMLAB_WARP_SIZE;

/// "CUDA" or "HIP": what the library was built with, for the tools' output.
inline constexpr const char* kGpuPlatform = kHipBuild ? "HIP" : "CUDA";

} // namespace gemmlab
