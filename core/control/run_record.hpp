// RunRecord: everything a run decided and measured, the single source of every report (reports/).
// Filled by the Controller; a driver adds its own facts (name, network model) through `driver` and `driver_info`.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/cost/cost_model.hpp"
#include "core/model/pools.hpp"
#include "core/model/shared_text.hpp"
#include "core/model/units.hpp"
#include "core/rollout/analysis.hpp"
#include "core/telemetry/registry.hpp"
#include "core/telemetry/series_recorder.hpp"

namespace tt {

struct Decision {
  Seconds t;
  // The texts repeat (a fleet month logs millions of decisions): the Controller hands out one copy of each kind, job
  // name and waiting job's reason (controller.cpp), 56 bytes a decision.
  SharedText kind;  // submit, launch, pending, preempt, detect, requeue, complete, abandon, node_down, node_up, ...
  SharedText job;   // empty for cluster decisions
  std::vector<std::string> nodes;
  SharedText reason;
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
  std::string kind;      // fault kind: node_crash, gpu_failure, link_down, nic_down, switch_down, hang
  std::string detector;  // heartbeat, communication timeout, training watchdog
  std::optional<Seconds> recovered_time;  // training resumed (relaunch + restart overhead); absent if it never did
  Seconds lost_progress;   // lost_iterations x iteration time
  Seconds lost_detection;  // detect_time - fault_time
  Seconds lost_restart;    // restart overhead
  bool false_failure = false;  // declared on a link that came back within the restart overhead: waiting was cheaper
};

struct CauseTotals {
  int failures = 0;
  double lost_gpu_hours = 0;
};

// Where a job stands in the record (the Controller's own state machine is finer: a stalled job is running here).
enum class JobStatus { Pending, Running, Completed, Abandoned, Unfinished };
inline const char* to_string(JobStatus s) {
  switch (s) {
    case JobStatus::Pending: return "pending";
    case JobStatus::Running: return "running";
    case JobStatus::Completed: return "completed";
    case JobStatus::Abandoned: return "abandoned";
    case JobStatus::Unfinished: return "unfinished";
  }
  return "?";
}

struct JobRecord {
  std::string name;
  std::string queue;
  int gpus = 0;
  int priority = 0;
  Seconds submit;
  std::optional<Seconds> first_start;
  std::optional<Seconds> end;
  JobStatus state = JobStatus::Pending;
  int restarts = 0;
  int preemptions = 0;
  std::int64_t iterations_target = 0;
  std::int64_t iterations_done = 0;
  std::int64_t last_checkpoint = 0;
  int checkpoints = 0;
  std::vector<Seconds> checkpoint_times;  // when each checkpoint completed
  Seconds checkpoint_time;       // total training time blocked by checkpoint writes
  Seconds wait;                  // total time queued (first wait and after failures and preemptions)
  // The wait split by reason kind (core/sched/pending_reason.hpp), every change of kind counted: written when the run
  // finishes (Controller::finish reads Scheduler::wait_times), empty before.
  std::map<std::string, Seconds> pending_by_reason;
  Seconds predicted_iteration;   // closed form
  Seconds measured_iteration;    // latest measured by the driver
  Seconds iteration_time_sum;    // every iteration the driver reported, of every attempt: their total time
  std::int64_t iterations_timed = 0;  // ... and how many (the report's mean_iteration_s)
  double lost_gpu_hours = 0;
  double productive_seconds = 0;  // wall time spent on iterations that count toward the result
  double ettr = 0;                // productive / (end - first_start)
  int flaps_survived = 0;         // link faults shorter than the communication timeout: the job waited and went on
  int false_failures = 0;
  bool checkpoint_async = false;
  std::vector<Seconds> checkpoint_write_times;  // each checkpoint, start to end of its write
  Bytes checkpoint_bytes;                       // one checkpoint (weights + optimizer state)
  int checkpoints_retained = 0;                 // on storage at the end (retention: keep N)
  double checkpoint_overhead = 0;               // training time blocked by checkpoints / (end - first_start)
  std::optional<Seconds> checkpoint_interval;   // the interval used (iterations x measured iteration time)
  std::optional<Seconds> young_daly_interval;   // sqrt(2 x mean blocked time per checkpoint x MTBF)
  std::optional<Seconds> mtbf;                  // observed (running time / failures), else expected from the rates
  std::string mtbf_source;                      // "observed", "configured rates"
  std::map<std::string, CauseTotals> by_cause;  // by fault kind
  std::vector<Segment> segments;
  std::vector<FailureRecord> failures;
  // Two-site topologies: relaunches in the other site, whose checkpoint crossed the inter-site link first.
  std::string site;                  // where its latest attempt ran ("" in a one-site topology or before a start)
  int checkpoint_moves = 0;
  Bytes checkpoint_moved_bytes;
  Seconds checkpoint_move_time;      // predicted: bytes / link bandwidth + latency, per move
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
  std::string alert{};  // for alert.* metrics
  std::string queue{};  // for queue.* metrics
};

struct AlertRuleRecord {  // an alert rule of the scenario, as exported to alerts.rules.yml
  std::string name;
  std::string expr;  // PromQL over the metric names of metrics.prom
  Seconds for_duration;
  std::string severity;
  std::map<std::string, std::string> labels;
  std::string summary;
};

struct AlertRecord {  // one firing of one alert instance
  std::string name;
  std::string severity;
  std::map<std::string, std::string> labels;  // the series' labels and the rule's labels
  double value = 0;                           // when it fired
  Seconds active_since;                       // its condition held since then (pending)
  Seconds fired_at;
  std::optional<Seconds> resolved_at;         // absent: still firing at the end
};

// What one preflight difference (core/preflight/verdict.hpp) cost in the run (core/preflight/cost.hpp): launches that
// failed because of it, the GPU-hours those failures lost, GPU-hours spent slower than the matrix's release would
// run, and the capacity withheld by gating its nodes. Filled only for scenarios with a preflight section.
struct PreflightCost {
  std::string check;     // the verdict's check: an attribute name or "rule:<id>"
  std::string severity;  // blocking, warning
  std::string rule;      // the published rule the difference breaks, "" when none
  std::vector<std::string> nodes;
  std::string found;
  std::string expected;
  std::string failure;       // what the difference leads to
  int failed_launches = 0;   // job launches that failed because of it (e.g. communicator setup hangs)
  double lost_gpu_hours = 0;     // lost by those failures
  double slowed_gpu_hours = 0;   // extra GPU-hours of jobs slowed by it (attention fallback)
  double withheld_gpu_hours = 0;  // capacity of its nodes cordoned by gating (shared by the node's blocking checks)
  double gpu_hours_per_day = 0;   // (lost + slowed + withheld) per day of the run
  int rank = 0;                   // 1: fix first
};

// A canary rollout as it went (docs/rollout.md): each step with the analysis that decided it, and what it cost.
struct RolloutStepRecord {
  int step = 0;
  int nodes = 0;  // nodes of the pool on the new release in this step
  Seconds started;
  std::optional<Seconds> observed_from;  // the observation window began (the canary runs)
  std::optional<Seconds> decided;
  std::string outcome;  // promote, rollback, pause, complete; empty while undecided
  std::vector<rollout::MetricVerdict> verdicts;  // one per analysis metric, with its evidence
};
struct RolloutRecord {
  std::string release, from;
  std::string outcome = "not started";  // promoted, rolled back, paused, in progress, not started
  std::optional<Seconds> decided;       // the promotion of the full rollout, or the rollback / pause decision
  std::vector<RolloutStepRecord> steps;
  double canary_gpu_hours = 0, baseline_gpu_hours = 0;
  int jobs_drained = 0;                 // jobs stopped and requeued from their checkpoint to drain nodes
  double drain_lost_gpu_hours = 0;      // their progress since the checkpoint plus restart overhead
  double reimage_node_hours = 0;        // node time spent draining and reimaging (upgrades and rollback)
  std::optional<Seconds> rolled_back_at;  // every node back on the old release
};

// Node pools (docs/pools.md). One capacity interval per node per time in service, from the provisioning request
// accepted (billing starts; fixed nodes: the start of the run) to its release, reclaim or the end of the run: what a
// cost model bills at the pool's price.
struct CapacityInterval {
  std::string node;
  std::string pool;
  PriceKind price_kind = PriceKind::OnDemand;
  double price_per_gpu_hour = 0;
  int gpus = 0;
  Seconds start;
  Seconds end;
  std::optional<Seconds> in_service;  // when it took work (fixed nodes: 0); none: it went before it came
};
struct PoolRecord {
  std::string name;
  std::string kind;  // fixed, elastic, spot
  int min = 0, max = 0;
  int provisions = 0;         // nodes asked for (scale-ups)
  int provisioned = 0;        // of them, provisioned
  int releases = 0;           // nodes given back (scale-downs, idle)
  int reclaim_notices = 0;    // spot: notices received
  int reclaims = 0;           // spot: nodes taken back by the provider
  int jobs_requeued = 0;      // jobs stopped and requeued by reclaims
  int checkpoints_in_notice = 0;  // of them, jobs whose checkpoint completed within the notice before they stopped
  int checkpoints_on_notice = 0;  // on-demand checkpoints asked for at a notice (PoolSpec::checkpoint_on_notice)
  double reclaim_lost_gpu_hours = 0;  // their progress since the checkpoint plus restart overhead
  std::vector<Seconds> provision_waits;  // each provisioning, request to node in service
  int peak_nodes = 0;         // most nodes in service or provisioning at once
  int in_service = 0;         // nodes in service now (after the run: at its end)
  int provisioning = 0;       // nodes asked for and not yet in service now
  double node_hours = 0;      // billed node time (the pool's capacity intervals)
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
  // A deque: a fleet month records millions (3.7 M at 16,384 GPUs, nearly all a waiting job's new reason), which a
  // vector copied at each doubling (the peak RSS did not move measurably: 1,996 MiB against 1,974 before).
  std::deque<Decision> decisions;
  std::vector<Sample> series;
  std::vector<CheckResult> checks;
  // Failures: detection rules in force, totals by fault kind, nodes drained as lemons, faults injected.
  std::map<std::string, double> detection;  // heartbeat_s, comm_timeout_s, watchdog_s, restart_overhead_s
  std::map<std::string, CauseTotals> by_cause;
  int failures = 0;
  int false_failures = 0;
  double lost_gpu_hours = 0;
  double ettr = 0;  // GPU-weighted over jobs that started
  std::vector<std::string> drained_nodes;
  std::map<std::string, int> faults_injected;  // by fault kind, ground truth seen by the controller
  std::vector<Seconds> fault_times;            // each distinct time a fault reached the controller, in order
  // Telemetry (core/telemetry): the metrics' current values (final after finish()), their sampled series, the
  // alert rules and every firing.
  MetricRegistry metrics;
  TelemetrySeries telemetry;
  std::vector<AlertRuleRecord> alert_rules;
  std::vector<AlertRecord> alerts;
  // Preflight: what each difference of the fleet cost, ranked (empty without a preflight section).
  std::vector<PreflightCost> preflight_costs;
  std::optional<RolloutRecord> rollout;  // the scenario's rollout; absent when it has none
  std::optional<cost::CostReport> cost;  // what the run cost (core/cost); absent without a cost section
  std::vector<CapacityInterval> capacity;  // node pools: every node's time in service (empty without pools)
  std::vector<PoolRecord> pools;           // node pools: per pool, as the scenario lists them (empty without pools)

  bool all_checks_passed() const;
};

}  // namespace tt
