#include "core/control/controller_impl.hpp"

#include <algorithm>
#include <cmath>

#include "core/control/checks.hpp"
#include "core/cost/billing.hpp"
#include "core/fault/stochastic.hpp"
#include "core/preflight/cost.hpp"

namespace tt {

ClusterView Controller::Impl::cluster_view() const {
  return ClusterView{cluster.allocated_gpus(), gpus_busy, cluster.up_gpus(), running, pending, nodes_down};
}

JobView Controller::Impl::job_view(int j) const {
  const JobRuntime& rt = jobs[j];
  const bool placed = rt.state == JobState::Running || rt.state == JobState::Stalled;
  const bool silent = rt.state == JobState::Stalled && rt.detector == Detector::Heartbeat;
  return JobView{placed, placed && !silent, rt.state == JobState::Pending, rt.enqueued};
}

void Controller::Impl::step_telemetry(Seconds now, std::vector<Action>& out) {
  telemetry.step(now, cluster_view(), [this](int j) { return job_view(j); }, out);
}

// Per job: failures by kind, checkpoint overhead, the interval used and Young/Daly's beside it.
void Controller::Impl::finish_failures(int j, Seconds now) {
  JobRecord& jr = rec.jobs[j];
  for (const FailureRecord& f : jr.failures) {
    for (auto* totals : {&jr.by_cause[f.kind], &rec.by_cause[f.kind]}) {
      ++totals->failures;
      totals->lost_gpu_hours += f.lost_gpu_hours;
    }
    ++rec.failures;
    rec.false_failures += f.false_failure;
  }
  rec.lost_gpu_hours += jr.lost_gpu_hours;
  if (!jr.first_start) return;
  const double span = (jr.end.value_or(now) - *jr.first_start).value;
  jr.checkpoint_overhead = span > 0 ? jr.checkpoint_time.value / span : 0;
  if (jr.checkpoints >= 2) {
    double gaps = 0;
    for (std::size_t i = 1; i < jr.checkpoint_times.size(); ++i)
      gaps += (jr.checkpoint_times[i] - jr.checkpoint_times[i - 1]).value;
    jr.checkpoint_interval = Seconds(gaps / static_cast<double>(jr.checkpoint_times.size() - 1));
  }
  double running = 0;
  for (const Segment& seg : jr.segments) running += (seg.end.value_or(now) - seg.start).value;
  if (!jr.failures.empty()) {
    jr.mtbf = Seconds(running / static_cast<double>(jr.failures.size()));
    jr.mtbf_source = "observed";
  } else if (double rate = expected_job_failure_rate(sc, jr.gpus); rate > 0) {
    jr.mtbf = Seconds(1.0 / rate);
    jr.mtbf_source = "configured rates";
  }
  if (jr.mtbf && jr.checkpoints > 0)
    jr.young_daly_interval = young_daly_interval(jr.checkpoint_time / static_cast<double>(jr.checkpoints), *jr.mtbf);
}

void Controller::Impl::finish(Seconds now) {
  if (finished) return;
  finished = true;
  rec.end_time = now;
  rollout_finish(now);
  pools_finish(now);
  double allocated = 0, productive = 0;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    JobRecord& jr = rec.jobs[j];
    if (jobs[j].state == JobState::Running || jobs[j].state == JobState::Stalled) {
      segment(static_cast<int>(j)).end = now;
      segment(static_cast<int>(j)).outcome = "unfinished";
    }
    if (jr.state != JobStatus::Completed && jr.state != JobStatus::Abandoned) jr.state = JobStatus::Unfinished;
    if (jobs[j].state == JobState::Pending) jr.wait += now - jobs[j].enqueued;
    // The scheduler keeps the time by reason (every change of kind, logged or not), the wait it is in up to now.
    const Scheduler::WaitTimes waited = sched.wait_times(static_cast<int>(j), now);
    for (std::size_t k = 0; k < waited.by_kind.size(); ++k)
      if (waited.kinds & (1u << k)) jr.pending_by_reason[to_string(static_cast<WaitKind>(k))] += waited.by_kind[k];
    // Iterations of a segment count only up to where the next attempt resumed (the rest was rolled back).
    for (std::size_t s = 0; s < jr.segments.size(); ++s) {
      const Segment& seg = jr.segments[s];
      std::int64_t kept_until = s + 1 < jr.segments.size()
                                    ? std::min(seg.reached_iteration, jr.segments[s + 1].start_iteration)
                                    : seg.reached_iteration;
      jr.productive_seconds += std::max<std::int64_t>(0, kept_until - seg.start_iteration) * seg.iteration_time.value;
      allocated += (seg.end.value_or(now) - seg.start).value * jr.gpus;
    }
    if (jr.first_start) {
      double span = (jr.end.value_or(now) - *jr.first_start).value;
      jr.ettr = span > 0 ? std::min(1.0, jr.productive_seconds / span) : 0;
    }
    productive += jr.productive_seconds * jr.gpus;
    finish_failures(static_cast<int>(j), now);
  }
  double capacity = static_cast<double>(rec.total_gpus) * now.value;
  rec.gpu_utilization = capacity > 0 ? allocated / capacity : 0;
  rec.goodput = capacity > 0 ? productive / capacity : 0;
  double spans = 0, kept = 0;
  for (const JobRecord& jr : rec.jobs)
    if (jr.first_start) {
      spans += (jr.end.value_or(now) - *jr.first_start).value * jr.gpus;
      kept += jr.productive_seconds * jr.gpus;
    }
  rec.ettr = spans > 0 ? std::min(1.0, kept / spans) : 0;
  telemetry.finish(now, cluster_view(), [this](int j) { return job_view(j); });
  rec.preflight_costs = preflight::difference_costs(sc.topology, sc.preflight, rec);
  if (sc.cost.enabled) rec.cost = cost::compute_costs(sc.cost, cost::cost_input(rec, sc));
  rec.checks = evaluate_checks(sc.checks, rec);
}

}  // namespace tt
