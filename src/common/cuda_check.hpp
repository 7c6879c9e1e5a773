#pragma once
// One error-check family for CUDA and cuBLAS calls. A failure message names the API function and
// what the error means ("cudaMalloc failed: out of memory (cudaErrorMemoryAllocation)"); these
// messages reach users (gemmlab::last_error(), the CLI), so by default they carry no source paths
// and no call text with the casts of its arguments. Developers get both, the call as written and
// its file:line, in debug builds (NDEBUG not defined) or with GEMMLAB_DEBUG set to anything but
// "" or "0".

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "common/gpu_runtime.hpp"
#if !defined(GEMMLAB_HIP) // the HIP build has no cuBLAS (docs/hip.md)
#include <cublas_v2.h>
#endif

namespace gemmlab {

/// Thrown by the CHECK macros; `what()` names the failed call and the error.
class CudaFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Thrown by GEMMLAB_CUBLAS_CHECK.
class CublasFailure : public CudaFailure {
public:
    using CudaFailure::CudaFailure;
};

/// Thrown when a device allocation fails for lack of memory; `bytes()` is what was asked for.
class OutOfDeviceMemory : public CudaFailure {
public:
    OutOfDeviceMemory(size_t bytes, const std::string& what) : CudaFailure(what), bytes_(bytes) {}
    size_t bytes() const noexcept { return bytes_; }

private:
    size_t bytes_;
};

/// A byte count for people: "512 B", "3.0 KiB", "1.50 GiB" (three significant digits from KiB).
inline std::string format_bytes(double bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    int u = 0;
    while (bytes >= 1024.0 && u < 5) {
        bytes /= 1024.0;
        ++u;
    }
    char buf[32];
    if (u == 0) std::snprintf(buf, sizeof buf, "%.0f %s", bytes, units[u]);
    else std::snprintf(buf, sizeof buf, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
    return buf;
}

namespace detail {

/// The API function of a stringified call: "cudaMalloc(reinterpret_cast<void**>(&p), n)" ->
/// "cudaMalloc"; text without a call is returned as it is.
inline std::string_view called_function(std::string_view call) {
    const size_t open = call.find('(');
    std::string_view name = call.substr(0, open);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    return name.empty() ? call : name;
}

/// True when failure messages should carry the call text and its source location.
inline bool report_call_sites() {
#ifndef NDEBUG
    return true;
#else
    const char* v = std::getenv("GEMMLAB_DEBUG");
    return v && *v && std::string_view(v) != "0";
#endif
}

/// "<function> failed: <meaning> (<error name>)", then " [<call> at <file>:<line>]" when
/// `with_site`.
inline std::string failure_message(std::string_view call, std::string_view meaning,
                                   std::string_view error_name, std::string_view file, int line,
                                   bool with_site) {
    std::string msg = std::string(called_function(call)) + " failed: " + std::string(meaning);
    if (!error_name.empty() && error_name != meaning) msg += " (" + std::string(error_name) + ")";
    if (with_site)
        msg += " [" + std::string(call) + " at " + std::string(file) + ":" + std::to_string(line) + "]";
    return msg;
}

[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
    throw CudaFailure(failure_message(call, cudaGetErrorString(err), cudaGetErrorName(err), file,
                                      line, report_call_sites()));
}
#if !defined(GEMMLAB_HIP)
[[noreturn]] inline void throw_cublas(cublasStatus_t st, const char* call, const char* file,
                                      int line) {
    throw CublasFailure(failure_message(call, cublasGetStatusString(st), cublasGetStatusName(st),
                                        file, line, report_call_sites()));
}
#endif
} // namespace detail

} // namespace gemmlab

/// Checks a CUDA runtime call; throws gemmlab::CudaFailure on error.
#define GEMMLAB_CUDA_CHECK(call)                                                                  \
    do {                                                                                          \
        cudaError_t gemmlab_err_ = (call);                                                        \
        if (gemmlab_err_ != cudaSuccess)                                                          \
            ::gemmlab::detail::throw_cuda(gemmlab_err_, #call, __FILE__, __LINE__);               \
    } while (0)

/// Checks a cuBLAS call; throws gemmlab::CudaFailure on error.
#define GEMMLAB_CUBLAS_CHECK(call)                                                                \
    do {                                                                                          \
        cublasStatus_t gemmlab_st_ = (call);                                                      \
        if (gemmlab_st_ != CUBLAS_STATUS_SUCCESS)                                                 \
            ::gemmlab::detail::throw_cublas(gemmlab_st_, #call, __FILE__, __LINE__);              \
    } while (0)

/// Checks that the kernel launch just made was accepted (bad configuration, too much shared
/// memory, ...). Use right after every <<<...>>>. Its message says "kernel launch failed: ...".
#define GEMMLAB_CHECK_LAUNCH()                                                                    \
    do {                                                                                          \
        cudaError_t gemmlab_err_ = cudaGetLastError();                                            \
        if (gemmlab_err_ != cudaSuccess)                                                          \
            ::gemmlab::detail::throw_cuda(gemmlab_err_, "kernel launch", __FILE__, __LINE__);     \
    } while (0)
