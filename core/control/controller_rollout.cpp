// The rollout policy (docs/rollout.md): at the plan's start, each step drains the nodes it upgrades (their jobs stop
// and requeue from their checkpoints), has the driver reimage them, and puts them back into service when their
// release may share jobs with the old one (else they wait for the full rollout). The first step also holds an equal
// set of old nodes for the baseline; the canary and baseline copies of the named job run side by side, are sampled
// every interval and judged at the end of the window; a pass promotes to the next step, a failure rolls back (drain,
// reimage to the old release) or pauses. Every step is a decision with its evidence.
#include <algorithm>

#include "core/control/controller_impl.hpp"
#include "core/rollout/analysis.hpp"

namespace tt {
namespace {

std::string count_of(std::size_t n, const char* what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

// Canary kind any_job: no copies; the canary is every job on upgraded nodes (core/io/rollout_reader.cpp).
bool any_job(const rollout::Plan& p) { return p.canary.job < 0; }

// One sample of a job for metric `m`: its iteration or bandwidth value once it is paced, its checkpoint writes from
// `seen` on; counts are taken over the window at the analysis.
void sample_job(rollout::Metric m, bool paced, double iteration, double bandwidth, const JobRecord& jr,
                std::size_t seen, std::vector<double>& out) {
  if (m == rollout::Metric::IterationTime && paced) out.push_back(iteration);
  if (m == rollout::Metric::CollectiveBandwidth && paced) out.push_back(bandwidth);
  if (m == rollout::Metric::CheckpointTime)
    for (std::size_t k = seen; k < jr.checkpoint_write_times.size(); ++k)
      out.push_back(jr.checkpoint_write_times[k].value);
}

}  // namespace

bool Controller::Impl::rollout_copy(int j) const {
  if (!sc.rollout.enabled()) return false;
  const auto& c = sc.rollout.plan->canary;
  return j == c.job || j == c.baseline_job;
}

std::optional<Seconds> Controller::Impl::rollout_deadline() const {
  if (!sc.rollout.enabled()) return std::nullopt;
  if (ro.phase == RolloutRun::Phase::Waiting) return sc.rollout.plan->start;
  return ro.at;
}

void Controller::Impl::rollout_hold(int n, Seconds now, const std::string& why, std::vector<Action>& out) {
  held[n] = true;
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    if (rollout_copy(static_cast<int>(j))) continue;
    const auto& g = jobs[j].gpus;
    if (std::any_of(g.begin(), g.end(), [&](int gpu) { return gpu / topo.gpus_per_node() == n; }))
      drain_job(static_cast<int>(j), now, why, out);
  }
  refresh_node(n, now, why, out);
}

void Controller::Impl::rollout_release_hold(int n, Seconds now, std::vector<Action>& out) {
  if (!held[n]) return;
  held[n] = false;
  refresh_node(n, now, "", out);
}

// Like a preemption: the job stops, loses its progress since the checkpoint and a restart, and waits at the head of
// its queue.
void Controller::Impl::drain_job(int j, Seconds now, const std::string& why, std::vector<Action>& out) {
  const JobState state = jobs[j].state;
  if (state != JobState::Running && state != JobState::Stalled) return;
  rec.rollout->drain_lost_gpu_hours += stop_and_requeue(j, now, jobs[j].done, "drain", why, why, "drained", out);
  rec.rollout->jobs_drained += 1;
}

void Controller::Impl::rollout_launch_copy(int j, const std::vector<int>& nodes, Seconds now,
                                           std::vector<Action>& out) {
  std::vector<int> gpus;
  for (int n : nodes)
    for (int g = 0; g < topo.gpus_per_node(); ++g) gpus.push_back(n * topo.gpus_per_node() + g);
  cluster.allocate(gpus);
  jobs[j].enqueued = now;
  launch(j, std::move(gpus), now, out);
}

void Controller::Impl::rollout_stop_copy(int j, Seconds now, std::vector<Action>& out) {
  if (j < 0) return;  // any_job: no copy
  JobRuntime& rt = jobs[j];
  if (rt.state == JobState::Completed || rt.state == JobState::Abandoned) return;
  const std::vector<std::string> nodes = node_names(topo, rt.gpus);
  if (rt.state == JobState::Running || rt.state == JobState::Stalled) {
    out.emplace_back(std::in_place_type<Kill>, Kill{j, rt.attempt, "the rollout no longer needs it"});
    if (rt.state == JobState::Stalled) stalled.erase({rt.detect_at, j});
    Segment& seg = segment(j);
    seg.end = now;
    seg.outcome = "stopped";
    cluster.release(rt.gpus);
    rt.gpus.clear();
  }
  set_state(j, JobState::Completed);
  rec.jobs[j].end = now;
  decide(now, "rollout_stop", rec.jobs[j].name, nodes, "the rollout no longer needs it");
}

void Controller::Impl::rollout_begin_step(Seconds now, std::vector<Action>& out) {
  const rollout::Plan& p = *sc.rollout.plan;
  const int pool = static_cast<int>(p.pool.size());
  if (ro.step + 1 >= static_cast<int>(p.steps.size())) {  // the last step passed and left part of the pool as it is
    rollout_stop_copy(p.canary.job, now, out);
    rollout_stop_copy(p.canary.baseline_job, now, out);
    for (int n : ro.baseline_nodes) rollout_release_hold(n, now, out);
    for (int n : ro.canary_nodes) rollout_release_hold(n, now, out);
    ro.phase = RolloutRun::Phase::Done;
    ro.at.reset();
    rec.rollout->outcome = "promoted";
    rec.rollout->decided = now;
    decide(now, "rollout_complete", "", {},
           "release " + p.release + " on " + std::to_string(ro.upgraded) + " of the pool's " + std::to_string(pool) +
               " nodes, as planned");
    return;
  }
  ++ro.step;
  const int target = p.steps[ro.step].nodes;
  RolloutStepRecord r;
  r.step = ro.step;
  r.nodes = target;
  r.started = now;
  rec.rollout->steps.push_back(r);
  const int canary_nodes = p.canary.gpus / topo.gpus_per_node();
  if (ro.step == 0) {
    ro.canary_nodes.assign(p.pool.begin(), p.pool.begin() + canary_nodes);
    ro.baseline_nodes.assign(p.pool.end() - canary_nodes, p.pool.end());
    for (int n : ro.baseline_nodes) rollout_hold(n, now, "held for the baseline of the rollout's canary", out);
  }
  if (target == pool) {  // the full rollout: the baseline's nodes are upgraded too
    rollout_stop_copy(p.canary.job, now, out);
    rollout_stop_copy(p.canary.baseline_job, now, out);
  }
  ro.to_reimage.assign(p.pool.begin() + ro.upgraded, p.pool.begin() + target);
  ro.upgraded = target;
  ro.reimage_to = p.release;
  const std::string why = "drained to upgrade to release " + p.release + " (rollout step " +
                          std::to_string(ro.step + 1) + " of " + std::to_string(p.steps.size()) + ")";
  for (int n : ro.to_reimage) rollout_hold(n, now, why, out);
  std::vector<std::string> names;
  for (int n : ro.to_reimage) names.push_back(topo.nodes()[n].name);
  decide(now, "rollout_step", "", names,
         "step " + std::to_string(ro.step + 1) + " of " + std::to_string(p.steps.size()) + ": " +
             std::to_string(target) + " of " + std::to_string(pool) + " pool nodes to release " + p.release +
             "; drain " + format_seconds(p.drain) + ", then reimage " + format_seconds(p.reimage));
  rec.rollout->reimage_node_hours += static_cast<double>(ro.to_reimage.size()) * (p.drain + p.reimage).value / 3600;
  ro.phase = RolloutRun::Phase::Draining;
  ro.at = now + p.drain;
}

void Controller::Impl::rollout_due(Seconds now, std::vector<Action>& out) {
  if (!sc.rollout.enabled()) return;
  const rollout::Plan& p = *sc.rollout.plan;
  if (ro.phase == RolloutRun::Phase::Waiting) {
    if (now < p.start) return;
    rec.rollout->outcome = "in progress";
    decide(now, "rollout_start", "", {},
           "release " + p.release + " replaces " + p.from + " on a pool of " + count_of(p.pool.size(), "node") +
               " in " + count_of(p.steps.size(), "step") + "; canary: " +
               (any_job(p) ? std::string("any job on upgraded nodes")
                           : std::to_string(p.canary.gpus) + "-GPU copy of " + p.canary.copy_of) +
               ", window " + format_seconds(p.window));
    rollout_begin_step(now, out);
    return;
  }
  if (!ro.at || *ro.at > now) return;
  if (ro.phase == RolloutRun::Phase::Draining || ro.phase == RolloutRun::Phase::RollingBack) {
    ro.at.reset();
    if (ro.phase == RolloutRun::Phase::Draining) ro.phase = RolloutRun::Phase::Reimaging;
    for (int n : ro.to_reimage) {
      ro.reimaging.insert(n);
      out.emplace_back(std::in_place_type<Reimage>, Reimage{n, ro.reimage_to, p.reimage});
    }
    ro.to_reimage.clear();
    if (ro.reimaging.empty()) rollout_reimaged_all(now, out);
    return;
  }
  if (ro.phase != RolloutRun::Phase::Observing) return;
  rollout_sample(now);
  if (now < ro.window_end) {
    ro.at = std::min(now + p.interval, ro.window_end);
    return;
  }
  ro.at.reset();
  rollout_analyse(now, out);
}

void Controller::Impl::on(const NodeReimaged& e, Seconds now, std::vector<Action>& out) {
  if (!sc.rollout.enabled() || e.node < 0 || e.node >= static_cast<int>(ro.release.size())) return;
  ro.release[e.node] = e.release;
  if (!ro.reimaging.erase(e.node)) return;
  decide(now, "reimaged", "", {topo.nodes()[e.node].name}, "now on release " + e.release);
  if (ro.reimaging.empty()) rollout_reimaged_all(now, out);
}

void Controller::Impl::rollout_reimaged_all(Seconds now, std::vector<Action>& out) {
  const rollout::Plan& p = *sc.rollout.plan;
  const int pool = static_cast<int>(p.pool.size());
  if (ro.phase == RolloutRun::Phase::RollingBack) {
    for (int n : p.pool) rollout_release_hold(n, now, out);
    ro.phase = RolloutRun::Phase::Done;
    rec.rollout->rolled_back_at = now;
    decide(now, "rollout_rolled_back", "", {}, "every pool node is back on release " + p.from + " and in service");
    return;
  }
  const bool full = ro.upgraded == pool;
  const bool shares = sc.rollout.may_share(p.release, p.from);
  bool kept = false;
  for (int i = 0; i < ro.upgraded; ++i) {
    const int n = p.pool[i];
    const bool canary = std::find(ro.canary_nodes.begin(), ro.canary_nodes.end(), n) != ro.canary_nodes.end();
    if (full || (shares && !canary)) rollout_release_hold(n, now, out);
    kept = kept || (!full && !canary && !shares);
  }
  if (kept)
    decide(now, "rollout_hold", "", {},
           "release " + p.release + " may not share a job with " + p.from +
               " (rollout releases.shares_jobs_with): upgraded nodes stay out of service until the full rollout");
  if (full) {
    for (int n : ro.baseline_nodes) rollout_release_hold(n, now, out);
    RolloutStepRecord& r = rec.rollout->steps.back();
    r.decided = now;
    r.outcome = "complete";
    ro.phase = RolloutRun::Phase::Done;
    rec.rollout->outcome = "promoted";
    rec.rollout->decided = now;
    decide(now, "rollout_complete", "", {}, "all " + std::to_string(pool) + " pool nodes on release " + p.release);
    return;
  }
  if (ro.step == 0 && !any_job(p)) {
    rollout_launch_copy(p.canary.job, ro.canary_nodes, now, out);
    rollout_launch_copy(p.canary.baseline_job, ro.baseline_nodes, now, out);
  }
  ro.phase = RolloutRun::Phase::Observing;
  ro.window_start = now;
  ro.window_end = now + p.window;
  ro.at = std::min(now + p.interval, ro.window_end);
  ro.samples.assign(p.metrics.size(), {});
  rec.rollout->steps.back().observed_from = now;
  if (any_job(p)) {
    ro.job_side.clear();
    ro.side_failures = {};
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      ro.job_failures_seen[static_cast<int>(j)] = rec.jobs[j].failures.size();
      ro.job_checkpoints_seen[static_cast<int>(j)] = rec.jobs[j].checkpoint_write_times.size();
    }
    rollout_sample(now);  // the sides as the window opens
    decide(now, "rollout_observe", "", {},
           "window " + format_seconds(p.window) + ", a sample every " + format_seconds(p.interval) +
               ": every job with a node on release " + p.release + " against those on " + p.from +
               " only, iteration times relative to each job's plan");
    return;
  }
  for (int s = 0; s < 2; ++s) {
    const JobRecord& jr = rec.jobs[s ? p.canary.baseline_job : p.canary.job];
    ro.checkpoints_seen[s] = jr.checkpoint_write_times.size();
    ro.failures_at[s] = jr.failures.size();
  }
  decide(now, "rollout_observe", "", {},
         "window " + format_seconds(p.window) + ", a sample every " + format_seconds(p.interval) + ": " +
             rec.jobs[p.canary.job].name + " on " + topo.nodes()[ro.canary_nodes.front()].name + ".. (release " +
             p.release + ") against " + rec.jobs[p.canary.baseline_job].name + " on " +
             topo.nodes()[ro.baseline_nodes.front()].name + ".. (release " + p.from + ")");
}

