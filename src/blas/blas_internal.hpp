#pragma once
// Inside libgemmlab_blas.so: one column-major problem type that every entry point reduces to,
// the settings read from the environment, and the two back ends (GPU offload, CPU BLAS).

#include <atomic>
#include <cstdint>
#include <string>

namespace gemmlab::blas {

/// C = alpha * op(A) * op(B) + beta * C, column-major, arguments already checked (BLAS rules),
/// quick returns already taken. Rows and columns of the stored A are (ta ? k : m) x (ta ? m : k).
template <class T>
struct Problem {
    bool ta, tb;
    int64_t m, n, k;
    T alpha;
    const T* A;
    int64_t lda;
    const T* B;
    int64_t ldb;
    T beta;
    T* C;
    int64_t ldc;

    /// The columns [j0, j0 + w) of C as a problem of their own (op(B)'s columns j0.. are B's
    /// columns for op N and B's rows for op T).
    Problem columns(int64_t j0, int64_t w) const {
        Problem p = *this;
        p.n = w;
        p.B = B + (tb ? j0 : j0 * ldb);
        p.C = C + j0 * ldc;
        return p;
    }
};

/// Which family of symbols the call came in through: the CPU fallback calls the same family in
/// the CPU library (LP64 Fortran for the standard names, the ILP64 scipy_ names of NumPy's
/// bundled OpenBLAS for scipy_cblas_*64_).
enum class Family { Lp64, ScipyIlp64 };

/// Settings, read once from the environment on first use (see the README).
struct Config {
    double threshold = 256;   ///< GEMMLAB_BLAS_THRESHOLD: GPU when m*n*k >= threshold^3
    int device = 0;           ///< GEMMLAB_BLAS_DEVICE: CUDA ordinal; -1 = never the GPU
    std::string cpu_library;  ///< GEMMLAB_BLAS_CPU_LIBRARY: path or soname; empty = search
    std::string kernel = "auto"; ///< GEMMLAB_BLAS_KERNEL: gemmlab rung for the GPU path
    int64_t chunk = 0;        ///< GEMMLAB_BLAS_CHUNK: columns of C per pipeline chunk; 0 = automatic
    bool verbose = false;     ///< GEMMLAB_BLAS_VERBOSE: settings at start, call counts at exit
};
const Config& config();

/// Calls that ran on each side (for GEMMLAB_BLAS_VERBOSE and gemmlab_blas_counts).
extern std::atomic<long long> g_gpu_calls, g_cpu_calls;

/// One line on stderr, prefixed "gemmlab_blas: ".
void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));

/// True when the GPU path is usable: a device is visible, the configured one exists, and no
/// sticky CUDA error disabled it. The first call initializes CUDA.
bool gpu_enabled();

/// Runs columns [0, n) of p on the GPU. Returns the number of leading columns of C that hold
/// their final values: n on success; fewer after a CUDA failure (the caller finishes the rest on
/// the CPU; C's other columns are untouched).
template <class T>
int64_t gpu_gemm(const Problem<T>& p);

/// Runs p on the CPU BLAS of the family (or, with none loadable, a plain loop).
template <class T>
void cpu_gemm(const Problem<T>& p, Family family);

/// Description of the CPU library in use ("/usr/lib/.../libblas.so.3"), for the verbose report.
std::string cpu_library_description();

} // namespace gemmlab::blas
