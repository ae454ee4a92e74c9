// The report's "pools" section (docs/pools.md): per node pool, its scaling, provisioning waits and spot reclaims, and
// every node's capacity intervals (what a cost model bills). Only for scenarios with pools.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/control/run_record.hpp"

namespace tt {

nlohmann::json pools_json(const RunRecord& r);
// The HTML report's pools section: a table per pool and the nodes in service over time; empty without pools.
std::string pools_html_section(const RunRecord& r);

}  // namespace tt
