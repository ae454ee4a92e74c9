// The fault injector: an actor that plays the scenario's scripted faults on the platform and tells the controller
// (ground truth; the controller detects failures its own way). node_crash turns off the node's GPU hosts and the
// cables attached to them (flows to, from and through the node fail), then turns them back on after `repair`;
// link_down turns off both directions of the cable, then back on; hang stops the jobs running on the node (they
// stall, as if their processes froze) and leaves the node in service. Each change wakes fast-forwarding jobs.
#pragma once

#include "sim/world.hpp"

namespace tt::sim {

// Checks the fault targets (std::invalid_argument naming the fault) and starts the actor on the management host.
void start_faults(World& world);

}  // namespace tt::sim
