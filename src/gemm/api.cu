// gemmlab::gemm: validate (no CUDA call before this succeeds), normalize to the one internal
// column-major form, pick a rung, launch on the caller's stream, and turn failures into a Status.

#include <string>

#include "common/cuda_check.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/registry.hpp"
#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab {

namespace {

thread_local std::string t_last_error; // per thread: the library is reentrant

Status fail(Status s, std::string message) {
    t_last_error = std::move(message);
    return s;
}

/// Offset of the last element of a stored rows x cols matrix with leading dimension ld (in the
/// storage order where ld strides the outer index), or -1 when it overflows int64.
int64_t last_offset(int64_t inner, int64_t outer, int64_t ld) {
    if (inner == 0 || outer == 0) return 0;
    int64_t prod = 0, sum = 0;
    if (__builtin_mul_overflow(outer - 1, ld, &prod) || __builtin_add_overflow(prod, inner - 1, &sum))
        return -1;
    return sum;
}

struct Operand {
    const char* name;   // "A", "B", "C"
    const char* ld_name;// "lda", ...
    int64_t rows, cols; // as stored (after op is undone)
    const char* rows_expr, *cols_expr;
    int64_t ld;
    bool is_op_t;
    bool has_op;
};

/// Leading-dimension and overflow rule for one operand: column-major storage strides columns
/// by ld, so ld >= rows; row-major strides rows, so ld >= cols.
Status check_operand(Layout layout, const Operand& x) {
    const bool row = layout == Layout::RowMajor;
    const int64_t need = std::max<int64_t>(1, row ? x.cols : x.rows);
    const char* need_expr = row ? x.cols_expr : x.rows_expr;
    const std::string where = std::string("(") + (row ? "row-major " : "column-major ") + x.name +
                              (x.has_op ? (x.is_op_t ? ", op T)" : ", op N)") : ")");
    if (x.ld < need)
        return fail(Status::InvalidLeadingDimension,
                    std::string(x.ld_name) + " = " + std::to_string(x.ld) + " is less than max(1, " +
                        need_expr + ") = " + std::to_string(need) + " " + where);
    const int64_t inner = row ? x.cols : x.rows, outer = row ? x.rows : x.cols;
    if (last_offset(inner, outer, x.ld) < 0)
        return fail(Status::SizeOverflow, std::string("the last element of ") + x.name + " " + where +
                                              " lies beyond int64: " + std::to_string(outer) +
                                              " x " + x.ld_name + " = " + std::to_string(x.ld));
    return Status::Success;
}

template <class T>
Status validate(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
                const T* A, int64_t lda, const T* B, int64_t ldb, const T* C, int64_t ldc,
                const GemmOptions& options, detail::RungLauncher* launcher) {
    for (auto [name, v] : {std::pair{"m", m}, {"n", n}, {"k", k}})
        if (v < 0)
            return fail(Status::InvalidSize, std::string(name) + " = " + std::to_string(v) +
                                                 " is negative (sizes must be >= 0)");
    const bool ta = op_a == Op::T, tb = op_b == Op::T;
    const Operand ops[] = {
        {"A", "lda", ta ? k : m, ta ? m : k, ta ? "k" : "m", ta ? "m" : "k", lda, ta, true},
        {"B", "ldb", tb ? n : k, tb ? k : n, tb ? "n" : "k", tb ? "k" : "n", ldb, tb, true},
        {"C", "ldc", m, n, "m", "n", ldc, false, false},
    };
    for (const auto& x : ops)
        if (Status s = check_operand(layout, x); s != Status::Success) return s;

    const bool writes_c = m > 0 && n > 0;
    const bool reads_ab = writes_c && k > 0 && alpha != T(0);
    if (writes_c && !C) return fail(Status::NullPointer, "C is null but m x n = " + std::to_string(m) + " x " + std::to_string(n) + " elements must be written");
    if (reads_ab && !A) return fail(Status::NullPointer, "A is null but k = " + std::to_string(k) + " > 0 and alpha != 0");
    if (reads_ab && !B) return fail(Status::NullPointer, "B is null but k = " + std::to_string(k) + " > 0 and alpha != 0");

    if (options.kernel == "auto") {
        *launcher = &detail::launch_auto;
        return Status::Success;
    }
    for (const auto& rung : detail::rung_table()) {
        const auto& info = rung.info;
        if (std::string_view(options.kernel) != info.name && options.kernel != std::to_string(info.number))
            continue;
        if (!info.supports(data_type_of<T>())) {
            std::string has;
            for (DataType t : {DataType::F32, DataType::F64})
                if (info.supports(t)) has += std::string(has.empty() ? "" : ", ") + to_string(t);
            return fail(Status::UnsupportedType, "kernel '" + options.kernel + "' (rung " +
                                                     std::to_string(info.number) + ", " +
                                                     std::string(info.name) + ") supports " + has +
                                                     " only; this call's type is " +
                                                     to_string(data_type_of<T>()));
        }
        *launcher = rung.launch;
        return Status::Success;
    }
    return fail(Status::UnknownKernel, "kernel = '" + options.kernel +
                                           "' matches no rung name or number, nor 'auto' (see `gemmlab list`)");
}

/// Rejects pointers the GPU cannot dereference: plain host memory (unregistered) and memory of
/// another device.
Status check_device_pointer(const char* name, const void* p, int device) {
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
        cudaGetLastError();
        return fail(Status::NotDevicePointer, std::string(name) + " is not a pointer CUDA knows");
    }
    if (attr.type == cudaMemoryTypeUnregistered || attr.devicePointer == nullptr)
        return fail(Status::NotDevicePointer,
                    std::string(name) + " is a host pointer; gemm needs device memory (cudaMalloc)");
    if (attr.type == cudaMemoryTypeDevice && attr.device != device)
        return fail(Status::NotDevicePointer, std::string(name) + " lives on device " +
                                                  std::to_string(attr.device) + " but the current device is " +
                                                  std::to_string(device));
    return Status::Success;
}

