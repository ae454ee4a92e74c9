// Alert rules and telemetry options of a scenario: plain values read by core/io and evaluated by core/telemetry.
// A condition selects the series of one metric by label matchers, optionally aggregates them into one value, and
// compares with a threshold; an alert fires once its condition has held for `for_duration`.
#pragma once

#include <cstddef>
#include <optional>

#include <map>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

enum class Aggregation { None, Sum, Max, Min, Avg, Count };
enum class CompareOp { Lt, Le, Gt, Ge, Eq, Ne };
const char* to_string(Aggregation a);  // "", "sum", "max", "min", "avg", "count"
const char* to_string(CompareOp op);   // "<", "<=", ">", ">=", "==", "!="
bool compare(double value, CompareOp op, double threshold);

struct LabelMatcher {
  std::string name;
  bool equal = true;  // = or !=
  std::string value;
  friend bool operator==(const LabelMatcher&, const LabelMatcher&) = default;
};

struct AlertCondition {
  std::string metric;  // a name of the metric catalogue (core/telemetry/metric_catalogue.hpp)
  std::vector<LabelMatcher> matchers;
  Aggregation aggregation = Aggregation::None;  // None: one alert instance per matching series
  CompareOp op = CompareOp::Gt;
  double threshold = 0;
  friend bool operator==(const AlertCondition&, const AlertCondition&) = default;
};

struct AlertSpec {
  std::string name;
  AlertCondition condition;
  Seconds for_duration;  // the condition must hold this long before the alert fires (0: at once)
  std::string severity;  // "info", "warning", "critical"
  std::map<std::string, std::string> labels;
  std::string summary;
};

// How the Controller samples its metrics into time series. Rules are evaluated at every controller event and at
// every sample; series are recorded at samples only, and only when a value changed.
struct TelemetryOptions {
  Seconds interval = Seconds(60);
  bool node_series = false;  // record traintwin_node_network_bytes_per_second per node (one series per node)
  // Record the per-job series (7 per job). Unset: on up to kJobSeriesAuto jobs, off beyond (a fleet's per-job figures
  // are in report.json's jobs, and alerts and the endpoint still see its per-job metrics), so that the recorded table
  // stays bounded: at most 7 x kJobSeriesAuto job columns of at most 1,440 rows.
  std::optional<bool> job_series;
  static constexpr std::size_t kJobSeriesAuto = 1000;
  bool records_jobs(std::size_t jobs) const { return job_series.value_or(jobs <= kJobSeriesAuto); }
};

}  // namespace tt
