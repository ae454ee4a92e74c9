#include "core/sched/freed_nodes.hpp"

#include <algorithm>

namespace tt {

void FreedNodes::reset(const ClusterState& cluster) {
  if (cl_ != nullptr) {
    for (int n : touched_) freed_on_[static_cast<std::size_t>(n)] = 0;
    for (int g : groups_touched_) whole_in_[static_cast<std::size_t>(g)] = 0;
  }
  cl_ = &cluster;
  freed_on_.resize(static_cast<std::size_t>(cluster.nodes()), 0);
  whole_in_.resize(static_cast<std::size_t>(cluster.groups()), 0);
  touched_.clear();
  groups_touched_.clear();
  groups_with_.resize(static_cast<std::size_t>(cluster.max_group_size()) + 1);
  for (int w = 0; w <= cluster.max_group_size(); ++w)
    groups_with_[static_cast<std::size_t>(w)] = cluster.groups_with_whole_free(w);
  whole_ = cluster.whole_free_nodes();
  most_ = cluster.max_free_on_a_node();
}

void FreedNodes::add_on(int node, int count) {
  int& freed = freed_on_[static_cast<std::size_t>(node)];
  if (freed == 0) touched_.push_back(node);
  freed += count;
  if (!cl_->schedulable(node)) return;  // a node down frees nothing
  const int f = cl_->free_gpus(node) + freed;
  most_ = std::max(most_, f);
  if (f == cl_->gpus_per_node()) {  // wholly free now (it held these GPUs, so it was not before)
    ++whole_;
    const int g = cl_->group_of(node);
    const int before = cl_->whole_free_nodes_in_group(g) + whole_in_[static_cast<std::size_t>(g)];
    --groups_with_[static_cast<std::size_t>(before)];
    ++groups_with_[static_cast<std::size_t>(before) + 1];
    if (whole_in_[static_cast<std::size_t>(g)]++ == 0) groups_touched_.push_back(g);
  }
}

void FreedNodes::add(const std::vector<int>& gpus) {
  const int gpn = cl_->gpus_per_node();
  for (std::size_t i = 0; i < gpus.size();) {  // a job's GPUs come node by node
    const int node = gpus[i] / gpn;
    const int first = node * gpn;
    const std::size_t from = i;
    while (i < gpus.size() && gpus[i] >= first && gpus[i] < first + gpn) ++i;
    add_on(node, static_cast<int>(i - from));
  }
}

void FreedNodes::add(const std::vector<std::pair<int, int>>& per_node) {
  for (const auto& [node, count] : per_node) add_on(node, count);
}

bool FreedNodes::may_place(int gpus, int max_groups) {
  const int gpn = cl_->gpus_per_node();
  if (gpus <= gpn) return most_ >= gpus;
  const int k = gpus / gpn;
  if (whole_ < k) return false;
  if (max_groups <= 0) return true;
  // The most wholly free nodes in max_groups groups, freed ones counted.
  long long sum = 0;
  int left = max_groups;
  for (int w = static_cast<int>(groups_with_.size()) - 1; w > 0 && left > 0; --w) {
    const int take = std::min(left, groups_with_[static_cast<std::size_t>(w)]);
    sum += static_cast<long long>(take) * w;
    left -= take;
  }
  return sum >= k;
}

}  // namespace tt
