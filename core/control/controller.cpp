#include "core/control/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

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
  std::int64_t order = 0;
  Seconds enqueued;
  Seconds fault_time;
  std::string fault_cause;
  std::int64_t done_at_fault = 0;
  Seconds detect_at;
  std::string pending_reason;
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

}  // namespace

struct Controller::Impl {
  const Scenario& sc;
  const Topology& topo;
  ClusterState cluster;
  PriorityFifoScheduler scheduler;
  RunRecord rec;
  std::vector<JobRuntime> jobs;
  std::vector<int> submit_order;  // job indices by submit time
  std::size_t next_submit = 0;
  std::int64_t next_order = 1;
  std::int64_t next_head_order = std::numeric_limits<std::int64_t>::min() / 2;  // requeued jobs go before submitted
  bool finished = false;

  explicit Impl(const Scenario& s) : sc(s), topo(s.topology), cluster(s.topology) {
    rec.scenario = sc.name;
    rec.scenario_file = sc.source_file;
    rec.seed = sc.seed;
    rec.total_gpus = topo.total_gpus();
    jobs.resize(sc.jobs.size());
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
      for (std::size_t q = 0; q < sc.queues.size(); ++q)
        if (sc.queues[q].name == spec.queue) jobs[i].queue = static_cast<int>(q);
      submit_order.push_back(static_cast<int>(i));
    }
    std::stable_sort(submit_order.begin(), submit_order.end(),
                     [&](int a, int b) { return sc.jobs[a].submit < sc.jobs[b].submit; });
    sample(Seconds(0));
  }

  void decide(Seconds t, std::string kind, std::string job, std::vector<std::string> nodes, std::string reason) {
    rec.decisions.push_back(Decision{t, std::move(kind), std::move(job), std::move(nodes), std::move(reason)});
  }

  void sample(Seconds now) {
    Sample s{now, cluster.allocated_gpus(), cluster.up_gpus(), 0, 0};
    for (const auto& j : jobs) {
      s.jobs_running += j.state == JobState::Running || j.state == JobState::Stalled;
      s.jobs_pending += j.state == JobState::Pending;
    }
    if (!rec.series.empty()) {
      Sample& last = rec.series.back();
      bool same = last.gpus_allocated == s.gpus_allocated && last.gpus_up == s.gpus_up &&
                  last.jobs_running == s.jobs_running && last.jobs_pending == s.jobs_pending;
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

  // --- timers ---------------------------------------------------------------------------------------------------
  void run_due(Seconds now, std::vector<Action>& out) {
    while (next_submit < submit_order.size() && sc.jobs[submit_order[next_submit]].submit <= now) {
      int j = submit_order[next_submit++];
      jobs[j].state = JobState::Pending;
      jobs[j].order = next_order++;
      jobs[j].enqueued = sc.jobs[j].submit;
      decide(sc.jobs[j].submit, "submit", sc.jobs[j].name, {},
             "queue " + sc.jobs[j].queue + ", priority " + std::to_string(sc.jobs[j].priority) + ", " +
                 std::to_string(sc.jobs[j].gpus) + " GPUs");
    }
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].state == JobState::Stalled && jobs[j].detect_at <= now) detect_failure(static_cast<int>(j), out);
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
    rt.gpus.clear();
    rt.done = rt.checkpoint;
    jr.iterations_done = rt.checkpoint;

    if (jr.restarts >= sc.recovery.max_restarts) {
      rt.state = JobState::Abandoned;
      jr.state = "abandoned";
      jr.end = t;
      decide(t, "abandon", spec.name, {},
             "restarted " + std::to_string(jr.restarts) + " times, the limit (recovery.max_restarts)");
      return;
    }
    ++jr.restarts;
    rt.state = JobState::Pending;
    rt.order = next_head_order++;
    rt.enqueued = t;
    jr.state = "pending";
    decide(t, "requeue", spec.name, {},
           "at the head of queue " + spec.queue + "; resumes from checkpoint at iteration " +
               std::to_string(rt.checkpoint));
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
  }

  void on(const JobCompleted& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Running) return;
    JobRuntime& rt = jobs[e.job];
    JobRecord& jr = rec.jobs[e.job];
    rt.state = JobState::Completed;
    rt.done = sc.jobs[e.job].iterations;
    jr.iterations_done = rt.done;
    jr.state = "completed";
    jr.end = now;
    Segment& seg = segment(e.job);
    seg.end = now;
    seg.outcome = "completed";
    seg.reached_iteration = rt.done;
    cluster.release(rt.gpus);
    decide(now, "complete", jr.name, node_names(topo, rt.gpus), std::to_string(rt.done) + " iterations");
    rt.gpus.clear();
  }

  void stall(int j, Seconds now, std::int64_t done, const std::string& cause) {
    JobRuntime& rt = jobs[j];
    if (rt.state != JobState::Running) return;
    rt.state = JobState::Stalled;
    rt.fault_time = now;
    rt.fault_cause = cause;
    rt.done_at_fault = std::max(rt.done, done);
    rt.detect_at = now + sc.recovery.detection_timeout;
  }

  void on(const JobStalled& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt)) return;
    stall(e.job, now, e.iterations, e.cause);
  }

  void on(const NodeDown& e, Seconds now, std::vector<Action>& out) {
    const std::string& name = topo.nodes()[e.node].name;
    decide(now, "node_down", "", {name}, e.cause);
    cluster.set_up(e.node, false);
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
    std::vector<PendingJob> pending;
    QueueUsage usage;
    for (const auto& q : sc.queues) {
      usage.names.push_back(q.name);
      usage.quota.push_back(q.gpu_quota);
      usage.used.push_back(0);
    }
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const JobRuntime& rt = jobs[j];
      if (rt.state == JobState::Running || rt.state == JobState::Stalled) usage.used[rt.queue] += sc.jobs[j].gpus;
      if (rt.state == JobState::Pending)
        pending.push_back({static_cast<int>(j), &sc.jobs[j].name, sc.jobs[j].priority, sc.jobs[j].gpus, rt.queue,
                           rt.order});
    }
    if (pending.empty()) return;
    ScheduleResult result = scheduler.schedule(std::move(pending), cluster, std::move(usage));
    for (auto& start : result.starts) launch(start.job, std::move(start.gpus), now, out);
    for (auto& wait : result.waits) {
      JobRuntime& rt = jobs[wait.job];
      if (rt.pending_reason == wait.reason) continue;
      rt.pending_reason = wait.reason;
      decide(now, "pending", sc.jobs[wait.job].name, {}, wait.reason);
    }
  }

  void launch(int j, std::vector<int> gpus, Seconds now, std::vector<Action>& out) {
    JobRuntime& rt = jobs[j];
    const JobSpec& spec = sc.jobs[j];
    JobRecord& jr = rec.jobs[j];
    cluster.allocate(gpus);
    rt.state = JobState::Running;
    rt.gpus = gpus;
    rt.pending_reason.clear();
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
    l.plan = plan_iteration(spec, topo, l.gpus, sc.perf);
    if (spec.checkpoint_every) {
      l.checkpoint_every = *spec.checkpoint_every;
    } else if (spec.checkpoint_interval) {
      l.checkpoint_every = std::max<std::int64_t>(
          1, static_cast<std::int64_t>(std::llround(*spec.checkpoint_interval / l.plan.predicted_iteration)));
    }
    jr.predicted_iteration = l.plan.predicted_iteration;
    if (jr.measured_iteration.value == 0) jr.measured_iteration = l.plan.predicted_iteration;

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
    for (const auto& rt : jobs)
      if (rt.state == JobState::Stalled) consider(rt.detect_at);
    return best;
  }

  bool done() const {
    return std::all_of(jobs.begin(), jobs.end(), [](const JobRuntime& rt) {
      return rt.state == JobState::Completed || rt.state == JobState::Abandoned;
    });
  }

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
      if (jobs[j].state == JobState::Pending) jr.wait += now - jobs[j].enqueued;
      // Iterations of a segment count only up to where the next attempt resumed (the rest was rolled back).
      for (std::size_t s = 0; s < jr.segments.size(); ++s) {
        const Segment& seg = jr.segments[s];
        std::int64_t kept_until =
            s + 1 < jr.segments.size() ? std::min(seg.reached_iteration, jr.segments[s + 1].start_iteration)
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

Controller::Controller(const Scenario& scenario) : impl_(std::make_unique<Impl>(scenario)) {}
Controller::~Controller() = default;
std::vector<Action> Controller::handle(const Event& event, Seconds now) { return impl_->handle(event, now); }
std::optional<Seconds> Controller::next_deadline() const { return impl_->next_deadline(); }
bool Controller::done() const { return impl_->done(); }
void Controller::finish(Seconds now) { impl_->finish(now); }
const RunRecord& Controller::record() const { return impl_->rec; }
void Controller::set_driver(std::string name, std::map<std::string, std::string> info) {
  impl_->rec.driver = std::move(name);
  impl_->rec.driver_info = std::move(info);
}

}  // namespace tt
