// JSON form of the probe results (see report.hpp).

#include "probe/report.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace gemmlab::probe {
namespace {

nlohmann::json number(double v) { return std::isfinite(v) ? nlohmann::json(v) : nlohmann::json(); }

nlohmann::json table_json(const Table& t) {
    if (t.units.size() != t.columns.size())
        throw std::invalid_argument("table '" + t.title + "': " + std::to_string(t.columns.size()) +
                                    " columns but " + std::to_string(t.units.size()) + " units");
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : t.rows) {
        if (row.size() != t.columns.size())
            throw std::invalid_argument("table '" + t.title + "': a row has " +
                                        std::to_string(row.size()) + " values for " +
                                        std::to_string(t.columns.size()) + " columns");
        nlohmann::json r = nlohmann::json::array();
        for (double v : row) r.push_back(number(v));
        rows.push_back(std::move(r));
    }
    return {{"title", t.title},
            {"columns", t.columns},
            {"units", t.units},
            {"rows", std::move(rows)}};
}

} // namespace

nlohmann::json to_json(const Context& ctx,
                       const std::vector<std::pair<const ProbeInfo*, Result>>& results) {
    nlohmann::json device = {
        {"index", ctx.device},
        {"name", ctx.name},
        {"sm_count", ctx.sm_count},
        {"compute_capability", std::to_string(ctx.cc_major) + "." + std::to_string(ctx.cc_minor)},
        {"clock_mhz", number(ctx.clock_mhz)},
        {"max_threads_per_block", ctx.max_threads_per_block},
        {"max_threads_per_sm", ctx.max_threads_per_sm},
        {"regs_per_sm", ctx.regs_per_sm},
        {"regs_per_block", ctx.regs_per_block},
        {"smem_per_block_optin_bytes", ctx.smem_per_block_optin},
        {"smem_per_sm_bytes", ctx.smem_per_sm},
        {"l2_bytes", ctx.l2_bytes},
        {"mem_bus_width_bits", ctx.mem_bus_width_bits},
        {"fp32_lanes_per_sm", ctx.fp32_lanes_per_sm},
        {"fp64_lanes_per_sm", ctx.fp64_lanes_per_sm},
    };

    nlohmann::json probes = nlohmann::json::array();
    for (const auto& [info, result] : results) {
        nlohmann::json p;
        p["name"] = info ? std::string(info->name) : std::string();
        p["seed"] = info ? std::string(info->seed) : std::string();
        p["question"] = info ? std::string(info->question) : std::string();
        nlohmann::json heads = nlohmann::json::array();
        for (const auto& h : result.headlines)
            heads.push_back(
                {{"key", h.key}, {"value", number(h.value)}, {"unit", h.unit}, {"text", h.text}});
        p["headlines"] = std::move(heads);
        nlohmann::json tables = nlohmann::json::array();
        for (const auto& t : result.tables) tables.push_back(table_json(t));
        p["tables"] = std::move(tables);
        probes.push_back(std::move(p));
    }
    return {{"schema", kReportSchema},
            {"device", std::move(device)},
            {"probes", std::move(probes)}};
}

} // namespace gemmlab::probe
