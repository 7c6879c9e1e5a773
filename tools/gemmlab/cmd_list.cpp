// `gemmlab list`: the rungs as a table that reads at 100 columns: one line of facts per rung,
// its technique wrapped below it, and whether the current GPU can run it.

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

#include "common/device_info.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/kernels.hpp"
#include "gemmlab/quantized.hpp"
#include "gemmlab/text.hpp"

namespace gemmlab::cli {

namespace {

constexpr size_t kIndent = 4; // of the wrapped technique lines

std::string types_of(const KernelInfo& k) {
    std::string out;
    for (DataType t : kAllDataTypes)
        if (k.supports(t)) out += std::string(out.empty() ? "" : ",") + to_string(t);
    return out.empty() ? "8-bit" : out; // the quantized rungs: FP8 or INT8, as named
}

/// The arithmetic, in the words of `--precision`: "tf32", "default", or "call" for cuBLAS,
/// which does what the call's precision asks.
const char* math_of(const KernelInfo& k) {
    if (k.engine == Engine::Library) return "call";
    return to_string(k.precision);
}

/// Prints `prefix` + `text` wrapped at word boundaries (text.hpp: counted in columns, not UTF-8
/// bytes) into lines of at most kLineWidth columns, lines after the first indented by `indent`.
void print_wrapped(std::string_view prefix, std::string_view text, size_t indent) {
    if (text.empty()) return;
    std::fputs(wrap_paragraph(prefix, text, indent).c_str(), stdout);
}

/// "yes", "no" or "-" (no GPU to ask): whether the current device can run a GPU rung.
std::string runs_here(const KernelInfo& k, bool have_gpu) {
    if (k.device == Device::Cpu) return "yes";
    if (!have_gpu) return "-";
    return check_device_support(k) == Status::Success ? "yes" : "no";
}

void print_rungs(const char* title, std::span<const KernelInfo> rungs, bool have_gpu) {
    print_wrapped("", title, 0);
    std::printf("%-3s %-24s %-16s %-7s %-12s %s\n", "#", "name", "types", "math", "engine", "here");
    for (const auto& k : rungs) {
        std::printf("%-3d %-24.*s %-16s %-7s %-12s %s\n", k.number, int(k.name.size()), k.name.data(),
                    types_of(k).c_str(), math_of(k), to_string(k.engine), runs_here(k, have_gpu).c_str());
        // The technique, then where it comes from (docs/sources.md) unless it is cuBLAS's own.
        std::string text(k.technique);
        if (k.sources != "-") text += " (from: " + std::string(k.sources) + ")";
        print_wrapped(std::string(kIndent, ' '), text, kIndent);
    }
}

/// One line on what "here" means on this machine.
void print_device_line(bool have_gpu) {
    if (!have_gpu) {
        print_wrapped("here: ", "- = no CUDA device is visible, so which GPU rungs run here is "
                      "unknown (rungs marked sm_90a below need a compute capability 9.0 GPU)",
                      6);
        return;
    }
    const DeviceInfo dev = query_device(0);
    print_wrapped("here: ", "whether the current GPU (" + dev.name + ", compute capability " +
                      std::to_string(dev.cc_major) + "." + std::to_string(dev.cc_minor) +
                      ") can run the rung; this library " +
                      (built_with_sm90a() ? "has" : "has no") + " sm_90a code",
                  6);
}

} // namespace

void add_list_command(CLI::App& app, Action& action) {
    auto* cmd = app.add_subcommand("list", "List the rungs of the GPU and CPU ladders");
    cmd->callback([&action] {
        action = [] {
            const bool have_gpu = visible_device_count() > 0;
            print_rungs("GPU ladder (gemmlab bench; `auto` picks among them by type, precision, "
                        "device and shape):",
                        gpu_kernels(), have_gpu);
            print_wrapped("math: ", "default = within the input type's own error bound (u = 2^-24 "
                          "f32, 2^-53 f64; bf16/f16: FP32 accumulation and one rounding to C's "
                          "type); tf32 = TF32 inputs (u = 2^-11), only when named or with "
                          "--precision tf32",
                          6);
            print_device_line(have_gpu);
            std::string hopper;
            for (const auto& k : gpu_kernels())
                if (k.needs_sm90a) hopper += std::string(hopper.empty() ? "" : ", ") + std::string(k.name);
            print_wrapped("sm_90a (Hopper only: wgmma, TMA, setmaxnreg): ",
                          hopper.empty() ? std::string("none yet") : hopper, 4);
            std::string batched;
            for (const auto& k : gpu_kernels())
                if (k.native_batch) batched += std::string(batched.empty() ? "" : ", ") + std::string(k.name);
            print_wrapped("batched: ",
                          "a strided batch (gemm_strided_batched) in one launch: " + batched +
                              " (auto picks among these, cuBLAS aside); the other rungs run once "
                              "per batch",
                          4);
            std::string newer;
            for (const auto& k : gpu_kernels())
                if (k.min_compute_capability > 0)
                    newer += std::string(newer.empty() ? "" : ", ") + std::string(k.name) + " " +
                             std::to_string(k.min_compute_capability / 10) + "." +
                             std::to_string(k.min_compute_capability % 10);
            if (!newer.empty()) print_wrapped("compute capability needed: ", newer, 4);
            std::printf("\n");
            print_rungs("Quantized rungs (gemm_fp8: E4M3/E5M2, gemm_int8: s8; gemmlab bench "
                        "--dtype fp8,int8; sm_90a):",
                        quantized_kernels(), have_gpu);
            std::printf("\n");
            print_rungs("CPU ladder, register blocking on one core (gemmlab bench --device cpu):", cpu_kernels(),
                        have_gpu);
            return int(kExitOk);
        };
    });
}

} // namespace gemmlab::cli
