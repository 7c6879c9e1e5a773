#pragma once
// A synchronised pool of cuBLAS handles per device. A cuBLAS handle must not be used by two
// threads at once (cublasSetStream + call is not atomic), so each call borrows a handle for its
// duration; handles are created lazily and reused, never destroyed before exit.

#include <cublas_v2.h>

namespace gemmlab::detail {

/// Borrows a handle for the current device, bound to `stream` with true FP32/FP64 math
/// (CUBLAS_DEFAULT_MATH: no TF32). Returned to the pool on destruction.
class BorrowedCublas {
public:
    explicit BorrowedCublas(cudaStream_t stream);
    ~BorrowedCublas();
    BorrowedCublas(const BorrowedCublas&) = delete;
    BorrowedCublas& operator=(const BorrowedCublas&) = delete;
    cublasHandle_t get() const noexcept { return handle_; }

private:
    int device_ = 0;
    cublasHandle_t handle_ = nullptr;
};

} // namespace gemmlab::detail
