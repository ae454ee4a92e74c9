// Chrome trace-event view of a RunRecord (trace.json; open it in Perfetto or chrome://tracing). Process "nodes" has
// one track per node (a second track "n3 #2" only where jobs share a node at once) with an "X" event per job
// segment; process "jobs" has one track per job with queued / running / failed intervals and instant events for
// checkpoints, faults and detection. Timestamps are integer microseconds of simulated time. Deterministic.
#pragma once

#include <nlohmann/json.hpp>

#include "core/control/run_record.hpp"

namespace tt {

inline constexpr int kTraceNodesPid = 1;
inline constexpr int kTraceJobsPid = 2;

nlohmann::json trace_json(const RunRecord& record);

}  // namespace tt
