// `traintwin accept --devices cpu:N|cuda:N`: the seven items of the acceptance checklist run for real on this machine
// (kernels, commtest, a real run of the acceptance scenario watched through its health and metrics endpoints and its
// event log, a training checkpoint round trip), judged against a plan: the machine's all-reduce curve (a plan file,
// or calibration runs made first) and the times the twin gives for the same scenario.
//
// Fault injection, for tests and drills only (`--inject ITEM`, hidden): each breaks one item the way a real fault
// would, without changing what any other command does: health: two more node crashes so a job restarts in a loop;
// collective: one rank corrupts its input; kernels: one output element of the sample is poisoned with NaN;
// scheduler: the first launch of a job is dropped from the decisions checked (a skipped transition); observability:
// the metrics endpoint answers 503 (TRAINTWIN_DRILL_METRICS_DOWN); node_failure: recovery.max_restarts 0, so the
// crashed job is given up; checkpoint: a byte of the written checkpoint is flipped before the restore.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/accept/checklist.hpp"
#include "core/accept/plan.hpp"

namespace tt::cli {

struct LocalAccept {
  int ranks = 4;
  bool cuda = false;
  std::string scenario;                 // the acceptance scenario (its topology must have `ranks` GPUs)
  std::string out;                      // reports and the run directory
  double time_scale = 300;
  std::optional<accept::AcceptPlan> machine_plan;  // else calibration runs first
  int calibration_runs = 3;
  std::vector<std::string> calibration_logs;  // nccl-tests or commtest logs of this machine instead of fresh runs
  std::optional<double> comm_sigma;           // the noise of the machine plan, named by the caller
  double real_allowance_s = 1.0;              // real seconds (x time scale) a real run may add to each twin time
  double heartbeat_timeout_s = 5.0;           // real seconds of worker silence before the driver reports it
  bool plan_only = false;                     // make the plan, run no item
  double false_failure = 1e-3;          // per threshold
  int max_restarts = 1;                 // per job, over the run
  std::vector<std::int64_t> sizes;      // commtest sizes (bytes)
  std::set<accept::Item> inject;
  std::string worker_executable;
  bool quiet = false;
};

struct LocalResult {
  accept::Checklist checklist;
  accept::AcceptPlan plan;  // the one judged against (machine curve + twin times)
};

LocalResult run_local_accept(const LocalAccept& options);

}  // namespace tt::cli
