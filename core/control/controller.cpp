#include "core/control/controller.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <set>
#include <unordered_map>

#include "core/control/checks.hpp"
#include "core/control/telemetry.hpp"
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
  std::vector<std::int64_t> retained;  // completed checkpoints still on storage, oldest first (retention applied)
  Seconds enqueued;
  Seconds fault_time;
  std::string fault_cause;
  std::int64_t done_at_fault = 0;
  Seconds detect_at;
  std::string fault_kind;
  Detector detector = Detector::Heartbeat;
  std::vector<int> fault_links;
  int open_failure = -1;  // index in JobRecord::failures awaiting its recovery time
  WaitKind wait_kind = WaitKind::None;  // the kind of the reason it waits for, since wait_since
  Seconds wait_since;
  Seconds iteration_estimate;  // before the first launch: planned on a packed placement; then as planned
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

// What a Planner reads from a job (controller.hpp), as bytes.
std::string plan_key(const JobSpec& j) {
  std::string k = j.model.name;
  auto put = [&k](auto v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); };
  for (int v : {j.model.layers, j.model.hidden, j.model.heads, j.model.kv_heads, j.model.ffn_hidden, j.model.vocab,
                j.parallel.tp, j.parallel.pp, j.parallel.dp, j.gpus, j.global_batch, j.seq_len})
    put(v);
  put(j.model.gated_mlp);
  put(j.model.tied_embeddings);
  return k;
}

}  // namespace

struct Controller::Impl {
  const Scenario& sc;
  const Topology& topo;
  Planner planner;
  // Packed-placement iteration estimates by what a plan depends on in the job (plan_key()): thousands of generated
  // jobs share a few dozen model, parallelism and batch combinations.
  std::unordered_map<std::string, Seconds> estimates;
  ClusterState cluster;
  Scheduler sched;
  RunRecord rec;
  ControllerTelemetry telemetry;  // metrics, samples and alerts (core/control/telemetry.hpp)
  std::vector<JobRuntime> jobs;
  std::vector<std::string> job_names, queue_names;
  std::vector<int> submit_order;  // job indices by submit time
  std::size_t next_submit = 0;
  std::set<std::pair<Seconds, int>> stalled;  // (detect_at, job)
  int running = 0, pending = 0, ended = 0;    // Running or Stalled; Pending; Completed or Abandoned
  bool finished = false;
  // Fault handling (core/fault): availability of nodes, spares, lemons.
  DetectionRules rules;
  LemonPolicy lemon;
  std::vector<int> node_out;                    // faults keeping each node out (crash, GPU, NIC cable)
  std::vector<bool> spare, drained;
  std::vector<std::vector<Seconds>> node_failures;
  std::vector<LinkFailure> link_failures;

  Impl(const Scenario& s, Planner p)
      : sc(s),
        topo(s.topology),
        planner(std::move(p)),
        cluster(s.topology),
        sched(s.queues, s.scheduler, sched_jobs(s)),
        telemetry(s, rec),
        rules(s.recovery),
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
    if (sc.recovery.hot_spares > 0) sched.capacity_changed();
    rec.detection = {{"heartbeat_s", sc.recovery.detection_timeout.value},
                     {"comm_timeout_s", sc.recovery.comm_timeout.value},
                     {"watchdog_s", sc.recovery.watchdog_timeout.value},
                     {"restart_overhead_s", sc.recovery.restart_overhead.value}};
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
    telemetry.refresh(Seconds(0), cluster_view(), [this](int j) { return job_view(j); });
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
      auto [it, fresh] = estimates.try_emplace(plan_key(spec));
      if (fresh) {
        std::vector<int> packed(spec.gpus);
        for (int i = 0; i < spec.gpus; ++i) packed[i] = i;
        it->second = planner(spec, topo, packed, sc.perf).predicted_iteration;
      }
      rt.iteration_estimate = it->second;
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
  void on(const NetworkSample& e, Seconds, std::vector<Action>&) { telemetry.network(e); }

  ClusterView cluster_view() const {
    ClusterView v{cluster.allocated_gpus(), 0, cluster.up_gpus(), running, pending, 0};
    for (std::size_t j = 0; j < jobs.size(); ++j)
      if (jobs[j].state == JobState::Running) v.gpus_busy += sc.jobs[j].gpus;
    for (int out : node_out) v.nodes_down += out > 0;
    return v;
  }

  JobView job_view(int j) const {
    const JobRuntime& rt = jobs[j];
    const bool placed = rt.state == JobState::Running || rt.state == JobState::Stalled;
    const bool silent = rt.state == JobState::Stalled && rt.detector == Detector::Heartbeat;
    return JobView{placed, placed && !silent, rt.state == JobState::Pending, rt.enqueued};
  }

