#include "core/control/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>

#include "core/control/checks.hpp"
#include "core/fault/detection.hpp"
#include "core/fault/recovery.hpp"
#include "core/fault/stochastic.hpp"
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
  std::string fault_kind;
  Detector detector = Detector::Heartbeat;
  std::vector<int> fault_links;
  int open_failure = -1;  // index in JobRecord::failures awaiting its recovery time
};

// A failure declared on links: false if they come back within the restart overhead of the declaration.
struct LinkFailure {
  int job;
  int failure;
  std::vector<int> links;
  Seconds detected;
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
  // Fault handling (core/fault): availability of nodes, spares, lemons.
  DetectionRules rules;
  LemonPolicy lemon;
  std::vector<int> node_out;                    // faults keeping each node out (crash, GPU, NIC cable)
  std::vector<bool> spare, drained;
  std::vector<std::vector<Seconds>> node_failures;
  std::vector<LinkFailure> link_failures;

  explicit Impl(const Scenario& s)
      : sc(s), topo(s.topology), cluster(s.topology), rules(s.recovery),
        lemon(s.recovery.lemon_failures, s.recovery.lemon_window) {
    const int nodes = static_cast<int>(topo.nodes().size());
    node_out.assign(nodes, 0);
    spare.assign(nodes, false);
    drained.assign(nodes, false);
    node_failures.resize(nodes);
    for (int n = nodes - 1, k = 0; n >= 0 && k < sc.recovery.hot_spares; --n, ++k) {
      spare[n] = true;
      cluster.set_up(n, false);
    }
    rec.detection = {{"heartbeat_s", sc.recovery.detection_timeout.value},
                     {"comm_timeout_s", sc.recovery.comm_timeout.value},
                     {"watchdog_s", sc.recovery.watchdog_timeout.value},
                     {"restart_overhead_s", sc.recovery.restart_overhead.value}};
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
    f.kind = rt.fault_kind;
    f.detector = to_string(rt.detector);
    f.fault_time = rt.fault_time;
    f.detect_time = t;
    f.lost_iterations = std::max<std::int64_t>(0, rt.done_at_fault - rt.checkpoint);
    const LostWork lost =
        lost_work(f.lost_iterations, jr.measured_iteration, t - rt.fault_time, sc.recovery.restart_overhead);
    f.lost_progress = lost.progress;
    f.lost_detection = lost.detection;
    f.lost_restart = lost.restart;
    f.lost_gpu_hours = lost.gpu_hours(spec.gpus);
    jr.lost_gpu_hours += f.lost_gpu_hours;
    jr.failures.push_back(f);
    rt.open_failure = static_cast<int>(jr.failures.size()) - 1;
    if (rt.detector == Detector::Communication && !rt.fault_links.empty())
      link_failures.push_back({j, rt.open_failure, rt.fault_links, t});
    swap_in_spares(j, t, out);

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
    jr.checkpoint_write_times.push_back(e.duration);
    const int keep = sc.jobs[e.job].checkpoint_keep;
    jr.checkpoints_retained = keep > 0 ? std::min(keep, jr.checkpoints) : jr.checkpoints;
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

  void stall(int j, Seconds now, std::int64_t done, const std::string& cause, const std::string& kind,
             Detector detector, std::vector<int> links = {}) {
    JobRuntime& rt = jobs[j];
    if (rt.state != JobState::Running || detector == Detector::None) return;
    rt.state = JobState::Stalled;
    rt.fault_time = now;
    rt.fault_cause = cause;
    rt.fault_kind = kind;
    rt.detector = detector;
    rt.fault_links = std::move(links);
    rt.done_at_fault = std::max(rt.done, done);
    rt.detect_at = now + rules.time_to_detect(detector);
  }

  void on(const JobStalled& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt)) return;
    stall(e.job, now, e.iterations, e.cause, e.kind.empty() ? "unknown" : e.kind, e.detector, e.links);
  }

  void on(const JobResumed& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Stalled) return;
    JobRuntime& rt = jobs[e.job];
    rt.state = JobState::Running;
    ++rec.jobs[e.job].flaps_survived;
    decide(now, "resume", sc.jobs[e.job].name, {},
           rt.fault_cause + "; back after " + format_seconds(now - rt.fault_time) +
               ", under the communication timeout of " + format_seconds(sc.recovery.comm_timeout) + ": only slowed");
  }

  // --- node availability: a node takes work when no fault keeps it out and it is neither a spare nor drained ------
  void refresh_node(int n, Seconds now, const std::string& reason, std::vector<Action>& out) {
    const bool up = node_out[n] == 0 && !spare[n] && !drained[n];
    if (up == cluster.schedulable(n)) return;
    cluster.set_up(n, up);
    if (up)
      out.push_back(Uncordon{n});
    else
      out.push_back(Cordon{n, reason});
  }

  void node_failed(int n, Seconds now, std::vector<Action>& out) {
    node_failures[n].push_back(now);
    if (!drained[n] && lemon.drain(node_failures[n], now)) {
      drained[n] = true;
      rec.drained_nodes.push_back(topo.nodes()[n].name);
      decide(now, "drain", "", {topo.nodes()[n].name},
             std::to_string(node_failures[n].size()) + " failures, " + std::to_string(sc.recovery.lemon_failures) +
                 " within " + format_seconds(sc.recovery.lemon_window) + " (recovery.lemon): kept out after repair");
    }
  }

  // A failed job whose nodes are out takes one hot spare per out node into service, instead of waiting for repairs.
  void swap_in_spares(int j, Seconds now, std::vector<Action>& out) {
    std::vector<int> nodes;
    for (int gpu : jobs[j].gpus) nodes.push_back(gpu / topo.gpus_per_node());
    nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
    for (int n : nodes) {
      if (node_out[n] == 0 && !drained[n]) continue;
      auto it = std::find(spare.begin(), spare.end(), true);
      if (it == spare.end()) return;
      const int s = static_cast<int>(it - spare.begin());
      spare[s] = false;
      refresh_node(s, now, "", out);
      decide(now, "spare", sc.jobs[j].name, {topo.nodes()[s].name},
             "hot spare replaces " + topo.nodes()[n].name + " (recovery.hot_spares)");
    }
  }

  void on(const NodeDown& e, Seconds now, std::vector<Action>& out) {
    const std::string& name = topo.nodes()[e.node].name;
    const bool one_gpu = e.gpu >= 0;
    ++rec.faults_injected[e.cause];
    decide(now, "node_down", "", {name},
           one_gpu ? e.cause + " of " + topo.graph()[topo.gpu_vertex(e.node, e.gpu % topo.gpus_per_node())].name
                   : e.cause);
    ++node_out[e.node];
    node_failed(e.node, now, out);
    refresh_node(e.node, now, "down: " + e.cause, out);
    const int gpn = topo.gpus_per_node();
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const auto& g = jobs[j].gpus;
      const bool hit = one_gpu ? std::find(g.begin(), g.end(), e.gpu) != g.end()
                               : std::any_of(g.begin(), g.end(), [&](int gpu) { return gpu / gpn == e.node; });
      if (hit)
        stall(static_cast<int>(j), now, jobs[j].done,
              (one_gpu ? "GPU " + std::to_string(e.gpu % gpn) + " of node " + name : "node " + name) + " down (" +
                  e.cause + ")",
              e.cause, Detector::Heartbeat);
    }
  }

  void on(const NodeUp& e, Seconds now, std::vector<Action>& out) {
    const int n = e.node;
    node_out[n] = std::max(0, node_out[n] - 1);
    std::string what = "repaired, back in service";
    if (drained[n]) {
      what = "repaired, but drained (lemon node)";
    } else if (node_out[n] == 0 && std::count(spare.begin(), spare.end(), true) < sc.recovery.hot_spares) {
      spare[n] = true;
      what = "repaired, back in the hot-spare pool";
    }
    decide(now, "node_up", "", {topo.nodes()[n].name}, what);
    refresh_node(n, now, spare[n] ? "hot spare" : "drained", out);
  }

  // The node a NIC cable serves, or -1 (fabric, NVLink, storage cables keep no node out).
  int nic_node(int link) const {
    if (topo.link(link).kind != LinkKind::Nic) return -1;
    const auto& g = topo.graph();
    const EdgeId e = topo.edges()[link];
    for (VertexId v : {boost::source(e, g), boost::target(e, g)})
      if (g[v].kind == VertexKind::Gpu) return g[v].node;
    return -1;
  }

  void on(const LinkDown& e, Seconds now, std::vector<Action>& out) {
    ++rec.faults_injected["link_down"];
    decide(now, "link_down", "", {}, "link " + topo.link(e.link).name + " down");
    if (int n = nic_node(e.link); n >= 0) {
      ++node_out[n];
      refresh_node(n, now, "NIC link " + topo.link(e.link).name + " down", out);
    }
  }

  void on(const LinkUp& e, Seconds now, std::vector<Action>& out) {
    decide(now, "link_up", "", {}, "link " + topo.link(e.link).name + " repaired");
    if (int n = nic_node(e.link); n >= 0) {
      node_out[n] = std::max(0, node_out[n] - 1);
      refresh_node(n, now, "", out);
    }
    for (auto it = link_failures.begin(); it != link_failures.end();) {
      auto& lf = *it;
      lf.links.erase(std::remove(lf.links.begin(), lf.links.end(), e.link), lf.links.end());
      if (!lf.links.empty()) {
        ++it;
        continue;
      }
      if (now - lf.detected <= sc.recovery.restart_overhead) {
        JobRecord& jr = rec.jobs[lf.job];
        jr.failures[lf.failure].false_failure = true;
        ++jr.false_failures;
        decide(now, "false_failure", jr.name, {},
               "its links are back " + format_seconds(now - lf.detected) +
                   " after it was declared failed, sooner than a restart (" +
                   format_seconds(sc.recovery.restart_overhead) + "): the communication timeout was too aggressive");
      }
      it = link_failures.erase(it);
    }
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
    if (spec.checkpoint_async && l.checkpoint_every) {
      l.checkpoint_async = true;
      l.snapshot = snapshot_stall(l.plan.checkpoint_bytes_per_writer, sc.perf.snapshot_bandwidth);
    }
    jr.checkpoint_async = spec.checkpoint_async;
    jr.checkpoint_bytes = l.plan.checkpoint_bytes_per_writer * static_cast<double>(l.plan.checkpoint_writers.size());
    if (rt.open_failure >= 0) {
      jr.failures[rt.open_failure].recovered_time = now + l.startup;
      rt.open_failure = -1;
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

  // Per job: failures by kind, checkpoint overhead, the interval used and Young/Daly's beside it.
  void finish_failures(int j, Seconds now) {
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
