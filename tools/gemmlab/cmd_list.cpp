// `gemmlab list`: the rungs as a table.

#include <cstdio>
#include <iostream>

#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"

namespace gemmlab::cli {

namespace {

void print_rungs(const char* title, std::span<const KernelInfo> rungs) {
    std::printf("%s\n%-3s %-26s %-6s %-28s %s\n", title, "#", "name", "types", "seeds", "technique");
    for (const auto& k : rungs) {
        const char* types = k.supports_float && k.supports_double ? "f32,64" : k.supports_float ? "f32" : "f64";
        std::printf("%-3d %-26.*s %-6s %-28.*s %.*s\n", k.number, int(k.name.size()), k.name.data(), types,
                    int(k.seeds.size()), k.seeds.data(), int(k.technique.size()), k.technique.data());
    }
}

} // namespace

void add_list_command(CLI::App& app, Action& action) {
    auto* cmd = app.add_subcommand("list", "List the rungs of the GPU and CPU ladders");
    cmd->callback([&action] {
        action = [] {
            print_rungs("GPU ladder (gemmlab bench; `auto` picks among them by shape):", gpu_kernels());
            std::printf("\n");
            print_rungs("CPU ladder, seed 000 §3.5.2 (gemmlab bench --device cpu):", cpu_kernels());
            return int(kExitOk);
        };
    });
}

} // namespace gemmlab::cli
