// Controller: the sans-IO heart of traintwin. Events in, actions out; it never waits, sleeps, reads a clock or starts
// a process. A driver owns time: it calls handle() with each event and the current time (non-decreasing), calls
// handle(Timer{}) when next_deadline() is reached, and finish() once at the end. The same scenario gives the same
// decisions under any driver. The Controller keeps a reference to the Scenario, which must outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <memory>
#include <optional>
#include <vector>

#include "core/control/events.hpp"
#include "core/control/run_record.hpp"
#include "core/model/scenario.hpp"

namespace tt {

// How a placed job's iteration is planned; plan_iteration() unless a test or benchmark swaps in a cheaper stand-in.
// It may read only the job's model, parallelism, GPU count, global batch and sequence length: the Controller reuses
// the estimate it plans on packed GPUs (for backfill) across jobs that agree on these.
using Planner = std::function<IterationPlan(const JobSpec&, const Topology&, const std::vector<int>&,
                                            const PerfConstants&)>;

class Controller {
 public:
  explicit Controller(const Scenario& scenario);
  Controller(const Scenario& scenario, Planner planner);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  std::vector<Action> handle(const Event& event, Seconds now);
  std::optional<Seconds> next_deadline() const;
  // True when the next handle() at `now` takes a telemetry sample: a driver that measures network throughput sends
  // a NetworkSample first (core/control/events.hpp).
  bool network_sample_due(Seconds now) const;
  // True when every job has completed or been abandoned and no timer is pending: a driver may stop.
  bool done() const;
  // Closes the record at `now`: open segments end, figures and checks are computed.
  void finish(Seconds now);
  const RunRecord& record() const;
  // The driver names itself and its model settings (e.g. the pinned SimGrid network model) for the report.
  void set_driver(std::string name, std::map<std::string, std::string> info);
  // Keeps every metric current at every event (a live endpoint reads them); otherwise they are refreshed for alert
  // rules and samples only.
  void set_live_metrics(bool live);
  // Scheduling state, for tests and tools: why a waiting job waits (empty when it does not wait), each queue's GPUs in
  // use, the GPUs a running job holds.
  std::string pending_reason(int job) const;
  const std::vector<int>& queue_usage() const;
  const std::vector<int>& job_gpus(int job) const;
  std::uint64_t scheduler_passes() const;  // scheduling passes run so far: a work counter for bench/regress
  std::uint64_t scheduler_examinations() const;  // pending jobs examined by those passes
  std::uint64_t scheduler_reason_changes() const;  // waiting jobs given a new reason without an examination
  std::uint64_t scheduler_passed_over() const;  // waiting jobs those passes went by without an examination
  std::string scheduler_audit(Seconds now) const;  // Scheduler::audit: "" when its shortcuts agree with a recount
  // For tests: the scheduler examines every waiting job, passing over none (Scheduler::examine_every_job).
  void examine_every_waiting_job(bool on);
  std::uint64_t preemption_searches() const;     // preemption searches that read candidates

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tt