// Canary kind any_job: the side of each running job now (absent: a job on neither, or not running); new failures count
// for the side the job had at the sample before; samples relative to each job's plan.
void Controller::Impl::rollout_sample_jobs() {
  const rollout::Plan& p = *sc.rollout.plan;
  for (std::size_t jj = 0; jj < jobs.size(); ++jj) {
    const int j = static_cast<int>(jj);
    const JobRuntime& rt = jobs[j];
    const JobRecord& jr = rec.jobs[j];
    const std::size_t failed = jr.failures.size() - std::min(jr.failures.size(), ro.job_failures_seen[j]);
    if (auto side = ro.job_side.find(j); side != ro.job_side.end())
      ro.side_failures[side->second] += static_cast<double>(failed);
    ro.job_failures_seen[j] = jr.failures.size();
    ro.job_side.erase(j);
    if (rt.state != JobState::Running || rt.gpus.empty()) continue;
    bool on_new = false, all_old = true;
    for (int gpu : rt.gpus) {
      const std::string& r = ro.release[gpu / topo.gpus_per_node()];
      on_new = on_new || r == p.release;
      all_old = all_old && r == p.from;
    }
    if (!on_new && !all_old) continue;
    const int s = on_new ? 0 : 1;
    ro.job_side[j] = s;
    const bool paced = !jr.segments.empty() &&
                       jr.segments.back().reached_iteration > jr.segments.back().start_iteration &&
                       jr.measured_iteration.value > 0 && rt.iteration_estimate.value > 0;
    // Relative to the job's plan, so that jobs of different sizes compare.
    const double iteration = paced ? jr.measured_iteration.value / rt.iteration_estimate.value : 0;
    for (std::size_t m = 0; m < p.metrics.size(); ++m)
      sample_job(p.metrics[m].metric, paced && (p.metrics[m].metric != rollout::Metric::CollectiveBandwidth ||
                                                rt.comm_bytes > 0),
                 iteration, paced ? 1 / iteration : 0, jr, ro.job_checkpoints_seen[j], ro.samples[m][s]);
    ro.job_checkpoints_seen[j] = jr.checkpoint_write_times.size();
  }
}

