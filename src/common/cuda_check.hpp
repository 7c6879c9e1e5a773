#pragma once
// One error-check family for CUDA and cuBLAS calls. Each macro stringifies the call and reports
// file and line, so a failure in a log names the exact call that failed.

#include <stdexcept>
#include <string>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

namespace gemmlab {

/// Thrown by the CHECK macros; `what()` names the call, the error and the location.
class CudaFailure : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Thrown by GEMMLAB_CUBLAS_CHECK.
class CublasFailure : public CudaFailure {
public:
    using CudaFailure::CudaFailure;
};

namespace detail {
[[noreturn]] inline void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
    throw CudaFailure(std::string(call) + " failed: " + cudaGetErrorName(err) + " (" +
                      cudaGetErrorString(err) + ") at " + file + ":" + std::to_string(line));
}
[[noreturn]] inline void throw_cublas(cublasStatus_t st, const char* call, const char* file,
                                      int line) {
    throw CublasFailure(std::string(call) + " failed: " + cublasGetStatusName(st) + " at " + file +
                      ":" + std::to_string(line));
}
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
/// memory, ...). Use right after every <<<...>>>.
#define GEMMLAB_CHECK_LAUNCH() GEMMLAB_CUDA_CHECK(cudaGetLastError())
