// `traintwin sweep`: every run of a spec (each point at each seed) through the local process pool, each run being
// `traintwin sweep-point` in a process of its own (SimGrid allows one engine per process). Resumable: a run whose
// result file exists (same values and figures) is kept and not run again; failed runs are kept too unless
// `retry_failed`. A progress line with an ETA goes to stderr when it is a terminal.
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

#include "core/sweep/sweep_spec.hpp"

namespace tt::sweep {

struct SweepOptions {
  std::filesystem::path out;
  int jobs = 1;
  std::string exe;  // the traintwin binary
  std::optional<std::pair<int, int>> points;  // only points [first, last] (a Slurm array task's chunk)
  bool retry_failed = false;
  bool progress = false;
};

struct SweepOutcome {
  int runs = 0;    // runs this call was asked for
  int kept = 0;    // found finished
  int ran = 0;     // run now
  int failed = 0;  // of all runs asked for: error, timeout or crash
  bool interrupted = false;
  double wall_s = 0;
};

SweepOutcome run_sweep(const SweepSpec& spec, const SweepOptions& options);

// "[######......]  12/120 runs  2 running  1m 02s  ETA 4m 10s" fitted to `width` columns.
std::string sweep_progress_text(int done, int total, int running, double elapsed_s, double eta_s, int width);

}  // namespace tt::sweep
