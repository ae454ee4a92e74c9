// Scenario checks evaluated against a finished RunRecord: each gets pass/fail, the measured figure and a message
// with expected and measured values (for the terminal, JUnit and CI).
#pragma once

#include <optional>
#include <vector>

#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"

namespace tt {

// The figure a check metric names (seconds, counts, ratios, GPU-hours); nullopt when it does not exist.
std::optional<double> measure_metric(const RunRecord& record, const std::string& metric, const std::string& job);
bool is_time_metric(const std::string& metric);
std::vector<CheckResult> evaluate_checks(const std::vector<CheckSpec>& checks, const RunRecord& record);

}  // namespace tt
