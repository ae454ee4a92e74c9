// Views of a RunRecord: the JSON report (versioned schema, the source of truth for every other view and for
// `traintwin diff`), the short terminal summary, and write_report(), which writes every file view into a directory.
// Output is deterministic: same record, same bytes.
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

inline constexpr int kReportSchemaVersion = 1;

struct ReportFiles {
  std::string dir;
  std::vector<std::string> paths;  // report.json first, then junit.xml, report.html, trace.json, series.csv, jobs.csv,
                                   // events.jsonl, metrics.prom, alerts.rules.yml, decisions.txt
  std::string file_names() const;  // "report.json, junit.xml, ...", for a terminal line
};

nlohmann::json report_json(const RunRecord& record);
// The same with an empty decisions array: what a reader of the figures needs, without millions of decisions as JSON.
nlohmann::json report_json_without_decisions(const RunRecord& record);
// report_json(record).dump(2) and a newline, the same bytes, with the decisions dumped one at a time.
void write_report_json(std::ostream& out, const RunRecord& record);
// Writes DIR/{report.json, junit.xml, report.html, trace.json, series.csv, jobs.csv, events.jsonl, metrics.prom,
// alerts.rules.yml, decisions.txt}, creating DIR and replacing those files; throws std::runtime_error naming the file
// it could not write.
ReportFiles write_report(const RunRecord& record, const std::string& dir);
// A few lines for a terminal: one row per job, cluster figures, checks with PASS/FAIL.
std::string summary_table(const RunRecord& record);

}  // namespace tt
