// WorkerSlots: the real driver's side of node pools (docs/pools.md). Each topology node's devices are worker slots;
// a node of an elastic or spot pool holds none until it is provisioned (the Controller's Uncordon of the slot, which
// comes with NodeProvisioned before any launch there), and gives them back when it is released (ReleaseNode) or
// reclaimed (NodeReclaimed). A launch onto a slot not in service is a driver bug: it
// throws std::logic_error rather than start workers on capacity the run does not have. Without pools every device is
// a slot from the start.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "core/control/events.hpp"

namespace tt::real {

class WorkerSlots {
 public:
  explicit WorkerSlots(const Scenario& scenario);

  void execute(const Action& action);  // Uncordon of a slot adds it, ReleaseNode frees it; ProvisionNode is logged
  void seen(const Event& event);       // NodeProvisioned adds slots; NodeReclaimed takes them away
  void check(const Launch& launch) const;
  int slots() const;                   // devices in service
  std::function<void(const std::string&)> log;

 private:
  void set(int node, bool in_service, const std::string& why);

  const Scenario& sc_;
  std::vector<bool> in_service_;  // by node
};

}  // namespace tt::real
