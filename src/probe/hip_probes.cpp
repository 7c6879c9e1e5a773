// The HIP build's probe table (hip_probes.hpp); the CUDA build's is registry.cpp.

#include "probe/hip_probes.hpp"

#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

// Source sections as in registry.cpp (docs/sources.md, "Vega10 microbenchmarks").
const ProbeInfo kHipProbes[] = {
    {"clock", "1.3", "At what clock does a compute unit run while the probes run?", run_clock},
    {"launch-rate", "2.1.1-2.1.3",
     "How many threads per cycle does the GPU create, by block shape, and what does a launch cost?",
     run_launch_rate},
    {"fma", "2.2.1-2.2.5",
     "How many FMA per cycle does a compute unit retire, and how many are there?", run_fma},
    {"latency", "2.6.1, 2.6.3", "How long does a dependent load take from L1, L2 and DRAM?",
     run_latency},
    {"smem-latency", "2.9.1", "How long does an LDS (shared-memory) load take?", run_smem_latency},
    {"smem-bank", "2.9.2",
     "How do LDS bank conflicts grow with stride on 64-lane wavefronts, and does padding fix them?",
     run_smem_bank},
    {"bandwidth", "-", "What are the DRAM, L2 and LDS bandwidth ceilings?", run_bandwidth},
};

} // namespace

std::span<const ProbeInfo> hip_probes() noexcept { return kHipProbes; }

bool run_hip_probes(const std::vector<std::string>& names, std::FILE* out) {
    for (const auto& n : names) {
        bool known = false;
        for (const auto& p : kHipProbes) known = known || p.name == n;
        if (!known) {
            std::fprintf(stderr, "gemmlab-hip: '%s' is not a probe of the HIP build "
                                 "(gemmlab-hip probe --list)\n", n.c_str());
            return false;
        }
    }
    Context ctx = make_context(0);
    std::fprintf(out, "%s: %d compute units\n", ctx.name.c_str(), ctx.sm_count);
    for (const auto& p : kHipProbes) {
        bool wanted = names.empty() || p.name == "clock"; // every other probe converts with it
        for (const auto& n : names) wanted = wanted || p.name == n;
        if (!wanted) continue;
        const Result r = p.run(ctx);
        std::fprintf(out, "[%s] %s\n", std::string(p.name).c_str(), std::string(p.question).c_str());
        for (const auto& h : r.headlines) std::fprintf(out, "  %s\n", h.text.c_str());
    }
    return true;
}

} // namespace gemmlab::probe
