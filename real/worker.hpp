// A worker: one rank of one attempt of a job, a process of the traintwin binary (`traintwin worker ...`) started by
// the real driver. It loads its state (the seed's initial state, or a verified checkpoint), joins its ranks through
// Gloo, waits out the startup overhead, then runs iterations paced to the plan (see real/driver.hpp for the time
// mapping), checkpointing every K iterations and once at the end. It reports to the driver over fd `report_fd`
// (real/protocol.hpp) and writes text to stderr. Exit code 0 after the last iteration, 1 on any error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "real/training.hpp"

namespace tt::real {

struct WorkerConfig {
  std::string job_dir;      // checkpoints live in JOB_DIR/checkpoints
  std::string attempt_dir;  // this attempt's Gloo file store lives in ATTEMPT_DIR/gloo-store
  std::string job_name;
  int job = 0;
  int attempt = 1;
  int rank = 0;
  int world = 1;
  std::int64_t start_iteration = 0;   // resume after this iteration from its checkpoint; 0: from the seed
  std::int64_t iterations = 1;        // the job's total
  std::int64_t checkpoint_every = 0;  // 0: only the final checkpoint
  std::uint64_t seed = 0;
  Workload workload;
  std::string compute = "synthetic";
  double startup_seconds = 0;  // real seconds from process start to the first iteration (at least)
  double pace_seconds = 0;     // real seconds an iteration takes at least
  double speed = 1.0;          // share of its speed the device has; an iteration takes max(pace, work) / speed. The
                               // driver changes it while the worker runs with speed_signal() (real/protocol.hpp)
  double heartbeat_seconds = 0.05;
  double gloo_timeout_seconds = 300;
  std::string provider = "gloo";  // the collective library: gloo or nccl (real/nccl_provider.hpp)
  int device = -1;                // nccl: the CUDA device of this rank
  // The release installed on the nodes under this job (real/worker_release.hpp; the driver sets them from each node's
  // release, real/driver_release.hpp). Neutral by default.
  std::string release = "-";          // this rank's node's release, for its log
  double release_stretch = 1.0;       // an iteration takes this many times max(pace, work): the release's compute and
                                      // communication speeds over the plan's compute share (1: as planned)
  double hang_per_collective = 0;     // the job's hanging release: probability that a collective call never completes
  int collectives_per_iteration = 0;  // the plan's collective calls one real all-reduce stands for
  int hang_rank = -1;                 // the rank whose call never completes (first on a hanging release); -1: none
  std::uint64_t hang_seed = 0;        // the scenario seed the hang is drawn from (as the simulator draws it)
  int report_fd = 3;
};

// The command-line form of a config ("--rank", "3", ...), and back. Parsing throws std::invalid_argument naming the
// flag that is missing, unknown or malformed.
std::vector<std::string> worker_arguments(const WorkerConfig& c);
WorkerConfig parse_worker_arguments(const std::vector<std::string>& args);

// Runs the worker to the end; returns its exit code. Never throws.
int run_worker(const WorkerConfig& c);

// The entry point of `traintwin worker ARGS...`: parses ARGS (exit code 2 and a message on stderr when they are
// wrong) and runs the worker.
int worker_main(const std::vector<std::string>& args);

}  // namespace tt::real
