#pragma once
// Each subcommand of the gemmlab CLI lives in its own cmd_<name>.cpp and registers itself on the
// CLI11 app. `action` is set when the subcommand is chosen; cli.cpp runs it after parsing and
// returns its value as the process exit code.

#include <functional>
#include <string>
#include <string_view>

#include <CLI/CLI.hpp>

namespace gemmlab::cli {

/// Exit codes of the gemmlab tool (documented in docs/cli.md).
enum ExitCode : int {
    kExitOk = 0,
    kExitCheckFailed = 1, ///< a verification or consistency check failed
    kExitUsage = 2,       ///< bad command line
    kExitNoGpu = 3,       ///< the command needs an NVIDIA GPU and none is visible
    kExitCudaError = 4,   ///< a CUDA or cuBLAS call failed
};

using Action = std::function<int()>;

void add_list_command(CLI::App& app, Action& action);
void add_bench_command(CLI::App& app, Action& action);
void add_verify_command(CLI::App& app, Action& action);
void add_probe_command(CLI::App& app, Action& action);
void add_overhead_command(CLI::App& app, Action& action);
void add_tune_command(CLI::App& app, Action& action);
void add_accuracy_command(CLI::App& app, Action& action);

/// What a bad command line prints: "gemmlab SUB: <the first line of message>" and a pointer to
/// "gemmlab SUB --help" (SUB: the subcommand parsed so far, if any), two lines in all.
std::string usage_error(const CLI::App& app, std::string_view message);

/// The command line of this process, as typed (recorded in JSON results).
const std::string& command_line();

/// Parses argv and runs the chosen subcommand; returns the process exit code.
int run(int argc, char** argv);

} // namespace gemmlab::cli
