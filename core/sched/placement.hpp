// Placement policies: where a gang of GPUs goes. A policy is a pure function of the cluster state: it returns every
// GPU of the job or none (gang), and when it returns none it says why in words a user can act on.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "core/sched/cluster_state.hpp"

namespace tt {

struct PlacementOutcome {
  std::vector<int> gpus;  // empty: not placeable now
  std::string why_not;
};

// Pack: a job smaller than a node goes to the fullest node that still fits it (best fit); a larger one takes whole
// nodes, from the single leaf group with the fewest free nodes that suffice, else from as few groups as possible.
class PackPlacement {
 public:
  const char* name() const { return "pack"; }
  PlacementOutcome place(const ClusterState& state, int gpus) const;
};

}  // namespace tt
