#pragma once
// The read-only registry of rungs: what each one is, and where it comes from.

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "gemmlab/gemm.hpp"

namespace gemmlab {

/// Element types of A, B and C that a rung can multiply.
enum class DataType : uint8_t { F32, F64 };

constexpr const char* to_string(DataType t) noexcept { return t == DataType::F32 ? "f32" : "f64"; }

/// The DataType of a C++ element type.
template <class T>
constexpr DataType data_type_of() noexcept;
template <> constexpr DataType data_type_of<float>() noexcept { return DataType::F32; }
template <> constexpr DataType data_type_of<double>() noexcept { return DataType::F64; }

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
    TensorCores, ///< warp-level mma.sync
    Cpu,         ///< the host's cores (the CPU ladder)
};

constexpr const char* to_string(Engine e) noexcept {
    switch (e) {
    case Engine::Library: return "cuBLAS";
    case Engine::CudaCores: return "CUDA cores";
    case Engine::TensorCores: return "tensor cores";
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
    std::string_view seeds;     ///< seed sections it reproduces, e.g. "001 v2-v3, 004"
    TypeSet types;              ///< element types it implements
    /// The arithmetic it uses: Default (the input type's own accuracy) or Tf32. cuBLAS follows
    /// the call's GemmOptions::precision and is listed as Default.
    Precision precision;
    Engine engine;
    Device device;

    constexpr bool supports(DataType t) const noexcept { return types.has(t); }
};

/// Every GPU rung, in ladder order (0 = cuBLAS first).
std::span<const KernelInfo> gpu_kernels() noexcept;

/// The CPU blocking ladder of seed 000 §3.5.2, in order.
std::span<const KernelInfo> cpu_kernels() noexcept;

/// Finds a GPU rung by name ("smem_tile") or number ("5"); nullopt when none matches.
/// "auto" is not a rung and is not found here.
std::optional<KernelInfo> find_gpu_kernel(std::string_view name_or_number) noexcept;

} // namespace gemmlab
