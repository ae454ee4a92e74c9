// A sweep on Slurm: DIR/slurm/array.sbatch, an array job whose task i runs the points of chunk i
// (`traintwin sweep SPEC --out DIR --points A-B -j 1`, logs DIR/slurm/logs/%A_%a.out), and DIR/slurm/collect.sbatch,
// a job that writes the tables (`--collect`) once every task has ended (--dependency=afterany). Points beyond the
// array limit share tasks: chunk = ceil(points / tasks). DIR, the spec and the binary must be on a file system the
// compute nodes share. With `submit`, both are submitted with `sbatch --parsable`.
#pragma once

#include <filesystem>
#include <string>

#include "core/sweep/sweep_spec.hpp"

namespace tt::sweep {

struct SlurmOptions {
  std::string exe;        // the traintwin binary, as the compute nodes see it
  std::string partition;  // empty: the site's default
  int array_limit = 1000; // most tasks in one array (MaxArraySize is 1001 by default: indices 0..1000)
  int chunk = 0;          // points per task; 0: ceil(points / array_limit)
  std::string time_limit = "1:00:00";
  bool submit = false;
};

struct SlurmPlan {
  int points = 0, tasks = 0, chunk = 0;
  std::filesystem::path array_script, collect_script;
  std::string array_job, collect_job;  // ids when submitted
  std::string summary;                 // what was written and submitted, for the terminal
};

// Throws InputError when --chunk needs more tasks than --array-limit; std::runtime_error when sbatch fails.
SlurmPlan write_slurm_scripts(const SweepSpec& spec, const std::filesystem::path& out, const SlurmOptions& options);

// The first and last point of array task `task`.
std::pair<int, int> chunk_points(int task, int chunk, int points);

}  // namespace tt::sweep
