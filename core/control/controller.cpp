#include "core/control/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/control/checks.hpp"
#include "core/plan/perf_model.hpp"
#include "core/sched/cluster_state.hpp"
#include "core/sched/scheduler.hpp"

namespace tt {

bool RunRecord::all_checks_passed() const {
  return std::all_of(checks.begin(), checks.end(), [](const CheckResult& c) { return c.passed; });
}

namespace {

enum class JobState { Unsubmitted, Pending, Running, Stalled, Completed, Abandoned };

struct JobRuntime {
  JobState state = JobState::Unsubmitted;
  int queue = 0;
  int attempt = 0;
  std::vector<int> gpus;
  std::int64_t done = 0;
  std::int64_t checkpoint = 0;
  Seconds enqueued;
  Seconds fault_time;
  std::string fault_cause;
  std::int64_t done_at_fault = 0;
  Seconds detect_at;
  WaitKind wait_kind = WaitKind::None;  // the kind of the reason it waits for, since wait_since
  Seconds wait_since;
  Seconds iteration_estimate;  // before the first launch: planned on a packed placement; then as planned
};

std::vector<std::string> node_names(const Topology& topo, const std::vector<int>& gpus) {
  std::vector<std::string> names;
  int last = -1;
  for (int gpu : gpus) {
    int node = gpu / topo.gpus_per_node();
    if (node != last) names.push_back(topo.nodes()[node].name);
    last = node;
  }
  return names;
}

std::vector<SchedJob> sched_jobs(const Scenario& sc) {
  std::vector<SchedJob> out;
  for (const auto& spec : sc.jobs) {
    SchedJob j;
    for (std::size_t q = 0; q < sc.queues.size(); ++q)
      if (sc.queues[q].name == spec.queue) j.queue = static_cast<int>(q);
    j.priority = spec.priority;
    j.gpus = spec.gpus;
    j.topology = spec.topology;
    out.push_back(j);
  }
  return out;
}

}  // namespace

struct Controller::Impl {
  const Scenario& sc;
  const Topology& topo;
  Planner planner;
  ClusterState cluster;
  Scheduler sched;
  RunRecord rec;
  std::vector<JobRuntime> jobs;
  std::vector<std::string> job_names, queue_names;
  std::vector<int> submit_order;  // job indices by submit time
  std::size_t next_submit = 0;
  std::set<std::pair<Seconds, int>> stalled;  // (detect_at, job)
  int running = 0, pending = 0, ended = 0;    // Running or Stalled; Pending; Completed or Abandoned
  bool finished = false;

  Impl(const Scenario& s, Planner p)
      : sc(s),
        topo(s.topology),
        planner(std::move(p)),
        cluster(s.topology),
        sched(s.queues, s.scheduler, sched_jobs(s)) {
    rec.scenario = sc.name;
    rec.scenario_file = sc.source_file;
    rec.seed = sc.seed;
    rec.total_gpus = topo.total_gpus();
    jobs.resize(sc.jobs.size());
    for (const auto& q : sc.queues) queue_names.push_back(q.name);
    for (std::size_t i = 0; i < sc.jobs.size(); ++i) {
      const JobSpec& spec = sc.jobs[i];
      JobRecord jr;
      jr.name = spec.name;
      jr.queue = spec.queue;
      jr.gpus = spec.gpus;
      jr.priority = spec.priority;
      jr.submit = spec.submit;
      jr.iterations_target = spec.iterations;
      rec.jobs.push_back(std::move(jr));
      job_names.push_back(spec.name);
      submit_order.push_back(static_cast<int>(i));
    }
    std::stable_sort(submit_order.begin(), submit_order.end(),
                     [&](int a, int b) { return sc.jobs[a].submit < sc.jobs[b].submit; });
    sample(Seconds(0));
  }

  void set_state(int j, JobState to) {
    JobState& from = jobs[j].state;
    auto counts = [&](JobState s, int d) {
      if (s == JobState::Running || s == JobState::Stalled) running += d;
      if (s == JobState::Pending) pending += d;
      if (s == JobState::Completed || s == JobState::Abandoned) ended += d;
    };
    counts(from, -1);
    counts(to, +1);
    from = to;
  }

