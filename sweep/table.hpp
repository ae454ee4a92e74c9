// The sweep's results table: one row per point, for each figure the mean over the point's seeds and its confidence
// interval (core/sweep/interval.hpp), built only from the result files in DIR/runs, so that a local pool and a Slurm
// array that ran the same runs write byte-identical tables. Written as DIR/table.csv, DIR/table.json and
// DIR/sweep.html (curves as inline SVG).
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core/sweep/interval.hpp"
#include "core/sweep/sweep_spec.hpp"

namespace tt::sweep {

struct Row {
  Point point;
  int runs = 0;     // results found
  int failed = 0;   // of them: error, timeout, crash
  int missing = 0;  // seeds with no result file
  std::vector<std::optional<Interval>> figures;  // by spec.figures' order; nullopt: measured in no run
};

struct Table {
  std::vector<Row> rows;
  bool complete() const;  // every run has a result and none failed
};

Table collect(const SweepSpec& spec, const std::filesystem::path& dir);

std::string table_csv(const SweepSpec& spec, const Table& t);
nlohmann::json table_json(const SweepSpec& spec, const Table& t);
std::string curves_html(const SweepSpec& spec, const Table& t);

// Writes the three files into `dir`, each atomically.
void write_tables(const SweepSpec& spec, const Table& t, const std::filesystem::path& dir);

// A parameter value as a number on a curve's axis: numbers as they are, durations in seconds, booleans 0/1;
// nullopt for other strings (then the axis is the values' order).
std::optional<double> axis_value(const nlohmann::json& v);

}  // namespace tt::sweep
