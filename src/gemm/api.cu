// gemmlab::gemm: validate (no CUDA call before this succeeds), normalize to the one internal
// column-major form, pick a rung, launch on the caller's stream, and turn failures into a Status.
//
// The host side of a call is budgeted: about what one bare kernel launch costs
// (`gemmlab overhead` measures both in the same run; docs/cli.md). So a successful call makes no heap
// allocation (tests/test_host_path.cpp counts them), no device query whose answer cannot change
// within the process, and no synchronization. What a successful call does, in order:
//   - validation: integer checks only; message strings are built on the failure path alone;
//   - the kernel choice: "auto" is one string compare, a rung name or number one pass over the
//     rung table comparing string_views (no std::string built per rung);
//   - the device count: queried once per process (visible_device_count_cached below);
//   - cudaGetDevice: per call, since the current device is per-thread state the caller may change;
//   - a pointer query for C and, when they are read, A and B (a pointer passed twice is checked
//     once; gemm/pointer_check.hpp, one driver call each): per call, because no cache of it can
//     be kept correct, as memory is freed and its addresses reused by host allocations or by
//     another device's behind the library's back;
//   - the launch: auto's pick (a few multiplies per candidate, caps cached per device) or the
//     rung's launcher (a tiny product's kernel, rung 27, through the driver on a cached
//     function handle: gemm/kernels/driver_launch.cuh); cuBLAS borrows a pooled handle (a
//     mutex and a map lookup, far below cuBLAS's own cost per call); a rung that needs scratch
//     memory takes it from the per-device stream-ordered pool (gemm/workspace.hpp: no
//     cudaMalloc, no synchronization).

#include <charconv>
#include <iterator>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#include "common/cuda_check.hpp"
#include "gemm/device_caps.hpp"
#include "gemm/element.hpp"
#include "gemm/kernels/common.cuh"
#include "gemm/kernels/launchers.hpp"
#include "gemm/operand_rules.hpp"
#include "gemm/pointer_check.hpp"
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

} // namespace

namespace detail {
void set_last_error(std::string message) { t_last_error = std::move(message); }
} // namespace detail

