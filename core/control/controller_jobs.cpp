#include "core/control/controller_impl.hpp"

#include <algorithm>
#include <cmath>

#include "core/fault/recovery.hpp"

namespace tt {

void Controller::Impl::on(const JobProgress& e, Seconds now, std::vector<Action>&) {
  if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
  JobRecord& jr = rec.jobs[e.job];
  // A report covers one iteration or many (a fast-forward, a stretch the driver reports at once), at the time each took.
  if (const std::int64_t ran = e.iterations - segment(e.job).reached_iteration; ran > 0) {
    jr.iteration_time_sum += e.iteration_time * static_cast<double>(ran);
    jr.iterations_timed += ran;
  }
  jobs[e.job].done = e.iterations;
  jobs[e.job].progress_at = now;
  jr.iterations_done = e.iterations;
  jr.measured_iteration = e.iteration_time;
  segment(e.job).reached_iteration = e.iterations;
  segment(e.job).iteration_time = e.iteration_time;
}

// A checkpoint counts when the attempt is running and it holds less than the whole job (a checkpoint of a finished
// job would never be restored); drivers report every checkpoint they complete.
void Controller::Impl::on(const CheckpointDone& e, Seconds now, std::vector<Action>& out) {
  if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
  if (e.iteration >= sc.jobs[e.job].iterations || e.iteration <= jobs[e.job].checkpoint) return;
  jobs[e.job].checkpoint = e.iteration;
  JobRecord& jr = rec.jobs[e.job];
  jr.last_checkpoint = e.iteration;
  ++jr.checkpoints;
  jr.checkpoint_times.push_back(now);
  jr.checkpoint_time += e.write_time;
  jr.checkpoint_write_times.push_back(e.duration);
  const int keep = sc.jobs[e.job].checkpoint_keep;
  jr.checkpoints_retained = keep > 0 ? std::min(keep, jr.checkpoints) : jr.checkpoints;
  auto& retained = jobs[e.job].retained;
  retained.push_back(e.iteration);
  if (keep > 0 && static_cast<int>(retained.size()) > keep) retained.erase(retained.begin());
  sched.checkpointed(e.job, now);
  if (jobs[e.job].evacuate_by)
    stop_for_reclaim(e.job, now, "its checkpoint at iteration " + std::to_string(e.iteration) +
                                     " completed within the reclaim notice", true, out);
}

// The newest retained checkpoint is lost: the next restore falls back to the one before (or to the start). A job
// already waiting to restart from it loses the difference too, charged to the failure it waits on.
void Controller::Impl::on(const CheckpointCorrupted& e, Seconds now, std::vector<Action>&) {
  telemetry.fault(now);
  JobRuntime& rt = jobs[e.job];
  JobRecord& jr = rec.jobs[e.job];
  const JobSpec& spec = sc.jobs[e.job];
  if (rt.retained.empty() || rt.state == JobState::Completed || rt.state == JobState::Abandoned) {
    decide(now, "checkpoint_corrupt", spec.name, {}, "no retained checkpoint to damage; nothing changes");
    return;
  }
  const std::int64_t bad = rt.retained.back();
  rt.retained.pop_back();
  const std::int64_t good = rt.retained.empty() ? 0 : rt.retained.back();
  rt.checkpoint = good;
  jr.last_checkpoint = good;
  jr.checkpoints_retained = static_cast<int>(rt.retained.size());
  decide(now, "checkpoint_corrupt", spec.name, {},
         "the checkpoint after iteration " + std::to_string(bad) + " fails its checksum; a restore resumes " +
             (good > 0 ? "from iteration " + std::to_string(good) : std::string("from the start (none older kept)")));
  if (rt.state != JobState::Pending) return;
  if (rt.open_failure >= 0) {
    FailureRecord& f = jr.failures[rt.open_failure];
    const double before = f.lost_gpu_hours;
    f.lost_iterations = std::max<std::int64_t>(0, rt.done_at_fault - good);
    const LostWork lost = lost_work(f.lost_iterations, jr.measured_iteration, f.detect_time - f.fault_time,
                                    sc.recovery.restart_overhead);
    f.lost_progress = lost.progress;
    f.lost_gpu_hours = lost.gpu_hours(spec.gpus);
    jr.lost_gpu_hours += f.lost_gpu_hours - before;
  }
  rt.done = good;
  jr.iterations_done = good;
  sched.set_remaining(e.job, remaining_runtime(e.job, good));
}

void Controller::Impl::on(const JobCompleted& e, Seconds now, std::vector<Action>&) {
  if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
  JobRuntime& rt = jobs[e.job];
  JobRecord& jr = rec.jobs[e.job];
  set_state(e.job, JobState::Completed);
  rt.done = sc.jobs[e.job].iterations;
  jr.iterations_done = rt.done;
  jr.end = now;
  Segment& seg = segment(e.job);
  seg.end = now;
  seg.outcome = "completed";
  seg.reached_iteration = rt.done;
  cluster.release(rt.gpus);
  sched.finished(e.job, now);
  record(now, kind_text("complete"), job_text(e.job), node_names(topo, rt.gpus),
         std::to_string(rt.done) + " iterations");
  rt.gpus.clear();
}

// The attempt resumed from an older checkpoint than it was launched from (the newer one failed its verification):
// the work since then is lost too, charged to the failure it restarts from, and the newer checkpoints are gone.
void Controller::Impl::on(const RestoredFrom& e, Seconds now, std::vector<Action>&) {
  if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
  JobRuntime& rt = jobs[e.job];
  JobRecord& jr = rec.jobs[e.job];
  const std::int64_t asked = segment(e.job).start_iteration;
  if (e.iteration == asked) return;
  decide(now, "restore", sc.jobs[e.job].name, {},
         "resumed from iteration " + std::to_string(e.iteration) + ", not " + std::to_string(asked) +
             " (that checkpoint failed its verification)");
  std::erase_if(rt.retained, [&](std::int64_t i) { return i > e.iteration; });
  jr.checkpoints_retained = static_cast<int>(rt.retained.size());
  rt.checkpoint = e.iteration;
  rt.done = std::max<std::int64_t>(e.iteration, 0);
  jr.last_checkpoint = e.iteration;
  jr.iterations_done = e.iteration;
  segment(e.job).start_iteration = e.iteration;
  segment(e.job).reached_iteration = e.iteration;
  if (!jr.failures.empty() && e.iteration < asked) {
    FailureRecord& f = jr.failures.back();
    const double before = f.lost_gpu_hours;
    f.lost_iterations += asked - e.iteration;
    const LostWork lost = lost_work(f.lost_iterations, jr.measured_iteration, f.detect_time - f.fault_time,
                                    sc.recovery.restart_overhead);
    f.lost_progress = lost.progress;
    f.lost_gpu_hours = lost.gpu_hours(sc.jobs[e.job].gpus);
    jr.lost_gpu_hours += f.lost_gpu_hours - before;
  }
}

// --- scheduling -----------------------------------------------------------------------------------------------
void Controller::Impl::schedule(Seconds now, std::vector<Action>& out) {
  ScheduleResult result = sched.schedule(now, cluster);
  for (auto& p : result.preemptions) preempt(p, now, out);
  for (auto& start : result.starts) launch(start.job, std::move(start.gpus), now, out);
  if (result.waits.empty()) return;
  const SharedText pending_kind = kind_text("pending");
  for (auto& wait : result.waits) record(now, pending_kind, job_text(wait.job), {}, reason_text(wait.reason));
}

void Controller::Impl::preempt(const ScheduleResult::Preemption& p, Seconds now, std::vector<Action>& out) {
  const int j = p.victim;
  JobRuntime& rt = jobs[j];
  JobRecord& jr = rec.jobs[j];
  const JobSpec& by = sc.jobs[p.preemptor];
  const bool reclaim = by.queue != sc.jobs[j].queue;
  record(now, kind_text("preempt"), job_text(j), node_names(topo, p.gpus),
         "by " + by.name + " (queue " + by.queue + ", priority " + std::to_string(by.priority) + "): " +
             (reclaim ? "queue " + by.queue + " reclaims its quota, which queue " + sc.jobs[j].queue + " borrowed"
                      : std::string("a higher priority in the same queue")) +
             "; resumes from checkpoint at iteration " + std::to_string(rt.checkpoint));
  out.push_back(Kill{j, rt.attempt, "preempted by " + by.name});
  if (rt.state == JobState::Stalled) stalled.erase({rt.detect_at, j});
  Segment& seg = segment(j);
  seg.end = now;
  seg.outcome = "preempted";
  seg.reached_iteration = std::max(seg.reached_iteration, rt.done);
  rt.gpus.clear();
  rt.done = rt.checkpoint;
  jr.iterations_done = rt.checkpoint;
  ++jr.preemptions;
  // The scheduler has requeued it at the head of its queue; mirror that here.
  set_state(j, JobState::Pending);
  rt.enqueued = now;
  sched.set_remaining(j, remaining_runtime(j, rt.checkpoint));
}

std::int64_t Controller::Impl::progress_by(int j, Seconds now) const {
  const JobRuntime& rt = jobs[j];
  const JobRecord& jr = rec.jobs[j];
  if (rt.state != JobState::Running || jr.measured_iteration.value <= 0) return rt.done;
  Seconds from = rt.progress_at;
  if (!jr.checkpoint_async && rt.checkpoint == rt.done && !jr.checkpoint_times.empty())
    from = std::max(from, jr.checkpoint_times.back());
  const auto since = static_cast<std::int64_t>(std::max(0.0, (now - from) / jr.measured_iteration));
  std::int64_t cap = sc.jobs[j].iterations;
  if (rt.checkpoint_every > 0) cap = std::min(cap, (rt.done / rt.checkpoint_every + 1) * rt.checkpoint_every);
  return std::min(rt.done + since, cap);
}

double Controller::Impl::stop_and_requeue(int j, Seconds now, std::int64_t reached, const std::string& kind,
                                          const std::string& why, const std::string& kill_reason,
                                          const std::string& outcome, std::vector<Action>& out) {
  JobRuntime& rt = jobs[j];
  JobRecord& jr = rec.jobs[j];
  record(now, kind_text(kind), job_text(j), node_names(topo, rt.gpus),
         why + "; resumes from checkpoint at iteration " + std::to_string(rt.checkpoint));
  out.emplace_back(std::in_place_type<Kill>, Kill{j, rt.attempt, kill_reason});
  if (rt.state == JobState::Stalled) stalled.erase({rt.detect_at, j});
  Segment& seg = segment(j);
  seg.end = now;
  seg.outcome = outcome;
  seg.reached_iteration = std::max(seg.reached_iteration, reached);
  const LostWork lost = lost_work(std::max<std::int64_t>(0, reached - rt.checkpoint), jr.measured_iteration,
                                  Seconds(0), sc.recovery.restart_overhead);
  cluster.release(rt.gpus);
  sched.finished(j, now);
  rt.gpus.clear();
  rt.done = rt.checkpoint;
  jr.iterations_done = rt.checkpoint;
  ++jr.preemptions;
  enqueue(j, now, true);
  return lost.gpu_hours(sc.jobs[j].gpus);
}

void Controller::Impl::launch(int j, std::vector<int> gpus, Seconds now, std::vector<Action>& out) {
  JobRuntime& rt = jobs[j];
  const JobSpec& spec = sc.jobs[j];
  JobRecord& jr = rec.jobs[j];
  set_state(j, JobState::Running);
  rt.gpus = gpus;
  ++rt.attempt;
  jr.wait += now - rt.enqueued;
  if (!jr.first_start) jr.first_start = now;

  Launch l;
  l.job = j;
  l.attempt = rt.attempt;
  l.gpus = std::move(gpus);
  l.start_iteration = rt.checkpoint;
  l.iterations = spec.iterations;
  l.startup = rt.attempt == 1 ? sc.perf.launch_overhead : sc.recovery.restart_overhead;
  l.plan = planner(spec, topo, l.gpus, sc.perf);
  rt.comm_bytes = 0;
  for (const auto& step : l.plan.steps)
    for (const auto& g : step.groups) rt.comm_bytes += g.bytes.value;
  if (spec.checkpoint_every) {
    l.checkpoint_every = *spec.checkpoint_every;
  } else if (spec.checkpoint_interval) {
    l.checkpoint_every = std::max<std::int64_t>(
        1, static_cast<std::int64_t>(std::llround(*spec.checkpoint_interval / l.plan.predicted_iteration)));
  }
  l.checkpoint_keep = spec.checkpoint_keep;
  rt.checkpoint_every = l.checkpoint_every;
  rt.progress_at = now + l.startup;
  if (spec.checkpoint_async && l.checkpoint_every) {
    l.checkpoint_async = true;
    l.snapshot = snapshot_stall(l.plan.checkpoint_bytes_per_writer, sc.perf.snapshot_bandwidth);
  }
  jr.checkpoint_async = spec.checkpoint_async;
  jr.checkpoint_bytes = l.plan.checkpoint_bytes_per_writer * static_cast<double>(l.plan.checkpoint_writers.size());
  l.move = move_checkpoint(j, l.gpus);
  if (rt.open_failure >= 0) {
    jr.failures[rt.open_failure].recovered_time = now + l.startup_with_move();
    rt.open_failure = -1;
  }
  jr.predicted_iteration = l.plan.predicted_iteration;
  if (jr.measured_iteration.value == 0) jr.measured_iteration = l.plan.predicted_iteration;
  if (!spec.estimated_runtime) {
    rt.iteration_estimate = l.plan.predicted_iteration;
    sched.set_estimated_end(
        j, now + l.startup_with_move() + l.plan.predicted_iteration * static_cast<double>(spec.iterations - rt.checkpoint));
  }

  Segment seg;
  seg.attempt = rt.attempt;
  seg.start = now;
  seg.nodes = node_names(topo, l.gpus);
  seg.start_iteration = rt.checkpoint;
  seg.reached_iteration = rt.checkpoint;
  seg.iteration_time = l.plan.predicted_iteration;
  std::string groups = std::to_string(count_groups(l.gpus)) + " leaf group(s)";
  record(now, kind_text("launch"), job_text(j), seg.nodes,
         (rt.attempt == 1 ? std::string("start") : "restart " + std::to_string(rt.attempt - 1)) + " from iteration " +
             std::to_string(rt.checkpoint) + " on " + std::to_string(spec.gpus) + " GPUs in " + groups +
             "; predicted iteration " + format_seconds(l.plan.predicted_iteration) +
             (l.checkpoint_every ? ", checkpoint every " + std::to_string(l.checkpoint_every) + " iterations"
                                 : std::string(", no checkpoints")) +
             (topo.sites().empty() ? std::string() : "; site " + jr.site) +
             (l.move ? "; checkpoint moved from site " + topo.sites()[l.move->from_site].name + " (" +
                           format_bytes(l.move->bytes) + ", " + format_seconds(l.move->predicted) + ")"
                     : std::string()));
  jr.segments.push_back(std::move(seg));
  out.push_back(std::move(l));
}

std::optional<CheckpointMove> Controller::Impl::move_checkpoint(int j, const std::vector<int>& gpus) {
  if (topo.sites().empty() || gpus.empty()) return std::nullopt;
  JobRuntime& rt = jobs[j];
  JobRecord& jr = rec.jobs[j];
  const int site = topo.nodes()[gpus.front() / topo.gpus_per_node()].site;
  const int from = rt.site;
  rt.site = site;
  jr.site = topo.sites()[site].name;
  if (from < 0 || from == site || rt.checkpoint == 0) return std::nullopt;
  const LinkProps& link = topo.link(topo.inter_site_link());
  CheckpointMove m{from, site, jr.checkpoint_bytes, jr.checkpoint_bytes / link.bandwidth + link.latency};
  ++jr.checkpoint_moves;
  jr.checkpoint_moved_bytes += m.bytes;
  jr.checkpoint_move_time += m.predicted;
  return m;
}

int Controller::Impl::count_groups(const std::vector<int>& gpus) const {
  std::vector<int> groups;
  for (int gpu : gpus) groups.push_back(cluster.group_of(gpu / topo.gpus_per_node()));
  std::sort(groups.begin(), groups.end());
  return static_cast<int>(std::unique(groups.begin(), groups.end()) - groups.begin());
}

}  // namespace tt
