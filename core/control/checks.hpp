// Scenario checks evaluated against a finished RunRecord: each gets pass/fail, the measured figure and a message
// with expected and measured values (for the terminal, JUnit and CI).
#pragma once

#include <optional>
#include <vector>

#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"

namespace tt {

// The figure a check metric names (seconds, counts, ratios, GPU-hours); nullopt when it does not exist.
// alert.* metrics name an alert rule: alert.firings (how often it fired), alert.time_to_fire (from the first fault to
// its first firing at or after it), alert.max_time_to_fire (the longest, over the faults, from a fault to the first
// firing at or after it; not measured if a fault is followed by none).
std::optional<double> measure_metric(const RunRecord& record, const std::string& metric, const std::string& job,
                                     const std::string& alert = "");
bool is_time_metric(const std::string& metric);
std::vector<CheckResult> evaluate_checks(const std::vector<CheckSpec>& checks, const RunRecord& record);

}  // namespace tt
