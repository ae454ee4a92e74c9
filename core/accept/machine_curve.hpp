// The expected all-reduce curve of a machine the twin has no model of (CPU ranks, Gloo on loopback): calibrated from
// runs of the machine itself. Expected busbw per size = the geometric mean of the calibration points of that size
// (both passes of every run); noise = a log-normal whose sigma is the pooled standard deviation of log busbw within
// each size (run-to-run and pass-to-pass spread), floored at `min_sigma`, unless the caller names one.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/accept/plan.hpp"
#include "core/calib/measurement.hpp"

namespace tt::accept {

struct MachineCalibration {
  std::vector<std::pair<Bytes, BytesPerSecond>> expected;  // per size, ascending
  double sigma = 0;     // pooled within-size log standard deviation (before any floor)
  int points = 0;
  int runs = 0;
};

// Throws std::invalid_argument when no size has a point.
MachineCalibration calibrate_machine_curve(const std::vector<Measurement>& points, int ranks, int runs);

// The plan for this machine. `sigma` overrides the calibrated spread (with `sigma_source` saying where it comes from).
AcceptPlan machine_plan(const MachineCalibration& cal, int ranks, const std::string& machine, double false_failure,
                        std::optional<double> sigma = std::nullopt, const std::string& sigma_source = "",
                        double min_sigma = 0.05);

}  // namespace tt::accept
