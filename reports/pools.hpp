// The report's "pools" section (docs/pools.md): per node pool, its scaling, provisioning waits and spot reclaims, and
// every node's capacity intervals (what a cost model bills). Only for scenarios with pools.
#pragma once

#include <nlohmann/json.hpp>

#include "core/control/run_record.hpp"

namespace tt {

nlohmann::json pools_json(const RunRecord& r);

}  // namespace tt