  void decide(Seconds t, std::string kind, std::string job, std::vector<std::string> nodes, std::string reason) {
    rec.decisions.push_back(Decision{t, std::move(kind), std::move(job), std::move(nodes), std::move(reason)});
  }

  void sample(Seconds now) {
    Sample s{now, cluster.allocated_gpus(), cluster.up_gpus(), running, pending, cluster.fragmentation()};
    if (!rec.series.empty()) {
      Sample& last = rec.series.back();
      bool same = last.gpus_allocated == s.gpus_allocated && last.gpus_up == s.gpus_up &&
                  last.jobs_running == s.jobs_running && last.jobs_pending == s.jobs_pending &&
                  last.fragmentation == s.fragmentation;
      if (same) return;
      if (last.t == now) {
        last = s;
        return;
      }
    }
    rec.series.push_back(s);
  }

  bool stale(int job, int attempt) const {
    return job < 0 || job >= static_cast<int>(jobs.size()) || jobs[job].attempt != attempt ||
           (jobs[job].state != JobState::Running && jobs[job].state != JobState::Stalled);
  }

  Segment& segment(int job) { return rec.jobs[job].segments.back(); }

  // Estimated run time from `from` iterations to the end: the declared run time pro rata, else startup plus the
  // remaining iterations at the planned iteration time.
  Seconds remaining_runtime(int j, std::int64_t from) {
    const JobSpec& spec = sc.jobs[j];
    const double left = static_cast<double>(spec.iterations - from) / static_cast<double>(spec.iterations);
    if (spec.estimated_runtime) return *spec.estimated_runtime * left;
    JobRuntime& rt = jobs[j];
    if (rt.iteration_estimate.value == 0) {
      std::vector<int> packed(spec.gpus);
      for (int i = 0; i < spec.gpus; ++i) packed[i] = i;
      rt.iteration_estimate = planner(spec, topo, packed, sc.perf).predicted_iteration;
    }
    Seconds startup = rt.attempt == 0 ? sc.perf.launch_overhead : sc.recovery.restart_overhead;
    return startup + rt.iteration_estimate * static_cast<double>(spec.iterations - from);
  }

  void enqueue(int j, Seconds t, bool at_head) {
    JobRuntime& rt = jobs[j];
    set_state(j, JobState::Pending);
    rt.enqueued = t;
    rt.wait_kind = WaitKind::None;
    rt.wait_since = t;
    sched.enqueue(j, t, remaining_runtime(j, rt.checkpoint), at_head);
  }

  // Closes the job's current wait interval into its pending time by reason.
  void close_wait(int j, Seconds now) {
    JobRuntime& rt = jobs[j];
    if (rt.wait_kind != WaitKind::None) rec.jobs[j].pending_by_reason[to_string(rt.wait_kind)] += now - rt.wait_since;
    rt.wait_kind = WaitKind::None;
    rt.wait_since = now;
  }

  // --- timers ---------------------------------------------------------------------------------------------------
  void run_due(Seconds now, std::vector<Action>& out) {
    while (next_submit < submit_order.size() && sc.jobs[submit_order[next_submit]].submit <= now) {
      int j = submit_order[next_submit++];
      decide(sc.jobs[j].submit, "submit", sc.jobs[j].name, {},
             "queue " + sc.jobs[j].queue + ", priority " + std::to_string(sc.jobs[j].priority) + ", " +
                 std::to_string(sc.jobs[j].gpus) + " GPUs");
      enqueue(j, sc.jobs[j].submit, false);
    }
    while (!stalled.empty() && stalled.begin()->first <= now) {
      int j = stalled.begin()->second;
      stalled.erase(stalled.begin());
      detect_failure(j, out);
    }
  }