// C = beta * C for the k == 0 / alpha == 0 cases; beta == 0 writes zeros without reading C.
template <class T>
__global__ void scale_c_kernel(int64_t m, int64_t n, T beta, T* C, int64_t ldc) {
    const int64_t total = m * n;
    for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
         idx += int64_t(gridDim.x) * blockDim.x) {
        const int64_t i = idx % m, j = idx / m;
        T* c = C + i + j * ldc;
        *c = beta == T(0) ? T(0) : beta * *c;
    }
}

} // namespace

const char* last_error() noexcept { return t_last_error.c_str(); }

template <class T>
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
                     const T* A, int64_t lda, const T* B, int64_t ldb, T /*beta*/, const T* C,
                     int64_t ldc, const GemmOptions& options) {
    t_last_error.clear();
    detail::RungLauncher launcher = nullptr;
    return validate(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, options, &launcher);
}

template <class T>
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
            int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
            const GemmOptions& options) {
    t_last_error.clear();
    detail::RungLauncher launcher = nullptr;
    if (Status s = validate(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, options, &launcher);
        s != Status::Success)
        return s;
    if (m == 0 || n == 0) return Status::Success;

    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands.
    detail::Problem g{data_type_of<T>(), options.precision, m, n, k, double(alpha), A, lda,
                      op_a == Op::T, B, ldb, op_b == Op::T, double(beta), C, ldc};
    if (layout == Layout::RowMajor)
        g = {data_type_of<T>(), options.precision, n, m, k, double(alpha), B, ldb,
             op_b == Op::T, A, lda, op_a == Op::T, double(beta), C, ldc};

    int count = 0, device = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
        cudaGetLastError();
        return fail(Status::NoDevice, "no CUDA device is visible");
    }
    try {
        GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
        const bool reads_ab = k > 0 && alpha != T(0);
        for (auto [name, p] : {std::pair<const char*, const void*>{"C", C}, {"A", reads_ab ? A : nullptr},
                               {"B", reads_ab ? B : nullptr}})
            if (p)
                if (Status s = check_device_pointer(name, p, device); s != Status::Success) return s;

        if (!reads_ab) {
            const int64_t total = g.m * g.n;
            const unsigned blocks = unsigned(std::min<int64_t>(detail::ceil_div(total, 256), 65535));
            scale_c_kernel<T><<<blocks, 256, 0, options.stream>>>(g.m, g.n, beta, C, ldc);
            GEMMLAB_CHECK_LAUNCH();
            return Status::Success;
        }
        launcher(g, options.stream);
        return Status::Success;
    } catch (const CublasFailure& e) {
        return fail(Status::CublasError, e.what());
    } catch (const CudaFailure& e) {
        return fail(Status::CudaError, e.what());
    }
}

#define GEMMLAB_INSTANTIATE(T)                                                                     \
    template Status gemm<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t,       \
                            const T*, int64_t, T, T*, int64_t, const GemmOptions&);                \
    template Status validate_gemm<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T, const T*,      \
                                     int64_t, const T*, int64_t, T, const T*, int64_t,             \
                                     const GemmOptions&);
GEMMLAB_INSTANTIATE(float)
GEMMLAB_INSTANTIATE(double)
#undef GEMMLAB_INSTANTIATE

} // namespace gemmlab
