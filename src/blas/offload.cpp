// The GPU side of libgemmlab_blas.so: host arrays in, host arrays out, gemmlab::gemm between.
//
// Schedule of one call (column-major C = alpha op(A) op(B) + beta C, m x n):
//   A:      pack into pinned memory -> copy to the device on stream 0 -> event "A ready"
//   chunk i (columns [j0, j0 + w) of C, on stream i % 2, which waits for "A ready"):
//           pack op(B)'s columns (and C's, when beta != 0) into the slot's pinned buffers ->
//           copy up -> gemmlab::gemm on the chunk -> copy C's columns down -> event "done"
//   the host, before packing chunk i, waits for chunk i - 2 (same slot) and unpacks its C.
// So while the GPU multiplies chunk i, the copy engines move chunk i +- 1 and the CPU packs and
// unpacks: copies and compute overlap once there are three or more chunks. Small problems are
// one chunk. Buffers (device and pinned) live in a pool of workspaces, grow as needed and are
// reused by later calls; each calling thread takes its own workspace, so calls from several
// threads run at once.

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "blas/blas_internal.hpp"
#include "gemmlab/gemm.hpp"

namespace gemmlab::blas {
namespace {

struct Failure : std::runtime_error {
    using std::runtime_error::runtime_error;
};

#define GEMMLAB_BLAS_CUDA(call)                                                                    \
    do {                                                                                           \
        const cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess)                                                                     \
            throw Failure(std::string(#call) + ": " + cudaGetErrorName(e_) + " (" +                \
                          cudaGetErrorString(e_) + ")");                                           \
    } while (0)

/// Grow-only device or pinned host allocation.
template <bool Pinned>
class Buffer {
  public:
    Buffer() = default;
    Buffer(const Buffer&) = delete;
    Buffer& operator=(const Buffer&) = delete;
    ~Buffer() { release(); }

    void reserve(size_t bytes) {
        if (bytes <= bytes_) return;
        release();
        if constexpr (Pinned) GEMMLAB_BLAS_CUDA(cudaMallocHost(&p_, bytes));
        else GEMMLAB_BLAS_CUDA(cudaMalloc(&p_, bytes));
        bytes_ = bytes;
    }
    template <class T>
    T* as() const { return static_cast<T*>(p_); }

  private:
    void release() {
        if (!p_) return;
        if constexpr (Pinned) cudaFreeHost(p_);
        else cudaFree(p_);
        p_ = nullptr;
        bytes_ = 0;
    }
    void* p_ = nullptr;
    size_t bytes_ = 0;
};

/// Everything one call needs on one device: two streams (two pipeline slots), the A buffers,
/// and per slot the B and C chunk buffers.
struct Workspace {
    explicit Workspace(int dev) : device(dev) {
        for (int s = 0; s < 2; ++s) {
            GEMMLAB_BLAS_CUDA(cudaStreamCreateWithFlags(&stream[s], cudaStreamNonBlocking));
            GEMMLAB_BLAS_CUDA(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
        }
        GEMMLAB_BLAS_CUDA(cudaEventCreateWithFlags(&a_ready, cudaEventDisableTiming));
    }
    int device;
    cudaStream_t stream[2]{};
    cudaEvent_t done[2]{}, a_ready{};
    Buffer<false> dA, dB[2], dC[2];
    Buffer<true> hA, hB[2], hC[2];
};

/// Idle workspaces. Never destroyed: at process exit the CUDA runtime may already be gone.
class Pool {
  public:
    Workspace* acquire(int device) {
        {
            std::lock_guard lock(mutex_);
            for (auto it = idle_.begin(); it != idle_.end(); ++it)
                if ((*it)->device == device) {
                    Workspace* w = *it;
                    idle_.erase(it);
                    return w;
                }
        }
        return new Workspace(device);
    }
    void release(Workspace* w) {
        std::lock_guard lock(mutex_);
        idle_.push_back(w);
    }

