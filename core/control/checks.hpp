// Scenario checks evaluated against a finished RunRecord: each gets pass/fail, the measured figure (through the table
// of core/control/check_metrics.hpp) and a message with expected and measured values (for the terminal, JUnit and CI).
#pragma once

#include <vector>

#include "core/control/check_metrics.hpp"
#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"

namespace tt {

std::vector<CheckResult> evaluate_checks(const std::vector<CheckSpec>& checks, const RunRecord& record);

}  // namespace tt
