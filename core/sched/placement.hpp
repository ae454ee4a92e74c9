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

// What a placement's reason reads of the cluster when the counts alone rule a request out.
struct FreeCounts {
  int whole_free_nodes = 0, free_gpus = 0, nodes_with_any_free = 0, max_free_on_a_node = 0;
  bool operator==(const FreeCounts&) const = default;
};
FreeCounts free_counts(const ClusterState& state);
// What every policy says, in any range, when fewer GPUs are free than asked (Capacity), or enough are but no node has
// as many free as a job of one node asks, or fewer whole nodes are free than a larger job needs (Fragmentation); the
// request fails whatever else the policy would try. The scheduler gives it for a job it passed over in such a state
// (Scheduler::reason).
PendingReason count_shortfall(int gpus, int gpus_per_node, const FreeCounts& free);

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