  private:
    std::mutex mutex_;
    std::vector<Workspace*> idle_;
};
Pool& pool() {
    static Pool* p = new Pool;
    return *p;
}

std::atomic<bool> g_disabled{false}; // set after a CUDA error that poisons the context
std::atomic<int> g_warnings{0};

/// Copies a rows x cols column-major block (leading dimension ld) into dense storage.
template <class T>
void pack(T* dst, const T* src, int64_t rows, int64_t cols, int64_t ld) {
    if (ld == rows || cols == 1) {
        std::memcpy(dst, src, sizeof(T) * size_t(rows * cols));
        return;
    }
    for (int64_t j = 0; j < cols; ++j)
        std::memcpy(dst + j * rows, src + j * ld, sizeof(T) * size_t(rows));
}

template <class T>
void unpack(T* dst, int64_t ld, const T* src, int64_t rows, int64_t cols) {
    if (ld == rows || cols == 1) {
        std::memcpy(dst, src, sizeof(T) * size_t(rows * cols));
        return;
    }
    for (int64_t j = 0; j < cols; ++j)
        std::memcpy(dst + j * ld, src + j * rows, sizeof(T) * size_t(rows));
}

/// Columns of C per chunk. Below about a GFLOP one chunk: the copies dominate anyway and a
/// second stream only adds launches. Above, eight chunks (at least 256 columns each), and at
/// most 256 MiB of pinned B and C staging per slot.
template <class T>
int64_t chunk_width(const Problem<T>& p) {
    if (config().chunk > 0) return std::min(p.n, config().chunk);
    const double flops = 2.0 * double(p.m) * double(p.n) * double(p.k);
    if (flops < 1e9 || p.n < 512) return p.n;
    int64_t w = (p.n + 7) / 8;
    w = std::max<int64_t>(256, (w + 127) / 128 * 128);
    const int64_t per_column = (p.m + p.k) * int64_t(sizeof(T));
    const int64_t cap = std::max<int64_t>(64, (int64_t(256) << 20) / std::max<int64_t>(1, per_column) / 64 * 64);
    return std::min({w, cap, p.n});
}

template <class T>
void run(Workspace& ws, const Problem<T>& p, int64_t* done_cols) {
    const bool reads_ab = p.k > 0 && p.alpha != T(0);
    const bool reads_c = p.beta != T(0);
    const int64_t rows_a = p.ta ? p.k : p.m, cols_a = p.ta ? p.m : p.k;
    const int64_t w = chunk_width(p);
    const int64_t chunks = (p.n + w - 1) / w;
    const size_t es = sizeof(T);

    if (reads_ab) {
        const size_t bytes = es * size_t(rows_a * cols_a);
        ws.hA.reserve(bytes);
        ws.dA.reserve(bytes);
        pack(ws.hA.as<T>(), p.A, rows_a, cols_a, p.lda);
        GEMMLAB_BLAS_CUDA(cudaMemcpyAsync(ws.dA.as<T>(), ws.hA.as<T>(), bytes, cudaMemcpyHostToDevice, ws.stream[0]));
        GEMMLAB_BLAS_CUDA(cudaEventRecord(ws.a_ready, ws.stream[0]));
        GEMMLAB_BLAS_CUDA(cudaStreamWaitEvent(ws.stream[1], ws.a_ready, 0));
    }
    for (int s = 0; s < (chunks > 1 ? 2 : 1); ++s) {
        if (reads_ab) {
            ws.hB[s].reserve(es * size_t(p.k * w));
            ws.dB[s].reserve(es * size_t(p.k * w));
        }
        ws.hC[s].reserve(es * size_t(p.m * w));
        ws.dC[s].reserve(es * size_t(p.m * w));
    }

    GemmOptions options;
    options.kernel = config().kernel;
    auto columns = [&](int64_t i) { return std::pair{i * w, std::min(w, p.n - i * w)}; };
    auto finish = [&](int64_t i) {
        const int slot = int(i % 2);
        const auto [j0, wi] = columns(i);
        GEMMLAB_BLAS_CUDA(cudaEventSynchronize(ws.done[slot]));
        unpack(p.C + j0 * p.ldc, p.ldc, ws.hC[slot].as<T>(), p.m, wi);
        *done_cols = j0 + wi;
    };

    for (int64_t i = 0; i < chunks; ++i) {
        const int slot = int(i % 2);
        cudaStream_t s = ws.stream[slot];
        if (i >= 2) finish(i - 2);
        const auto [j0, wi] = columns(i);
        const Problem<T> c = p.columns(j0, wi);
        T* dB = ws.dB[slot].as<T>();
        T* dC = ws.dC[slot].as<T>();
        // op(B)'s columns j0.. are B's columns (op N: k x wi) or B's rows (op T: wi x k). The
        // leading dimension must be valid even where B is not read (alpha = 0).
        const int64_t rows_b = p.tb ? wi : p.k, cols_b = p.tb ? p.k : wi;
        const int64_t ldb = std::max<int64_t>(1, rows_b);
        if (reads_ab) {
            pack(ws.hB[slot].as<T>(), c.B, rows_b, cols_b, p.ldb);
            GEMMLAB_BLAS_CUDA(cudaMemcpyAsync(dB, ws.hB[slot].as<T>(), es * size_t(rows_b * cols_b),
                                              cudaMemcpyHostToDevice, s));
        }
        if (reads_c) {
            pack(ws.hC[slot].as<T>(), c.C, p.m, wi, p.ldc);
            GEMMLAB_BLAS_CUDA(cudaMemcpyAsync(dC, ws.hC[slot].as<T>(), es * size_t(p.m * wi),
                                              cudaMemcpyHostToDevice, s));
        }
        options.stream = s;
        const Status st = gemm<T>(Layout::ColMajor, p.ta ? Op::T : Op::N, p.tb ? Op::T : Op::N, p.m,
                                  wi, p.k, p.alpha, reads_ab ? ws.dA.as<T>() : nullptr,
                                  std::max<int64_t>(1, rows_a), reads_ab ? dB : nullptr, ldb,
                                  p.beta, dC, std::max<int64_t>(1, p.m), options);
        if (st != Status::Success)
            throw Failure("gemmlab::gemm: " + std::string(to_string(st)) + ": " + last_error());
        GEMMLAB_BLAS_CUDA(cudaMemcpyAsync(ws.hC[slot].as<T>(), dC, es * size_t(p.m * wi),
                                          cudaMemcpyDeviceToHost, s));
        GEMMLAB_BLAS_CUDA(cudaEventRecord(ws.done[slot], s));
    }
    for (int64_t i = std::max<int64_t>(0, chunks - 2); i < chunks; ++i) finish(i);
}

} // namespace

bool gpu_enabled() {
    static const bool usable = [] {
        const Config& c = config();
        if (c.device < 0) {
            if (c.verbose) log("GEMMLAB_BLAS_DEVICE=cpu: every call on the CPU BLAS");
            return false;
        }
        int count = 0;
        const cudaError_t e = cudaGetDeviceCount(&count);
        if (e != cudaSuccess || count == 0) {
            cudaGetLastError();
            if (c.verbose)
                log("no CUDA device (%s): every call on the CPU BLAS",
                    e != cudaSuccess ? cudaGetErrorString(e) : "none visible");
            return false;
        }
        if (c.device >= count) {
            log("GEMMLAB_BLAS_DEVICE=%d but %d device(s) are visible: every call on the CPU BLAS",
                c.device, count);
            return false;
        }
        if (c.verbose) {
            cudaDeviceProp prop{};
            if (cudaGetDeviceProperties(&prop, c.device) == cudaSuccess)
                log("GPU side: device %d, %s", c.device, prop.name);
        }
        return true;
    }();
    return usable && !g_disabled.load(std::memory_order_relaxed);
}

template <class T>
int64_t gpu_gemm(const Problem<T>& p) {
    const int device = config().device;
    int64_t done_cols = 0;
    int previous = -1;
    Workspace* ws = nullptr;
    try {
        // The caller's thread may use CUDA itself: switch its current device only for this call.
        GEMMLAB_BLAS_CUDA(cudaGetDevice(&previous));
        if (previous != device) GEMMLAB_BLAS_CUDA(cudaSetDevice(device));
        ws = pool().acquire(device);
        run(*ws, p, &done_cols);
        pool().release(ws);
        g_gpu_calls.fetch_add(1, std::memory_order_relaxed);
    } catch (const Failure& e) {
        cudaGetLastError();
        // An error that poisons the context shows up again here; then the GPU stays off.
        if (cudaDeviceSynchronize() != cudaSuccess) {
            g_disabled.store(true);
            log("GPU path failed (%s); the CUDA context is unusable, so every later call runs on the CPU BLAS", e.what());
        } else {
            if (ws) pool().release(ws);
            if (g_warnings.fetch_add(1) < 3)
                log("GPU path failed (%s); finishing this call on the CPU BLAS", e.what());
        }
        cudaGetLastError();
    }
    if (previous >= 0 && previous != device) cudaSetDevice(previous);
    return done_cols;
}

template int64_t gpu_gemm<float>(const Problem<float>&);
template int64_t gpu_gemm<double>(const Problem<double>&);

} // namespace gemmlab::blas
