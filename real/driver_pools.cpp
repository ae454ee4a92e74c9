#include "real/driver_pools.hpp"

#include <algorithm>
#include <stdexcept>

namespace tt::real {

WorkerSlots::WorkerSlots(const Scenario& scenario) : sc_(scenario), in_service_(scenario.topology.nodes().size(), true) {
  for (const PoolSpec& p : sc_.pools)
    if (p.kind != PoolKind::Fixed)
      for (int n : p.nodes) in_service_[n] = false;
}

int WorkerSlots::slots() const {
  return static_cast<int>(std::count(in_service_.begin(), in_service_.end(), true)) * sc_.topology.gpus_per_node();
}

void WorkerSlots::set(int node, bool in_service, const std::string& why) {
  if (in_service_[node] == in_service) return;
  in_service_[node] = in_service;
  const int per_node = sc_.topology.gpus_per_node();
  if (log)
    log("node " + sc_.topology.nodes()[node].name + " " + why + ": devices " + std::to_string(node * per_node) + "-" +
        std::to_string((node + 1) * per_node - 1) + (in_service ? " join" : " leave") + " the worker slots (" +
        std::to_string(slots()) + " in service)");
}

void WorkerSlots::execute(const Action& action) {
  if (const auto* p = std::get_if<ProvisionNode>(&action)) {
    if (log) log("provision " + sc_.topology.nodes()[p->node].name + " from pool " + sc_.pools[p->pool].name);
  } else if (const auto* r = std::get_if<ReleaseNode>(&action)) {
    set(r->node, false, "released to pool " + sc_.pools[r->pool].name);
  } else if (const auto* u = std::get_if<Uncordon>(&action)) {
    // The Controller uncordons a pool slot only once it is provisioned, before it launches anything there (the
    // NodeProvisioned event reaches seen() only after its actions ran).
    set(u->node, true, "provisioned");
  }
}

void WorkerSlots::seen(const Event& event) {
  if (const auto* p = std::get_if<NodeProvisioned>(&event)) set(p->node, true, "provisioned");
  if (const auto* r = std::get_if<NodeReclaimed>(&event)) set(r->node, false, "reclaimed");
}

void WorkerSlots::check(const Launch& launch) const {
  const int per_node = sc_.topology.gpus_per_node();
  for (int gpu : launch.gpus)
    if (!in_service_[gpu / per_node])
      throw std::logic_error("launch of " + sc_.jobs[launch.job].name + " on node " +
                             sc_.topology.nodes()[gpu / per_node].name + ", whose worker slots are not in service");
}

}  // namespace tt::real
