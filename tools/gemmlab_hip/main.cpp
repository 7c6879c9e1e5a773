// gemmlab-hip: the command-line tool of the HIP build (AMD GPUs). The subcommands of `gemmlab`
// that make sense without cuBLAS and the Hopper rungs, over the HIP build's rungs 1-12:
//   list    the rungs this build has
//   bench   times rungs on squares, each result checked first; the reference is the CPU
//           (default) or a rung (--reference N), and the output says which
//   verify  every rung, both layouts, all four op combinations, shapes that fit no tile,
//           beta != 0 and beta == 0 with NaN in C, against the CPU reference
//   probe   the probes of the HIP build (src/probe/hip_probes.cpp)
// Nothing here has run on an AMD GPU yet: docs/hip.md.

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "common/cuda_check.hpp"
#include "common/device_buffer.hpp"
#include "common/gpu_runtime.hpp"
#include "gemm/reference/check.hpp"
#include "gemm/reference/reference.hpp"
#include "hip/ladder.hpp"
#include "probe/hip_probes.hpp"

namespace {

using gemmlab::Layout;
using gemmlab::Op;
using gemmlab::hip::HipRung;

/// "1-4,9,thread_tile_8x8" -> those rungs, in the order given; throws on an unknown one.
std::vector<const HipRung*> parse_rungs(const std::string& spec) {
    std::vector<const HipRung*> out;
    size_t pos = 0;
    while (pos <= spec.size()) {
        const size_t comma = std::min(spec.find(',', pos), spec.size());
        const std::string item = spec.substr(pos, comma - pos);
        pos = comma + 1;
        if (item.empty()) continue;
        const size_t dash = item.find('-');
        if (dash != std::string::npos && dash > 0) {
            const int lo = std::stoi(item.substr(0, dash)), hi = std::stoi(item.substr(dash + 1));
            for (int r = lo; r <= hi; ++r) {
                const HipRung* rung = gemmlab::hip::find_rung(std::to_string(r));
                if (!rung) throw CLI::ValidationError("--kernels", "the HIP build has no rung " + std::to_string(r));
                out.push_back(rung);
            }
        } else {
            const HipRung* rung = gemmlab::hip::find_rung(item);
            if (!rung) throw CLI::ValidationError("--kernels", "the HIP build has no rung '" + item + "' (gemmlab-hip list)");
            out.push_back(rung);
        }
    }
    return out;
}

/// Says why there is no device and returns false when the HIP runtime sees none.
bool require_device() {
    int count = 0;
    const hipError_t err = hipGetDeviceCount(&count);
    if (err != hipSuccess || count == 0) {
        std::fprintf(stderr, "gemmlab-hip: no HIP device (%s)\n",
                     err != hipSuccess ? hipGetErrorString(err) : "the runtime sees 0 devices");
        return false;
    }
    hipDeviceProp_t p{};
    GEMMLAB_CUDA_CHECK(hipGetDeviceProperties(&p, 0));
    std::printf("device 0: %s (%s, %d compute units), HIP build for %s\n", p.name, p.gcnArchName,
                p.multiProcessorCount, GEMMLAB_HIP_ARCHITECTURES_TEXT);
    return true;
}

/// One problem on host and device: random A, B, C0 from `seed`, and its reference.
template <class T>
struct Problem {
    Layout layout;
    Op op_a, op_b;
    int64_t m, n, k, lda, ldb, ldc;
    T alpha, beta;
    std::vector<T> a, b, c0;
    gemmlab::DeviceBuffer<T> da, db, dc;

