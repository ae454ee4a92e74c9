// The real driver with its workers replaced by the CPU twin of this machine (core/calib/cpu_twin.hpp): the same
// Controller, drive loop, pool and preflight effects and scenario checks as real::run(), on a virtual clock; each
// launched attempt starts, iterates, checkpoints and completes at the times the twin predicts for the shape its
// workers would run (real/training.hpp: workload_for), paced as they are paced:
//   first iteration  launch + max(startup, the launch's startup / time scale)
//   each iteration   max(pace, compute + all-reduce + update) / the slowest rank's speed (a straggler's fraction)
//   checkpoint       at the cadence and after the last iteration, blocking training, the twin's write time
// in real seconds, times the time scale in scenario time. Each phase is predicted at its mean, what a job's totals add
// up: the twin's median model times the calibration run's mean / median of the phase (PhaseModel::mean_over_median). The reports are those of `traintwin real`: comparing the
// two runs' reports (traintwin calibrate --predicted P --measured B) says how well the twin predicts the machine.
// Faults: node crashes, link downs and stragglers, as the real driver plays them; a hang (silence detection by the
// workers' heartbeats) and a corrupted checkpoint (storage's own check at restore) are not modelled and refused, as
// are node releases (a rollout's settings act inside the workers).
#pragma once

#include "core/calib/cpu_twin.hpp"
#include "real/driver.hpp"

namespace tt::real {

// Options used: devices, time_scale, compute, log, on_event, control_plane_outages. Throws std::invalid_argument for
// options or a scenario the twin cannot run, naming what, and InputError for a twin that lacks a phase the scenario
// needs (a checkpoint write, a startup).
RunStats run_twin(const Scenario& scenario, Controller& controller, const Options& options, const CpuTwin& twin,
                  const std::string& twin_source);

// The shape an attempt's workers run, as the real driver's measurement log writes it (what the twin predicts from).
RunLaunch twin_launch(const Scenario& scenario, const Launch& launch, const std::string& compute, double time_scale);

}  // namespace tt::real