void Controller::Impl::rollout_sample(Seconds now) {
  const rollout::Plan& p = *sc.rollout.plan;
  if (any_job(p)) return rollout_sample_jobs();
  for (std::size_t m = 0; m < p.metrics.size(); ++m) {
    for (int s = 0; s < 2; ++s) {
      const int j = s ? p.canary.baseline_job : p.canary.job;
      const JobRuntime& rt = jobs[j];
      const JobRecord& jr = rec.jobs[j];
      auto& out = ro.samples[m][s];
      // A pace exists once the attempt reported progress: not before, nor while it hangs.
      const bool paced = rt.state == JobState::Running && !jr.segments.empty() &&
                         jr.segments.back().reached_iteration > jr.segments.back().start_iteration &&
                         jr.measured_iteration.value > 0;
      sample_job(p.metrics[m].metric, paced, jr.measured_iteration.value,
                 paced ? rt.comm_bytes / jr.measured_iteration.value : 0, jr, ro.checkpoints_seen[s], out);
    }
  }
  for (int s = 0; s < 2; ++s)
    ro.checkpoints_seen[s] = rec.jobs[s ? p.canary.baseline_job : p.canary.job].checkpoint_write_times.size();
  (void)now;
}

void Controller::Impl::rollout_analyse(Seconds now, std::vector<Action>& out) {
  const rollout::Plan& p = *sc.rollout.plan;
  RolloutStepRecord& step = rec.rollout->steps.back();
  bool passed = true;
  std::string evidence;
  for (std::size_t m = 0; m < p.metrics.size(); ++m) {
    const rollout::AnalysisMetric& am = p.metrics[m];
    std::array<std::vector<double>, 2> obs = ro.samples[m];
    for (int s = 0; s < 2 && any_job(p); ++s) {
      if (am.metric == rollout::Metric::Failures) obs[s] = {ro.side_failures[s]};
      if (am.metric != rollout::Metric::AlertsFiring) continue;
      double fired = 0;
      for (const AlertRecord& a : rec.alerts)
        for (const auto& [k, v] : a.labels)
          for (const auto& [j, side] : ro.job_side)
            if (side == s && v == rec.jobs[j].name && a.fired_at >= ro.window_start) ++fired;
      obs[s] = {fired};
    }
    for (int s = 0; s < 2 && !any_job(p); ++s) {
      const int j = s ? p.canary.baseline_job : p.canary.job;
      if (am.metric == rollout::Metric::Failures)
        obs[s] = {static_cast<double>(rec.jobs[j].failures.size() - ro.failures_at[s])};
      if (am.metric == rollout::Metric::AlertsFiring) {
        double fired = 0;
        for (const AlertRecord& a : rec.alerts)
          for (const auto& [k, v] : a.labels)
            if (v == rec.jobs[j].name && a.fired_at >= ro.window_start) ++fired;
        obs[s] = {fired};
      }
    }
    rollout::MetricVerdict v = rollout::judge(am, obs[0], obs[1]);
    if (any_job(p) && !rollout::is_count(am.metric) && am.metric != rollout::Metric::CheckpointTime)
      v.evidence += " (any job: each job's measured over its planned iteration, not seconds)";
    step.verdicts.push_back(v);
    passed = passed && v.passed;
    evidence += (evidence.empty() ? "" : "; ") + v.evidence;
  }
  step.decided = now;
  if (passed) {
    step.outcome = "promote";
    decide(now, "rollout_promote", "", {}, "step " + std::to_string(ro.step + 1) + " passes: " + evidence);
    rollout_begin_step(now, out);
    return;
  }
  rec.rollout->decided = now;
  if (p.on_failure == rollout::OnFailure::Pause) {
    step.outcome = "pause";
    rollout_stop_copy(p.canary.job, now, out);
    rollout_stop_copy(p.canary.baseline_job, now, out);
    for (int n : ro.baseline_nodes) rollout_release_hold(n, now, out);
    ro.phase = RolloutRun::Phase::Done;
    rec.rollout->outcome = "paused";
    decide(now, "rollout_pause", "", {},
           "step " + std::to_string(ro.step + 1) + " fails: " + evidence + "; upgraded nodes stay as they are");
    return;
  }
  step.outcome = "rollback";
  decide(now, "rollout_rollback", "", {}, "step " + std::to_string(ro.step + 1) + " fails: " + evidence);
  rollout_roll_back(now, out);
}

