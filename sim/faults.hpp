// The fault injector: an actor that plays the scenario's faults (scripted, then stochastic ones drawn from the seed by
// core/fault/stochastic.hpp) on the platform and tells the controller the ground truth (the controller detects
// failures by its own rules). Each fault is undone after its repair time; each change wakes fast-forwarding jobs.
//   node_crash   the node's GPU hosts and their cables off (NodeDown/NodeUp)
//   gpu_failure  one GPU host and its cables off; the node is out until repaired (NodeDown with the GPU)
//   nic_down     the GPU's NIC cable down (LinkDown/LinkUp); link_down: one cable; switch_down: every cable of a switch.
//                Jobs on those cables block until they are back (sim/job.hpp) or the controller's timeout kills them.
//   straggler    the GPU computes at `fraction` of its speed; storage_slow: storage cables at `fraction` bandwidth
//   hang         the jobs on the node freeze (no heartbeats); deadlock: they stop progressing but heartbeat (the
//                watchdog notices). Neither has a repair: the node stays in service.
#pragma once

#include "sim/world.hpp"

namespace tt::sim {

// Checks the fault targets (std::invalid_argument naming the fault) and starts the actor on the management host.
void start_faults(World& world);

}  // namespace tt::sim
