// CSV views of a RunRecord for spreadsheets and notebooks: series.csv (the cluster samples, one row per change, with a
// header t_s,gpus_allocated,gpus_up,jobs_running,jobs_pending, then one column per sampled telemetry series named
// metric{label="value"}, rows at the union of both time bases) and jobs.csv (one row per job with its figures; empty
// cells for figures that do not exist). RFC 4180 quoting, "\n" line ends, deterministic.
#pragma once

#include <string>

#include "core/control/run_record.hpp"

namespace tt {

std::string series_csv(const RunRecord& record);
std::string jobs_csv(const RunRecord& record);

}  // namespace tt