namespace {

using detail::last_offset_of;
using Operand = detail::StoredOperand;

/// gemm's rule for one operand (operand_rules.hpp), as a Status with last_error set.
Status check_operand(Layout layout, const Operand& x) {
    std::string message;
    const Status s = detail::check_stored_operand(layout, x, &message);
    return s == Status::Success ? s : fail(s, std::move(message));
}

/// The rung that `key` names: its name ("smem_tile") or its number written the canonical way
/// ("5": no sign, no leading zero), as before; nullptr when none. The key is parsed once, not
/// compared with a decimal string built for every rung.
const detail::Rung* find_rung(std::string_view key) {
    int number = -1;
    const char* end = key.data() + key.size();
    const auto [ptr, ec] = std::from_chars(key.data(), end, number);
    const bool canonical_number = !key.empty() && ec == std::errc() && ptr == end &&
                                  key.front() != '-' && (key.size() == 1 || key.front() != '0');
    for (const auto& r : detail::rung_table())
        if (r.info.name == key || (canonical_number && r.info.number == number)) return &r;
    return nullptr;
}

/// The rules of a strided batch, after each operand passed check_operand (a plain gemm call is
/// one batch with zero strides and passes them all): every stride >= 0; with two batches or
/// more, stride_c at least the span of one C (its last offset + 1), so that no element of C
/// belongs to two batches (the batches may run in any order or at once); and the last batch's
/// last element inside int64 for every operand the call touches (`touched`: A, B, C).
Status check_batch(Layout layout, const Operand (&ops)[3], const detail::Batch& batch,
                   const bool (&touched)[3]) {
    const int64_t strides[3] = {batch.strides.a, batch.strides.b, batch.strides.c};
    const char* const names[3] = {"stride_a", "stride_b", "stride_c"};
    for (int i = 0; i < 3; ++i)
        if (strides[i] < 0)
            return fail(Status::InvalidStride,
                        std::string(names[i]) + " = " + std::to_string(strides[i]) +
                            " is negative (batch strides must be >= 0" +
                            (i < 2 ? std::string("; 0 gives every batch the same ") + ops[i].name : "") + ")");
    if (batch.count < 2) return Status::Success;
    const bool row = layout == Layout::RowMajor;
    if (touched[2]) {
        const int64_t last = last_offset_of(layout, ops[2]); // the span is last + 1
        if (batch.strides.c <= last)
            return fail(Status::InvalidStride,
                        "stride_c = " + std::to_string(batch.strides.c) + " is less than the " +
                            std::to_string(uint64_t(last) + 1) + " elements one C spans (" +
                            (row ? "(m - 1) x ldc + n, row-major C" : "(n - 1) x ldc + m, column-major C") +
                            "): the " + std::to_string(batch.count) + " batches of C would overlap");
    }
    for (int i = 0; i < 3; ++i) {
        if (!touched[i]) continue;
        int64_t prod = 0, sum = 0;
        if (__builtin_mul_overflow(batch.count - 1, strides[i], &prod) ||
            __builtin_add_overflow(prod, last_offset_of(layout, ops[i]), &sum))
            return fail(Status::SizeOverflow,
                        std::string("the last element of the last batch of ") + ops[i].name +
                            " lies beyond int64: (batch_count - 1) x " + names[i] + " = " +
                            std::to_string(batch.count - 1) + " x " + std::to_string(strides[i]));
    }
    return Status::Success;
}

/// The element types of one call: A and B, and C.
struct CallTypes {
    DataType in, out;
};

std::string type_text(CallTypes t) {
    std::string s = to_string(t.in);
    if (t.out != t.in) s += std::string(" with C in ") + to_string(t.out);
    return s;
}

/// The checks of every overload, gemm's and gemm_strided_batched's (`batch`: one batch for
/// gemm). On success `*rung` is the rung that `options.kernel` names, or nullptr for auto.
Status validate(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, bool alpha_zero,
                const void* A, int64_t lda, const void* B, int64_t ldb, const void* C, int64_t ldc,
                const detail::Batch& batch, const GemmOptions& options, CallTypes types,
                const detail::Rung** rung) {
    for (auto [name, v] : {std::pair{"m", m}, {"n", n}, {"k", k}, {"batch_count", batch.count}})
        if (v < 0)
            return fail(Status::InvalidSize, std::string(name) + " = " + std::to_string(v) +
                                                 " is negative (sizes must be >= 0)");
    if (options.sm_count_target < 0)
        return fail(Status::InvalidSize, "options.sm_count_target = " +
                                             std::to_string(options.sm_count_target) +
                                             " is negative (0 means every SM)");
    if (options.emulation_moduli < 0 || options.emulation_moduli > kMaxEmulationModuli)
        return fail(Status::InvalidSize, "options.emulation_moduli = " +
                                             std::to_string(options.emulation_moduli) +
                                             " is outside 0.." + std::to_string(kMaxEmulationModuli) +
                                             " (0: the count that meets the type's bound)");
    const bool ta = op_a == Op::T, tb = op_b == Op::T;
    const Operand ops[] = {
        {"A", "lda", ta ? k : m, ta ? m : k, ta ? "k" : "m", ta ? "m" : "k", lda, ta, true},
        {"B", "ldb", tb ? n : k, tb ? k : n, tb ? "n" : "k", tb ? "k" : "n", ldb, tb, true},
        {"C", "ldc", m, n, "m", "n", ldc, false, false},
    };
    for (const auto& x : ops)
        if (Status s = check_operand(layout, x); s != Status::Success) return s;

    const bool writes_c = m > 0 && n > 0 && batch.count > 0;
    const bool reads_ab = writes_c && k > 0 && !alpha_zero;
    if (Status s = check_batch(layout, ops, batch, {reads_ab, reads_ab, writes_c}); s != Status::Success)
        return s;
    if (writes_c && !C) return fail(Status::NullPointer, "C is null but m x n = " + std::to_string(m) + " x " + std::to_string(n) + " elements must be written");
    if (reads_ab && !A) return fail(Status::NullPointer, "A is null but k = " + std::to_string(k) + " > 0 and alpha != 0");
    if (reads_ab && !B) return fail(Status::NullPointer, "B is null but k = " + std::to_string(k) + " > 0 and alpha != 0");

    if (options.kernel == "auto") {
        *rung = nullptr;
        return Status::Success;
    }
    const detail::Rung* r = find_rung(options.kernel);
    if (!r)
        return fail(Status::UnknownKernel, "kernel = '" + options.kernel +
                                               "' matches no rung name or number, nor 'auto' (see `gemmlab list`)");
    const auto& info = r->info;
    if (!info.supports(types.in)) {
        std::string has;
        for (DataType t : kAllDataTypes)
            if (info.supports(t)) has += std::string(has.empty() ? "" : ", ") + to_string(t);
        return fail(Status::UnsupportedType, "kernel '" + options.kernel + "' (rung " +
                                                 std::to_string(info.number) + ", " +
                                                 std::string(info.name) + ") supports " + has +
                                                 " only; this call's type is " + type_text(types));
    }
    *rung = r;
    return Status::Success;
}

/// validate() for a typed call: TIn for A and B, TOut for C, TS for alpha and beta.
template <class TIn, class TOut, class TS>
Status validate_typed(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, TS alpha,
                      const TIn* A, int64_t lda, const TIn* B, int64_t ldb, const TOut* C,
                      int64_t ldc, const detail::Batch& batch, const GemmOptions& options,
                      const detail::Rung** rung) {
    return validate(layout, op_a, op_b, m, n, k, alpha == TS(0), A, lda, B, ldb, C, ldc, batch,
                    options, {data_type_of<TIn>(), data_type_of<TOut>()}, rung);
}

/// The number of visible CUDA devices, asked once per process. The runtime fixes the set of
/// visible devices when it initializes (CUDA_VISIBLE_DEVICES is read then), so the answer
/// cannot change afterwards; a failed query (no driver, no device) counts as 0 and stays 0, as
/// the runtime's own failed initialization does. Thread-safe (a function-local static).
int visible_device_count_cached() {
    static const int count = [] {
        int n = 0;
        if (cudaGetDeviceCount(&n) != cudaSuccess) {
            cudaGetLastError(); // not the caller's error: clear it
            n = 0;
        }
        return n;
    }();
    return count;
}

/// Rejects pointers the GPU cannot dereference: plain host memory (unregistered) and memory of
/// another device (gemm/pointer_check.hpp).
Status check_device_pointer(const char* name, const void* p, int device) {
    std::string why = detail::pointer_problem(name, p, device);
    return why.empty() ? Status::Success : fail(Status::NotDevicePointer, std::move(why));
}

// C = beta * C for the k == 0 / alpha == 0 cases; beta == 0 writes zeros without reading C.
// A half-precision C is scaled in float and rounded to nearest, as the rungs' epilogues do.
// Batch z (of `batches`, stride_c apart) on gridDim.z, looping past its 65535 slices.
template <class TC, class TS>
__global__ void scale_c_kernel(int64_t m, int64_t n, TS beta, TC* C, int64_t ldc, int64_t batches,
                               int64_t stride_c) {
    const int64_t total = m * n;
    for (int64_t z = blockIdx.z; z < batches; z += gridDim.z) {
        TC* const Cz = C + z * stride_c;
        for (int64_t idx = int64_t(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
             idx += int64_t(gridDim.x) * blockDim.x) {
            const int64_t i = idx % m, j = idx / m;
            TC* c = Cz + i + j * ldc;
            if constexpr (std::is_same_v<TC, TS>)
                *c = beta == TS(0) ? TS(0) : beta * *c;
            else
                *c = detail::from_float<TC>(beta == 0.f ? 0.f : beta * detail::to_float(*c));
        }
    }
}

/// Runs the normalized problem on `rung` (nullptr: auto, which picks a natively batched
/// configuration for a batch). The one place a batch is looped on the host: a rung without
/// KernelInfo::native_batch gets one launch per batch, each a problem of its own.
void launch_problem(const detail::Rung* rung, const detail::Problem& g, cudaStream_t stream) {
    if (!rung) return detail::launch_auto(g, stream);
    if (g.batch.count == 1 || rung->info.native_batch) return rung->launch(g, stream);
    for (int64_t b = 0; b < g.batch.count; ++b) rung->launch(g.one_batch(b), stream);
}

/// The whole call for A and B in TIn, C in TOut, alpha and beta in TS; `batch` is one batch for
/// gemm.
template <class TIn, class TOut, class TS>
Status run_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, TS alpha,
                const TIn* A, int64_t lda, const TIn* B, int64_t ldb, TS beta, TOut* C,
                int64_t ldc, const detail::Batch& batch, const GemmOptions& options) {
    t_last_error.clear();
    const detail::Rung* rung = nullptr;
    if (Status s = validate_typed<TIn, TOut, TS>(layout, op_a, op_b, m, n, k, alpha, A, lda, B,
                                                 ldb, C, ldc, batch, options, &rung);
        s != Status::Success)
        return s;
    if (m == 0 || n == 0 || batch.count == 0) return Status::Success;

    // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: swap the operands (and
    // their batch strides).
    const DataType type = data_type_of<TIn>(), c_type = data_type_of<TOut>();
    detail::Problem g{type, c_type, options.precision, m, n, k, double(alpha), A, lda,
                      op_a == Op::T, B, ldb, op_b == Op::T, double(beta), C, ldc, batch};
    if (layout == Layout::RowMajor)
        g = {type, c_type, options.precision, n, m, k, double(alpha), B, ldb,
             op_b == Op::T, A, lda, op_a == Op::T, double(beta), C, ldc,
             {batch.count, {batch.strides.b, batch.strides.a, batch.strides.c}}};
    g.emulation_moduli = options.emulation_moduli;

    if (visible_device_count_cached() == 0) return fail(Status::NoDevice, "no CUDA device is visible");
    int device = 0;
    try {
        GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
        // A rung this device cannot run is refused whatever the shape (cached per device).
        if (rung && (rung->info.needs_sm90a || rung->info.min_compute_capability > 0))
            if (std::string why = detail::device_unsupported_reason(rung->info, device); !why.empty())
                return fail(Status::UnsupportedDevice, std::move(why));
        // C, then A and B where they are read. A pointer passed twice (A == B in A * A^T) is
        // asked about once: the answer is the same, and each query is a driver call.
        const bool reads_ab = k > 0 && alpha != TS(0);
        const std::pair<const char*, const void*> pointers[] = {
            {"C", C}, {"A", reads_ab ? A : nullptr}, {"B", reads_ab ? B : nullptr}};
        for (size_t i = 0; i < std::size(pointers); ++i) {
            const void* p = pointers[i].second;
            bool seen = p == nullptr;
            for (size_t j = 0; j < i && !seen; ++j) seen = pointers[j].second == p;
            if (!seen)
                if (Status s = check_device_pointer(pointers[i].first, p, device); s != Status::Success)
                    return s;
        }

        if (!reads_ab) {
            const int64_t total = g.m * g.n;
            const unsigned blocks = unsigned(std::min<int64_t>(detail::ceil_div(total, 256), 65535));
            const dim3 grid(blocks, 1, detail::batch_grid_z(batch.count));
            scale_c_kernel<TOut, TS><<<grid, 256, 0, options.stream>>>(g.m, g.n, beta, C, ldc,
                                                                        batch.count, batch.strides.c);
            GEMMLAB_CHECK_LAUNCH();
            return Status::Success;
        }
        // A target below the device's SM count holds for every caps query of this call (the
        // caps are looked up only for a call that sets one).
        const int target = options.sm_count_target;
        const detail::SmCountTarget limit(target > 0 && target < detail::device_caps(device).sm_count ? target : 0);
        launch_problem(rung, g, options.stream);
        return Status::Success;
    } catch (const CublasFailure& e) {
        return fail(Status::CublasError, e.what());
    } catch (const CudaFailure& e) {
        return fail(Status::CudaError, e.what());
    }
}

} // namespace

