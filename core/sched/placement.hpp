// Placement policies: where a gang of GPUs goes. A policy is a pure function of the cluster state: it returns every
// GPU of the job or none (gang, always), and when it returns none it says why (a PendingReason). Jobs of at most one
// node's GPUs go inside one node; larger ones take whole nodes. Index-driven: no policy scans every node.
// Monotone: a request that places on a cluster state also places (maybe elsewhere) once more GPUs are free; the
// scheduler's preemption search relies on it (tests/core/sched/placement_test.cpp).
#pragma once

#include <vector>

#include "core/sched/cluster_state.hpp"
#include "core/sched/pending_reason.hpp"

namespace tt {

struct PlacementRequest {
  int gpus = 0;
  int max_groups = 0;  // whole-node jobs: at most this many leaf groups (Slurm --switches); 0: any
  // Only nodes [first_node, end_node) and leaf groups [first_group, end_group): one site (core/topo/sites.hpp), whose
  // nodes and groups are contiguous. end_node < 0: every node.
  int first_node = 0, end_node = -1;
  int first_group = 0, end_group = -1;
  bool in_range(int node) const { return node >= first_node && (end_node < 0 || node < end_node); }
  bool group_in_range(int g) const { return g >= first_group && (end_group < 0 || g < end_group); }
  bool ranged() const { return end_node >= 0; }
};

struct PlacementOutcome {
  std::vector<int> gpus;  // empty: not placeable now
  PendingReason why;      // Capacity, Fragmentation or Topology when empty
};

// What every policy says when fewer GPUs are free than asked, in any range: Capacity, with the free GPUs (whole nodes
// and GPUs for a job of whole nodes). The scheduler gives it for a job it passed over in that state (Scheduler::reason).
PendingReason capacity_shortfall(int gpus, int gpus_per_node, int whole_free_nodes, int free_gpus);
inline PendingReason capacity_shortfall(const ClusterState& state, int gpus) {
  return capacity_shortfall(gpus, state.gpus_per_node(), state.whole_free_nodes(), state.total_free_gpus());
}

class PlacementPolicy {
 public:
  virtual ~PlacementPolicy() = default;
  virtual const char* name() const = 0;
  virtual PlacementOutcome place(const ClusterState& state, const PlacementRequest& request) const = 0;
};

// Pack: a sub-node job goes to the fullest node that still fits it (best fit, lowest index on ties); a larger one
// takes whole nodes from the one leaf group with the fewest wholly free nodes that suffice, else from the groups with
// the most wholly free nodes first (fewest groups).
class PackPlacement : public PlacementPolicy {
 public:
  const char* name() const override { return "pack"; }
  PlacementOutcome place(const ClusterState& state, const PlacementRequest& request) const override;
};

// Spread: a sub-node job goes to the emptiest node (worst fit); a larger one takes one whole node per group in turn,
// over as many groups as it may use (most wholly free first), to spread load over leaf switches.
class SpreadPlacement : public PlacementPolicy {
 public:
  const char* name() const override { return "spread"; }
  PlacementOutcome place(const ClusterState& state, const PlacementRequest& request) const override;
};

}  // namespace tt
