#include "core/accept/machine_curve.hpp"

#include <cmath>
#include <map>
#include <stdexcept>

#include "core/accept/comm_judge.hpp"

namespace tt::accept {

MachineCalibration calibrate_machine_curve(const std::vector<Measurement>& points, int ranks, int runs) {
  std::map<double, std::vector<double>> logs;  // by size: log busbw
  for (const auto& m : points) logs[m.size.value].push_back(std::log(measured_busbw(m, ranks).value));
  if (logs.empty()) throw std::invalid_argument("a machine calibration needs at least one measured size");
  MachineCalibration c;
  c.runs = runs;
  double ss = 0;
  int dof = 0;
  for (const auto& [size, xs] : logs) {
    double mean = 0;
    for (double x : xs) mean += x;
    mean /= static_cast<double>(xs.size());
    for (double x : xs) ss += (x - mean) * (x - mean);
    dof += static_cast<int>(xs.size()) - 1;
    c.points += static_cast<int>(xs.size());
    c.expected.emplace_back(Bytes(size), BytesPerSecond(std::exp(mean)));
  }
  c.sigma = dof > 0 ? std::sqrt(ss / dof) : 0;
  return c;
}

AcceptPlan machine_plan(const MachineCalibration& cal, int ranks, const std::string& machine, double false_failure,
                        std::optional<double> sigma, const std::string& sigma_source, double min_sigma) {
  AcceptPlan p;
  p.topology = machine;
  p.ranks = ranks;
  p.nodes = 1;
  p.model = "calibrated on this machine: geometric mean busbw per size of " + std::to_string(cal.points) +
            " point(s) from " + std::to_string(cal.runs) +
            " run(s) (the twin has no model of CPU ranks on loopback)";
  p.target_false_failure = false_failure;
  if (sigma) {
    p.comm_noise = {*sigma, "log-normal; sigma given: " + sigma_source};
  } else {
    char spread[64];
    std::snprintf(spread, sizeof spread, "%.4f", cal.sigma);
    p.comm_noise = {std::max(min_sigma, cal.sigma),
                    std::string("log-normal; sigma = pooled within-size spread of the calibration points (") + spread +
                        "), floored at " + std::to_string(min_sigma).substr(0, 4)};
  }
  p.time_noise = {0.1, "assumed: 10% log-normal"};
  for (const auto& [size, bw] : cal.expected) p.comm.push_back({size, bw, BytesPerSecond(0), 0});
  set_comm_thresholds(p);
  return p;
}

}  // namespace tt::accept
