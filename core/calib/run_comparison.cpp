#include "core/calib/run_comparison.hpp"

#include <algorithm>
#include <cmath>

#include "core/calib/cpu_twin.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"

namespace tt {
namespace {

struct JobFigures {
  std::string name, state;
  std::vector<std::optional<double>> values;  // by kRunFigures
};

std::optional<double> optional_seconds(JsonObject& o, const std::string& key) {
  if (!o.has(key)) o.fail(key, "a number of seconds or null");
  const nlohmann::json& v = o.raw(key);
  if (v.is_null()) return std::nullopt;
  if (!v.is_number() || !std::isfinite(v.get<double>()) || v.get<double>() < 0)
    o.fail(key, "a number of seconds >= 0 or null");
  return v.get<double>();
}

std::vector<JobFigures> read_jobs(const nlohmann::json& doc, const std::string& file) {
  JsonObject root(doc, file, "");
  std::vector<JobFigures> out;
  for (const auto& [value, pointer] : root.array("jobs", true)) {
    JsonObject j(*value, file, pointer);
    JobFigures f;
    f.name = j.str("name");
    f.state = j.str("state");
    const double submit = j.number("submit_s", 0, 1e18);
    const auto start = optional_seconds(j, "start_s");
    const auto end = optional_seconds(j, "end_s");
    f.values.assign(std::size(kRunFigures), std::nullopt);
    if (start) f.values[static_cast<int>(RunFigure::Wait)] = *start - submit;
    if (start && end) f.values[static_cast<int>(RunFigure::Run)] = *end - *start;
    f.values[static_cast<int>(RunFigure::Iteration)] = optional_seconds(j, "mean_iteration_s");
    JsonObject ck = j.object("checkpoint");
    JsonObject wt = ck.object("write_time");
    if (wt.integer("count") > 0) f.values[static_cast<int>(RunFigure::CheckpointWrite)] = wt.number("mean_s", 0, 1e18);
    f.values[static_cast<int>(RunFigure::End)] = end;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

const char* to_string(RunFigure f) {
  switch (f) {
    case RunFigure::Wait: return "wait";
    case RunFigure::Run: return "run";
    case RunFigure::Iteration: return "iteration";
    case RunFigure::CheckpointWrite: return "checkpoint_write";
    case RunFigure::End: return "end";
  }
  return "?";
}

std::optional<double> FigurePair::error() const {
  if (!measured || !predicted || !(*measured > 0)) return std::nullopt;
  return *predicted / *measured - 1;
}

RunComparison compare_runs(const nlohmann::json& predicted, const std::string& predicted_file,
                           const nlohmann::json& measured, const std::string& measured_file) {
  const std::vector<JobFigures> p = read_jobs(predicted, predicted_file);
  const std::vector<JobFigures> m = read_jobs(measured, measured_file);
  if (p.size() != m.size())
    throw InputError(predicted_file, "/jobs",
                     std::to_string(m.size()) + " jobs as in " + measured_file + " (a run of the same scenario), found " +
                         std::to_string(p.size()));
  RunComparison out;
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (p[i].name != m[i].name)
      throw InputError(predicted_file, "/jobs/" + std::to_string(i) + "/name",
                       "\"" + m[i].name + "\" as in " + measured_file + " (a run of the same scenario), found \"" +
                           p[i].name + "\"");
    JobComparison c;
    c.job = m[i].name;
    c.measured_state = m[i].state;
    c.predicted_state = p[i].state;
    for (std::size_t f = 0; f < std::size(kRunFigures); ++f) c.figures.push_back({m[i].values[f], p[i].values[f]});
    out.jobs.push_back(std::move(c));
  }
  for (std::size_t f = 0; f < std::size(kRunFigures); ++f) {
    FigureSummary s;
    s.figure = kRunFigures[f];
    std::vector<double> abs;
    for (const JobComparison& c : out.jobs)
      if (auto e = c.figures[f].error()) {
        abs.push_back(std::abs(*e));
        if (std::abs(*e) > s.worst_abs || s.worst_job.empty()) s.worst_abs = std::abs(*e), s.worst_job = c.job;
      }
    s.jobs = static_cast<int>(abs.size());
    if (!abs.empty()) s.median_abs = quantile(abs, 0.5);
    out.summary.push_back(s);
  }
  return out;
}

}  // namespace tt
