// Views of a RunRecord: the JSON report (versioned schema, the source of truth for every other view and for
// `traintwin diff`), and the short terminal summary. Output is deterministic: same record, same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "core/control/run_record.hpp"

namespace tt {

inline constexpr int kReportSchemaVersion = 1;

nlohmann::json report_json(const RunRecord& record);
// Writes DIR/report.json (creating DIR); returns the path written.
std::string write_report(const RunRecord& record, const std::string& dir);
// A few lines for a terminal: one row per job, cluster figures, checks with PASS/FAIL.
std::string summary_table(const RunRecord& record);

}  // namespace tt
