// `gemmlab list`: the rungs as a table, each rung's technique wrapped under its row so that
// every line fits in 100 columns.

#include <cstdio>
#include <iostream>
#include <string>

#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

std::string types_of(const KernelInfo& k) {
    std::string out;
    for (DataType t : {DataType::F32, DataType::F64})
        if (k.supports(t)) out += std::string(out.empty() ? "" : ",") + to_string(t);
    return out;
}

/// The arithmetic, in the words of `--precision`: "tf32", "default", or "call" for cuBLAS,
/// which does what the call's precision asks.
const char* math_of(const KernelInfo& k) {
    if (k.engine == Engine::Library) return "call";
    return to_string(k.precision);
}

/// One line per rung (number, name, types, math, engine, seeds), its technique wrapped under it.
void print_rungs(const char* title, std::span<const KernelInfo> rungs) {
    std::fputs(wrap_paragraph("", title, 0).c_str(), stdout);
    std::printf("%-3s %-24s %-8s %-8s %-13s %s\n", "#", "name", "types", "math", "engine", "seeds");
    for (const auto& k : rungs) {
        std::printf("%-3d %-24.*s %-8s %-8s %-13s %.*s\n", k.number, int(k.name.size()), k.name.data(),
                    types_of(k).c_str(), math_of(k), to_string(k.engine), int(k.seeds.size()),
                    k.seeds.data());
        std::fputs(wrap_paragraph("    ", k.technique, 4).c_str(), stdout);
    }
}

} // namespace

void add_list_command(CLI::App& app, Action& action) {
    auto* cmd = app.add_subcommand("list", "List the rungs of the GPU and CPU ladders");
    cmd->callback([&action] {
        action = [] {
            print_rungs("GPU ladder (gemmlab bench; `auto` picks among them by shape and precision):",
                        gpu_kernels());
            std::fputs(wrap_paragraph("math: ", "default = within the input type's own error bound "
                                      "(u = 2^-24 f32, 2^-53 f64); tf32 = TF32 inputs (u = 2^-11), only "
                                      "when named or with --precision tf32", 6).c_str(), stdout);
            std::printf("\n");
            print_rungs("CPU ladder, seed 000 §3.5.2 (gemmlab bench --device cpu):", cpu_kernels());
            return int(kExitOk);
        };
    });
}

} // namespace gemmlab::cli