  void detect_failure(int j, std::vector<Action>& out) {
    JobRuntime& rt = jobs[j];
    const JobSpec& spec = sc.jobs[j];
    JobRecord& jr = rec.jobs[j];
    const Seconds t = rt.detect_at;
    decide(t, "detect", spec.name, node_names(topo, rt.gpus),
           rt.fault_cause + "; declared failed " + format_seconds(t - rt.fault_time) + " after the fault");
    out.push_back(Kill{j, rt.attempt, "failure detected: " + rt.fault_cause});

    FailureRecord f;
    f.cause = rt.fault_cause;
    f.fault_time = rt.fault_time;
    f.detect_time = t;
    f.lost_iterations = std::max<std::int64_t>(0, rt.done_at_fault - rt.checkpoint);
    Seconds lost = jr.measured_iteration * static_cast<double>(f.lost_iterations) + (t - rt.fault_time) +
                   sc.recovery.restart_overhead;
    f.lost_gpu_hours = lost.value * spec.gpus / 3600.0;
    jr.lost_gpu_hours += f.lost_gpu_hours;
    jr.failures.push_back(f);

    Segment& seg = segment(j);
    seg.end = t;
    seg.outcome = "failed";
    seg.reached_iteration = std::max(seg.reached_iteration, rt.done_at_fault);
    cluster.release(rt.gpus);
    sched.finished(j, t);
    rt.gpus.clear();
    rt.done = rt.checkpoint;
    jr.iterations_done = rt.checkpoint;

    if (jr.restarts >= sc.recovery.max_restarts) {
      set_state(j, JobState::Abandoned);
      jr.state = "abandoned";
      jr.end = t;
      decide(t, "abandon", spec.name, {},
             "restarted " + std::to_string(jr.restarts) + " times, the limit (recovery.max_restarts)");
      return;
    }
    ++jr.restarts;
    jr.state = "pending";
    decide(t, "requeue", spec.name, {},
           "at the head of queue " + spec.queue + "; resumes from checkpoint at iteration " +
               std::to_string(rt.checkpoint));
    enqueue(j, t, true);
  }

  // --- events ---------------------------------------------------------------------------------------------------
  void on(const Timer&, Seconds, std::vector<Action>&) {}

  void on(const JobProgress& e, Seconds, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
    jobs[e.job].done = e.iterations;
    rec.jobs[e.job].iterations_done = e.iterations;
    rec.jobs[e.job].measured_iteration = e.iteration_time;
    segment(e.job).reached_iteration = e.iterations;
    segment(e.job).iteration_time = e.iteration_time;
  }

  void on(const CheckpointDone& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
    jobs[e.job].checkpoint = e.iteration;
    JobRecord& jr = rec.jobs[e.job];
    jr.last_checkpoint = e.iteration;
    ++jr.checkpoints;
    jr.checkpoint_times.push_back(now);
    jr.checkpoint_time += e.write_time;
    sched.checkpointed(e.job, now);
  }

  void on(const JobCompleted& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
    JobRuntime& rt = jobs[e.job];
    JobRecord& jr = rec.jobs[e.job];
    set_state(e.job, JobState::Completed);
    rt.done = sc.jobs[e.job].iterations;
    jr.iterations_done = rt.done;
    jr.state = "completed";
    jr.end = now;
    Segment& seg = segment(e.job);
    seg.end = now;
    seg.outcome = "completed";
    seg.reached_iteration = rt.done;
    cluster.release(rt.gpus);
    sched.finished(e.job, now);
    decide(now, "complete", jr.name, node_names(topo, rt.gpus), std::to_string(rt.done) + " iterations");
    rt.gpus.clear();
  }

  void stall(int j, Seconds now, std::int64_t done, const std::string& cause) {
    JobRuntime& rt = jobs[j];
    if (rt.state != JobState::Running) return;
    set_state(j, JobState::Stalled);
    rt.fault_time = now;
    rt.fault_cause = cause;
    rt.done_at_fault = std::max(rt.done, done);
    rt.detect_at = now + sc.recovery.detection_timeout;
    stalled.insert({rt.detect_at, j});
  }

