// A simulated GPU for testing libgemmlab_blas.so's GPU path on machines without one (CI).
//
// Linked into a test copy of the library (libgemmlab_blas_fakegpu.so) in place of the CUDA
// runtime and libgemmlab.so, it provides the runtime calls the offload code makes and
// gemmlab::gemm: "device" memory is host memory filled with NaN bytes (a value never uploaded
// shows up in the result), and every stream is a queue that runs only when something waits for
// it: an event synchronize, a stream waiting on an event, a device synchronize, a free. So the
// work runs as late as CUDA would allow, and a missing dependency (a pinned buffer refilled
// before its copy ran, a chunk unpacked before it was computed) gives wrong numbers, which the
// netlib programs and test_blas_api then report. gemmlab::gemm checks the leading dimensions and
// pointers by the library's rules before queueing a plain triple loop.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "gemmlab/gemm.hpp"
#include "gemmlab/status.hpp"

namespace {

struct FakeStream {
    std::deque<std::function<void()>> queue;
    uint64_t enqueued = 0, executed = 0;
};
struct FakeEvent {
    FakeStream* stream = nullptr;
    uint64_t at = 0;
};

// One lock for the whole simulated device: calls from several threads stay consistent.
std::recursive_mutex& device_lock() {
    static std::recursive_mutex m;
    return m;
}
std::vector<FakeStream*>& streams() {
    static std::vector<FakeStream*> s{new FakeStream}; // [0]: the legacy default stream
    return s;
}
FakeStream* as_stream(cudaStream_t s) {
    return s ? reinterpret_cast<FakeStream*>(s) : streams()[0];
}

void run_until(FakeStream* s, uint64_t n) {
    while (s->executed < n) {
        auto op = std::move(s->queue.front());
        s->queue.pop_front();
        ++s->executed;
        op();
    }
}
void drain_all() {
    for (FakeStream* s : streams()) run_until(s, s->enqueued);
}
void enqueue(cudaStream_t stream, std::function<void()> op) {
    FakeStream* s = as_stream(stream);
    s->queue.push_back(std::move(op));
    ++s->enqueued;
}

void* fake_alloc(size_t bytes) {
    void* p = std::malloc(bytes ? bytes : 1);
    if (p) std::memset(p, 0xFF, bytes); // NaN in every float and double
    return p;
}

thread_local std::string t_last_error;

} // namespace

extern "C" {

cudaError_t cudaGetDeviceCount(int* count) {
    *count = 1;
    return cudaSuccess;
}
cudaError_t cudaGetDevice(int* device) {
    *device = 0;
    return cudaSuccess;
}
cudaError_t cudaSetDevice(int device) { return device == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int) {
    std::memset(prop, 0, sizeof *prop);
    std::strncpy(prop->name, "simulated GPU (host memory, lazy streams)", sizeof prop->name - 1);
    return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
const char* cudaGetErrorName(cudaError_t) { return "cudaErrorSimulated"; }
const char* cudaGetErrorString(cudaError_t) { return "simulated device error"; }

cudaError_t cudaMalloc(void** p, size_t bytes) {
    *p = fake_alloc(bytes);
    return *p ? cudaSuccess : cudaErrorMemoryAllocation;
}
cudaError_t cudaMallocHost(void** p, size_t bytes) { return cudaMalloc(p, bytes); }
cudaError_t cudaFree(void* p) {
    std::lock_guard lock(device_lock());
    drain_all(); // cudaFree waits for the device, as the real one does
    std::free(p);
    return cudaSuccess;
}
cudaError_t cudaFreeHost(void* p) { return cudaFree(p); }

cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned int) {
    std::lock_guard lock(device_lock());
    streams().push_back(new FakeStream);
    *s = reinterpret_cast<cudaStream_t>(streams().back());
    return cudaSuccess;
}
cudaError_t cudaEventCreateWithFlags(cudaEvent_t* e, unsigned int) {
    *e = reinterpret_cast<cudaEvent_t>(new FakeEvent);
    return cudaSuccess;
}
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    std::lock_guard lock(device_lock());
    auto* ev = reinterpret_cast<FakeEvent*>(e);
    ev->stream = as_stream(s);
    ev->at = ev->stream->enqueued;
    return cudaSuccess;
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) {
    std::lock_guard lock(device_lock());
    auto* ev = reinterpret_cast<FakeEvent*>(e);
    if (ev->stream) run_until(ev->stream, ev->at);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int) {
    std::lock_guard lock(device_lock());
    auto* ev = reinterpret_cast<FakeEvent*>(e);
    if (!ev->stream) return cudaSuccess;
    FakeStream* src = ev->stream;
    const uint64_t at = ev->at;
    enqueue(s, [src, at] { run_until(src, at); });
    return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t bytes, cudaMemcpyKind, cudaStream_t s) {
    std::lock_guard lock(device_lock());
    enqueue(s, [dst, src, bytes] { std::memcpy(dst, src, bytes); });
    return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) {
    std::lock_guard lock(device_lock());
    drain_all();
    return cudaSuccess;
}

} // extern "C"

