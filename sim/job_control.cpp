#include "sim/job.hpp"

#include <algorithm>
#include <cmath>
#include <simgrid/s4u.hpp>

namespace sg4 = simgrid::s4u;

namespace tt::sim {

void stop_load(World& w, JobRun& r) {
  if (r.load_pace <= 0) return;
  w.platform.reserve(r.links, r.load_bytes, r.load_pace, r.link_pairs, -1);
  for (const auto& [node, bytes] : r.nic_bytes)
    w.ff_node_rate[node] = --w.ff_node_jobs[node] == 0 ? 0.0 : w.ff_node_rate[node] - bytes / r.load_pace;
  r.load_pace = 0;
}

namespace {
double now() { return sg4::Engine::get_clock(); }
}  // namespace

std::int64_t progress(const JobRun& r) {
  if (r.ff_start < 0 || r.iteration_time <= 0) return r.iterations;
  const auto done = static_cast<std::int64_t>(std::floor((now() - r.ff_start) / r.iteration_time));
  return r.iterations + std::min(r.ff_target - r.iterations, done);
}

void strike(World& w, const std::vector<sg4::Host*>& hosts, const std::vector<int>& cables, const std::string& cause,
            FaultKind kind, std::optional<Symptom> stops) {
  auto uses_cable = [&](const FlowGroup& g) {
    for (const Flow& f : g.flows)
      for (int c : w.platform.route(f.from, f.to).cables)
        if (std::find(cables.begin(), cables.end(), c) != cables.end()) return true;
    return false;
  };
  // A cable between two switches (shared) is on an attempt's iteration routes if its footprint lists it
  // (JobRun::links), while its routes are those it was compiled with. One at a GPU (a node's or a GPU's own, as a
  // crash takes down), on a fabric whose routes stay on their ends' nodes, only an attempt with a GPU on that node
  // can cross. Any other attempt's flows are looked at one by one.
  const Topology& topo = w.platform.topology();
  std::vector<int> shared;  // the struck shared cables, as footprint keys: 2 x cable, one per direction
  bool at_gpus = false;     // a struck cable is at a GPU
  std::vector<char> near;   // by node: a struck cable is at one of its GPUs
  const bool known = !w.shared_cable.empty();  // made with the first attempt (compile_footprint)
  bool by_node = known && w.platform.routes_stay_on_end_nodes();
  for (int c : cables) {
    if (known && w.shared_cable[static_cast<std::size_t>(c)]) {
      shared.push_back(2 * c);
      continue;
    }
    at_gpus = true;
    if (!by_node) continue;
    const EdgeId e = topo.edges()[static_cast<std::size_t>(c)];
    for (VertexId v : {boost::source(e, topo.graph()), boost::target(e, topo.graph())}) {
      const int node = topo.graph()[v].node;
      if (node < 0) continue;  // a switch
      if (near.empty()) near.assign(topo.nodes().size(), 0);
      near[static_cast<std::size_t>(node)] = 1;
    }
  }
  auto near_gpu = [&](const JobRun& r) {
    if (!by_node) return true;
    if (near.empty()) return false;
    const int per = topo.gpus_per_node();
    return std::any_of(r.launch.gpus.begin(), r.launch.gpus.end(),
                       [&](int gpu) { return near[static_cast<std::size_t>(gpu / per)] != 0; });
  };
  auto footprint_crosses = [&](const JobRun& r) {
    return std::any_of(shared.begin(), shared.end(), [&](int key) {
      auto it = std::lower_bound(r.links.begin(), r.links.end(), key);
      return it != r.links.end() && *it <= key + 1;
    });
  };
  auto on_host = [&](const JobRun& r) {
    for (sg4::Host* h : r.hosts)
      if (std::find(hosts.begin(), hosts.end(), h) != hosts.end()) return true;
    return false;
  };
  auto hit = [&](const JobRun& r) {
    if (on_host(r)) return true;
    if (r.phase != JobRun::Phase::Training || cables.empty()) return false;
    if (shared.empty() && !near_gpu(r)) return false;  // every struck cable at a GPU on other nodes
    const bool compiled = known && r.routes_generation == w.platform.generation();
    if (compiled && footprint_crosses(r)) return true;
    if ((!compiled && !shared.empty()) || (at_gpus && near_gpu(r)))
      for (const FlowStep& s : r.steps)
        for (const FlowGroup& g : s.groups)
          if (uses_cable(g)) return true;
    return r.checkpointing && uses_cable(r.checkpoint);  // storage connections exist only while writing
  };
  w.for_each_live([&](JobRun& r) {
    if (r.fault || (r.phase != JobRun::Phase::Starting && r.phase != JobRun::Phase::Training) || !hit(r)) return;
    if (r.phase == JobRun::Phase::Training)  // exact progress first, whichever event the controller hears next
      w.post(JobProgress{r.launch.job, r.launch.attempt, progress(r),
                         r.iteration_time > 0 ? Seconds(r.iteration_time) : r.launch.plan.predicted_iteration});
    r.fault = cause;
    r.fault_kind = kind;
    r.stopped = stops;
    if (!on_host(r)) r.blocked_on = cables;  // NCCL retries on these cables until they are back or it times out
    cancel_all(r.inflight);  // its wait throws: it stalls
    if (r.wake) r.wake->release();
  });
}

void request_checkpoint(JobRun& r) {
  if (r.checkpointing || (r.phase != JobRun::Phase::Starting && r.phase != JobRun::Phase::Training)) return;
  r.checkpoint_now = true;
  if (r.wake) r.wake->release();  // a fast-forward or compute wait: it finishes the iteration in flight
}

void kill_job(World& w, JobRun& r) {
  if (!r.writer_done) cancel_all(r.writer_inflight);  // an async checkpoint write stops with the attempt
  if (r.phase == JobRun::Phase::Completed || r.phase == JobRun::Phase::Killed) return;
  if (r.phase == JobRun::Phase::Stalled) {  // its actor already ended after posting JobStalled
    r.phase = JobRun::Phase::Killed;
    return;
  }
  r.phase = JobRun::Phase::Killed;
  // SimGrid 3.32 mishandles an actor killed in some waits: one killed inside a wait on several activities gets woken
  // again by the others ("The Impossible Did Happen"), and one killed inside a timed semaphore acquisition leaves the
  // acquisition's timer to fire later into freed memory (a segfault weeks of simulated time later: the fleet month
  // crash). So an actor that waits on activities is stopped by cancelling them, and one that waits on its semaphore
  // (fast-forward, compute, links, a previous checkpoint write) by releasing it: it wakes, sees Killed and returns.
  // Only one in a plain sleep (startup, snapshot, a step's latency) is killed; one whose helper actors move its flows
  // (collective.hpp) is stopped by cancelling them.
  if (!r.inflight.waiting.empty() || r.inflight.helpers > 0) {
    r.wake = nullptr;
    cancel_all(r.inflight);
  } else if (r.wake) {
    auto wake = std::move(r.wake);
    r.wake = nullptr;
    wake->release();
  } else if (r.actor) {  // null once the actor ended (an actor that hit a bug ends without a phase change)
    r.actor->kill();
  }
  stop_load(w, r);
  w.leave(r);
}

}  // namespace tt::sim