    Problem(Layout layout_, Op op_a_, Op op_b_, int64_t m_, int64_t n_, int64_t k_, T alpha_,
            T beta_, unsigned seed)
        : layout(layout_), op_a(op_a_), op_b(op_b_), m(m_), n(n_), k(k_), alpha(alpha_), beta(beta_) {
        const bool row = layout == Layout::RowMajor;
        const int64_t ar = op_a == Op::N ? m : k, ac = op_a == Op::N ? k : m;
        const int64_t br = op_b == Op::N ? k : n, bc = op_b == Op::N ? n : k;
        lda = row ? ac : ar, ldb = row ? bc : br, ldc = row ? n : m;
        std::mt19937 gen(seed);
        std::uniform_real_distribution<double> dist(-1, 1);
        a.resize(size_t(ar * ac)), b.resize(size_t(br * bc)), c0.resize(size_t(m * n));
        for (auto& x : a) x = T(dist(gen));
        for (auto& x : b) x = T(dist(gen));
        for (auto& x : c0) x = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : T(dist(gen));
        da = gemmlab::DeviceBuffer<T>(a.size()), db = gemmlab::DeviceBuffer<T>(b.size());
        dc = gemmlab::DeviceBuffer<T>(c0.size());
        da.copy_from_host(a.data(), a.size());
        db.copy_from_host(b.data(), b.size());
    }
    /// C = C0 (NaN when beta == 0: every element must come out written).
    void reset_c() { dc.copy_from_host(c0.data(), c0.size()); }
    void run(const HipRung& r) {
        gemmlab::hip::gemm<T>(r, layout, op_a, op_b, m, n, k, alpha, da.get(), lda, db.get(), ldb,
                              beta, dc.get(), ldc);
    }
    std::vector<T> result() {
        GEMMLAB_CUDA_CHECK(hipDeviceSynchronize());
        std::vector<T> c(c0.size());
        dc.copy_to_host(c.data(), c.size());
        return c;
    }
    /// The CPU reference (double, double-double for double inputs) and the bound's magnitude.
    void cpu_reference(std::vector<double>& ref, std::vector<double>& mag) const {
        ref.resize(c0.size()), mag.resize(c0.size());
        gemmlab::reference::gemm<T>(layout, op_a, op_b, m, n, k, alpha, a.data(), lda, b.data(),
                                    ldb, beta, c0.data(), ldc, ref.data(), mag.data());
    }
};

template <class T>
const char* type_name() {
    return sizeof(T) == 4 ? "f32" : "f64";
}

// ------------------------------------------------------------------------------------ bench

struct BenchOptions {
    std::string kernels = "1-12", dtypes = "f32,f64", reference = "cpu";
    std::vector<int64_t> sizes{256, 512, 1024};
    int reps = 10;
    unsigned seed = 0;
};

template <class T>
bool bench_type(const BenchOptions& o, const std::vector<const HipRung*>& rungs,
                const HipRung* ref_rung) {
    bool ok = true;
    for (int64_t s : o.sizes) {
        Problem<T> p(Layout::RowMajor, Op::N, Op::N, s, s, s, T(1), T(0), o.seed);
        std::vector<double> ref, mag;
        if (ref_rung) {
            // A rung as the reference: the check is agreement between two GPU results within
            // twice the error bound of one, on |A| |B| computed by that rung too.
            p.reset_c();
            p.run(*ref_rung);
            const auto r = p.result();
            ref.assign(r.begin(), r.end());
            Problem<T> pa(Layout::RowMajor, Op::N, Op::N, s, s, s, T(1), T(0), o.seed);
            for (auto& x : pa.a) x = std::abs(x);
            for (auto& x : pa.b) x = std::abs(x);
            pa.da.copy_from_host(pa.a.data(), pa.a.size());
            pa.db.copy_from_host(pa.b.data(), pa.b.size());
            pa.reset_c();
            pa.run(*ref_rung);
            const auto m = pa.result();
            mag.resize(m.size());
            for (size_t i = 0; i < m.size(); ++i) mag[i] = 2.0 * double(m[i]);
        } else {
            p.cpu_reference(ref, mag);
        }
        for (const HipRung* r : rungs) {
            p.reset_c();
            p.run(*r);
            const auto c = p.result();
            const auto res = gemmlab::reference::check<T>(p.layout, s, s, s, c.data(), p.ldc,
                                                          ref.data(), mag.data());
            gemmlab::Event start, stop;
            std::vector<double> ms;
            for (int i = 0; i < 2; ++i) p.run(*r); // warm-up
            for (int i = 0; i < o.reps; ++i) {
                start.record();
                p.run(*r);
                stop.record();
                ms.push_back(stop.ms_since(start));
            }
            std::sort(ms.begin(), ms.end());
            const double med = ms[ms.size() / 2];
            std::printf("%-4s %5lld^3  %2d %-26s %10.1f GFLOP/s %9.3f ms  %s\n", type_name<T>(),
                        (long long)s, r->number, std::string(r->name).c_str(),
                        2.0 * double(s) * double(s) * double(s) / (med * 1e6), med,
                        res.pass ? "ok" : gemmlab::reference::describe(res).c_str());
            ok = ok && res.pass;
        }
    }
    return ok;
}

int bench(const BenchOptions& o) {
    const auto rungs = parse_rungs(o.kernels);
    const HipRung* ref_rung = nullptr;
    if (o.reference != "cpu") {
        ref_rung = gemmlab::hip::find_rung(o.reference);
        if (!ref_rung) throw CLI::ValidationError("--reference", "'cpu' or a rung of the HIP build");
    }
    if (!require_device()) return 2;
    std::printf("reference: %s; seed %u; row-major nn, alpha 1, beta 0, median of %d runs "
                "(hipEvent), no rocBLAS row\n",
                ref_rung ? ("rung " + std::to_string(ref_rung->number) + " " +
                            std::string(ref_rung->name) +
                            " (agreement between two GPU rungs within twice the bound, not an "
                            "independent check)")
                               .c_str()
                         : "CPU (double accumulation, double-double for f64; the bound of "
                           "docs/precision.md)",
                o.seed, o.reps);
    bool ok = true;
    if (o.dtypes.find("f32") != std::string::npos) ok = bench_type<float>(o, rungs, ref_rung) && ok;
    if (o.dtypes.find("f64") != std::string::npos) ok = bench_type<double>(o, rungs, ref_rung) && ok;
    return ok ? 0 : 1;
}

// ----------------------------------------------------------------------------------- verify

template <class T>
int64_t verify_type(const std::vector<const HipRung*>& rungs, unsigned seed) {
    const int64_t shapes[][3] = {{1, 1, 1}, {17, 33, 9}, {77, 45, 131}, {128, 128, 128}, {129, 65, 257}};
    int64_t failures = 0, checks = 0;
    for (const auto& s : shapes)
        for (Layout layout : {Layout::ColMajor, Layout::RowMajor})
            for (Op op_a : {Op::N, Op::T})
                for (Op op_b : {Op::N, Op::T})
                    for (T beta : {T(-0.5), T(0)}) {
                        Problem<T> p(layout, op_a, op_b, s[0], s[1], s[2], T(1.5), beta, seed);
                        std::vector<double> ref, mag;
                        p.cpu_reference(ref, mag);
                        for (const HipRung* r : rungs) {
                            p.reset_c();
                            p.run(*r);
                            const auto c = p.result();
                            const auto res = gemmlab::reference::check<T>(
                                layout, p.m, p.n, p.k, c.data(), p.ldc, ref.data(), mag.data());
                            ++checks;
                            if (!res.pass) {
                                ++failures;
                                std::printf("FAIL %s rung %d %s %lldx%lldx%lld %s %c%c beta %g: %s\n",
                                            type_name<T>(), r->number, std::string(r->name).c_str(),
                                            (long long)p.m, (long long)p.n, (long long)p.k,
                                            layout == Layout::RowMajor ? "row" : "col",
                                            op_a == Op::N ? 'n' : 't', op_b == Op::N ? 'n' : 't',
                                            double(beta), gemmlab::reference::describe(res).c_str());
                            }
                        }
                    }
    std::printf("%s: %lld checks, %lld failed\n", type_name<T>(), (long long)checks, (long long)failures);
    return failures;
}

int verify(const std::string& kernels, unsigned seed) {
    const auto rungs = parse_rungs(kernels);
    if (!require_device()) return 2;
    std::printf("reference: CPU; seed %u\n", seed);
    const int64_t failed = verify_type<float>(rungs, seed) + verify_type<double>(rungs, seed);
    return failed ? 1 : 0;
}

} // namespace

