#include "core/sched/cluster_state.hpp"

#include <bit>
#include <cassert>

namespace tt {

ClusterState::ClusterState(const Topology& topo) : gpus_per_node_(topo.gpus_per_node()) {
  assert(gpus_per_node_ > 0 && gpus_per_node_ <= 64);
  full_mask_ = gpus_per_node_ == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << gpus_per_node_) - 1;
  int groups = 0;
  for (const auto& info : topo.nodes()) {
    nodes_.push_back(Node{full_mask_, true, info.group});
    groups = std::max(groups, info.group + 1);
  }
  whole_free_in_group_.assign(groups, 0);
  for (const auto& n : nodes_) ++whole_free_in_group_[n.group];
}

int ClusterState::free_gpus(int node) const {
  const Node& n = nodes_[node];
  return n.up ? std::popcount(n.free_mask) : 0;
}

bool ClusterState::gpu_free(int gpu) const {
  const Node& n = nodes_[gpu / gpus_per_node_];
  return n.up && (n.free_mask >> (gpu % gpus_per_node_) & 1);
}

int ClusterState::total_free_gpus() const {
  int total = 0;
  for (int i = 0; i < nodes(); ++i) total += free_gpus(i);
  return total;
}

int ClusterState::up_gpus() const {
  int total = 0;
  for (const auto& n : nodes_) total += n.up ? gpus_per_node_ : 0;
  return total;
}

void ClusterState::update_group(int node, bool was_whole) {
  bool is_whole = whole_free(nodes_[node]);
  if (was_whole != is_whole) whole_free_in_group_[nodes_[node].group] += is_whole ? 1 : -1;
}

void ClusterState::allocate(const std::vector<int>& gpus) {
  for (int gpu : gpus) {
    int node = gpu / gpus_per_node_;
    Node& n = nodes_[node];
    std::uint64_t bit = std::uint64_t{1} << (gpu % gpus_per_node_);
    assert(n.up && (n.free_mask & bit) && "GPU given twice");
    bool was = whole_free(n);
    n.free_mask &= ~bit;
    update_group(node, was);
    ++allocated_;
  }
}

void ClusterState::release(const std::vector<int>& gpus) {
  for (int gpu : gpus) {
    int node = gpu / gpus_per_node_;
    Node& n = nodes_[node];
    std::uint64_t bit = std::uint64_t{1} << (gpu % gpus_per_node_);
    assert(!(n.free_mask & bit) && "GPU released twice");
    bool was = whole_free(n);
    n.free_mask |= bit;
    update_group(node, was);
    --allocated_;
  }
}

void ClusterState::set_up(int node, bool up) {
  bool was = whole_free(nodes_[node]);
  nodes_[node].up = up;
  update_group(node, was);
}

}  // namespace tt