const char* last_error() noexcept { return t_last_error.c_str(); }

Status check_device_support(const KernelInfo& info, int device) noexcept {
    t_last_error.clear();
    try {
        const int count = visible_device_count_cached();
        if (count == 0) return fail(Status::NoDevice, "no CUDA device is visible");
        if (device < 0) GEMMLAB_CUDA_CHECK(cudaGetDevice(&device));
        if (device >= count)
            return fail(Status::NoDevice, "device " + std::to_string(device) + " does not exist (" +
                                              std::to_string(count) + " visible)");
        if (info.device == Device::Cpu) return Status::Success;
        if (std::string why = detail::device_unsupported_reason(info, device); !why.empty())
            return fail(Status::UnsupportedDevice, std::move(why));
        return Status::Success;
    } catch (const CudaFailure& e) {
        return fail(Status::CudaError, e.what());
    } catch (const std::exception& e) {
        return fail(Status::CudaError, e.what());
    }
}

template <class T>
Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha,
                     const T* A, int64_t lda, const T* B, int64_t ldb, T /*beta*/, const T* C,
                     int64_t ldc, const GemmOptions& options) {
    t_last_error.clear();
    const detail::Rung* rung = nullptr;
    return validate_typed<T, T, T>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, C, ldc, {},
                                   options, &rung);
}

