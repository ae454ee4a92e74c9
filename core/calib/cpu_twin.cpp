#include "core/calib/cpu_twin.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"

namespace tt {
namespace {

std::optional<RunPhase> phase_from(const std::string& s) {
  for (RunPhase p : kRunPhases)
    if (s == to_string(p)) return p;
  return std::nullopt;
}

RunLaunch read_launch(JsonObject& o, const std::string& where) {
  RunLaunch l;
  l.job = static_cast<int>(o.integer("job"));
  l.name = o.str("name");
  l.attempt = static_cast<int>(o.integer("attempt", 1));
  l.world = static_cast<int>(o.integer("world", 1));
  l.compute = o.str("compute");
  if (l.compute != "attention" && l.compute != "synthetic") o.fail("compute", "attention or synthetic");
  o.str("provider");
  l.heads = static_cast<int>(o.integer("heads", 1));
  l.seq = static_cast<int>(o.integer("seq", 1));
  l.head_dim = static_cast<int>(o.integer("head_dim", 1));
  l.params = o.integer("params", 1);
  l.allreduce_bytes = o.number("allreduce_bytes", 0, 1e18);
  l.checkpoint_bytes = o.number("checkpoint_bytes", 0, 1e18);
  l.pace_seconds = o.number("pace_seconds", 0, 1e9);
  o.number("time_scale", 1e-12, 1e18);
  l.where = where;
  return l;
}

// Columns scaled to unit size, so that the minimum-norm solution and the span check do not depend on units.
struct Scaled {
  Eigen::MatrixXd a;
  Eigen::VectorXd scale;
};
Scaled scaled_rows(const std::vector<std::vector<double>>& rows, std::size_t cols) {
  Scaled s;
  s.a.resize(static_cast<Eigen::Index>(rows.size()), static_cast<Eigen::Index>(cols));
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < cols; ++j) s.a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) = rows[i][j];
  s.scale = s.a.cwiseAbs().colwise().maxCoeff().transpose();
  for (Eigen::Index j = 0; j < s.scale.size(); ++j)
    if (s.scale(j) == 0) s.scale(j) = 1;
  for (Eigen::Index j = 0; j < s.scale.size(); ++j) s.a.col(j) /= s.scale(j);
  return s;
}

PhaseModel fit_phase(RunPhase p, const RunMeasurements& run, std::vector<std::string> names) {
  PhaseModel m;
  m.phase = p;
  m.features = std::move(names);
  m.coefficients.assign(m.features.size(), 0.0);
  std::map<std::vector<double>, std::vector<double>> by_shape;  // feature row -> measured seconds
  for (const PhaseSample& s : run.samples) {
    if (s.phase != p) continue;
    const std::vector<double> x = phase_features(p, run.launches[s.launch]);
    if (std::all_of(x.begin(), x.end(), [](double v) { return v == 0; })) continue;  // one rank: nothing to fit
    by_shape[x].push_back(s.seconds);
    ++m.samples;
  }
  if (by_shape.empty()) return m;
  std::vector<double> medians;
  double total = 0, of_medians = 0;
  for (auto& [x, ts] : by_shape) {
    m.shapes.push_back(x);
    medians.push_back(quantile(ts, 0.5));
    for (double t : ts) total += t;
    of_medians += medians.back() * static_cast<double>(ts.size());
  }
  if (of_medians > 0) m.mean_over_median = total / of_medians;
  // min sum ((x . c - t) / t)^2: rows divided by their time; the minimum-norm solution when shapes do not determine c.
  Scaled s = scaled_rows(m.shapes, m.features.size());
  Eigen::VectorXd rhs = Eigen::VectorXd::Ones(s.a.rows());
  for (Eigen::Index i = 0; i < s.a.rows(); ++i) s.a.row(i) /= std::max(medians[static_cast<std::size_t>(i)], 1e-12);
  const Eigen::VectorXd y = s.a.completeOrthogonalDecomposition().solve(rhs);
  for (std::size_t j = 0; j < m.features.size(); ++j)
    m.coefficients[j] = y(static_cast<Eigen::Index>(j)) / s.scale(static_cast<Eigen::Index>(j));
  return m;
}

// Whether x lies in the span of the rows fitted (relative residual of its projection).
bool in_span(const PhaseModel& m, const std::vector<double>& x) {
  if (m.shapes.empty()) return false;
  std::vector<std::vector<double>> rows = m.shapes;
  rows.push_back(x);
  Scaled s = scaled_rows(rows, x.size());
  const Eigen::Index n = s.a.rows() - 1;
  const Eigen::MatrixXd basis = s.a.topRows(n).transpose();  // columns: the shapes
  const Eigen::VectorXd v = s.a.row(n).transpose();
  if (v.norm() == 0) return true;
  const Eigen::VectorXd c = basis.completeOrthogonalDecomposition().solve(v);
  return (basis * c - v).norm() <= 1e-6 * v.norm();
}

