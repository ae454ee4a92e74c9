// Alert rules and telemetry options of a scenario: plain values read by core/io and evaluated by core/telemetry.
// A condition selects the series of one metric by label matchers, optionally aggregates them into one value, and
// compares with a threshold; an alert fires once its condition has held for `for_duration`.
#pragma once

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
  bool job_series = true;    // record the per-job series (7 per job); off for fleets of thousands of jobs, whose
                             // per-job figures are in report.json's jobs and whose metrics alerts still see
};

}  // namespace tt