namespace gemmlab {

const char* last_error() noexcept { return t_last_error.c_str(); }

template <class T>
Status gemm(Layout layout, Op op_a, Op op_b, int64_t m, int64_t n, int64_t k, T alpha, const T* A,
            int64_t lda, const T* B, int64_t ldb, T beta, T* C, int64_t ldc, const GemmOptions& options) {
    t_last_error.clear();
    if (layout != Layout::ColMajor) {
        t_last_error = "the simulated device takes column-major calls only";
        return Status::InvalidSize;
    }
    if (m < 0 || n < 0 || k < 0) {
        t_last_error = "negative size";
        return Status::InvalidSize;
    }
    const bool ta = op_a == Op::T, tb = op_b == Op::T;
    const int64_t rows_a = ta ? k : m, rows_b = tb ? n : k;
    if (lda < std::max<int64_t>(1, rows_a) || ldb < std::max<int64_t>(1, rows_b) || ldc < std::max<int64_t>(1, m)) {
        t_last_error = "leading dimension below its minimum: lda " + std::to_string(lda) + " (rows " +
                       std::to_string(rows_a) + "), ldb " + std::to_string(ldb) + " (rows " +
                       std::to_string(rows_b) + "), ldc " + std::to_string(ldc) + " (rows " + std::to_string(m) + ")";
        return Status::InvalidLeadingDimension;
    }
    if (m == 0 || n == 0) return Status::Success;
    const bool reads_ab = k > 0 && alpha != T(0);
    if (!C || (reads_ab && (!A || !B))) {
        t_last_error = "null pointer";
        return Status::NullPointer;
    }
    if (options.kernel != "auto") {
        t_last_error = "the simulated device has only 'auto'";
        return Status::UnknownKernel;
    }
    std::lock_guard lock(device_lock());
    enqueue(options.stream, [=] {
        for (int64_t j = 0; j < n; ++j)
            for (int64_t i = 0; i < m; ++i) {
                T sum = 0;
                if (reads_ab)
                    for (int64_t l = 0; l < k; ++l)
                        sum += (ta ? A[l + i * lda] : A[i + l * lda]) * (tb ? B[j + l * ldb] : B[l + j * ldb]);
                T& c = C[i + j * ldc];
                c = beta == T(0) ? alpha * sum : alpha * sum + beta * c;
            }
    });
    return Status::Success;
}

template Status gemm<float>(Layout, Op, Op, int64_t, int64_t, int64_t, float, const float*, int64_t,
                            const float*, int64_t, float, float*, int64_t, const GemmOptions&);
template Status gemm<double>(Layout, Op, Op, int64_t, int64_t, int64_t, double, const double*, int64_t,
                             const double*, int64_t, double, double*, int64_t, const GemmOptions&);

} // namespace gemmlab
