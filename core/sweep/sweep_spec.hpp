// A sweep spec (docs/sweeps.md): a base scenario, parameters as JSON pointers into it with value lists or ranges, the
// seeds each point runs with and the figures collected from each run. read_sweep_spec() validates it completely,
// including every point's scenario (so a bad point is found before any run starts); bad input throws InputError.
// Pure: no process, no clock.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt::sweep {

struct Parameter {
  std::string pointer;                // RFC 6901 pointer into the base scenario (after the topology is inlined)
  std::vector<nlohmann::json> values; // in sweep order; for cases, their names
  std::string label;                  // column name in tables ("nodes"); default: the pointer's last token
  // Cases (a parameter without a pointer): per value, the pointers that case sets and what to, in pointer order (a
  // JSON object's keys are sorted: a section is set before a value inside it).
  // A pointer may name a key the base lacks (its parent must exist), as JSON Patch's "add" does.
  std::vector<std::vector<std::pair<std::string, nlohmann::json>>> sets;
  bool cases() const { return pointer.empty(); }
};

// A figure of one run. Exactly one source:
//  Metric: a check metric (core/control/check_metrics.hpp) of the cluster, a job, an alert rule or a queue;
//  Report: a number at a JSON pointer of report.json;
//  Jobs:   a statistic over one numeric field of report.json's jobs (optionally of one queue).
struct Figure {
  enum class Source { Metric, Report, Jobs };
  std::string name;
  Source source = Source::Metric;
  std::string metric, job, alert;  // Metric
  std::string pointer;             // Report
  std::string field, stat, queue;  // Jobs: stat is mean, min, max, sum, count or pNN (0 < NN <= 100); queue: also
                                   // the queue of a queue.* Metric
  bool duration = false;           // its value is seconds (constraints may then be written "1h")
};

struct SweepSpec {
  std::string file;  // the spec's path, for messages
  std::string name;
  std::string base;  // absolute path of the base scenario
  std::vector<Parameter> parameters;
  std::vector<std::uint64_t> seeds;
  std::vector<Figure> figures;
  Seconds timeout{600};     // per run; the run's process group is killed past it
  double confidence = 0.95; // of the intervals
};

// One point of the grid: the index of each parameter's value (the first parameter varies slowest).
struct Point {
  int index = 0;
  std::vector<int> value_index;
};

// `check_points`: also read every point's scenario (a run started by the sweep skips it: the sweep did it).
SweepSpec read_sweep_spec(const std::string& path, bool check_points = true);
SweepSpec read_sweep_spec(const nlohmann::json& doc, const std::string& file, bool check_points = true);

std::vector<Point> grid(const SweepSpec& spec);  // the Cartesian product, in order
// "nodes=16 interval=30m": the point's values as a label.
std::string point_label(const SweepSpec& spec, const Point& p);

// The base scenario document, its topology inlined when a parameter points into /topology, with the point's values set.
// The result reads with read_scenario(doc, spec.base), so relative paths still resolve from the base's directory.
nlohmann::json point_scenario(const SweepSpec& spec, const Point& p);

// The figure's value from a run: `report` is report.json's document, `metric` measures a check metric (nullopt: not
// measured in this run). Jobs statistics: percentiles interpolate linearly between order statistics (R's type 7).
std::optional<double> figure_value(const Figure& f, const nlohmann::json& report,
                                   const std::optional<double>& metric_value);

}  // namespace tt::sweep
