#pragma once
// The read-only registry of rungs: what each one is, and where it comes from.

#include <optional>
#include <span>
#include <string_view>

namespace gemmlab {

/// Which side of the machine a rung runs on.
enum class Device { Gpu, Cpu };

/// One rung of the ladder.
struct KernelInfo {
    int number;                 ///< position on the ladder; 0 is cuBLAS, the yardstick
    std::string_view name;      ///< short name used on the command line, e.g. "smem_tile"
    std::string_view technique; ///< the one idea this rung adds, in a line
    std::string_view seeds;     ///< seed sections it reproduces, e.g. "001 v2-v3, 004"
    bool supports_float;
    bool supports_double;
    Device device;
};

/// Every GPU rung, in ladder order (0 = cuBLAS first).
std::span<const KernelInfo> gpu_kernels() noexcept;

/// The CPU blocking ladder of seed 000 §3.5.2, in order.
std::span<const KernelInfo> cpu_kernels() noexcept;

/// Finds a GPU rung by name ("smem_tile") or number ("5"); nullopt when none matches.
/// "auto" is not a rung and is not found here.
std::optional<KernelInfo> find_gpu_kernel(std::string_view name_or_number) noexcept;

} // namespace gemmlab
