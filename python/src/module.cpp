// gemmlab._gemmlab: the C++ half of the Python module. It knows pointers, not arrays: the
// Python half (gemmlab/_interop.py) turns DLPack / __cuda_array_interface__ arrays into
// (pointer, leading dimension, op) and calls gemm() here, which calls gemmlab::gemm<T>.
//
// Element types are rows of one table (kDtypes): the Python name, the spellings of the two array
// protocols, and the typed calls. A type the C++ API gains is one more row.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "gemmlab/gemm.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/status.hpp"

namespace py = pybind11;

namespace {

using gemmlab::DataType;
using gemmlab::GemmOptions;
using gemmlab::Layout;
using gemmlab::Op;
using gemmlab::Precision;
using gemmlab::Status;

void cuda_check(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

/// Makes `device` current for a scope and restores the caller's device after.
class DeviceGuard {
  public:
    explicit DeviceGuard(int device) {
        if (device < 0) return;
        cuda_check(cudaGetDevice(&previous_), "cudaGetDevice");
        if (previous_ != device) cuda_check(cudaSetDevice(device), "cudaSetDevice");
        else previous_ = -1;
    }
    ~DeviceGuard() {
        if (previous_ >= 0) cudaSetDevice(previous_);
    }
    DeviceGuard(const DeviceGuard&) = delete;
    DeviceGuard& operator=(const DeviceGuard&) = delete;

  private:
    int previous_ = -1;
};

/// One gemm call in pointer form, as the Python half describes it.
struct Call {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k;
    py::object alpha, beta;
    uintptr_t a, b, c;
    int64_t lda, ldb, ldc;
    GemmOptions options;
};

template <class T>
Status typed_gemm(const Call& g, bool validate_only) {
    // Scalars are converted while the GIL is held; the call itself runs without it.
    const T alpha = g.alpha.cast<T>(), beta = g.beta.cast<T>();
    const auto* A = reinterpret_cast<const T*>(g.a);
    const auto* B = reinterpret_cast<const T*>(g.b);
    auto* C = reinterpret_cast<T*>(g.c);
    if (validate_only)
        return gemmlab::validate_gemm<T>(g.layout, g.op_a, g.op_b, g.m, g.n, g.k, alpha, A, g.lda, B,
                                         g.ldb, beta, C, g.ldc, g.options);
    py::gil_scoped_release release;
    return gemmlab::gemm<T>(g.layout, g.op_a, g.op_b, g.m, g.n, g.k, alpha, A, g.lda, B, g.ldb, beta,
                            C, g.ldc, g.options);
}

/// Times each kernel on one shape (row-major, fresh random inputs in [-1, 1]) with CUDA events:
/// `warmup` untimed calls, then `reps` calls timed one by one. Returns milliseconds per call.
template <class T>
std::vector<std::vector<double>> typed_bench(const std::vector<std::string>& kernels, int64_t m,
                                             int64_t n, int64_t k, bool ta, bool tb, int reps,
                                             int warmup, Precision precision, uint64_t seed) {
    std::vector<T> host(size_t(std::max({m * k, k * n, m * n})));
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> dist(-1, 1);
    T *A = nullptr, *B = nullptr, *C = nullptr;
    cudaStream_t stream = nullptr;
    cudaEvent_t start = nullptr, stop = nullptr;
    std::vector<std::vector<double>> times;
    auto cleanup = [&] {
        cudaFree(A), cudaFree(B), cudaFree(C);
        if (start) cudaEventDestroy(start);
        if (stop) cudaEventDestroy(stop);
        if (stream) cudaStreamDestroy(stream);
    };
    try {
        for (auto [ptr, count] : {std::pair{&A, m * k}, {&B, k * n}, {&C, m * n}}) {
            cuda_check(cudaMalloc(reinterpret_cast<void**>(ptr), sizeof(T) * size_t(std::max<int64_t>(1, count))), "cudaMalloc");
            for (int64_t i = 0; i < count; ++i) host[size_t(i)] = T(dist(rng));
            cuda_check(cudaMemcpy(*ptr, host.data(), sizeof(T) * size_t(count), cudaMemcpyHostToDevice), "cudaMemcpy");
        }
        cuda_check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        cuda_check(cudaEventCreate(&start), "cudaEventCreate");
        cuda_check(cudaEventCreate(&stop), "cudaEventCreate");
        // Row-major: A is m x k (k x m for op T), B is k x n (n x k), C is m x n.
        const int64_t lda = ta ? m : k, ldb = tb ? k : n, ldc = n;
        for (const auto& kernel : kernels) {
            GemmOptions options;
            options.kernel = kernel;
            options.stream = stream;
            options.precision = precision;
            auto call = [&] {
                const Status s = gemmlab::gemm<T>(Layout::RowMajor, ta ? Op::T : Op::N, tb ? Op::T : Op::N,
                                                  m, n, k, T(1), A, std::max<int64_t>(1, lda), B,
                                                  std::max<int64_t>(1, ldb), T(0), C, std::max<int64_t>(1, ldc), options);
                if (s != Status::Success)
                    throw std::runtime_error("kernel '" + kernel + "': " + std::string(gemmlab::to_string(s)) +
                                             ": " + gemmlab::last_error());
            };
            for (int i = 0; i < warmup; ++i) call();
            std::vector<double> ms;
            for (int i = 0; i < reps; ++i) {
                cuda_check(cudaEventRecord(start, stream), "cudaEventRecord");
                call();
                cuda_check(cudaEventRecord(stop, stream), "cudaEventRecord");
                cuda_check(cudaEventSynchronize(stop), "cudaEventSynchronize");
                float t = 0;
                cuda_check(cudaEventElapsedTime(&t, start, stop), "cudaEventElapsedTime");
                ms.push_back(t);
            }
            times.push_back(std::move(ms));
        }
    } catch (...) {
        cleanup();
        throw;
    }
    cleanup();
    return times;
}

struct DtypeRow {
    const char* name;    // NumPy / PyTorch / CuPy name
    const char* typestr; // __cuda_array_interface__ typestr (little-endian)
    uint8_t dl_code;     // DLPack DLDataTypeCode (kDLFloat = 2)
    uint8_t dl_bits;
    int itemsize;
    DataType type;
    Status (*gemm)(const Call&, bool validate_only);
    std::vector<std::vector<double>> (*bench)(const std::vector<std::string>&, int64_t, int64_t, int64_t,
                                              bool, bool, int, int, Precision, uint64_t);
};

const std::array<DtypeRow, 2> kDtypes{{
    {"float32", "<f4", 2, 32, 4, DataType::F32, &typed_gemm<float>, &typed_bench<float>},
    {"float64", "<f8", 2, 64, 8, DataType::F64, &typed_gemm<double>, &typed_bench<double>},
}};

const std::array<Precision, 2> kPrecisions{Precision::Default, Precision::Tf32};

const DtypeRow& dtype_row(const std::string& name) {
    for (const auto& row : kDtypes)
        if (name == row.name) return row;
    std::string known;
    for (const auto& row : kDtypes) known += std::string(known.empty() ? "" : ", ") + row.name;
    throw py::type_error("dtype '" + name + "' is not one gemmlab multiplies (" + known + ")");
}

Precision precision_of(const std::string& name) {
    for (Precision p : kPrecisions)
        if (name == gemmlab::to_string(p)) return p;
    std::string known;
    for (Precision p : kPrecisions) known += std::string(known.empty() ? "" : ", ") + gemmlab::to_string(p);
    throw py::value_error("precision '" + name + "' is not one of: " + known);
}

// ---------------------------------------------------------------- DLPack, by its ABI

// The DLPack structs (dlpack.h, v0.x and v1.x ABI): read, never freed here. The capsule keeps
// its name, so its own destructor calls the producer's deleter when Python drops it.
struct DLDevice { int32_t device_type, device_id; };
struct DLDataType { uint8_t code, bits; uint16_t lanes; };
struct DLTensor {
    void* data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t* shape;
    int64_t* strides;
    uint64_t byte_offset;
};
struct DLManagedTensor {
    DLTensor dl_tensor;
    void* manager_ctx;
    void (*deleter)(DLManagedTensor*);
};
struct DLPackVersion { uint32_t major, minor; };
struct DLManagedTensorVersioned {
    DLPackVersion version;
    void* manager_ctx;
    void (*deleter)(DLManagedTensorVersioned*);
    uint64_t flags;
    DLTensor dl_tensor;
};
constexpr uint64_t kDLPackFlagReadOnly = 1;

py::dict dlpack_info(const py::capsule& capsule) {
    const char* raw_name = PyCapsule_GetName(capsule.ptr());
    const std::string name = raw_name ? raw_name : "";
    const DLTensor* t = nullptr;
    bool readonly = false;
    if (name == "dltensor") {
        t = &static_cast<DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor"))->dl_tensor;
    } else if (name == "dltensor_versioned") {
        auto* v = static_cast<DLManagedTensorVersioned*>(PyCapsule_GetPointer(capsule.ptr(), "dltensor_versioned"));
        if (v->version.major != 1)
            throw py::value_error("DLPack version " + std::to_string(v->version.major) + "." +
                                  std::to_string(v->version.minor) + " is not supported (1.x is)");
        t = &v->dl_tensor;
        readonly = v->flags & kDLPackFlagReadOnly;
    } else {
        throw py::value_error("not a fresh DLPack capsule (name '" + name + "')");
    }
    py::list shape, strides;
    int64_t compact = 1;
    std::vector<int64_t> s(size_t(std::max(0, t->ndim)));
    for (int i = t->ndim - 1; i >= 0; --i) { // no strides: compact row-major
        s[size_t(i)] = t->strides ? t->strides[i] : compact;
        compact *= t->shape[i];
    }
    for (int i = 0; i < t->ndim; ++i) {
        shape.append(t->shape[i]);
        strides.append(s[size_t(i)]);
    }
    py::dict d;
    d["ptr"] = reinterpret_cast<uintptr_t>(t->data) + t->byte_offset;
    d["shape"] = py::tuple(shape);
    d["strides"] = py::tuple(strides);
    d["dl_code"] = int(t->dtype.code);
    d["dl_bits"] = int(t->dtype.bits);
    d["lanes"] = int(t->dtype.lanes);
    d["device_type"] = t->device.device_type;
    d["device_id"] = t->device.device_id;
    d["readonly"] = readonly;
    return d;
}

// ---------------------------------------------------------------- module functions

int device_count() {
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        cudaGetLastError();
        return 0;
    }
    return count;
}

/// Device that owns a pointer, or -1 when CUDA does not know it (or there is no GPU).
int pointer_device(uintptr_t ptr) {
    if (!ptr || device_count() == 0) return -1;
    cudaPointerAttributes attr{};
    if (cudaPointerGetAttributes(&attr, reinterpret_cast<const void*>(ptr)) != cudaSuccess) {
        cudaGetLastError();
        return -1;
    }
    return attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged ? attr.device : -1;
}

/// Makes `waiter` wait for the work queued so far on `producer` (the __cuda_array_interface__
/// v3 rule for a consumer on another stream).
void stream_wait(uintptr_t waiter, uintptr_t producer) {
    cudaEvent_t e = nullptr;
    cuda_check(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreate");
    const cudaError_t r1 = cudaEventRecord(e, reinterpret_cast<cudaStream_t>(producer));
    const cudaError_t r2 = r1 == cudaSuccess ? cudaStreamWaitEvent(reinterpret_cast<cudaStream_t>(waiter), e, 0) : r1;
    cudaEventDestroy(e);
    cuda_check(r2, "cudaStreamWaitEvent");
}

/// Returns None on success, else (status name, gemmlab::last_error()).
py::object gemm(const std::string& dtype, const std::string& layout, bool trans_a, bool trans_b,
                int64_t m, int64_t n, int64_t k, py::object alpha, uintptr_t a, int64_t lda,
                uintptr_t b, int64_t ldb, py::object beta, uintptr_t c, int64_t ldc,
                const std::string& kernel, const std::string& precision, uintptr_t stream,
                int device, bool validate_only) {
    const DtypeRow& row = dtype_row(dtype);
    if (layout != "row" && layout != "col") throw py::value_error("layout must be 'row' or 'col'");
    Call call{layout == "row" ? Layout::RowMajor : Layout::ColMajor,
              trans_a ? Op::T : Op::N,
              trans_b ? Op::T : Op::N,
              m, n, k, std::move(alpha), std::move(beta), a, b, c, lda, ldb, ldc, {}};
    call.options.kernel = kernel;
    call.options.precision = precision_of(precision);
    call.options.stream = reinterpret_cast<cudaStream_t>(stream);
    Status s;
    if (validate_only || device < 0 || device_count() == 0) {
        s = row.gemm(call, validate_only);
    } else {
        DeviceGuard guard(device);
        s = row.gemm(call, false);
    }
    if (s == Status::Success) return py::none();
    return py::make_tuple(std::string(gemmlab::to_string(s)), std::string(gemmlab::last_error()));
}

py::list kernels() {
    py::list out;
    for (const auto& info : gemmlab::gpu_kernels()) {
        py::list types;
        for (const auto& row : kDtypes)
            if (info.supports(row.type)) types.append(row.name);
        py::dict d;
        d["number"] = info.number;
        d["name"] = std::string(info.name);
        d["technique"] = std::string(info.technique);
        d["seeds"] = std::string(info.sources);
        d["types"] = types;
        d["precision"] = gemmlab::to_string(info.precision);
        d["engine"] = gemmlab::to_string(info.engine);
        d["needs_sm90a"] = info.needs_sm90a;
        d["min_compute_capability"] = info.min_compute_capability;
        // Every A/B type of the library, including the BF16/FP16 ones this module has no entry
        // point for yet (those rungs show "types": []).
        py::list library_types;
        for (DataType t : gemmlab::kAllDataTypes)
            if (info.supports(t)) library_types.append(gemmlab::to_string(t));
        d["library_types"] = library_types;
        out.append(d);
    }
    return out;
}

py::list dtypes() {
    py::list out;
    for (const auto& row : kDtypes) {
        py::dict d;
        d["name"] = row.name;
        d["typestr"] = row.typestr;
        d["dl_code"] = int(row.dl_code);
        d["dl_bits"] = int(row.dl_bits);
        d["itemsize"] = row.itemsize;
        out.append(d);
    }
    return out;
}

py::list precisions() {
    py::list out;
    for (Precision p : kPrecisions) out.append(gemmlab::to_string(p));
    return out;
}

py::object bench(const std::string& dtype, const std::vector<std::string>& kernels, int64_t m,
               int64_t n, int64_t k, bool trans_a, bool trans_b, int reps, int warmup,
               const std::string& precision, uint64_t seed, int device) {
    const DtypeRow& row = dtype_row(dtype);
    const Precision p = precision_of(precision);
    if (m < 1 || n < 1 || k < 1) throw py::value_error("bench shapes need m, n, k >= 1");
    if (reps < 1 || warmup < 0) throw py::value_error("bench needs reps >= 1 and warmup >= 0");
    if (device_count() == 0)
        return py::make_tuple(std::string("NoDevice"), std::string("no CUDA device is visible"));
    std::vector<std::vector<double>> times;
    {
        py::gil_scoped_release release;
        DeviceGuard guard(device);
        times = row.bench(kernels, m, n, k, trans_a, trans_b, reps, warmup, p, seed);
    }
    py::list out;
    for (const auto& t : times) out.append(py::cast(t));
    return out;
}

} // namespace

PYBIND11_MODULE(_gemmlab, mod) {
    mod.doc() = "gemmlab's C++ core: gemmlab::gemm on raw device pointers (use the gemmlab package)";
    mod.def("gemm", &gemm, py::arg("dtype"), py::arg("layout"), py::arg("trans_a"), py::arg("trans_b"),
            py::arg("m"), py::arg("n"), py::arg("k"), py::arg("alpha"), py::arg("a"), py::arg("lda"),
            py::arg("b"), py::arg("ldb"), py::arg("beta"), py::arg("c"), py::arg("ldc"),
            py::arg("kernel"), py::arg("precision"), py::arg("stream"), py::arg("device"),
            py::arg("validate_only") = false,
            "gemmlab::gemm (or validate_gemm) on device pointers; None, or (status, message) on failure");
    mod.def("kernels", &kernels, "The GPU rungs (gemmlab::gpu_kernels()) as dicts");
    mod.def("dtypes", &dtypes, "The element types, with their DLPack and __cuda_array_interface__ spellings");
    mod.def("precisions", &precisions, "The names of gemmlab::Precision");
    mod.def("dlpack_info", &dlpack_info, py::arg("capsule"), "Pointer, shape, strides, dtype and device of a DLPack capsule");
    mod.def("device_count", &device_count, "Visible CUDA devices (0 without a GPU or driver)");
    mod.def("pointer_device", &pointer_device, py::arg("ptr"), "Device owning a pointer, or -1");
    mod.def("stream_wait", &stream_wait, py::arg("waiter"), py::arg("producer"),
            "Make stream `waiter` wait for the work queued on `producer`");
    mod.def("bench", &bench, py::arg("dtype"), py::arg("kernels"), py::arg("m"), py::arg("n"), py::arg("k"),
            py::arg("trans_a"), py::arg("trans_b"), py::arg("reps"), py::arg("warmup"),
            py::arg("precision"), py::arg("seed"), py::arg("device"),
            "Milliseconds per call of each kernel (CUDA events), or (status, message) without a device");
}
