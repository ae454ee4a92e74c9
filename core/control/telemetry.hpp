// ControllerTelemetry: the Controller's metrics, samples and alerts. After each event the Controller hands it a view
// of its state; it updates the registry (RunRecord::metrics), evaluates the alert rules (FireAlert/ResolveAlert
// actions, decisions and AlertRecords) and, every telemetry.interval, samples the series. Sans-IO like its owner.
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "core/control/events.hpp"
#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"
#include "core/telemetry/alert_evaluator.hpp"
#include "core/telemetry/series_recorder.hpp"

namespace tt {

struct ClusterView {
  int gpus_allocated = 0;
  int gpus_busy = 0;
  int gpus_up = 0;
  int jobs_running = 0;
  int jobs_pending = 0;
  int nodes_down = 0;
};

struct JobView {
  bool placed = false;   // holds GPUs (running or stalled)
  bool alive = false;    // placed and its processes heartbeat
  bool pending = false;  // queued
  Seconds enqueued;      // since when, if pending
};

class ControllerTelemetry {
 public:
  // Keeps references to both; the scenario must outlive it, `record` is its owner's.
  ControllerTelemetry(const Scenario& scenario, RunRecord& record);

  // Sets every series from the controller state (no alert, no sample): the Controller calls it once when built, so
  // a live endpoint has values before the first event.
  void refresh(Seconds now, const ClusterView& cluster, const std::function<JobView(int)>& job);
  // The job's state or record changed: its series are updated at the next step. An event's cost is then the jobs it
  // touched (plus the pending jobs' wait, which moves with time), never every job.
  void touch(int job);
  void fault(Seconds now);                      // a fault reached the controller (for alert.time_to_fire)
  void network(const NetworkSample& sample);    // the driver's latest throughput per node
  // After an event: evaluates the alert rules and takes the sample when due. A pending job's wait series is refreshed
  // at each sample (and at each event on a live endpoint), like a gauge scraped at an interval. The series are
  // refreshed only when
  // something reads them (alert rules, a sample, or a live endpoint: set_live), so that an event costs no work per
  // job. The per-job series only when recorded (telemetry.job_series), for alert rules or a live endpoint: finish()
  // sets them for the report.
  void step(Seconds now, const ClusterView& cluster, const std::function<JobView(int)>& job, std::vector<Action>& out);
  void set_live(bool live) { live_ = live; }
  void finish(Seconds now, const ClusterView& cluster, const std::function<JobView(int)>& job);

  // When the controller must be called back: the next sample while `active` (a job holds GPUs), the moment a
  // pending alert would fire, whichever is first.
  std::optional<Seconds> next_deadline(bool active) const;
  bool sample_due(Seconds now) const { return now >= next_sample_; }

 private:
  const Scenario& sc_;
  RunRecord& rec_;
  bool live_ = false;
  AlertEvaluator alerts_;
  struct JobIds {
    std::vector<SeriesId> state;  // one per metric::kJobStates
    SeriesId alive, restarts, checkpoints, iterations, target, wait, memory, checkpoint_duration;
  };
  SeriesId gpus_allocated_, gpus_busy_, gpus_up_, busy_ratio_, jobs_running_, jobs_pending_, nodes_up_, nodes_down_,
      cluster_network_;
  std::vector<SeriesId> queue_length_, node_network_, alerts_firing_;
  std::vector<JobIds> jobs_;
  std::vector<int> job_queue_;
  std::vector<double> job_memory_;
  std::vector<int> queued_;        // pending jobs by queue
  std::vector<char> pending_;      // by job: counted in queued_ and listed in waiting_
  std::vector<int> waiting_;       // the pending jobs (unordered), whose wait series moves with time
  std::vector<int> waiting_at_;    // by job: its index in waiting_
  std::vector<int> touched_;       // jobs touched since the last update, each once
  std::vector<int> touched_now_;   // scratch: the pending ones among them
  std::vector<char> is_touched_;   // by job
  std::vector<int> stale_;         // jobs whose series wait for an update with the per-job series on, each once
  std::vector<char> is_stale_;     // by job
  std::vector<int> open_;    // per AlertRecord index still firing, by insertion order
  std::optional<SeriesRecorder> recorder_;
  Seconds next_sample_;

  void record_transitions(Seconds now, std::vector<Action>& out);
  // The touched jobs' pending counts, and with `jobs` their series; with `all` every job counts as touched; with
  // `waits` every pending job's wait (it moves with time: refreshed at each sample, on a live endpoint at each event,
  // and for a job whenever it is touched, so that an event costs the jobs it touched, not the length of the queues).
  void update(Seconds now, const ClusterView& cluster, const std::function<JobView(int)>& job, bool jobs, bool all,
              bool waits);
  void set_job_series(int j, Seconds now, const JobView& v);
  void set_pending(int j, bool pending);
};

}  // namespace tt
