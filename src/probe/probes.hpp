#pragma once
// Entry points of every probe; each is defined in its own file in this folder
// (src/probe/<name>.cu) and listed once in src/probe/registry.cpp.

#include "gemmlab/probe.hpp"

namespace gemmlab::probe {

Result run_clock(Context&);             // clock.cu             Vega10 microbenchmarks 1.3
Result run_launch_rate(Context&);       // launch_rate.cu       Vega10 microbenchmarks 2.1.1-2.1.3
Result run_fma(Context&);               // fma.cu               Vega10 microbenchmarks 2.2.1-2.2.5
Result run_registers(Context&);         // registers.cu         Vega10 microbenchmarks 2.3
Result run_uniform(Context&);           // uniform.cu           Vega10 microbenchmarks 2.4
Result run_divergence(Context&);        // divergence.cu        Vega10 microbenchmarks 2.5
Result run_latency(Context&);           // latency.cu           Vega10 microbenchmarks 2.6.1, 2.6.3
Result run_cacheline(Context&);         // cacheline.cu         Vega10 microbenchmarks 2.6.2, 2.7.1
Result run_access_divergence(Context&); // access_divergence.cu Vega10 microbenchmarks 2.7.2
Result run_index_nchw(Context&);        // index_nchw.cu        Vega10 microbenchmarks 2.8
Result run_smem_latency(Context&);      // smem_latency.cu      Vega10 microbenchmarks 2.9.1
Result run_smem_bank(Context&);         // smem_bank.cu         Vega10 microbenchmarks 2.9.2
Result run_channel_conflict(Context&);  // channel_conflict.cu  Vega10 microbenchmarks 2.10
Result run_math(Context&);              // math.cu              Vega10 microbenchmarks 2.11
Result run_reduction(Context&);         // reduction.cu         Vega10 microbenchmarks 2.12
Result run_padding(Context&);           // padding.cu           Vega10 microbenchmarks 2.13
Result run_batchnorm(Context&);         // batchnorm.cu         Vega10 microbenchmarks 2.14
Result run_bandwidth(Context&);         // bandwidth.cu         -
Result run_tensor(Context&);            // tensor.cu            -

} // namespace gemmlab::probe
