#pragma once
// Status codes returned by every gemmlab entry point.

#include <string_view>

namespace gemmlab {

/// Result of a gemmlab call. `Success` is zero; every other value names one class of failure.
/// The calling thread's last failure message is available from `last_error()`.
enum class Status : int {
    Success = 0,
    /// m, n, k, batch_count or options.sm_count_target is negative, or options.emulation_moduli
    /// is outside 0..kMaxEmulationModuli
    InvalidSize,
    InvalidLeadingDimension, ///< lda, ldb or ldc is below the minimum for the layout and op
    NullPointer,             ///< A, B or C is null where it will be accessed
    NotDevicePointer,        ///< a host (or unregistered) pointer was passed where device memory is needed
    SizeOverflow,            ///< an element offset would overflow int64
    UnknownKernel,           ///< the kernel name or number matches no rung
    UnsupportedType,         ///< the rung does not implement this element type
    NoDevice,                ///< no CUDA device is visible
    CudaError,               ///< a CUDA runtime call failed
    CublasError,             ///< a cuBLAS call failed
    /// the rung needs features the current GPU or this build lacks (sm_90a: wgmma, TMA,
    /// setmaxnreg run only on compute capability 9.0, from a library built with 90a code)
    UnsupportedDevice,
    /// a batch stride of gemm_strided_batched is negative, or stride_c is too small to keep
    /// the batches of C apart
    InvalidStride,
};

/// Short stable name of a status, e.g. "InvalidLeadingDimension".
constexpr std::string_view to_string(Status s) noexcept {
    switch (s) {
    case Status::Success: return "Success";
    case Status::InvalidSize: return "InvalidSize";
    case Status::InvalidLeadingDimension: return "InvalidLeadingDimension";
    case Status::NullPointer: return "NullPointer";
    case Status::NotDevicePointer: return "NotDevicePointer";
    case Status::SizeOverflow: return "SizeOverflow";
    case Status::UnknownKernel: return "UnknownKernel";
    case Status::UnsupportedType: return "UnsupportedType";
    case Status::NoDevice: return "NoDevice";
    case Status::CudaError: return "CudaError";
    case Status::CublasError: return "CublasError";
    case Status::UnsupportedDevice: return "UnsupportedDevice";
    case Status::InvalidStride: return "InvalidStride";
    }
    return "Unknown";
}

/// Human-readable message for the most recent failing gemmlab call made by the calling thread,
/// naming the argument, its value and the rule it broke. Empty after a successful call.
const char* last_error() noexcept;

} // namespace gemmlab