// Whether each term of x lies within the values the shapes fitted gave it: a linear model read between the sizes it
// was fitted on, not beyond them (a shape can be in the span and still far outside the sizes measured).
bool in_range(const PhaseModel& m, const std::vector<double>& x) {
  if (m.shapes.empty()) return false;
  for (std::size_t j = 0; j < x.size(); ++j) {
    double lo = m.shapes.front()[j], hi = lo;
    for (const auto& row : m.shapes) lo = std::min(lo, row[j]), hi = std::max(hi, row[j]);
    const double slack = 1e-9 * std::max(std::abs(lo), std::abs(hi));
    if (x[j] < lo - slack || x[j] > hi + slack) return false;
  }
  return true;
}

}  // namespace

const char* to_string(RunPhase p) {
  switch (p) {
    case RunPhase::Compute: return "compute";
    case RunPhase::AllReduce: return "allreduce";
    case RunPhase::Update: return "update";
    case RunPhase::Iteration: return "iteration";
    case RunPhase::Checkpoint: return "checkpoint";
    case RunPhase::Startup: return "startup";
  }
  return "?";
}

const PhaseModel& CpuTwin::model(RunPhase p) const {
  switch (p) {
    case RunPhase::Compute: return compute;
    case RunPhase::AllReduce: return allreduce;
    case RunPhase::Update: return update;
    case RunPhase::Checkpoint: return checkpoint;
    case RunPhase::Startup: return startup;
    case RunPhase::Iteration: break;
  }
  throw std::logic_error("CpuTwin::model: the iteration is derived, not fitted");
}

RunMeasurements parse_run_measurements(const std::string& text, const std::string& file) {
  RunMeasurements run;
  run.file = file;
  std::map<std::pair<int, int>, std::size_t> launch_of;  // (job, attempt) -> launch
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const std::string where = "line " + std::to_string(n);
    if (line.empty()) continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw InputError(file, where, "one JSON object per line");
    JsonObject o(j, file, where);
    const std::string event = o.str("event");
    if (event == "launch") {
      RunLaunch l = read_launch(o, file + ": " + where);
      o.finish();
      launch_of[{l.job, l.attempt}] = run.launches.size();
      run.launches.push_back(std::move(l));
    } else if (event == "phase") {
      const int job = static_cast<int>(o.integer("job"));
      const int attempt = static_cast<int>(o.integer("attempt", 1));
      auto it = launch_of.find({job, attempt});
      if (it == launch_of.end())
        o.fail("attempt", "a job and attempt whose \"launch\" line comes earlier in the file");
      PhaseSample s;
      s.launch = it->second;
      s.rank = static_cast<int>(o.integer("rank"));
      if (s.rank >= run.launches[s.launch].world)
        o.fail("rank", "a rank below the launch's world of " + std::to_string(run.launches[s.launch].world));
      s.iteration = o.integer("iteration", 0);
      const std::string ph = o.str("phase");
      const auto phase = phase_from(ph);
      if (!phase)
        o.fail("phase", "compute, allreduce, update, iteration, checkpoint or startup, found \"" + ph + "\"");
      s.phase = *phase;
      if (s.iteration < 1 && s.phase != RunPhase::Startup) o.fail("iteration", "an integer >= 1, found 0");
      s.seconds = o.number("seconds", 0, 1e9);
      o.finish();
      run.samples.push_back(s);
    } else {
      o.fail("event", "\"launch\" or \"phase\", found \"" + event + "\"");
    }
  }
  return run;
}

RunMeasurements load_run_measurements(const std::string& path) {
  namespace fs = std::filesystem;
  fs::path file = path;
  if (fs::is_directory(file)) {
    file = fs::path(path) / "measurements.jsonl";
    if (!fs::exists(file) && fs::exists(fs::path(path) / "run" / "measurements.jsonl"))
      file = fs::path(path) / "run" / "measurements.jsonl";
  }
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw InputError(file.string(), "",
                     "a readable measurements.jsonl (traintwin real --out DIR writes DIR/run/measurements.jsonl)");
  std::stringstream ss;
  ss << in.rdbuf();
  RunMeasurements run = parse_run_measurements(ss.str(), file.string());
  if (run.launches.empty() || run.samples.empty())
    throw InputError(file.string(), "", "a run's measurements: at least one \"launch\" line and its \"phase\" lines");
  return run;
}

double attention_flops(const RunLaunch& l) {
  if (l.compute != "attention") return 0;
  const double forward = 2.0 * l.heads * static_cast<double>(l.seq) * l.seq * l.head_dim;
  return 3.5 * forward;
}

std::vector<double> phase_features(RunPhase p, const RunLaunch& l) {
  const double w = l.world;
  switch (p) {
    case RunPhase::Compute: return {1.0, attention_flops(l), static_cast<double>(l.params)};
    case RunPhase::AllReduce:
      if (l.world <= 1) return {0.0, 0.0};
      return {2 * (w - 1), 2 * (w - 1) / w * l.allreduce_bytes};
    case RunPhase::Update: return {1.0, static_cast<double>(l.params)};
    case RunPhase::Checkpoint: return {1.0, l.checkpoint_bytes};
    case RunPhase::Startup: return {1.0, w};
    case RunPhase::Iteration: break;
  }
  return {};
}

