// The fault injector: plays the changes of the one fault stream (core/drive/fault_player.hpp) on the platform and
// tells the controller the ground truth (the controller detects failures by its own rules). Each change wakes the
// fast-forwarding jobs it may slow down or reroute.
//   node_crash   the node's GPU hosts and their cables off (NodeDown/NodeUp)
//   gpu_failure  one GPU host and its cables off; the node is out until repaired (NodeDown with the GPU)
//   nic_down     the GPU's NIC cable down (LinkDown/LinkUp); link_down: one cable; switch_down: every cable of a switch.
//                Jobs on those cables block until they are back (sim/job.hpp) or the controller's timeout kills them.
//   straggler    the GPU computes at `fraction` of its speed; storage_slow: storage cables at `fraction` bandwidth
//   hang         the jobs on the node stop without dying (silent); deadlock: they stop progressing but heartbeat.
//                Neither has a repair: the node stays in service.
#pragma once

#include <vector>

#include "core/drive/fault_player.hpp"
#include "sim/world.hpp"

namespace tt::sim {

class FaultInjector {
 public:
  explicit FaultInjector(World& world);
  void apply(const FaultChange& change, const FaultSpec& fault, const FaultTarget& target);

 private:
  World& w_;
  std::vector<int> gpu_down_;  // overlapping failures of each GPU host: on again when the last one is repaired
};

}  // namespace tt::sim
