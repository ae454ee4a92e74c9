// The one table of figures a scenario check may name. The scenario reader validates names, subjects and thresholds
// against it, evaluate_checks() measures through it, and docs/scenario-format.md (Checks) lists exactly its rows, in
// order (tests/core/control/check_metrics_test.cpp). Add a metric by adding a row here and a row to that table.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/control/run_record.hpp"

namespace tt {

enum class MetricScope { Cluster, Job, Alert, Queue };  // what a check names beside the metric: nothing, a job, an
                                                        // alert rule, a queue
enum class MetricUnit { Duration, Count, Ratio, GpuHours, Money };  // also what a threshold is read as
enum class Better { Lower, Higher };                         // which way a figure improves

// What a metric is measured on. `job` is the job a Job-scoped check names (never null for those); `alert` the alert
// rule an Alert-scoped check names.
struct MetricSubject {
  const RunRecord& run;
  const JobRecord* job = nullptr;
  std::string_view alert;
  std::string_view queue = {};  // the queue a Queue-scoped check names
};

struct CheckMetric {
  std::string_view name;  // "job.end": the prefix is the scope's ("job.", "cluster.", "alert.")
  MetricScope scope;
  MetricUnit unit;
  Better better;
  std::string_view description;                            // one line, as docs/scenario-format.md shows it
  std::optional<double> (*measure)(const MetricSubject&);  // nullopt: not measured in this run
};

std::span<const CheckMetric> check_metrics();                 // in the documented order
const CheckMetric* find_check_metric(std::string_view name);  // nullptr when no check metric has that name
std::vector<std::string> check_metric_names();
// The threshold a unit takes, as the docs' "value" column writes it ("duration", "integer >= 0", ...).
std::string_view value_text(MetricUnit unit);
std::string_view to_string(Better b);  // "lower", "higher"

// The figure a check metric names (seconds, counts, ratios, GPU-hours) for the job or alert rule named; nullopt
// when the metric is unknown, the job is not in the record, or the figure does not exist in this run.
std::optional<double> measure_metric(const RunRecord& record, const std::string& metric, const std::string& job,
                                     const std::string& alert = "", const std::string& queue = "");
bool is_time_metric(const std::string& metric);  // its unit is Duration: shown as "6h", not as a number

}  // namespace tt
