#include <iostream>

#include "common/cuda_check.hpp"
#include "gemmlab/commands.hpp"

namespace gemmlab::cli {

namespace {
std::string g_command_line; // written once in run(), before any subcommand reads it
} // namespace

const std::string& command_line() { return g_command_line; }

std::string usage_error(const CLI::App& app, std::string_view message) {
    std::string command = "gemmlab";
    for (const CLI::App* sub : app.get_subcommands()) command += " " + sub->get_name();
    std::string line(message.substr(0, message.find('\n')));
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return command + ": " + line + "\nRun '" + command + " --help' for the options.\n";
}

int run(int argc, char** argv) {
    g_command_line.clear();
    for (int i = 0; i < argc; ++i) g_command_line += (i ? " " : "") + std::string(argv[i]);

    CLI::App app{"gemmlab: a GEMM optimization ladder and a GPU probe suite", "gemmlab"};
    app.require_subcommand(1);
    Action action;
    add_list_command(app, action);
    add_bench_command(app, action);
    add_verify_command(app, action);
    add_probe_command(app, action);
    add_overhead_command(app, action);
    add_tune_command(app, action);
    add_accuracy_command(app, action);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        if (argc < 2) { // no subcommand at all: the usage is the answer
            std::cerr << app.help();
            return kExitUsage;
        }
        if (app.get_subcommands().empty()) { // the first word is no subcommand: name them
            std::string names;
            for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
                names += (names.empty() ? "" : ", ") + sub->get_name();
            std::cerr << usage_error(app, "'" + std::string(argv[1]) + "' is not a subcommand (" + names + ")");
            return kExitUsage;
        }
        std::cerr << usage_error(app, e.what());
        return kExitUsage;
    }
    try {
        return action();
    } catch (const CLI::ValidationError& e) {
        // Option values checked after parsing (kernel names, shapes, ...).
        std::cerr << usage_error(app, e.what());
        return kExitUsage;
    } catch (const CudaFailure& e) {
        std::cerr << "gemmlab: " << e.what() << "\n";
        return kExitCudaError;
    } catch (const std::exception& e) {
        std::cerr << "gemmlab: " << e.what() << "\n";
        return kExitCudaError;
    }
}

} // namespace gemmlab::cli