  void on(const JobStalled& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt)) return;
    stall(e.job, now, e.iterations, e.cause);
  }

  void on(const NodeDown& e, Seconds now, std::vector<Action>& out) {
    const std::string& name = topo.nodes()[e.node].name;
    decide(now, "node_down", "", {name}, e.cause);
    cluster.set_up(e.node, false);
    sched.capacity_changed();
    out.push_back(Cordon{e.node, "down: " + e.cause});
    const int gpn = topo.gpus_per_node();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto& g = jobs[j].gpus;
      if (std::any_of(g.begin(), g.end(), [&](int gpu) { return gpu / gpn == e.node; }))
        stall(static_cast<int>(j), now, jobs[j].done, "node " + name + " down (" + e.cause + ")");
    }
  }

  void on(const NodeUp& e, Seconds now, std::vector<Action>& out) {
    decide(now, "node_up", "", {topo.nodes()[e.node].name}, "repaired, back in service");
    cluster.set_up(e.node, true);
    sched.capacity_changed();
    out.push_back(Uncordon{e.node});
  }

  void on(const LinkDown& e, Seconds now, std::vector<Action>&) {
    decide(now, "link_down", "", {}, "link " + topo.graph()[topo.edges()[e.link]].name + " down");
  }

  void on(const LinkUp& e, Seconds now, std::vector<Action>&) {
    decide(now, "link_up", "", {}, "link " + topo.graph()[topo.edges()[e.link]].name + " repaired");
  }

  // --- scheduling -----------------------------------------------------------------------------------------------
  void schedule(Seconds now, std::vector<Action>& out) {
    ScheduleResult result = sched.schedule(now, cluster);
    for (auto& p : result.preemptions) preempt(p, now, out);
    for (auto& start : result.starts) launch(start.job, std::move(start.gpus), now, out);
    for (auto& wait : result.waits) {
      close_wait(wait.job, now);
      jobs[wait.job].wait_kind = wait.reason.kind;
      decide(now, "pending", sc.jobs[wait.job].name, {}, describe(wait.reason, job_names, queue_names));
    }
  }

  void preempt(const ScheduleResult::Preemption& p, Seconds now, std::vector<Action>& out) {
    const int j = p.victim;
    JobRuntime& rt = jobs[j];
    JobRecord& jr = rec.jobs[j];
    const JobSpec& by = sc.jobs[p.preemptor];
    const bool reclaim = by.queue != sc.jobs[j].queue;
    decide(now, "preempt", sc.jobs[j].name, node_names(topo, p.gpus),
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
    jr.state = "pending";
    ++jr.preemptions;
    // The scheduler has requeued it at the head of its queue; mirror that here.
    set_state(j, JobState::Pending);
    rt.enqueued = now;
    rt.wait_kind = WaitKind::None;
    rt.wait_since = now;
    sched.set_remaining(j, remaining_runtime(j, rt.checkpoint));
  }

  void launch(int j, std::vector<int> gpus, Seconds now, std::vector<Action>& out) {
    JobRuntime& rt = jobs[j];
    const JobSpec& spec = sc.jobs[j];
    JobRecord& jr = rec.jobs[j];
    close_wait(j, now);
    set_state(j, JobState::Running);
    rt.gpus = gpus;
    ++rt.attempt;
    jr.state = "running";
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
    if (spec.checkpoint_every) {
      l.checkpoint_every = *spec.checkpoint_every;
    } else if (spec.checkpoint_interval) {
      l.checkpoint_every = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::llround(*spec.checkpoint_interval / l.plan.predicted_iteration)));
    }
    jr.predicted_iteration = l.plan.predicted_iteration;
    if (jr.measured_iteration.value == 0) jr.measured_iteration = l.plan.predicted_iteration;
    if (!spec.estimated_runtime) {
      rt.iteration_estimate = l.plan.predicted_iteration;
      sched.set_estimated_end(
          j, now + l.startup + l.plan.predicted_iteration * static_cast<double>(spec.iterations - rt.checkpoint));
    }

    Segment seg;
    seg.attempt = rt.attempt;
    seg.start = now;
    seg.nodes = node_names(topo, l.gpus);
    seg.start_iteration = rt.checkpoint;
    seg.reached_iteration = rt.checkpoint;
    seg.iteration_time = l.plan.predicted_iteration;
    std::string groups = std::to_string(count_groups(l.gpus)) + " leaf group(s)";
    decide(now, "launch", spec.name, seg.nodes,
           (rt.attempt == 1 ? std::string("start") : "restart " + std::to_string(rt.attempt - 1)) + " from iteration " +
               std::to_string(rt.checkpoint) + " on " + std::to_string(spec.gpus) + " GPUs in " + groups +
               "; predicted iteration " + format_seconds(l.plan.predicted_iteration) +
               (l.checkpoint_every ? ", checkpoint every " + std::to_string(l.checkpoint_every) + " iterations"
                                   : std::string(", no checkpoints")));
    jr.segments.push_back(std::move(seg));
    out.push_back(std::move(l));
  }

  int count_groups(const std::vector<int>& gpus) const {
    std::vector<int> groups;
    for (int gpu : gpus) groups.push_back(cluster.group_of(gpu / topo.gpus_per_node()));
    std::sort(groups.begin(), groups.end());
    return static_cast<int>(std::unique(groups.begin(), groups.end()) - groups.begin());
  }

  std::optional<Seconds> next_deadline() const {
    std::optional<Seconds> best;
    auto consider = [&](Seconds t) {
      if (!best || t < *best) best = t;
    };
    if (next_submit < submit_order.size()) consider(sc.jobs[submit_order[next_submit]].submit);
    if (!stalled.empty()) consider(stalled.begin()->first);
    if (auto t = sched.next_deadline()) consider(*t);
    return best;
  }

  bool done() const { return ended == static_cast<int>(jobs.size()); }

  void finish(Seconds now) {
    if (finished) return;
    finished = true;
    rec.end_time = now;
    double allocated = 0, productive = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      JobRecord& jr = rec.jobs[j];
      if (jobs[j].state == JobState::Running || jobs[j].state == JobState::Stalled) {
        segment(static_cast<int>(j)).end = now;
        segment(static_cast<int>(j)).outcome = "unfinished";
      }
      if (jr.state != "completed" && jr.state != "abandoned") jr.state = "unfinished";
      if (jobs[j].state == JobState::Pending) {
        jr.wait += now - jobs[j].enqueued;
        close_wait(static_cast<int>(j), now);
      }
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
    }
    double capacity = static_cast<double>(rec.total_gpus) * now.value;
    rec.gpu_utilization = capacity > 0 ? allocated / capacity : 0;
    rec.goodput = capacity > 0 ? productive / capacity : 0;
    rec.checks = evaluate_checks(sc.checks, rec);
  }

  std::vector<Action> handle(const Event& event, Seconds now) {
    assert(!finished);
    std::vector<Action> out;
    run_due(now, out);
    std::visit([&](const auto& e) { on(e, now, out); }, event);
    schedule(now, out);
    sample(now);
    return out;
  }
};

Controller::Controller(const Scenario& scenario) : Controller(scenario, plan_iteration) {}
Controller::Controller(const Scenario& scenario, Planner planner)
    : impl_(std::make_unique<Impl>(scenario, std::move(planner))) {}
Controller::~Controller() = default;
std::vector<Action> Controller::handle(const Event& event, Seconds now) { return impl_->handle(event, now); }
std::optional<Seconds> Controller::next_deadline() const { return impl_->next_deadline(); }
bool Controller::done() const { return impl_->done(); }
void Controller::finish(Seconds now) { impl_->finish(now); }
const RunRecord& Controller::record() const { return impl_->rec; }
std::string Controller::pending_reason(int job) const {
  if (!impl_->sched.is_pending(job)) return "";
  return describe(impl_->sched.reason(job), impl_->job_names, impl_->queue_names);
}
const std::vector<int>& Controller::queue_usage() const { return impl_->sched.usage().used; }
const std::vector<int>& Controller::job_gpus(int job) const { return impl_->jobs[job].gpus; }
void Controller::set_driver(std::string name, std::map<std::string, std::string> info) {
  impl_->rec.driver = std::move(name);
  impl_->rec.driver_info = std::move(info);
}

}  // namespace tt