template <class T>
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
            int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc,
            const GemmOptions& options) {
    return run_gemm<T, T, T>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, {},
                             options);
}

template <class T>
Status validate_gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n,
                                     int64_t k, T alpha, const T* A, int64_t lda, int64_t stride_a,
                                     const T* B, int64_t ldb, int64_t stride_b, T /*beta*/,
                                     const T* C, int64_t ldc, int64_t stride_c,
                                     int64_t batch_count, const GemmOptions& options) {
    t_last_error.clear();
    const detail::Rung* rung = nullptr;
    return validate_typed<T, T, T>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, C, ldc,
                                   {batch_count, {stride_a, stride_b, stride_c}}, options, &rung);
}

template <class T>
Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,
                            T alpha, const T* A, int64_t lda, int64_t stride_a, const T* B,
                            int64_t ldb, int64_t stride_b, T beta, T* C, int64_t ldc,
                            int64_t stride_c, int64_t batch_count, const GemmOptions& options) {
    return run_gemm<T, T, T>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                             {batch_count, {stride_a, stride_b, stride_c}}, options);
}

#define GEMMLAB_INSTANTIATE(T)                                                                     \
    template Status gemm<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T, const T*, int64_t,       \
                            const T*, int64_t, T, T*, int64_t, const GemmOptions&);                \
    template Status validate_gemm<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T, const T*,      \
                                     int64_t, const T*, int64_t, T, const T*, int64_t,             \
                                     const GemmOptions&);                                          \
    template Status gemm_strided_batched<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T,          \
                                            const T*, int64_t, int64_t, const T*, int64_t,         \
                                            int64_t, T, T*, int64_t, int64_t, int64_t,             \
                                            const GemmOptions&);                                   \
    template Status validate_gemm_strided_batched<T>(Layout, Op, Op, int64_t, int64_t, int64_t, T, \
                                                     const T*, int64_t, int64_t, const T*,         \
                                                     int64_t, int64_t, T, const T*, int64_t,       \
                                                     int64_t, int64_t, const GemmOptions&);
