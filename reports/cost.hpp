// Views of what a run cost (core/cost): the "cost" key of report.json, the HTML section, the Prometheus series.
// Each is empty (or absent) when the run has no cost section, so other reports do not change.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/control/run_record.hpp"

namespace tt {

nlohmann::json cost_json(const cost::CostReport& c);
std::string cost_html_section(const RunRecord& r);
std::string cost_prometheus(const RunRecord& r);  // families traintwin_cost_* with HELP and TYPE

}  // namespace tt
