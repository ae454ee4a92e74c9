#include "core/control/check_metrics.hpp"

#include <algorithm>

namespace tt {
namespace {

using Figure = std::optional<double>;

// Seconds from `t` to the alert's first firing at or after it; nullopt when it never fired after `t`.
Figure time_to_fire(const RunRecord& r, std::string_view alert, Seconds t) {
  Figure best;
  for (const auto& a : r.alerts)
    if (a.name == alert && a.fired_at >= t && (!best || (a.fired_at - t).value < *best)) best = (a.fired_at - t).value;
  return best;
}

Figure firings(const MetricSubject& s) {
  double n = 0;
  for (const auto& a : s.run.alerts) n += a.name == s.alert;
  return n;
}

Figure first_time_to_fire(const MetricSubject& s) {
  if (s.run.fault_times.empty()) return std::nullopt;
  return time_to_fire(s.run, s.alert, s.run.fault_times.front());
}

Figure max_time_to_fire(const MetricSubject& s) {
  if (s.run.fault_times.empty()) return std::nullopt;
  double worst = 0;
  for (Seconds t : s.run.fault_times) {
    auto d = time_to_fire(s.run, s.alert, t);
    if (!d) return std::nullopt;
    worst = std::max(worst, *d);
  }
  return worst;
}

Figure max_time_to_detect(const MetricSubject& s) {
  if (s.job->failures.empty()) return std::nullopt;
  double m = 0;
  for (const auto& f : s.job->failures) m = std::max(m, (f.detect_time - f.fault_time).value);
  return m;
}

Figure makespan(const MetricSubject& s) {
  double end = 0;
  for (const auto& j : s.run.jobs) {
    if (j.state != JobStatus::Completed) return std::nullopt;
    end = std::max(end, j.end->value);
  }
  return end;
}

Figure unfinished_jobs(const MetricSubject& s) {
  double n = 0;
  for (const auto& j : s.run.jobs) n += j.state != JobStatus::Completed;
  return n;
}

// Cost figures (core/cost): not measured without a cost section.
Figure job_cost(const MetricSubject& s) {
  if (!s.run.cost) return std::nullopt;
  for (const auto& j : s.run.cost->jobs)
    if (j.name == s.job->name) return j.total;
  return std::nullopt;
}

Figure queue_cost(const MetricSubject& s) {
  if (!s.run.cost) return std::nullopt;
  auto it = s.run.cost->queues.find(std::string(s.queue));
  return it == s.run.cost->queues.end() ? Figure(0.0) : Figure(it->second);
}

// Node pools: nullopt without pools in the scenario.
template <class T>
Figure pool_total(const MetricSubject& s, T PoolRecord::*field) {
  if (s.run.pools.empty()) return std::nullopt;
  double n = 0;
  for (const auto& p : s.run.pools) n += p.*field;
  return n;
}

Figure provision_wait_max(const MetricSubject& s) {
  if (s.run.pools.empty()) return std::nullopt;
  double m = 0;
  for (const auto& p : s.run.pools)
    for (Seconds w : p.provision_waits) m = std::max(m, w.value);
  return m;
}

using enum MetricScope;
using enum MetricUnit;
using enum Better;

constexpr CheckMetric kMetrics[] = {
    {"job.end", Job, Duration, Lower, "seconds from the start of the run to the job's completion",
     [](const MetricSubject& s) -> Figure {
       return s.job->end && s.job->state == JobStatus::Completed ? Figure(s.job->end->value) : std::nullopt;
     }},
    {"job.start", Job, Duration, Lower, "seconds from the start of the run to the job's first launch",
     [](const MetricSubject& s) -> Figure {
       return s.job->first_start ? Figure(s.job->first_start->value) : std::nullopt;
     }},
    {"job.wait", Job, Duration, Lower, "seconds queued, in all (first wait and after failures and preemptions)",
     [](const MetricSubject& s) -> Figure { return s.job->wait.value; }},
    {"job.restarts", Job, Count, Lower, "times the job was restarted",
     [](const MetricSubject& s) -> Figure { return s.job->restarts; }},
    {"job.preemptions", Job, Count, Lower, "times the job was preempted",
     [](const MetricSubject& s) -> Figure { return s.job->preemptions; }},
    {"job.iterations", Job, Count, Higher, "completed iterations",
     [](const MetricSubject& s) -> Figure { return static_cast<double>(s.job->iterations_done); }},
    {"job.ettr", Job, Ratio, Higher, "effective training time ratio: productive / (end - first start)",
     [](const MetricSubject& s) -> Figure { return s.job->ettr; }},
    {"job.lost_gpu_hours", Job, GpuHours, Lower, "GPU-hours of work lost to failures",
     [](const MetricSubject& s) -> Figure { return s.job->lost_gpu_hours; }},
    {"job.failures", Job, Count, Lower, "failures declared",
     [](const MetricSubject& s) -> Figure { return static_cast<double>(s.job->failures.size()); }},
    {"job.false_failures", Job, Count, Lower, "failures whose links came back within the restart overhead",
     [](const MetricSubject& s) -> Figure { return s.job->false_failures; }},
    {"job.flaps_survived", Job, Count, Higher, "link faults shorter than the communication timeout",
     [](const MetricSubject& s) -> Figure { return s.job->flaps_survived; }},
    {"job.checkpoint_overhead", Job, Ratio, Lower, "training time blocked by checkpoints / (end - first start)",
     [](const MetricSubject& s) -> Figure { return s.job->checkpoint_overhead; }},
    {"job.max_time_to_detect", Job, Duration, Lower,
     "longest fault-to-declaration time (not measured without failures)", max_time_to_detect},
    {"cluster.makespan", Cluster, Duration, Lower,
     "seconds from the start to the last job's end (not measured unless every job completed)", makespan},
    {"cluster.unfinished_jobs", Cluster, Count, Lower, "jobs that did not complete", unfinished_jobs},
    {"cluster.gpu_utilization", Cluster, Ratio, Higher, "allocated GPU-seconds / (GPUs x end time)",
     [](const MetricSubject& s) -> Figure { return s.run.gpu_utilization; }},
    {"cluster.goodput", Cluster, Ratio, Higher, "productive GPU-seconds / (GPUs x end time)",
     [](const MetricSubject& s) -> Figure { return s.run.goodput; }},
    {"cluster.ettr", Cluster, Ratio, Higher, "productive / wall time since start, GPU-weighted over started jobs",
     [](const MetricSubject& s) -> Figure { return s.run.ettr; }},
    {"cluster.failures", Cluster, Count, Lower, "failures declared, all jobs",
     [](const MetricSubject& s) -> Figure { return s.run.failures; }},
    {"cluster.false_failures", Cluster, Count, Lower, "false failures, all jobs",
     [](const MetricSubject& s) -> Figure { return s.run.false_failures; }},
    {"cluster.lost_gpu_hours", Cluster, GpuHours, Lower, "GPU-hours lost, all jobs",
     [](const MetricSubject& s) -> Figure { return s.run.lost_gpu_hours; }},
    {"cluster.drained_nodes", Cluster, Count, Lower, "nodes drained as lemons",
     [](const MetricSubject& s) -> Figure { return static_cast<double>(s.run.drained_nodes.size()); }},
    {"cluster.rollout_promoted", Cluster, Count, Higher,
     "1 when the rollout promoted its release, else 0 (not measured without a rollout)",
     [](const MetricSubject& s) -> Figure {
       if (!s.run.rollout) return std::nullopt;
       return s.run.rollout->outcome == "promoted" ? 1.0 : 0.0;
     }},
    {"cluster.rollout_rolled_back", Cluster, Count, Lower,
     "1 when the rollout rolled its release back, else 0 (not measured without a rollout)",
     [](const MetricSubject& s) -> Figure {
       if (!s.run.rollout) return std::nullopt;
       return s.run.rollout->outcome == "rolled back" ? 1.0 : 0.0;
     }},
    {"cluster.rollout_decision_time", Cluster, Duration, Lower,
     "from the rollout's start to its promotion, rollback or pause (not measured before a decision)",
     [](const MetricSubject& s) -> Figure {
       if (!s.run.rollout || !s.run.rollout->decided || s.run.rollout->steps.empty()) return std::nullopt;
       return (*s.run.rollout->decided - s.run.rollout->steps.front().started).value;
     }},
    {"job.cost", Job, Money, Lower,
     "what the job cost: the GPU time it held, its checkpoints' storage and traffic (not measured without a cost "
     "section)",
     job_cost},
    {"queue.cost", Queue, Money, Lower, "the cost of the queue's jobs (not measured without a cost section)",
     queue_cost},
    {"cluster.cost", Cluster, Money, Lower,
     "what the run cost: billed capacity, storage and traffic (not measured without a cost section)",
     [](const MetricSubject& s) -> Figure { return s.run.cost ? Figure(s.run.cost->total) : std::nullopt; }},
    {"cluster.idle_cost", Cluster, Money, Lower,
     "the cost of billed GPU capacity no job held (not measured without a cost section)",
     [](const MetricSubject& s) -> Figure { return s.run.cost ? Figure(s.run.cost->idle) : std::nullopt; }},
    {"cluster.cost_per_useful_gpu_hour", Cluster, Money, Lower,
     "cost / productive GPU-hours (not measured without a cost section or productive time)",
     [](const MetricSubject& s) -> Figure { return s.run.cost ? s.run.cost->per_useful_gpu_hour : std::nullopt; }},
    {"cluster.provision_wait_max", Cluster, Duration, Lower,
     "the longest provisioning of a pool node, request to in service (not measured without pools)",
     provision_wait_max},
    {"cluster.scale_ups", Cluster, Count, Lower, "pool nodes asked for (not measured without pools)",
     [](const MetricSubject& s) { return pool_total(s, &PoolRecord::provisions); }},
    {"cluster.scale_downs", Cluster, Count, Higher, "idle pool nodes released (not measured without pools)",
     [](const MetricSubject& s) { return pool_total(s, &PoolRecord::releases); }},
    {"cluster.reclaims", Cluster, Count, Lower, "spot nodes reclaimed by their provider (not measured without pools)",
     [](const MetricSubject& s) { return pool_total(s, &PoolRecord::reclaims); }},
    {"cluster.reclaim_requeues", Cluster, Count, Lower,
     "jobs stopped and requeued by spot reclaims (not measured without pools)",
     [](const MetricSubject& s) { return pool_total(s, &PoolRecord::jobs_requeued); }},
    {"cluster.reclaim_lost_gpu_hours", Cluster, GpuHours, Lower,
     "GPU-hours spot reclaims cost the jobs they stopped: progress since the checkpoint and a restart (not measured "
     "without pools)",
     [](const MetricSubject& s) { return pool_total(s, &PoolRecord::reclaim_lost_gpu_hours); }},
    {"alert.firings", Alert, Count, Lower, "times the alert fired (`== 0`: it must never fire)", firings},
    {"alert.time_to_fire", Alert, Duration, Lower,
     "from the first fault to the alert's first firing at or after it (not measured without a fault or a firing)",
     first_time_to_fire},
    {"alert.max_time_to_fire", Alert, Duration, Lower,
     "the longest, over the faults, from a fault to the first firing at or after it (not measured if a fault is "
     "followed by none)",
     max_time_to_fire},
};

}  // namespace

std::span<const CheckMetric> check_metrics() { return kMetrics; }

const CheckMetric* find_check_metric(std::string_view name) {
  for (const auto& m : kMetrics)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> check_metric_names() {
  std::vector<std::string> names;
  for (const auto& m : kMetrics) names.emplace_back(m.name);
  return names;
}

std::string_view value_text(MetricUnit unit) {
  switch (unit) {
    case Duration: return "duration";
    case Count: return "integer >= 0";
    case Ratio: return "number in [0, 1]";
    case GpuHours: return "number >= 0";
    case Money: return "number >= 0 (currency)";
  }
  return "";
}

std::string_view to_string(Better b) { return b == Higher ? "higher" : "lower"; }

std::optional<double> measure_metric(const RunRecord& record, const std::string& metric, const std::string& job,
                                     const std::string& alert, const std::string& queue) {
  const CheckMetric* m = find_check_metric(metric);
  if (!m) return std::nullopt;
  MetricSubject subject{record, nullptr, alert, queue};
  if (m->scope == Job) {
    for (const auto& j : record.jobs)
      if (j.name == job) subject.job = &j;
    if (!subject.job) return std::nullopt;
  }
  return m->measure(subject);
}

bool is_time_metric(const std::string& metric) {
  const CheckMetric* m = find_check_metric(metric);
  return m && m->unit == Duration;
}

}  // namespace tt
