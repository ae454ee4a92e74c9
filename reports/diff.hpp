// Comparison of two report.json documents (`traintwin diff`): cluster figures, per-job figures matched by job name,
// and checks matched by name. A figure regresses when it moves in its bad direction (higher is worse for times, lost
// GPU-hours and restarts; lower is worse for utilization, goodput and ETTR) by more than the tolerance, relative to
// the base value (absolute when the base is 0); a figure that disappears regresses; a check regresses when it goes
// from pass to fail. Jobs or checks found in only one report are listed, not counted as regressions.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace tt {

inline constexpr int kDiffOk = 0;  // exit codes, the same as the CLI's
inline constexpr int kDiffRegressed = 1;
inline constexpr int kDiffBadInput = 2;

struct DiffOptions {
  double tolerance = 0.05;
  std::vector<std::string> metrics;  // names from diff_metric_names(); empty: all of them
};

enum class Verdict { Same, Within, Improved, Regressed, Added, Removed };

struct DiffRow {
  std::string metric;   // "cluster.goodput", "job.end_s", "check"; "job" for a job found in one report only
  std::string subject;  // the job or check name; empty for cluster figures
  std::optional<double> base;
  std::optional<double> now;     // for checks: 1 passed, 0 failed
  std::optional<double> change;  // (new - base) / |base|, when both exist and base is not 0
  Verdict verdict = Verdict::Same;
};

struct ReportDiff {
  double tolerance = 0;
  std::vector<DiffRow> rows;
  int count(Verdict v) const;
};

// "cluster.gpu_utilization", "cluster.goodput", "cluster.end_s", "job.end_s", ..., "check".
const std::vector<std::string>& diff_metric_names();
// "5%" -> 0.05, "0.05" -> 0.05; nullopt for anything else (negative, not a number, or a bare number above 1).
std::optional<double> parse_tolerance(std::string_view text);
// Throws InputError naming the file label and the JSON pointer when a document is not a valid report, or when
// options.metrics names an unknown metric.
ReportDiff diff_reports(const nlohmann::json& base, const nlohmann::json& now, const DiffOptions& options,
                        const std::string& base_label = "BASE", const std::string& new_label = "NEW");
// The table: metric, base, new, change %, verdict; then a footer with the counts and OK or REGRESSED.
std::string diff_table(const ReportDiff& diff);
int diff_exit_code(const ReportDiff& diff);  // kDiffRegressed when any row regressed, else kDiffOk
// Reads both files, prints the table on `out`, returns the exit code; an unreadable or invalid file (or an unknown
// metric) prints "error: FILE: at POINTER: ..." on `err` and returns kDiffBadInput.
int diff_report_files(const std::string& base_path, const std::string& new_path, const DiffOptions& options,
                      std::ostream& out, std::ostream& err);

}  // namespace tt