  void step_telemetry(Seconds now, std::vector<Action>& out) {
    telemetry.step(now, cluster_view(), [this](int j) { return job_view(j); }, out);
  }

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
    auto& retained = jobs[e.job].retained;
    retained.push_back(e.iteration);
    if (keep > 0 && static_cast<int>(retained.size()) > keep) retained.erase(retained.begin());
    sched.checkpointed(e.job, now);
  }

  // The newest retained checkpoint is lost: the next restore falls back to the one before (or to the start). A job
  // already waiting to restart from it loses the difference too, charged to the failure it waits on.
  void on(const CheckpointCorrupted& e, Seconds now, std::vector<Action>&) {
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

  void stall(int j, Seconds now, std::int64_t done, const std::string& cause, const std::string& kind,
             Detector detector, std::vector<int> links = {}) {
    JobRuntime& rt = jobs[j];
    if (rt.state != JobState::Running || detector == Detector::None) return;
    set_state(j, JobState::Stalled);
    rt.fault_time = now;
    rt.fault_cause = cause;
    rt.fault_kind = kind;
    rt.detector = detector;
    rt.fault_links = std::move(links);
    rt.done_at_fault = std::max(rt.done, done);
    rt.detect_at = now + rules.time_to_detect(detector);
    stalled.insert({rt.detect_at, j});
  }

  void on(const JobStalled& e, Seconds now, std::vector<Action>&) {
    telemetry.fault(now);
    if (stale(e.job, e.attempt)) return;
    stall(e.job, now, e.iterations, e.cause, e.kind.empty() ? "unknown" : e.kind, e.detector, e.links);
  }

  void on(const JobResumed& e, Seconds now, std::vector<Action>&) {
    if (stale(e.job, e.attempt) || jobs[e.job].state != JobState::Stalled) return;
    JobRuntime& rt = jobs[e.job];
    stalled.erase({rt.detect_at, e.job});
    set_state(e.job, JobState::Running);
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
    sched.capacity_changed();
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
    telemetry.fault(now);
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
    telemetry.fault(now);
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
    if (!stalled.empty()) consider(stalled.begin()->first);
    if (auto t = sched.next_deadline()) consider(*t);
    if (auto t = telemetry.next_deadline(running > 0)) consider(*t);
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
    rec.checks = evaluate_checks(sc.checks, rec);
  }

  std::vector<Action> handle(const Event& event, Seconds now) {
    assert(!finished);
    std::vector<Action> out;
    run_due(now, out);
    std::visit([&](const auto& e) { on(e, now, out); }, event);
    schedule(now, out);
    sample(now);
    step_telemetry(now, out);
    return out;
  }
};

namespace {

// plan_iteration() with one CommPlanner for every plan: routes between the same GPUs are worked out once.
Planner caching_planner(const Scenario& s) {
  auto planner = std::make_shared<const CommPlanner>(s.topology, comm_constants(s.topology.gpu(), s.perf.comm));
  const PerfConstants* perf = &s.perf;
  return [planner, perf](const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                         const PerfConstants& k) {
    if (&topo != &planner->topology() || &k != perf) return plan_iteration(job, topo, gpus, k);
    return plan_iteration(job, topo, gpus, k, *planner);
  };
}

}  // namespace

Controller::Controller(const Scenario& scenario) : Controller(scenario, caching_planner(scenario)) {}
Controller::Controller(const Scenario& scenario, Planner planner)
    : impl_(std::make_unique<Impl>(scenario, std::move(planner))) {}
Controller::~Controller() = default;
std::vector<Action> Controller::handle(const Event& event, Seconds now) { return impl_->handle(event, now); }
std::optional<Seconds> Controller::next_deadline() const { return impl_->next_deadline(); }
bool Controller::network_sample_due(Seconds now) const { return impl_->telemetry.sample_due(now); }
bool Controller::done() const { return impl_->done(); }
void Controller::finish(Seconds now) { impl_->finish(now); }
const RunRecord& Controller::record() const { return impl_->rec; }
std::string Controller::pending_reason(int job) const {
  if (!impl_->sched.is_pending(job)) return "";
  return describe(impl_->sched.reason(job), impl_->job_names, impl_->queue_names);
}
const std::vector<int>& Controller::queue_usage() const { return impl_->sched.usage().used; }
const std::vector<int>& Controller::job_gpus(int job) const { return impl_->jobs[job].gpus; }
void Controller::set_live_metrics(bool live) { impl_->telemetry.set_live(live); }

void Controller::set_driver(std::string name, std::map<std::string, std::string> info) {
  impl_->rec.driver = std::move(name);
  impl_->rec.driver_info = std::move(info);
}

}  // namespace tt