void Controller::Impl::rollout_roll_back(Seconds now, std::vector<Action>& out) {
  const rollout::Plan& p = *sc.rollout.plan;
  rollout_stop_copy(p.canary.job, now, out);
  rollout_stop_copy(p.canary.baseline_job, now, out);
  rec.rollout->outcome = "rolled back";
  ro.phase = RolloutRun::Phase::RollingBack;
  ro.to_reimage.clear();
  for (int i = 0; i < ro.upgraded; ++i) ro.to_reimage.push_back(p.pool[i]);
  const std::string why = "drained to roll back to release " + p.from;
  for (int n : ro.to_reimage) rollout_hold(n, now, why, out);
  for (int n : ro.baseline_nodes) rollout_release_hold(n, now, out);
  rec.rollout->reimage_node_hours += static_cast<double>(ro.to_reimage.size()) * (p.drain + p.reimage).value / 3600;
  ro.reimage_to = p.from;
  ro.at = now + p.drain;
}

void Controller::Impl::rollout_finish(Seconds now) {
  if (!rec.rollout) return;
  const auto& c = sc.rollout.plan->canary;
  auto gpu_hours = [&](int j) {
    double h = 0;
    for (const Segment& s : rec.jobs[j].segments) h += (s.end.value_or(now) - s.start).value;
    return h * sc.jobs[j].gpus / 3600;
  };
  if (c.job < 0) return;  // any_job: the jobs' own GPU-hours
  rec.rollout->canary_gpu_hours = gpu_hours(c.job);
  rec.rollout->baseline_gpu_hours = gpu_hours(c.baseline_job);
}

// Rollout copies that failed with one of their nodes out (controller_failures.cpp) relaunch there once every one of
// their nodes is back; a copy the rollout stopped meanwhile is forgotten.
void Controller::Impl::rollout_relaunch_waiting(Seconds now, std::vector<Action>& out) {
  for (auto it = ro.waiting_copies.begin(); it != ro.waiting_copies.end();) {
    const auto& [j, nodes] = *it;
    if (jobs[j].state != JobState::Pending) {
      it = ro.waiting_copies.erase(it);
    } else if (std::any_of(nodes.begin(), nodes.end(), [&](int n) { return node_out[n] > 0; })) {
      ++it;
    } else {
      rollout_launch_copy(j, nodes, now, out);
      it = ro.waiting_copies.erase(it);
    }
  }
}

}  // namespace tt
