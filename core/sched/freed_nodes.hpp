// GPUs that would be freed on a cluster, counted without freeing them: how many nodes would then be wholly free
// (per leaf group too) and the most free GPUs on one node, as GPUs are added. may_place() is a necessary condition for
// every placement policy (placement.hpp: a job of at most one node's GPUs goes inside one node, a larger one takes
// whole nodes, within its leaf groups when it asks), so a caller that would free GPUs only to try a placement asks it
// first: the preemption search (the victims it would take) and EASY backfill's reservation (the jobs ending first).
// The cluster must not change between reset() and the last question.
#pragma once

#include <utility>
#include <vector>

#include "core/sched/cluster_state.hpp"

namespace tt {

class FreedNodes {
 public:
  void reset(const ClusterState& cluster);  // nothing freed yet
  void add(const std::vector<int>& gpus);   // a job's GPUs (all allocated now)
  void add(const std::vector<std::pair<int, int>>& per_node);  // ... as (node, count)
  // False when no placement of `gpus` GPUs (within `max_groups` leaf groups when above 0) could succeed with every
  // GPU added so far freed.
  bool may_place(int gpus, int max_groups);

 private:
  void add_on(int node, int count);
  const ClusterState* cl_ = nullptr;
  std::vector<int> freed_on_;  // per node (zero for nodes not in touched_)
  std::vector<int> whole_in_;  // per group: nodes wholly freed (zero for groups not in groups_touched_)
  std::vector<int> touched_, groups_touched_;
  std::vector<int> groups_with_;  // per count of wholly free nodes: groups with that many, freed ones counted
  int whole_ = 0, most_ = 0;
};

}  // namespace tt
