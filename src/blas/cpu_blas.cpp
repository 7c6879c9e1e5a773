// The CPU side of libgemmlab_blas.so: the system's BLAS, loaded at run time like NVBLAS's CPU
// fallback, for problems below the threshold and for machines without a GPU.
//
// Preloaded, this library shadows sgemm_/dgemm_ for the whole process, and the CPU BLAS exports
// the very same names: looking them up by name through the global scope (dlsym(RTLD_DEFAULT),
// or a plain call) would find our own functions and recurse. So the CPU library is opened with
// dlopen(RTLD_LOCAL) and its symbols are taken from its own handle, and a candidate whose
// "dgemm_" turns out to be ours (a libblas.so.3 alternative pointing here) is refused.

#include <dlfcn.h>
#include <link.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "blas/blas_internal.hpp"
#include "blas/gemmlab_blas.h"

namespace gemmlab::blas {
namespace {

template <class T>
using FortranGemm = void (*)(const char*, const char*, const int*, const int*, const int*,
                             const T*, const T*, const int*, const T*, const int*, const T*, T*,
                             const int*, size_t, size_t);
template <class T>
using CblasGemm64 = void (*)(int, int, int, int64_t, int64_t, int64_t, T, const T*, int64_t,
                             const T*, int64_t, T, T*, int64_t);

/// Where a function lives, to tell our own exports from the CPU library's.
std::string object_of(const void* fn) {
    Dl_info info{};
    if (!fn || !dladdr(fn, &info) || !info.dli_fname) return "";
    char resolved[PATH_MAX];
    return realpath(info.dli_fname, resolved) ? resolved : info.dli_fname;
}

/// The object holding this very code.
const std::string& self_path() {
    static const std::string p = object_of(reinterpret_cast<const void*>(&dgemm_));
    return p;
}

struct CpuBlas {
    std::string description = "no CPU BLAS loaded yet";
    FortranGemm<float> sgemm = nullptr;
    FortranGemm<double> dgemm = nullptr;
    // NumPy's/SciPy's bundled OpenBLAS (ILP64, scipy_ prefix), looked up among loaded objects.
    CblasGemm64<float> scipy_sgemm = nullptr;
    CblasGemm64<double> scipy_dgemm = nullptr;
};

/// Debian keeps the selected BLAS behind the alternatives system; the multiarch name is part of
/// the path.
const char* debian_alternative() {
#if defined(__x86_64__)
    return "/etc/alternatives/libblas.so.3-x86_64-linux-gnu";
#elif defined(__aarch64__)
    return "/etc/alternatives/libblas.so.3-aarch64-linux-gnu";
#else
    return nullptr;
#endif
}

bool try_load(CpuBlas& cpu, const std::string& name) {
    void* h = dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) return false;
    auto s = reinterpret_cast<FortranGemm<float>>(dlsym(h, "sgemm_"));
    auto d = reinterpret_cast<FortranGemm<double>>(dlsym(h, "dgemm_"));
    if (!s || !d || reinterpret_cast<void*>(d) == reinterpret_cast<void*>(&dgemm_) ||
        object_of(reinterpret_cast<void*>(d)) == self_path()) {
        dlclose(h);
        return false;
    }
    cpu.sgemm = s;
    cpu.dgemm = d;
    cpu.description = "CPU BLAS " + object_of(reinterpret_cast<void*>(d));
    return true;
}

/// The scipy_cblas_*64_ functions of a bundled OpenBLAS that is already loaded (NumPy loads
/// it RTLD_LOCAL, so only a walk over the loaded objects finds it).
int find_scipy_openblas(dl_phdr_info* info, size_t, void* data) {
    auto& cpu = *static_cast<CpuBlas*>(data);
    if (!info->dlpi_name || !*info->dlpi_name || self_path() == info->dlpi_name) return 0;
    if (!std::strstr(info->dlpi_name, "openblas")) return 0;
    void* h = dlopen(info->dlpi_name, RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
    if (!h) return 0;
    auto s = reinterpret_cast<CblasGemm64<float>>(dlsym(h, "scipy_cblas_sgemm64_"));
    auto d = reinterpret_cast<CblasGemm64<double>>(dlsym(h, "scipy_cblas_dgemm64_"));
    if (s && d && object_of(reinterpret_cast<void*>(d)) != self_path()) {
        cpu.scipy_sgemm = s;
        cpu.scipy_dgemm = d;
        return 1;
    }
    dlclose(h);
    return 0;
}

CpuBlas& cpu_blas() {
    // Never destroyed: the verbose report at exit still reads it.
    static CpuBlas* cpu = [] {
        auto* c = new CpuBlas;
        const std::string& configured = config().cpu_library;
        std::vector<std::string> candidates;
        if (!configured.empty()) {
            candidates.push_back(configured);
        } else {
            if (const char* alt = debian_alternative()) candidates.emplace_back(alt);
            candidates.insert(candidates.end(), {"libblas.so.3", "libopenblas.so.0", "libblis.so.4"});
        }
        bool loaded = false;
        for (const auto& name : candidates)
            if ((loaded = try_load(*c, name))) break;
        if (!loaded) {
            c->description = "no CPU BLAS found (" + (configured.empty() ? std::string("searched libblas.so.3, libopenblas.so.0, libblis.so.4") : "GEMMLAB_BLAS_CPU_LIBRARY=" + configured) + "): plain loops";
            if (!configured.empty() || config().verbose)
                log("%s", c->description.c_str());
        }
        if (config().verbose) log("CPU side: %s", c->description.c_str());
        return c;
    }();
    return *cpu;
}

CpuBlas& scipy_blas() {
    static std::once_flag once;
    CpuBlas& cpu = cpu_blas();
    std::call_once(once, [&] { dl_iterate_phdr(find_scipy_openblas, &cpu); });
    return cpu;
}

template <class T>
FortranGemm<T> fortran_of(const CpuBlas& cpu) {
    if constexpr (sizeof(T) == 4) return cpu.sgemm;
    else return cpu.dgemm;
}
template <class T>
CblasGemm64<T> scipy_of(const CpuBlas& cpu) {
    if constexpr (sizeof(T) == 4) return cpu.scipy_sgemm;
    else return cpu.scipy_dgemm;
}

/// The last resort when no CPU BLAS can be loaded: correct, slow.
template <class T>
void plain_loops(const Problem<T>& p) {
    for (int64_t j = 0; j < p.n; ++j)
        for (int64_t i = 0; i < p.m; ++i) {
            T sum = 0;
            if (p.alpha != T(0))
                for (int64_t l = 0; l < p.k; ++l) {
                    const T a = p.ta ? p.A[l + i * p.lda] : p.A[i + l * p.lda];
                    const T b = p.tb ? p.B[j + l * p.ldb] : p.B[l + j * p.ldb];
                    sum += a * b;
                }
            T& c = p.C[i + j * p.ldc];
            c = p.beta == T(0) ? p.alpha * sum : p.alpha * sum + p.beta * c;
        }
}

template <class T>
bool fits_int(const Problem<T>& p) {
    for (int64_t v : {p.m, p.n, p.k, p.lda, p.ldb, p.ldc})
        if (v > INT_MAX) return false;
    return true;
}

} // namespace

std::string cpu_library_description() { return cpu_blas().description; }

template <class T>
void cpu_gemm(const Problem<T>& p, Family family) {
    g_cpu_calls.fetch_add(1, std::memory_order_relaxed);
    if (family == Family::ScipyIlp64) {
        if (auto f = scipy_of<T>(scipy_blas())) {
            f(GemmlabCblasColMajor, p.ta ? GemmlabCblasTrans : GemmlabCblasNoTrans,
              p.tb ? GemmlabCblasTrans : GemmlabCblasNoTrans, p.m, p.n, p.k, p.alpha, p.A, p.lda,
              p.B, p.ldb, p.beta, p.C, p.ldc);
            return;
        }
    }
    const auto f = fortran_of<T>(cpu_blas());
    if (f && fits_int(p)) {
        const char ta = p.ta ? 'T' : 'N', tb = p.tb ? 'T' : 'N';
        const int m = int(p.m), n = int(p.n), k = int(p.k), lda = int(p.lda), ldb = int(p.ldb),
                  ldc = int(p.ldc);
        f(&ta, &tb, &m, &n, &k, &p.alpha, p.A, &lda, p.B, &ldb, &p.beta, p.C, &ldc, 1, 1);
        return;
    }
    plain_loops(p);
}

template void cpu_gemm<float>(const Problem<float>&, Family);
template void cpu_gemm<double>(const Problem<double>&, Family);

} // namespace gemmlab::blas
