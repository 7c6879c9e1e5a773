// The one table of probes, in the order `gemmlab probe` runs them: `clock` first, because every
// other probe converts cycles to nanoseconds with the clock it measures.

#include <stdexcept>
#include <string>

#include "probe/probes.hpp"

namespace gemmlab::probe {
namespace {

const ProbeInfo kProbes[] = {
    {"clock", "1.3", "At what clock does an SM run while the probes run?", run_clock},
    {"launch-rate", "2.1.1-2.1.3",
     "How many threads per cycle does the GPU create, by block shape, and what does a launch cost?",
     run_launch_rate},
    {"fma", "2.2.1-2.2.5",
     "How many FMA per cycle does an SM retire, and how many SMs are there?", run_fma},
    {"registers", "2.3", "How many registers may a thread hold, and what do spills cost?",
     run_registers},
    {"uniform", "2.4", "What do warp-uniform (UR) registers and uniform control flow save?",
     run_uniform},
    {"divergence", "2.5", "What does a warp pay for 1, 2, 4 ... 32 distinct paths?", run_divergence},
    {"latency", "2.6.1, 2.6.3", "How long does a dependent load take from L1, L2 and DRAM?",
     run_latency},
    {"cacheline", "2.6.2, 2.7.1", "How large are a cache line and a sector?", run_cacheline},
    {"access-divergence", "2.7.2",
     "How does bandwidth fall as one warp's access touches more distinct lines?",
     run_access_divergence},
    {"index-nchw", "2.8", "What does NCHW index generation cost: div/mod vs multiply-shift?",
     run_index_nchw},
    {"smem-latency", "2.9.1", "How long does a shared-memory load take?", run_smem_latency},
    {"smem-bank", "2.9.2", "How do shared-memory bank conflicts grow with stride, and does padding fix them?",
     run_smem_bank},
    {"channel-conflict", "2.10",
     "Does DRAM bandwidth drop when concurrent blocks stride by large powers of two?",
     run_channel_conflict},
    {"math", "2.11", "What do sin, exp, sqrt ... cost in throughput and latency?", run_math},
    {"reduction", "2.12", "How fast is a sum: 2 vs 4 elements per step vs warp shuffles?",
     run_reduction},
    {"padding", "2.13", "How fast is padding an NCHW tensor, by elements per thread?", run_padding},
    {"batchnorm", "2.14", "How close do batchnorm forward variants come to copy bandwidth?",
     run_batchnorm},
    {"bandwidth", "-", "What are the DRAM, L2 and shared-memory bandwidth ceilings?", run_bandwidth},
    {"tensor", "-",
     "What FLOP/clk per SM and latency do mma.sync and wgmma reach, and how do tf32, f64, bf16 "
     "and fp16 mma and bf16 wgmma round?",
     run_tensor},
};

} // namespace

std::span<const ProbeInfo> probes() noexcept { return kProbes; }

const ProbeInfo* find_probe(std::string_view name) noexcept {
    for (const auto& p : kProbes)
        if (p.name == name) return &p;
    return nullptr;
}

double Result::at(std::string_view key) const {
    for (const auto& h : headlines)
        if (h.key == key) return h.value;
    throw std::out_of_range("no headline '" + std::string(key) + "'");
}

} // namespace gemmlab::probe
