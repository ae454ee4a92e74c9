#include "core/control/controller_impl.hpp"

#include <algorithm>
#include <cmath>

namespace tt {

void Controller::Impl::detect_failure(int j, std::vector<Action>& out) {
  JobRuntime& rt = jobs[j];
  const JobSpec& spec = sc.jobs[j];
  JobRecord& jr = rec.jobs[j];
  const Seconds t = rt.detect_at;
  const std::vector<int> gpus = rt.gpus;
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
  if (!rollout_copy(j)) swap_in_spares(j, t, out);

  Segment& seg = segment(j);
  seg.end = t;
  seg.outcome = "failed";
  seg.reached_iteration = std::max(seg.reached_iteration, rt.done_at_fault);
  cluster.release(rt.gpus);
  if (!rollout_copy(j)) sched.finished(j, t);
  rt.gpus.clear();
  rt.done = rt.checkpoint;
  jr.iterations_done = rt.checkpoint;

  if (jr.restarts >= sc.recovery.max_restarts) {
    set_state(j, JobState::Abandoned);
    jr.end = t;
    decide(t, "abandon", spec.name, {},
           "restarted " + std::to_string(jr.restarts) + " times, the limit (recovery.max_restarts)");
    return;
  }
  ++jr.restarts;
  if (rollout_copy(j)) {  // the rollout's copies restart on their own nodes, outside the queues
    std::vector<int> nodes;
    for (int gpu : gpus)
      if (nodes.empty() || nodes.back() != gpu / topo.gpus_per_node()) nodes.push_back(gpu / topo.gpus_per_node());
    set_state(j, JobState::Pending);
    const auto out_node = std::find_if(nodes.begin(), nodes.end(), [&](int n) { return node_out[n] > 0; });
    if (out_node != nodes.end()) {  // relaunched by rollout_relaunch_waiting when its nodes are back
      ro.waiting_copies[j] = nodes;
      decide(t, "relaunch", spec.name, node_names(topo, gpus),
             "a rollout copy restarts on its nodes once " + topo.nodes()[*out_node].name +
                 " is back; resumes from checkpoint at iteration " + std::to_string(rt.checkpoint));
      return;
    }
    decide(t, "relaunch", spec.name, node_names(topo, gpus),
           "a rollout copy restarts on its nodes; resumes from checkpoint at iteration " +
               std::to_string(rt.checkpoint));
    rollout_launch_copy(j, nodes, t, out);
    return;
  }
  decide(t, "requeue", spec.name, {},
         "at the head of queue " + spec.queue + "; resumes from checkpoint at iteration " +
             std::to_string(rt.checkpoint));
  enqueue(j, t, true);
}

// The job stopped at `since` showing `seen`: the detection rule for that symptom declares it failed after its
// timeout, counted from `since` (never before now: a driver may report a silence late). A stalled job reported
// stopped earlier than first known (a node death held during a control-plane outage, core/drive/drive_loop.hpp) keeps
// its cause; its fault time, and so its detection, move back.
void Controller::Impl::stall(int j, Seconds now, Seconds since, std::int64_t done, const std::string& cause,
           std::optional<FaultKind> kind, Symptom seen, std::vector<int> links) {
  JobRuntime& rt = jobs[j];
  if (rt.state == JobState::Stalled && since < rt.fault_time) {
    stalled.erase({rt.detect_at, j});
    rt.fault_time = since;
    rt.detect_at = std::max(now, rt.fault_time + rules.time_to_detect(rt.detector));
    stalled.insert({rt.detect_at, j});
    return;
  }
  const Detector detector = detector_for(seen);
  if (rt.state != JobState::Running || detector == Detector::None) return;
  set_state(j, JobState::Stalled);
  rt.fault_time = std::min(since, now);
  rt.fault_cause = cause;
  rt.fault_kind = kind ? to_string(*kind) : "unknown";
  rt.detector = detector;
  rt.fault_links = std::move(links);
  rt.done_at_fault = std::max(rt.done, done);
  rt.detect_at = std::max(now, rt.fault_time + rules.time_to_detect(detector));
  stalled.insert({rt.detect_at, j});
}

void Controller::Impl::on(const JobStalled& e, Seconds now, std::vector<Action>&) {
  telemetry.fault(now);
  if (stale(e.job, e.attempt)) return;
  stall(e.job, now, e.since.value_or(now), e.iterations, e.cause, e.kind, e.seen, e.links);
}

void Controller::Impl::on(const JobResumed& e, Seconds now, std::vector<Action>&) {
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
void Controller::Impl::refresh_node(int n, Seconds now, const std::string& reason, std::vector<Action>& out) {
  const bool up = node_out[n] == 0 && !spare[n] && !drained[n] && !gated[n] && !held[n] && !unprovisioned[n] &&
                  slot_takes_work(n);
  if (up == cluster.schedulable(n)) return;
  cluster.set_up(n, up);
  sched.capacity_changed();
  if (up)
    out.emplace_back(std::in_place_type<Uncordon>, Uncordon{n});
  else
    out.emplace_back(std::in_place_type<Cordon>, Cordon{n, reason});
}

void Controller::Impl::node_failed(int n, Seconds now, std::vector<Action>& out) {
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
void Controller::Impl::swap_in_spares(int j, Seconds now, std::vector<Action>& out) {
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

void Controller::Impl::add_out(int n, int delta) {
  const bool was = node_out[n] > 0;
  node_out[n] = std::max(0, node_out[n] + delta);
  nodes_down += (node_out[n] > 0) - was;
}

void Controller::Impl::on(const NodeDown& e, Seconds now, std::vector<Action>& out) {
  const std::string& name = topo.nodes()[e.node].name;
  const bool one_gpu = e.gpu >= 0;
  const std::string cause = to_string(e.kind);
  ++rec.faults_injected[cause];
  telemetry.fault(now);
  decide(now, "node_down", "", {name},
         one_gpu ? cause + " of " + topo.graph()[topo.gpu_vertex(e.node, e.gpu % topo.gpus_per_node())].name
                 : cause);
  add_out(e.node, +1);
  node_failed(e.node, now, out);
  refresh_node(e.node, now, "down: " + cause, out);
  const int gpn = topo.gpus_per_node();
  for (std::size_t j = 0; j < jobs.size(); ++j) {
    const auto& g = jobs[j].gpus;
    const bool hit = one_gpu ? std::find(g.begin(), g.end(), e.gpu) != g.end()
                             : std::any_of(g.begin(), g.end(), [&](int gpu) { return gpu / gpn == e.node; });
    if (hit)
      stall(static_cast<int>(j), now, now, jobs[j].done,
            (one_gpu ? "GPU " + std::to_string(e.gpu % gpn) + " of node " + name : "node " + name) + " down (" +
                cause + ")",
            e.kind, Symptom::Silent);
  }
}

void Controller::Impl::on(const NodeUp& e, Seconds now, std::vector<Action>& out) {
  const int n = e.node;
  add_out(n, -1);
  std::string what = "repaired, back in service";
  if (drained[n]) {
    what = "repaired, but drained (lemon node)";
  } else if (node_out[n] == 0 && std::count(spare.begin(), spare.end(), true) < sc.recovery.hot_spares) {
    spare[n] = true;
    what = "repaired, back in the hot-spare pool";
  }
  decide(now, "node_up", "", {topo.nodes()[n].name}, what);
  refresh_node(n, now, spare[n] ? "hot spare" : "drained", out);
  rollout_relaunch_waiting(now, out);
}

// The node a NIC cable serves, or -1 (fabric, NVLink, storage cables keep no node out).
int Controller::Impl::nic_node(int link) const {
  if (topo.link(link).kind != LinkKind::Nic) return -1;
  const auto& g = topo.graph();
  const EdgeId e = topo.edges()[link];
  for (VertexId v : {boost::source(e, g), boost::target(e, g)})
    if (g[v].kind == VertexKind::Gpu) return g[v].node;
  return -1;
}

void Controller::Impl::on(const LinkDown& e, Seconds now, std::vector<Action>& out) {
  ++rec.faults_injected["link_down"];
  telemetry.fault(now);
  decide(now, "link_down", "", {}, "link " + topo.link(e.link).name + " down");
  if (int n = nic_node(e.link); n >= 0) {
    add_out(n, +1);
    refresh_node(n, now, "NIC link " + topo.link(e.link).name + " down", out);
  }
}

void Controller::Impl::on(const LinkUp& e, Seconds now, std::vector<Action>& out) {
  decide(now, "link_up", "", {}, "link " + topo.link(e.link).name + " repaired");
  if (int n = nic_node(e.link); n >= 0) {
    add_out(n, -1);
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

}  // namespace tt