int main(int argc, char** argv) {
    CLI::App app{"gemmlab-hip: the CUDA-core GEMM ladder (rungs 1-12) and the portable probes, "
                 "built with HIP for AMD GPUs (docs/hip.md)"};
    app.require_subcommand(1);
    auto* list = app.add_subcommand("list", "the rungs of the HIP build");
    BenchOptions bo;
    bo.seed = std::random_device{}();
    auto* bench_cmd = app.add_subcommand("bench", "time rungs on squares, each result checked first");
    bench_cmd->add_option("--kernels", bo.kernels, "rungs by number or name, e.g. 1-12 or 9,thread_tile_8x8");
    bench_cmd->add_option("--dtype", bo.dtypes, "f32, f64 or f32,f64");
    bench_cmd->add_option("--sizes", bo.sizes, "square sizes")->delimiter(',');
    bench_cmd->add_option("--reference", bo.reference, "cpu (default) or a rung to check against");
    bench_cmd->add_option("--reps", bo.reps, "timed runs per row (median)")->check(CLI::PositiveNumber);
    bench_cmd->add_option("--seed", bo.seed, "seed of the random inputs");
    std::string vkernels = "1-12";
    unsigned vseed = bo.seed;
    auto* verify_cmd = app.add_subcommand("verify", "every rung, layout, op and odd shape against the CPU reference");
    verify_cmd->add_option("--kernels", vkernels, "rungs by number or name");
    verify_cmd->add_option("--seed", vseed, "seed of the random inputs");
    std::vector<std::string> probe_names;
    auto* probe_cmd = app.add_subcommand("probe", "the probes of the HIP build (all when none is named)");
    probe_cmd->add_option("names", probe_names, "probe names (gemmlab-hip probe --list)");
    bool probe_list = false;
    probe_cmd->add_flag("--list", probe_list, "list the probes of the HIP build");
    CLI11_PARSE(app, argc, argv);

    try {
        if (*list) {
            std::printf("HIP build (wavefront %d lanes) for %s: rungs 1-12, float and double; the "
                        "others need NVIDIA hardware or 32-lane warps (docs/hip.md)\n",
                        gemmlab::kWarpSize, GEMMLAB_HIP_ARCHITECTURES_TEXT);
            for (const auto& r : gemmlab::hip::rungs())
                std::printf("%3d  %-26s f32 f64\n", r.number, std::string(r.name).c_str());
            return 0;
        }
        if (*bench_cmd) return bench(bo);
        if (*verify_cmd) return verify(vkernels, vseed);
        if (*probe_cmd) {
            if (probe_list) {
                for (const auto& p : gemmlab::probe::hip_probes())
                    std::printf("%-14s %s\n", std::string(p.name).c_str(), std::string(p.question).c_str());
                return 0;
            }
            if (!require_device()) return 2;
            return gemmlab::probe::run_hip_probes(probe_names, stdout) ? 0 : 1;
        }
    } catch (const CLI::Error& e) {
        return app.exit(e);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "gemmlab-hip: %s\n", e.what());
        return 1;
    }
    return 0;
}
