#include "core/control/telemetry.hpp"

#include <cmath>

#include "core/plan/memory_estimate.hpp"
#include "core/telemetry/alert_expr.hpp"
#include "core/telemetry/exposition.hpp"

namespace tt {
namespace {

// Rows kept in the sampled series: a day at 1m; past that the sampling step doubles each time the table thins (a month
// at 1m: about 5,000 samples in all, the last days every 32m).
constexpr std::size_t kMaxRows = 1440;

std::map<std::string, std::string> alert_labels(const LabelSet& series, const AlertSpec& rule) {
  std::map<std::string, std::string> out(series.begin(), series.end());
  for (const auto& [k, v] : rule.labels) out[k] = v;
  return out;
}

}  // namespace

ControllerTelemetry::ControllerTelemetry(const Scenario& sc, RunRecord& rec) : sc_(sc), rec_(rec), alerts_(sc.alerts) {
  MetricRegistry& m = rec_.metrics;
  namespace k = metric;
  std::vector<SeriesId> recorded;
  auto cluster = [&](std::string_view name) {
    SeriesId id = m.add(name, {});
    recorded.push_back(id);
    return id;
  };
  gpus_allocated_ = cluster(k::kGpusAllocated);
  gpus_busy_ = cluster(k::kGpusBusy);
  gpus_up_ = cluster(k::kGpusUp);
  busy_ratio_ = cluster(k::kGpuBusyRatio);
  jobs_running_ = cluster(k::kJobsRunning);
  jobs_pending_ = cluster(k::kJobsPending);
  nodes_up_ = cluster(k::kNodesUp);
  nodes_down_ = cluster(k::kNodesDown);
  cluster_network_ = m.add(k::kClusterNetwork, {});  // present once the driver sends a NetworkSample
  recorded.push_back(cluster_network_);
  for (const auto& q : sc.queues) {
    queue_length_.push_back(m.add(k::kQueueLength, {{"queue", q.name}}));
    recorded.push_back(queue_length_.back());
  }
  for (const auto& n : sc.topology.nodes()) {
    node_network_.push_back(m.add(k::kNodeNetwork, {{"node", n.name}}));
    if (sc.telemetry.node_series) recorded.push_back(node_network_.back());
  }
  for (std::size_t j = 0; j < sc.jobs.size(); ++j) {
    const JobSpec& spec = sc.jobs[j];
    const LabelSet l = {{"job_name", spec.name}, {"queue", spec.queue}};
    JobIds ids;
    for (std::string_view state : k::kJobStates) {
      LabelSet ls = l;
      ls.emplace_back("state", std::string(state));
      ids.state.push_back(m.add(k::kJobState, ls));
    }
    auto job = [&](std::string_view name, bool record) {
      SeriesId id = m.add(name, l);
      if (record && sc.telemetry.records_jobs(sc.jobs.size())) recorded.push_back(id);
      return id;
    };
    ids.alive = job(k::kJobAlive, true);
    ids.restarts = job(k::kJobRestarts, true);
    ids.checkpoints = job(k::kJobCheckpoints, true);
    ids.iterations = job(k::kJobIterations, true);
    ids.target = job(k::kJobIterationsTarget, false);
    ids.wait = job(k::kJobWait, true);
    ids.memory = job(k::kJobGpuMemory, true);
    ids.checkpoint_duration = job(k::kCheckpointDuration, true);
    jobs_.push_back(std::move(ids));
    int queue = 0;
    for (std::size_t q = 0; q < sc.queues.size(); ++q)
      if (sc.queues[q].name == spec.queue) queue = static_cast<int>(q);
    job_queue_.push_back(queue);
    job_memory_.push_back(estimate_gpu_memory(spec, sc.perf).total().value);
  }
  for (const auto& rule : sc.alerts) {
    alerts_firing_.push_back(m.add(k::kAlertsFiring, {{"alertname", rule.name}, {"severity", rule.severity}}));
    recorded.push_back(alerts_firing_.back());
    rec_.alert_rules.push_back(
        {rule.name, to_promql(rule.condition), rule.for_duration, rule.severity, rule.labels, rule.summary});
  }
  queued_.assign(sc.queues.size(), 0);
  pending_.assign(sc.jobs.size(), 0);
  waiting_at_.assign(sc.jobs.size(), -1);
  is_touched_.assign(sc.jobs.size(), 0);
  is_stale_.assign(sc.jobs.size(), 0);
  recorder_.emplace(m, std::move(recorded), sc.telemetry.interval, kMaxRows);
}

void ControllerTelemetry::fault(Seconds now) {
  if (rec_.fault_times.empty() || rec_.fault_times.back() != now) rec_.fault_times.push_back(now);
}

void ControllerTelemetry::network(const NetworkSample& s) {
  MetricRegistry& m = rec_.metrics;
  double total = 0;
  for (std::size_t n = 0; n < node_network_.size() && n < s.node_bytes_per_second.size(); ++n) {
    m.set(node_network_[n], s.node_bytes_per_second[n]);
    total += s.node_bytes_per_second[n];
  }
  m.set(cluster_network_, total);
}

void ControllerTelemetry::touch(int j) {
  if (is_touched_[j]) return;
  is_touched_[j] = 1;
  touched_.push_back(j);
}

void ControllerTelemetry::set_pending(int j, bool pending) {
  if (static_cast<bool>(pending_[j]) == pending) return;
  pending_[j] = pending;
  queued_[job_queue_[j]] += pending ? 1 : -1;
  if (pending) {
    waiting_at_[j] = static_cast<int>(waiting_.size());
    waiting_.push_back(j);
  } else {  // swap with the last
    const int at = waiting_at_[j], last = waiting_.back();
    waiting_[at] = last;
    waiting_at_[last] = at;
    waiting_.pop_back();
  }
}

void ControllerTelemetry::set_job_series(int j, Seconds now, const JobView& v) {
  MetricRegistry& m = rec_.metrics;
  const JobRecord& jr = rec_.jobs[j];
  const JobIds& ids = jobs_[j];
  const std::string_view state = to_string(jr.state);
  for (std::size_t s = 0; s < ids.state.size(); ++s) m.set(ids.state[s], state == metric::kJobStates[s]);
  if (v.placed) {
    m.set(ids.alive, v.alive);
    m.set(ids.memory, job_memory_[j]);
  } else {
    m.clear(ids.alive);
    m.clear(ids.memory);
  }
  m.set(ids.restarts, jr.restarts);
  m.set(ids.checkpoints, jr.checkpoints);
  m.set(ids.iterations, static_cast<double>(jr.iterations_done));
  m.set(ids.target, static_cast<double>(jr.iterations_target));
  m.set(ids.wait, v.pending ? (now - v.enqueued).value : 0);
  if (!jr.checkpoint_write_times.empty()) m.set(ids.checkpoint_duration, jr.checkpoint_write_times.back().value);
}

void ControllerTelemetry::refresh(Seconds now, const ClusterView& c, const std::function<JobView(int)>& job) {
  update(now, c, job, true, true, true);
}

void ControllerTelemetry::update(Seconds now, const ClusterView& c, const std::function<JobView(int)>& job,
                                 bool jobs, bool all, bool waits) {
  MetricRegistry& m = rec_.metrics;
  m.set(gpus_allocated_, c.gpus_allocated);
  m.set(gpus_busy_, c.gpus_busy);
  m.set(gpus_up_, c.gpus_up);
  m.set(busy_ratio_, c.gpus_up > 0 ? static_cast<double>(c.gpus_busy) / c.gpus_up : 0);
  m.set(jobs_running_, c.jobs_running);
  m.set(jobs_pending_, c.jobs_pending);
  m.set(nodes_down_, c.nodes_down);
  m.set(nodes_up_, static_cast<double>(sc_.topology.nodes().size()) - c.nodes_down);
  if (all) {
    for (int j : touched_) is_touched_[j] = 0;
    touched_.clear();
    for (int j = 0; j < static_cast<int>(jobs_.size()); ++j) touch(j);
  }
  touched_now_.clear();
  for (int j : touched_) {
    is_touched_[j] = 0;
    const JobView v = job(j);
    set_pending(j, v.pending);
    if (jobs) {
      if (!v.pending) set_job_series(j, now, v);  // a pending job's series are set below
      else touched_now_.push_back(j);
    } else if (!is_stale_[j]) {
      is_stale_[j] = 1;
      stale_.push_back(j);
    }
  }
  touched_.clear();
  if (jobs) {
    for (int j : stale_) {
      is_stale_[j] = 0;
      if (!pending_[j]) set_job_series(j, now, job(j));
      else touched_now_.push_back(j);  // may be listed twice: setting a series twice costs nothing more
    }
    stale_.clear();
    if (all || waits) {
      // The wait moves with time; a waiting job's other series move only with an event of its own (touched_now_,
      // marked in is_touched_, which is all zero here and again after).
      for (int j : touched_now_) is_touched_[j] = 1;
      for (int j : waiting_) {
        const JobView v = job(j);
        if (is_touched_[j]) set_job_series(j, now, v);
        else m.set(jobs_[j].wait, (now - v.enqueued).value);
      }
      for (int j : touched_now_) is_touched_[j] = 0;
    } else {
      for (int j : touched_now_) set_job_series(j, now, job(j));
    }
  }
  for (std::size_t q = 0; q < queue_length_.size(); ++q) m.set(queue_length_[q], queued_[q]);
}

void ControllerTelemetry::record_transitions(Seconds now, std::vector<Action>& out) {
  std::vector<AlertTransition> transitions = alerts_.evaluate(rec_.metrics, now);
  rec_.metrics.clear_changes();  // seen: the next evaluation looks at what changes from here
  for (AlertTransition& t : transitions) {
    const AlertSpec& rule = sc_.alerts[t.rule];
    auto labels = alert_labels(t.labels, rule);
    Decision d{now, t.fired ? "alert_firing" : "alert_resolved", "", {}, ""};
    if (auto it = labels.find("job_name"); it != labels.end()) d.job = it->second;
    if (auto it = labels.find("node"); it != labels.end()) d.nodes = {it->second};
    d.reason = rule.name + " (" + rule.severity + ")" + (rule.summary.empty() ? "" : ": " + rule.summary) + "; " +
               rec_.alert_rules[t.rule].expr + " at " + exposition_number(t.value) +
               (t.fired ? ", true since " + format_seconds(t.active_since)
                        : ", firing since " + format_seconds(t.active_since) + " no more");
    rec_.decisions.push_back(std::move(d));
    if (t.fired) {
      rec_.alerts.push_back({rule.name, rule.severity, labels, t.value, t.active_since, now, std::nullopt});
      open_.push_back(static_cast<int>(rec_.alerts.size()) - 1);
      out.push_back(FireAlert{rule.name, rule.severity, std::move(labels), t.value, rule.summary});
    } else {
      for (auto it = open_.begin(); it != open_.end(); ++it) {
        AlertRecord& a = rec_.alerts[*it];
        if (a.name == rule.name && a.labels == labels) {
          a.resolved_at = now;
          open_.erase(it);
          break;
        }
      }
      out.push_back(ResolveAlert{rule.name, std::move(labels)});
    }
  }
  for (std::size_t r = 0; r < alerts_firing_.size(); ++r)
    rec_.metrics.set(alerts_firing_[r], alerts_.firing(static_cast<int>(r)));
}

void ControllerTelemetry::step(Seconds now, const ClusterView& c, const std::function<JobView(int)>& job,
                               std::vector<Action>& out) {
  const bool due = sample_due(now);
  if (!live_ && !due && sc_.alerts.empty()) return;
  update(now, c, job, live_ || !sc_.alerts.empty() || sc_.telemetry.records_jobs(sc_.jobs.size()), false,
         live_ || due);
  record_transitions(now, out);
  if (!due) return;
  recorder_->sample(rec_.metrics, now);
  const Seconds step = recorder_->step();  // grows as the recorded table thins: bounded cost on long runs
  next_sample_ = step * (std::floor(now.value / step.value) + 1);
  while (next_sample_ <= now) next_sample_ += step;
}

void ControllerTelemetry::finish(Seconds now, const ClusterView& c, const std::function<JobView(int)>& job) {
  refresh(now, c, job);
  recorder_->sample(rec_.metrics, now, /*last=*/true);
  rec_.telemetry = recorder_->data();
}

std::optional<Seconds> ControllerTelemetry::next_deadline(bool active) const {
  std::optional<Seconds> best = alerts_.next_deadline();
  if (active && (!best || next_sample_ < *best)) best = next_sample_;
  return best;
}

}  // namespace tt
