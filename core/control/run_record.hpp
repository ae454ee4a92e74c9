// RunRecord: everything a run decided and measured, the single source of every report (reports/).
// Filled by the Controller; a driver adds its own facts (name, network model) through `driver` and `driver_info`.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

struct Decision {
  Seconds t;
  std::string kind;    // submit, launch, pending, preempt, detect, requeue, complete, abandon, node_down, node_up, ...
  std::string job;     // empty for cluster decisions
  std::vector<std::string> nodes;
  std::string reason;
};

struct Segment {  // one attempt of a job, from launch to its end
  int attempt = 0;
  Seconds start;
  std::optional<Seconds> end;
  std::vector<std::string> nodes;
  std::int64_t start_iteration = 0;
  std::int64_t reached_iteration = 0;
  Seconds iteration_time;  // latest measured
  std::string outcome;     // completed, failed, preempted, unfinished
};

struct FailureRecord {
  std::string cause;
  Seconds fault_time;
  Seconds detect_time;
  std::int64_t lost_iterations = 0;
  double lost_gpu_hours = 0;  // (progress since checkpoint + detection + restart overhead) x GPUs
};

struct JobRecord {
  std::string name;
  std::string queue;
  int gpus = 0;
  int priority = 0;
  Seconds submit;
  std::optional<Seconds> first_start;
  std::optional<Seconds> end;
  std::string state = "pending";  // pending, running, completed, abandoned, unfinished
  int restarts = 0;
  int preemptions = 0;
  std::int64_t iterations_target = 0;
  std::int64_t iterations_done = 0;
  std::int64_t last_checkpoint = 0;
  int checkpoints = 0;
  std::vector<Seconds> checkpoint_times;  // when each checkpoint completed
  Seconds checkpoint_time;       // total training time blocked by checkpoint writes
  Seconds wait;                  // total time queued (first wait and after failures and preemptions)
  std::map<std::string, Seconds> pending_by_reason;  // the wait split by reason kind (core/sched/pending_reason.hpp)
  Seconds predicted_iteration;   // closed form
  Seconds measured_iteration;    // latest measured by the driver
  double lost_gpu_hours = 0;
  double productive_seconds = 0;  // wall time spent on iterations that count toward the result
  double ettr = 0;                // productive / (end - first_start)
  std::vector<Segment> segments;
  std::vector<FailureRecord> failures;
};

struct Sample {  // cluster state, recorded whenever it changes
  Seconds t;
  int gpus_allocated = 0;
  int gpus_up = 0;
  int jobs_running = 0;
  int jobs_pending = 0;
  double fragmentation = 0;  // share of the free GPUs on partly used nodes (ClusterState::fragmentation)
};

struct CheckResult {
  std::string name;
  std::string metric;
  std::string job;
  std::string op;
  double threshold = 0;
  std::optional<double> measured;  // absent when the figure does not exist (e.g. the job never ended)
  bool passed = false;
  std::string message;
};

struct RunRecord {
  std::string scenario;
  std::string scenario_file;
  std::uint64_t seed = 0;
  std::string driver;                            // "sim" or "real"
  std::map<std::string, std::string> driver_info;  // e.g. SimGrid version and pinned network model
  int total_gpus = 0;
  Seconds end_time;
  double gpu_utilization = 0;  // allocated GPU-seconds / (GPUs x end_time)
  double goodput = 0;          // productive GPU-seconds / (GPUs x end_time)
  std::vector<JobRecord> jobs;
  std::vector<Decision> decisions;
  std::vector<Sample> series;
  std::vector<CheckResult> checks;

  bool all_checks_passed() const;
};

}  // namespace tt
