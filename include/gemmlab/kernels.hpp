#pragma once
// The read-only registry of rungs: what each one is, and where it comes from.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "gemmlab/gemm.hpp"
#include "gemmlab/status.hpp"

namespace gemmlab {

/// Element types of A and B that a rung can multiply. C has the same type, or, for BF16 and
/// F16 inputs, the same type or float (both are supported by every half-precision rung).
enum class DataType : uint8_t { F32, F64, BF16, F16 };

/// Every DataType, in this order: loop over it rather than naming the types.
inline constexpr DataType kAllDataTypes[] = {DataType::F32, DataType::F64, DataType::BF16,
                                             DataType::F16};

constexpr const char* to_string(DataType t) noexcept {
    switch (t) {
    case DataType::F32: return "f32";
    case DataType::F64: return "f64";
    case DataType::BF16: return "bf16";
    case DataType::F16: return "f16";
    }
    return "?";
}

/// The DataType of a C++ element type.
template <class T>
constexpr DataType data_type_of() noexcept;
template <> constexpr DataType data_type_of<float>() noexcept { return DataType::F32; }
template <> constexpr DataType data_type_of<double>() noexcept { return DataType::F64; }
template <> constexpr DataType data_type_of<__nv_bfloat16>() noexcept { return DataType::BF16; }
template <> constexpr DataType data_type_of<__half>() noexcept { return DataType::F16; }

/// A set of DataTypes, one bit each.
struct TypeSet {
    uint32_t bits = 0;
    constexpr bool has(DataType t) const noexcept { return bits & (1u << unsigned(t)); }
    constexpr TypeSet with(DataType t) const noexcept { return {bits | (1u << unsigned(t))}; }
};

/// The engine a rung's arithmetic runs on.
enum class Engine : uint8_t {
    Library,    ///< cuBLAS (rung 0)
    CudaCores,  ///< FP32/FP64 FMA pipes
    TensorCores, ///< tensor cores (warp-level mma.sync, Hopper's warpgroup wgmma)
    /// By type: float and double on the FMA pipes, BF16/FP16 on the tensor cores (mma.sync):
    /// the rungs whose idea is a schedule, not an engine (27 small, 28 decode).
    ByType,
    Cpu,         ///< the host's cores (the CPU ladder)
};

constexpr const char* to_string(Engine e) noexcept {
    switch (e) {
    case Engine::Library: return "cuBLAS";
    case Engine::CudaCores: return "CUDA cores";
    case Engine::TensorCores: return "tensor cores";
    case Engine::ByType: return "CUDA/tensor"; // FMAs for f32/f64, mma.sync for bf16/f16
    case Engine::Cpu: return "CPU";
    }
    return "?";
}

/// Which side of the machine a rung runs on.
enum class Device { Gpu, Cpu };

/// One rung of the ladder.
struct KernelInfo {
    int number;                 ///< position on the ladder; 0 is cuBLAS, the yardstick
    std::string_view name;      ///< short name used on the command line, e.g. "smem_tile"
    std::string_view technique; ///< the one idea this rung adds, in a line
    /// Where the technique is written up: a document of docs/sources.md and its section
    /// ("SGEMM v2-v3", "DCU GEMM 3.5.5"), or the public technique it follows ("sm_90a wgmma").
    std::string_view sources;
    TypeSet types;              ///< A/B element types it implements (halves: C in the type or float)
    /// The arithmetic it uses: Default (the input type's own accuracy) or Tf32. cuBLAS follows
    /// the call's GemmOptions::precision and is listed as Default.
    Precision precision;
    Engine engine;
    Device device;
    /// Uses Hopper-only instructions (wgmma, TMA, setmaxnreg, clusters): runs only on a compute
    /// capability 9.0 GPU, and only when the library was built with 90a in
    /// CMAKE_CUDA_ARCHITECTURES. Elsewhere a call naming it returns Status::UnsupportedDevice
    /// and `auto` does not pick it.
    bool needs_sm90a;
    /// The lowest compute capability (10 * major + minor) whose instructions it uses, 0 for
    /// none beyond what the build targets: 90 for FP64 DMMA m16n8k16 (rung 15). On an older
    /// GPU a call naming it returns Status::UnsupportedDevice and `auto` does not pick it.
    int min_compute_capability = 0;
    /// Runs a strided batched call (gemm_strided_batched) in one launch (the batch on
    /// gridDim.z, or, for the Hopper skeleton's rungs 22-24, as more work units of one grid),
    /// or (cuBLAS) in one cublas*StridedBatched call. A rung without it is run by
    /// the API once per batch: correct, but one launch each. `auto` picks among these only
    /// when a call has more than one batch.
    bool native_batch = false;

    constexpr bool supports(DataType t) const noexcept { return types.has(t); }
};

/// Every GPU rung, in ladder order (0 = cuBLAS first).
std::span<const KernelInfo> gpu_kernels() noexcept;

/// The CPU blocking ladder (register blocking on one core, docs/ladder.md), in order.
std::span<const KernelInfo> cpu_kernels() noexcept;

/// Finds a GPU rung by name ("smem_tile") or number ("5"); nullopt when none matches.
/// "auto" is not a rung and is not found here.
std::optional<KernelInfo> find_gpu_kernel(std::string_view name_or_number) noexcept;

/// Whether rung `info` can run on CUDA device `device` (-1: the calling thread's current
/// device): Success; NoDevice when there is no such device; UnsupportedDevice when the rung
/// needs sm_90a and the device is not compute capability 9.0 or this library has no sm_90a code,
/// or the device is below the rung's min_compute_capability (last_error() says which). The device is queried once and the answer cached; nothing is
/// launched.
Status check_device_support(const KernelInfo& info, int device = -1) noexcept;

/// True when this library was built with sm_90a code (90a in CMAKE_CUDA_ARCHITECTURES), which
/// the rungs with KernelInfo::needs_sm90a require.
bool built_with_sm90a() noexcept;

} // namespace gemmlab
