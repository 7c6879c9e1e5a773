// Rung 0: cuBLAS, the yardstick every other rung is measured against in the same run.
//
// cublasSgemm_64 / cublasDgemm_64 on the normalized column-major problem, with the handle's math
// mode pinned to CUBLAS_DEFAULT_MATH: compute in true FP32 / FP64, never TF32, unless the call's
// precision is Tf32, where float goes through cublasGemmEx_64 with CUBLAS_COMPUTE_32F_FAST_TF32.
// (DGEMM on sm_90 uses the FP64 tensor cores, which compute in full FP64: rung 15 is the
// ladder's answer to it.)
// BF16/FP16 inputs: cublasGemmEx_64 with CUDA_R_16BF / CUDA_R_16F A and B, C in the same type or
// CUDA_R_32F, CUBLAS_COMPUTE_32F and float alpha/beta: the half-precision rungs' yardstick, with
// the same types and FP32 accumulation (the call's precision does not apply to halves).
// A strided batch of more than one product goes to the strided batched form of the same call
// (cublasSgemmStridedBatched_64, cublasDgemmStridedBatched_64, cublasGemmStridedBatchedEx_64),
// the batched rungs' yardstick; one batch keeps the plain calls above, so that gemm's yardstick
// is exactly what it was.

#include <mutex>
#include <unordered_map>
#include <vector>

#include "gemm/cublas_handles.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"

namespace gemmlab::detail {

namespace {

struct HandlePool {
    std::mutex mutex;
    std::unordered_map<int, std::vector<cublasHandle_t>> free_by_device;
};

HandlePool& pool() {
    static HandlePool p; // intentionally never destroyed handles: cuBLAS teardown at exit is unsafe
    return p;
}

} // namespace

BorrowedCublas::BorrowedCublas(cudaStream_t stream) {
    GEMMLAB_CUDA_CHECK(cudaGetDevice(&device_));
    {
        std::lock_guard lock(pool().mutex);
        auto& free = pool().free_by_device[device_];
        if (!free.empty()) {
            handle_ = free.back();
            free.pop_back();
        }
    }
    if (!handle_) {
        GEMMLAB_CUBLAS_CHECK(cublasCreate(&handle_));
        GEMMLAB_CUBLAS_CHECK(cublasSetMathMode(handle_, CUBLAS_DEFAULT_MATH));
    }
    GEMMLAB_CUBLAS_CHECK(cublasSetStream(handle_, stream));
}

BorrowedCublas::~BorrowedCublas() {
    if (!handle_) return;
    std::lock_guard lock(pool().mutex);
    pool().free_by_device[device_].push_back(handle_);
}

namespace {

/// The cudaDataType of a half-precision call's A/B or C element type.
cudaDataType_t cuda_type_of(DataType t) {
    switch (t) {
    case DataType::BF16: return CUDA_R_16BF;
    case DataType::F16: return CUDA_R_16F;
    case DataType::F32: return CUDA_R_32F;
    case DataType::F64: return CUDA_R_64F;
    }
    return CUDA_R_32F;
}

} // namespace

namespace {

/// The strided batched forms, for p.batch.count > 1 (cuBLAS takes the 64-bit count itself).
void launch_cublas_batched(const Problem& p, cublasHandle_t h, cublasOperation_t ta,
                           cublasOperation_t tb) {
    const Batch& b = p.batch;
    if (p.type == DataType::BF16 || p.type == DataType::F16) {
        const float alpha = float(p.alpha), beta = float(p.beta);
        GEMMLAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
            h, ta, tb, p.m, p.n, p.k, &alpha, p.A, cuda_type_of(p.type), p.lda, b.strides.a, p.B,
            cuda_type_of(p.type), p.ldb, b.strides.b, &beta, p.C, cuda_type_of(p.c_type), p.ldc,
            b.strides.c, b.count, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        return;
    }
    if (p.type == DataType::F64) {
        const auto g = p.as<double>();
        GEMMLAB_CUBLAS_CHECK(cublasDgemmStridedBatched_64(h, ta, tb, g.m, g.n, g.k, &g.alpha, g.A, g.lda,
                                                          b.strides.a, g.B, g.ldb, b.strides.b, &g.beta,
                                                          g.C, g.ldc, b.strides.c, b.count));
        return;
    }
    const auto g = p.as<float>();
    if (p.precision == Precision::Tf32) {
        GEMMLAB_CUBLAS_CHECK(cublasGemmStridedBatchedEx_64(
            h, ta, tb, g.m, g.n, g.k, &g.alpha, g.A, CUDA_R_32F, g.lda, b.strides.a, g.B, CUDA_R_32F,
            g.ldb, b.strides.b, &g.beta, g.C, CUDA_R_32F, g.ldc, b.strides.c, b.count,
            CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_GEMM_DEFAULT));
        return;
    }
    GEMMLAB_CUBLAS_CHECK(cublasSgemmStridedBatched_64(h, ta, tb, g.m, g.n, g.k, &g.alpha, g.A, g.lda,
                                                      b.strides.a, g.B, g.ldb, b.strides.b, &g.beta, g.C,
                                                      g.ldc, b.strides.c, b.count));
}

} // namespace

void launch_cublas(const Problem& p, cudaStream_t stream) {
    BorrowedCublas blas(stream);
    const cublasOperation_t ta = p.trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
    const cublasOperation_t tb = p.trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
    if (p.batch.count > 1) return launch_cublas_batched(p, blas.get(), ta, tb);
    if (p.type == DataType::BF16 || p.type == DataType::F16) {
        const float alpha = float(p.alpha), beta = float(p.beta);
        GEMMLAB_CUBLAS_CHECK(cublasGemmEx_64(blas.get(), ta, tb, p.m, p.n, p.k, &alpha, p.A,
                                             cuda_type_of(p.type), p.lda, p.B, cuda_type_of(p.type),
                                             p.ldb, &beta, p.C, cuda_type_of(p.c_type), p.ldc,
                                             CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
        return;
    }
    if (p.type == DataType::F64) {
        const auto g = p.as<double>();
        GEMMLAB_CUBLAS_CHECK(cublasDgemm_64(blas.get(), ta, tb, g.m, g.n, g.k, &g.alpha, g.A, g.lda,
                                            g.B, g.ldb, &g.beta, g.C, g.ldc));
        return;
    }
    const auto g = p.as<float>();
    if (p.precision == Precision::Tf32) {
        // The TF32 yardstick: the same call with the compute type that lets cuBLAS round the
        // inputs to TF32 (what `--precision tf32` compares the tf32 rung against).
        GEMMLAB_CUBLAS_CHECK(cublasGemmEx_64(blas.get(), ta, tb, g.m, g.n, g.k, &g.alpha, g.A,
                                             CUDA_R_32F, g.lda, g.B, CUDA_R_32F, g.ldb, &g.beta,
                                             g.C, CUDA_R_32F, g.ldc, CUBLAS_COMPUTE_32F_FAST_TF32,
                                             CUBLAS_GEMM_DEFAULT));
        return;
    }
    GEMMLAB_CUBLAS_CHECK(cublasSgemm_64(blas.get(), ta, tb, g.m, g.n, g.k, &g.alpha, g.A, g.lda, g.B,
                                        g.ldb, &g.beta, g.C, g.ldc));
}

} // namespace gemmlab::detail
