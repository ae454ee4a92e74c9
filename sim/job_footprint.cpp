#include "sim/job.hpp"

#include <algorithm>
#include <map>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u.hpp>
#include <unordered_map>

namespace sg4 = simgrid::s4u;

namespace tt::sim {

void compile_footprint(World& w, JobRun& r) {
  const Launch& l = r.launch;
  for (int gpu : l.gpus) r.hosts.push_back(w.platform.gpu(gpu));
  for (const CommStep& s : l.plan.steps) r.steps.push_back(compile_step(w.platform, s));
  r.routes_generation = w.platform.generation();
  // A cable with a GPU at one end (NVLink, the GPU's NIC) carries only the traffic of the job that holds the GPU: only
  // switch-to-switch cables get a fast-forward load and make the job's footprint.
  const Topology& topo = w.platform.topology();
  if (w.shared_cable.empty()) {
    w.shared_cable.resize(topo.edges().size());
    for (std::size_t cable = 0; cable < topo.edges().size(); ++cable) {
      const EdgeId e = topo.edges()[cable];
      w.shared_cable[cable] = topo.graph()[boost::source(e, topo.graph())].kind != VertexKind::Gpu &&
                              topo.graph()[boost::target(e, topo.graph())].kind != VertexKind::Gpu;
    }
  }
  auto crosses_shared = [&](const Route& route) {
    return std::any_of(route.cables.begin(), route.cables.end(), [&](int cable) { return w.shared_cable[cable]; });
  };
  // The flows whose pair crosses a shared cable, by the hosts' NetPoint ids, not their addresses: the order sums bytes
  // (deterministic under any allocator); a pair's flows in the order of the steps.
  struct Crossing {
    std::pair<unsigned long, unsigned long> ids;
    const Flow* flow;
  };
  std::vector<Crossing> crossing;
  for (const FlowStep& step : r.steps) {
    bool lone = true;
    for (const FlowGroup& g : step.groups)
      for (const Flow& f : g.flows)
        if (crosses_shared(*f.route)) {
          lone = false;
          crossing.push_back({{f.from->get_netpoint()->id(), f.to->get_netpoint()->id()}, &f});
        }
    r.step_lone.push_back(lone);
  }
  r.step_parts.resize(r.steps.size());
  std::stable_sort(crossing.begin(), crossing.end(),
                   [](const Crossing& a, const Crossing& b) { return a.ids < b.ids; });
  std::map<int, std::pair<double, int>> link_bytes;  // by directional link: bytes of one iteration, GPU pairs
  std::map<int, double> shared_bytes;                // by SimGrid link: bytes of one iteration
  std::map<int, double> nic_bytes;   // by node, of the pairs that cross a shared cable
  std::unordered_map<const sg4::Host*, int> node_of;
  for (int gpu : l.gpus) node_of[w.platform.gpu(gpu)] = gpu / topo.gpus_per_node();
  for (std::size_t i = 0; i < crossing.size();) {
    const Flow& first = *crossing[i].flow;  // one of the pair's flows
    double bytes = 0;
    std::size_t j = i;
    for (; j < crossing.size() && crossing[j].ids == crossing[i].ids; ++j) bytes += crossing[j].flow->bytes;
    i = j;
    const Route& route = *first.route;
    for (std::size_t h = 0; h < route.cables.size(); ++h)
      if (const int cable = route.cables[h]; w.shared_cable[cable]) {
        auto& [sum, pairs] = link_bytes[2 * cable + (route.links[h] == w.platform.link(cable, true) ? 0 : 1)];
        sum += bytes;
        ++pairs;
        shared_bytes[route.link_ids[h]] += bytes;
      }
    for (const sg4::Host* h : {first.from, first.to})
      if (auto it = node_of.find(h); it != node_of.end()) nic_bytes[it->second] += bytes;
  }
  r.nic_bytes.assign(nic_bytes.begin(), nic_bytes.end());
  for (const auto& [link, load] : link_bytes) {
    r.links.push_back(link);
    r.link_bytes.push_back(load.first);
    r.link_pairs.push_back(load.second);
  }
  for (const auto& [link, bytes] : shared_bytes) {
    r.shared.push_back(link);
    r.shared_bytes.push_back(bytes);
  }
  for (int link : r.links) {
    const int id = w.platform.link_id(link);
    r.link_shared.push_back(static_cast<int>(std::lower_bound(r.shared.begin(), r.shared.end(), id) - r.shared.begin()));
  }
  const int site = l.gpus.empty() ? 0 : topo.nodes()[l.gpus[0] / topo.gpus_per_node()].site;  // a job's first rank's
  if (sg4::Host* storage = w.platform.storage_of_site(site))
    for (int gpu : l.plan.checkpoint_writers) {
      Flow f = make_flow(w.platform, w.platform.gpu(gpu), storage, l.plan.checkpoint_bytes_per_writer.value);
      r.checkpoint.latency = std::max(r.checkpoint.latency, f.route->latency);
      if (f.bytes > 0) r.checkpoint.flows.push_back(f);
    }
}

}  // namespace tt::sim
