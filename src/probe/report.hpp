#pragma once
// The probe results as JSON: the device, the measured clock, and for every probe its headlines and
// every sweep point with column names and units. scripts/plot_probe.py reads this format.

#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmlab/probe.hpp"

namespace gemmlab::probe {

/// Format version written as "schema"; bump it when a field changes meaning.
inline constexpr const char* kReportSchema = "gemmlab-probe/1";

/// {"schema", "device": {name, sm_count, clock_mhz, ...},
///  "probes": [{"name", "seed", "question",
///              "headlines": [{"key", "value", "unit", "text"}],
///              "tables": [{"title", "columns", "units", "rows"}]}]}
/// Non-finite values are written as null.
nlohmann::json to_json(const Context& ctx,
                       const std::vector<std::pair<const ProbeInfo*, Result>>& results);

} // namespace gemmlab::probe