CpuTwin fit_cpu_twin(const RunMeasurements& run) {
  CpuTwin t;
  t.compute = fit_phase(RunPhase::Compute, run, {"seconds", "seconds_per_attention_flop", "seconds_per_param"});
  t.allreduce = fit_phase(RunPhase::AllReduce, run, {"alpha_seconds_per_step", "seconds_per_byte"});
  t.update = fit_phase(RunPhase::Update, run, {"seconds", "seconds_per_param"});
  t.checkpoint = fit_phase(RunPhase::Checkpoint, run, {"seconds", "seconds_per_byte"});
  t.startup = fit_phase(RunPhase::Startup, run, {"seconds", "seconds_per_rank"});
  for (const PhaseModel* m : {&t.compute, &t.update})
    if (m->samples == 0)
      throw InputError(run.file, "",
                       std::string("\"phase\" lines of phase ") + to_string(m->phase) +
                           " (a run of workers that report their phases)");
  return t;
}

PhasePrediction predict_phase(const CpuTwin& twin, RunPhase p, const RunLaunch& l) {
  if (p == RunPhase::Iteration) {
    PhasePrediction out;
    for (RunPhase q : {RunPhase::Compute, RunPhase::AllReduce, RunPhase::Update}) {
      const PhasePrediction part = predict_phase(twin, q, l);
      out.seconds += part.seconds;
      out.extrapolated = out.extrapolated || part.extrapolated;
    }
    out.seconds = std::max(out.seconds, l.pace_seconds);
    return out;
  }
  const PhaseModel& m = twin.model(p);
  const std::vector<double> x = phase_features(p, l);
  PhasePrediction out;
  if (std::all_of(x.begin(), x.end(), [](double v) { return v == 0; })) return out;  // one rank: no all-reduce
  for (std::size_t j = 0; j < x.size(); ++j) out.seconds += m.coefficients[j] * x[j];
  out.extrapolated = !in_span(m, x) || !in_range(m, x);
  return out;
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (at - static_cast<double>(lo)) * (v[hi] - v[lo]);
}

std::vector<PhaseError> prediction_errors(const CpuTwin& twin, const RunMeasurements& run) {
  struct Acc {
    std::vector<double> errors, measured, predicted;
    bool extrapolated = false;
  };
  std::map<std::pair<int, int>, Acc> acc;  // (job or -1 for all, phase)
  std::map<int, std::string> names;
  for (const PhaseSample& s : run.samples) {
    const RunLaunch& l = run.launches[s.launch];
    if (s.phase == RunPhase::AllReduce && l.world <= 1) continue;
    if (s.phase == RunPhase::Checkpoint && twin.checkpoint.shapes.empty()) continue;
    if (s.phase == RunPhase::Startup && twin.startup.shapes.empty()) continue;
    if (s.phase == RunPhase::AllReduce && twin.allreduce.shapes.empty()) continue;
    if (!(s.seconds > 0)) continue;  // a clock too coarse to see it: no relative error
    const PhasePrediction p = predict_phase(twin, s.phase, l);
    names[l.job] = l.name;
    for (int job : {l.job, -1}) {
      Acc& a = acc[{job, static_cast<int>(s.phase)}];
      a.errors.push_back((p.seconds - s.seconds) / s.seconds);
      a.measured.push_back(s.seconds);
      a.predicted.push_back(p.seconds);
      a.extrapolated = a.extrapolated || p.extrapolated;
    }
  }
  std::vector<PhaseError> out;
  auto emit = [&](int job) {
    for (RunPhase ph : kRunPhases) {
      auto it = acc.find({job, static_cast<int>(ph)});
      if (it == acc.end()) continue;
      const Acc& a = it->second;
      PhaseError e;
      e.job = job < 0 ? "all jobs" : names[job];
      e.phase = ph;
      e.samples = static_cast<int>(a.errors.size());
      std::vector<double> abs;
      for (double x : a.errors) abs.push_back(std::abs(x));
      e.median_abs = quantile(abs, 0.5);
      e.p90_abs = quantile(abs, 0.9);
      e.measured_median = quantile(a.measured, 0.5);
      e.predicted_median = quantile(a.predicted, 0.5);
      e.median_error = e.measured_median > 0 ? e.predicted_median / e.measured_median - 1 : 0;
      for (double q : kErrorQuantiles) e.quantiles.push_back(quantile(a.errors, q));
      e.histogram.assign(std::size(kErrorBins) + 1, 0);
      for (double x : abs) {
        std::size_t b = 0;
        while (b < std::size(kErrorBins) && x > kErrorBins[b]) ++b;
        ++e.histogram[b];
      }
      e.extrapolated = a.extrapolated;
      out.push_back(std::move(e));
    }
  };
  for (const auto& [job, name] : names) emit(job);
  emit(-1);
  return out;
}

}  // namespace tt
