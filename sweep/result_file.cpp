#include "sweep/result_file.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

#include "core/control/check_metrics.hpp"
#include "core/control/controller.hpp"
#include "core/io/control_plane_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "reports/report.hpp"
#include "sim/driver.hpp"

namespace tt::sweep {
namespace fs = std::filesystem;
using nlohmann::json;

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::Ok: return "ok";
    case RunStatus::Error: return "error";
    case RunStatus::Timeout: return "timeout";
    case RunStatus::Crashed: return "crashed";
  }
  return "?";
}

namespace {

std::string run_name(int point, std::uint64_t seed) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "p%04d-s%llu", point, static_cast<unsigned long long>(seed));
  return buf;
}

json point_values(const SweepSpec& spec, const Point& p) {
  json v = json::object();
  for (std::size_t k = 0; k < spec.parameters.size(); ++k)
    v[spec.parameters[k].label] = spec.parameters[k].values[p.value_index[k]];
  return v;
}

json figure_names(const SweepSpec& spec) {
  json names = json::array();
  for (const auto& f : spec.figures) names.push_back(f.name);
  return names;
}

}  // namespace

fs::path result_path(const fs::path& dir, int point, std::uint64_t seed) {
  return dir / "runs" / (run_name(point, seed) + ".json");
}
fs::path log_path(const fs::path& dir, int point, std::uint64_t seed) {
  return dir / "logs" / (run_name(point, seed) + ".log");
}

json result_json(const SweepSpec& spec, const Point& p, const RunResult& r) {
  json figures = json::object();
  for (const auto& [name, v] : r.figures) figures[name] = v ? json(*v) : json(nullptr);
  return {{"point", p.index},       {"seed", r.seed},           {"values", point_values(spec, p)},
          {"status", to_string(r.status)}, {"exit_code", r.exit_code}, {"message", r.message},
          {"figure_names", figure_names(spec)}, {"figures", figures}};
}

void write_atomically(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  const fs::path tmp = path.string() + ".tmp" + std::to_string(getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw std::runtime_error("cannot write " + tmp.string());
  }
  fs::rename(tmp, path);
}

std::optional<RunResult> read_result(const SweepSpec& spec, const Point& p, std::uint64_t seed, const fs::path& dir) {
  const fs::path path = result_path(dir, p.index, seed);
  std::ifstream in(path);
  if (!in) return std::nullopt;
  json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.is_object()) return std::nullopt;
  if (doc.value("point", -1) != p.index || doc.value("seed", std::uint64_t{0}) != seed ||
      doc.value("values", json()) != point_values(spec, p) || doc.value("figure_names", json()) != figure_names(spec))
    return std::nullopt;
  RunResult r;
  r.point = p.index;
  r.seed = seed;
  const std::string status = doc.value("status", "");
  if (status == "ok") r.status = RunStatus::Ok;
  else if (status == "error") r.status = RunStatus::Error;
  else if (status == "timeout") r.status = RunStatus::Timeout;
  else if (status == "crashed") r.status = RunStatus::Crashed;
  else return std::nullopt;
  r.exit_code = doc.value("exit_code", 0);
  r.message = doc.value("message", "");
  for (const auto& f : spec.figures) {
    const json& v = doc["figures"].value(f.name, json());
    r.figures[f.name] = v.is_number() ? std::optional<double>(v.get<double>()) : std::nullopt;
  }
  return r;
}

int run_point(const SweepSpec& spec, const Point& p, std::uint64_t seed, const fs::path& dir) {
  // The seed goes into the document: a workload and stochastic faults are drawn from it while the scenario is read.
  nlohmann::json doc = point_scenario(spec, p);
  doc["seed"] = seed;
  Scenario scenario = read_scenario(doc, spec.base);
  Controller controller(scenario);
  sim::RunOptions options;  // a control-plane drill is played as `traintwin run` plays it
  options.control_plane_outages = read_control_plane_outages(doc, spec.base);
  sim::RunStats stats = sim::run(scenario, controller, options);
  controller.set_driver("sim", stats.driver_info);
  const RunRecord& record = controller.record();
  // The decisions only for a figure that points into them (a fleet month logs millions).
  const bool decisions = std::any_of(spec.figures.begin(), spec.figures.end(), [](const Figure& f) {
    return f.source == Figure::Source::Report && f.pointer.rfind("/decisions", 0) == 0;
  });
  const json report = decisions ? report_json(record) : report_json_without_decisions(record);
  RunResult r;
  r.point = p.index;
  r.seed = seed;
  r.exit_code = record.all_checks_passed() ? 0 : 1;
  for (const Figure& f : spec.figures) {
    std::optional<double> metric;
    if (f.source == Figure::Source::Metric) metric = measure_metric(record, f.metric, f.job, f.alert, f.queue);
    r.figures[f.name] = figure_value(f, report, metric);
  }
  write_atomically(result_path(dir, p.index, seed), result_json(spec, p, r).dump(1) + "\n");
  return r.exit_code;
}

}  // namespace tt::sweep