GEMMLAB_INSTANTIATE(float)
GEMMLAB_INSTANTIATE(double)
#undef GEMMLAB_INSTANTIATE

// The half-precision overloads: A and B in TIn, C in TOut, alpha and beta in float.
#define GEMMLAB_HALF_OVERLOADS(TIn, TOut)                                                          \
    Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,     \
                const TIn* A, int64_t lda, const TIn* B, int64_t ldb, float beta, TOut* C,         \
                int64_t ldc, const GemmOptions& options) {                                         \
        return run_gemm<TIn, TOut, float>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb,      \
                                          beta, C, ldc, {}, options);                              \
    }                                                                                              \
    Status validate_gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,        \
                         float alpha, const TIn* A, int64_t lda, const TIn* B, int64_t ldb,        \
                         float /*beta*/, const TOut* C, int64_t ldc, const GemmOptions& options) { \
        t_last_error.clear();                                                                      \
        const detail::Rung* rung = nullptr;                                                        \
        return validate_typed<TIn, TOut, float>(layout, op_a, op_b, m, n, k, alpha, A, lda, B,     \
                                                ldb, C, ldc, {}, options, &rung);                  \
    }                                                                                              \
    Status gemm_strided_batched(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k,  \
                                float alpha, const TIn* A, int64_t lda, int64_t stride_a,          \
                                const TIn* B, int64_t ldb, int64_t stride_b, float beta, TOut* C,  \
                                int64_t ldc, int64_t stride_c, int64_t batch_count,                \
                                const GemmOptions& options) {                                      \
        return run_gemm<TIn, TOut, float>(layout, op_a, op_b, m, n, k, alpha, A, lda, B, ldb,      \
                                          beta, C, ldc,                                            \
                                          {batch_count, {stride_a, stride_b, stride_c}}, options);   \
    }                                                                                              \
    Status validate_gemm_strided_batched(                                                          \
        Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, float alpha,             \
        const TIn* A, int64_t lda, int64_t stride_a, const TIn* B, int64_t ldb, int64_t stride_b,  \
        float /*beta*/, const TOut* C, int64_t ldc, int64_t stride_c, int64_t batch_count,         \
        const GemmOptions& options) {                                                              \
        t_last_error.clear();                                                                      \
        const detail::Rung* rung = nullptr;                                                        \
        return validate_typed<TIn, TOut, float>(layout, op_a, op_b, m, n, k, alpha, A, lda, B,     \
                                                ldb, C, ldc,                                       \
                                                {batch_count, {stride_a, stride_b, stride_c}},       \
                                                options, &rung);                                   \
    }
GEMMLAB_HALF_OVERLOADS(__nv_bfloat16, __nv_bfloat16)
GEMMLAB_HALF_OVERLOADS(__nv_bfloat16, float)
GEMMLAB_HALF_OVERLOADS(__half, __half)
GEMMLAB_HALF_OVERLOADS(__half, float)
#undef GEMMLAB_HALF_OVERLOADS

} // namespace gemmlab
