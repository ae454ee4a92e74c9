#include "core/sched/placement.hpp"

#include <algorithm>
#include <numeric>

namespace tt {
namespace {

void take_node(const ClusterState& state, int node, int count, std::vector<int>& out) {
  const int gpn = state.gpus_per_node();
  for (int local = 0; local < gpn && count > 0; ++local) {
    int gpu = node * gpn + local;
    if (state.gpu_free(gpu)) {
      out.push_back(gpu);
      --count;
    }
  }
}

PlacementOutcome place_within_node(const ClusterState& state, int gpus) {
  int best = -1, best_free = 0, most_free = 0, total_free = 0;
  for (int node = 0; node < state.nodes(); ++node) {
    int f = state.free_gpus(node);
    total_free += f;
    most_free = std::max(most_free, f);
    if (f >= gpus && (best < 0 || f < best_free)) {
      best = node;
      best_free = f;
    }
  }
  PlacementOutcome out;
  if (best >= 0) {
    take_node(state, best, gpus, out.gpus);
    return out;
  }
  if (total_free >= gpus)
    out.why_not = "fragmentation: " + std::to_string(total_free) + " GPUs free across nodes, at most " +
                  std::to_string(most_free) + " on any one node, " + std::to_string(gpus) + " needed on one node";
  else
    out.why_not = "waiting for " + std::to_string(gpus) + " GPUs on one node: " + std::to_string(total_free) + " free";
  return out;
}

PlacementOutcome place_whole_nodes(const ClusterState& state, int nodes_needed) {
  PlacementOutcome out;
  const int groups = state.groups();
  int single = -1, total_whole = 0;
  for (int g = 0; g < groups; ++g) {
    int w = state.whole_free_nodes_in_group(g);
    total_whole += w;
    if (w >= nodes_needed && (single < 0 || w < state.whole_free_nodes_in_group(single))) single = g;
  }
  if (total_whole < nodes_needed) {
    out.why_not = "waiting for " + std::to_string(nodes_needed) + " whole nodes (" +
                  std::to_string(nodes_needed * state.gpus_per_node()) + " GPUs): " + std::to_string(total_whole) +
                  " whole nodes free, " + std::to_string(state.total_free_gpus()) + " GPUs free in all";
    return out;
  }
  std::vector<int> order;
  if (single >= 0) {
    order.push_back(single);
  } else {
    order.resize(groups);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return state.whole_free_nodes_in_group(a) > state.whole_free_nodes_in_group(b);
    });
  }
  const int gpn = state.gpus_per_node();
  int remaining = nodes_needed;
  for (int g : order) {
    for (int node = 0; node < state.nodes() && remaining > 0; ++node) {
      if (state.group_of(node) != g || state.free_gpus(node) != gpn) continue;
      take_node(state, node, gpn, out.gpus);
      --remaining;
    }
    if (remaining == 0) break;
  }
  std::sort(out.gpus.begin(), out.gpus.end());
  return out;
}

}  // namespace

PlacementOutcome PackPlacement::place(const ClusterState& state, int gpus) const {
  const int gpn = state.gpus_per_node();
  if (gpus <= gpn) return place_within_node(state, gpus);
  return place_whole_nodes(state, gpus / gpn);
}

}  // namespace tt
