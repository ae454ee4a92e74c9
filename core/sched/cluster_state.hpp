// ClusterState: which GPUs are free and which nodes can take work, with per-group counts of wholly free nodes so a
// placement need not rescan every node. GPUs are global indices node * gpus_per_node + local (gpus_per_node <= 64).
#pragma once

#include <cstdint>
#include <vector>

#include "core/topo/topology.hpp"

namespace tt {

class ClusterState {
 public:
  explicit ClusterState(const Topology& topo);

  int nodes() const { return static_cast<int>(nodes_.size()); }
  int gpus_per_node() const { return gpus_per_node_; }
  int groups() const { return static_cast<int>(whole_free_in_group_.size()); }
  int group_of(int node) const { return nodes_[node].group; }

  bool schedulable(int node) const { return nodes_[node].up; }
  int free_gpus(int node) const;             // 0 when the node is not schedulable
  bool gpu_free(int gpu) const;
  int whole_free_nodes_in_group(int group) const { return whole_free_in_group_[group]; }
  int total_free_gpus() const;
  int allocated_gpus() const { return allocated_; }
  int up_gpus() const;

  void allocate(const std::vector<int>& gpus);  // each must be free
  void release(const std::vector<int>& gpus);   // each must be allocated
  void set_up(int node, bool up);

 private:
  struct Node {
    std::uint64_t free_mask = 0;  // bit i set: local GPU i free
    bool up = true;
    int group = 0;
  };
  bool whole_free(const Node& n) const { return n.up && n.free_mask == full_mask_; }
  void update_group(int node, bool was_whole);

  int gpus_per_node_ = 0;
  std::uint64_t full_mask_ = 0;
  std::vector<Node> nodes_;
  std::vector<int> whole_free_in_group_;
  int allocated_ = 0;
};

}  // namespace tt
