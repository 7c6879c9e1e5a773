// `gemmlab probe [NAME...]`: run the hardware probes (all by default), print each sweep and its
// headline lines, optionally write everything as JSON.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>

#include <unistd.h>

#include "common/device_info.hpp"
#include "gemmlab/commands.hpp"
#include "gemmlab/probe.hpp"
#include "gemmlab/text.hpp"
#include "probe/report.hpp"

namespace gemmlab::cli {

void add_probe_command(CLI::App& app, Action& action) {
    struct Options {
        std::vector<std::string> names;
        bool list = false;
        std::string json_path;
    };
    auto opt = std::make_shared<Options>();
    auto* cmd = app.add_subcommand("probe", "Measure properties of the GPU (the Vega10 microbenchmarks, docs/sources.md)");
    cmd->add_option("names", opt->names, "Probes to run (default: all; see --list)");
    cmd->add_flag("--list", opt->list, "List the probes with their section in the Vega10 microbenchmarks");
    cmd->add_option("--json", opt->json_path, "Write every sweep point and headline value as JSON");
    cmd->callback([opt, &action] {
        action = [opt]() -> int {
            if (opt->list) {
                std::printf("%-18s %-14s %s\n", "probe", "section", "question");
                for (const auto& p : probe::probes()) {
                    char lead[64];
                    std::snprintf(lead, sizeof lead, "%-18.*s %-14.*s ", int(p.name.size()), p.name.data(),
                                  int(p.seed.size()), p.seed.data());
                    std::fputs(wrap_paragraph(lead, p.question, display_width(lead)).c_str(), stdout);
                }
                return kExitOk;
            }
            std::vector<const probe::ProbeInfo*> chosen;
            for (const auto& n : opt->names) {
                const auto* p = probe::find_probe(n);
                if (!p) throw CLI::ValidationError("probe", "'" + n + "' is not a probe (see `gemmlab probe --list`)");
                chosen.push_back(p);
            }
            if (chosen.empty())
                for (const auto& p : probe::probes()) chosen.push_back(&p);
            if (visible_device_count() == 0) {
                std::cerr << "gemmlab probe: no CUDA device is visible; the probes need an NVIDIA GPU\n";
                return kExitNoGpu;
            }
            probe::Context ctx = probe::make_context(0);
            const bool tty = isatty(fileno(stderr));
            ctx.progress = [tty](std::string_view what) {
                if (tty) std::fprintf(stderr, "\r\033[K  %.*s", int(what.size()), what.data());
            };
            std::printf("gemmlab probe on %s (%d SMs, sm_%d%d)\n", ctx.name.c_str(), ctx.sm_count,
                        ctx.cc_major, ctx.cc_minor);
            // The clock probe always runs first: every other probe converts cycles with it.
            const auto* clock = probe::find_probe("clock");
            if (chosen.front() != clock) chosen.insert(chosen.begin(), clock);
            std::vector<std::pair<const probe::ProbeInfo*, probe::Result>> results;
            std::vector<std::string> headlines;
            for (const auto* p : chosen) {
                const auto t0 = std::chrono::steady_clock::now();
                std::printf("\n%s", wrap_paragraph("== " + std::string(p->name) + " (section " +
                                                       std::string(p->seed) + "): ",
                                                   p->question, 3).c_str());
                std::fflush(stdout);
                probe::Result r = p->run(ctx);
                if (tty) std::fprintf(stderr, "\r\033[K");
                for (const auto& t : r.tables) std::fputs(format_probe_table(t).c_str(), stdout);
                const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
                for (const auto& h : r.headlines) {
                    std::fputs(wrap_paragraph("  -> ", h.text, 5).c_str(), stdout);
                    headlines.push_back(std::string(p->name) + ": " + h.text);
                }
                std::printf("  (%.1f s)\n", s);
                std::fflush(stdout);
                results.emplace_back(p, std::move(r));
            }
            std::printf("\nHeadlines\n");
            for (const auto& h : headlines) std::fputs(wrap_paragraph("  ", h, 4).c_str(), stdout);
            if (!opt->json_path.empty()) {
                nlohmann::json j = probe::to_json(ctx, results);
                j["command"] = command_line();
                j["date"] = utc_timestamp();
                const DeviceInfo d = query_device(ctx.device);
                j["driver_version"] = d.driver_version;
                j["cuda_runtime_version"] = d.runtime_version;
                std::ofstream out(opt->json_path);
                out << j.dump(2) << "\n";
                if (!out) throw std::runtime_error("cannot write " + opt->json_path);
            }
            return kExitOk;
        };
    });
}

} // namespace gemmlab::cli
