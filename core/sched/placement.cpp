#include "core/sched/placement.hpp"

#include <algorithm>

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

// Takes up to `count` wholly free nodes of a group, lowest index first; returns how many it took.
int take_whole_nodes(const ClusterState& state, int group, int count, std::vector<int>& out) {
  const int gpn = state.gpus_per_node();
  int taken = 0;
  for (int node : state.group_nodes(group)) {
    if (taken == count) break;
    if (state.free_gpus(node) != gpn) continue;
    take_node(state, node, gpn, out);
    ++taken;
  }
  return taken;
}

PendingReason sub_node_failure(const ClusterState& state, int gpus) {
  return count_shortfall(gpus, state.gpus_per_node(), free_counts(state));
}

// Why k whole nodes cannot be had at all (fewer than k wholly free); nullopt-like kind None when they can.
PendingReason whole_node_shortage(const ClusterState& state, int gpus, int nodes_needed) {
  PendingReason r;
  r.gpus_per_node = state.gpus_per_node();
  if (state.whole_free_nodes() >= nodes_needed) return r;
  return count_shortfall(gpus, state.gpus_per_node(), free_counts(state));
}

PendingReason topology_failure(const ClusterState& state, const PlacementRequest& req, int nodes_needed) {
  PendingReason r;
  r.kind = WaitKind::Topology;
  r.gpus_per_node = state.gpus_per_node();
  r.a = req.max_groups;
  r.b = nodes_needed;
  state.for_each_group_most_whole_first([&](int, int whole) {
    r.c = whole;
    return false;
  });
  return r;
}

// The lowest node at or after the request's first node with exactly `count` free GPUs, inside its range; -1.
int next_in_range(const ClusterState& state, const PlacementRequest& req, int count) {
  const int node = state.next_node_with_free(count, req.first_node - 1);
  return node >= 0 && req.in_range(node) ? node : -1;
}

// best_fit_group() within the request's groups.
int best_fit_in_range(const ClusterState& state, const PlacementRequest& req, int whole_nodes) {
  if (!req.ranged()) return state.best_fit_group(whole_nodes);
  int best = -1, best_whole = 0;
  state.for_each_group_most_whole_first([&](int g, int whole) {
    if (whole < whole_nodes) return false;
    if (req.group_in_range(g) && (best < 0 || whole < best_whole || (whole == best_whole && g < best)))
      best = g, best_whole = whole;
    return true;
  });
  return best;
}

PendingReason range_shortage(const ClusterState& state, int gpus) {
  PendingReason r;
  r.kind = WaitKind::Capacity;
  r.gpus_per_node = state.gpus_per_node();
  r.a = gpus;
  r.b = state.total_free_gpus();
  return r;
}

}  // namespace

FreeCounts free_counts(const ClusterState& state) {
  return {state.whole_free_nodes(), state.total_free_gpus(), state.nodes_with_any_free(), state.max_free_on_a_node()};
}

PendingReason count_shortfall(int gpus, int gpus_per_node, const FreeCounts& free) {
  PendingReason r;
  r.gpus_per_node = gpus_per_node;
  r.a = gpus;
  if (free.free_gpus < gpus) {
    r.kind = WaitKind::Capacity;
    if (gpus <= gpus_per_node) {
      r.b = free.free_gpus;
    } else {
      r.b = free.whole_free_nodes;
      r.c = gpus / gpus_per_node;
      r.d = free.free_gpus;
    }
  } else {
    r.kind = WaitKind::Fragmentation;
    r.b = free.free_gpus;
    r.c = free.nodes_with_any_free;
    r.d = gpus <= gpus_per_node ? free.max_free_on_a_node : free.whole_free_nodes;
  }
  return r;
}

PlacementOutcome PackPlacement::place(const ClusterState& state, const PlacementRequest& req) const {
  const int gpn = state.gpus_per_node();
  PlacementOutcome out;
  if (req.gpus <= gpn) {
    for (int c = req.gpus; c <= gpn; ++c) {
      int node = next_in_range(state, req, c);
      if (node >= 0) {
        take_node(state, node, req.gpus, out.gpus);
        return out;
      }
    }
    out.why = sub_node_failure(state, req.gpus);
    return out;
  }
  const int k = req.gpus / gpn;
  out.why = whole_node_shortage(state, req.gpus, k);
  if (out.why.kind != WaitKind::None) return out;
  if (int g = best_fit_in_range(state, req, k); g >= 0) {
    take_whole_nodes(state, g, k, out.gpus);
    return out;
  }
  if (req.max_groups == 1) {
    out.why = topology_failure(state, req, k);
    return out;
  }
  std::vector<int> chosen;
  int covered = 0;
  state.for_each_group_most_whole_first([&](int g, int whole) {
    if (whole == 0) return false;
    if (!req.group_in_range(g)) return true;
    chosen.push_back(g);
    covered += whole;
    return covered < k;
  });
  if (covered < k) {  // only with a range: the whole cluster has them (whole_node_shortage)
    out.why = range_shortage(state, req.gpus);
    return out;
  }
  if (req.max_groups > 0 && static_cast<int>(chosen.size()) > req.max_groups) {
    out.why = topology_failure(state, req, k);
    return out;
  }
  int remaining = k;
  for (int g : chosen) remaining -= take_whole_nodes(state, g, remaining, out.gpus);
  std::sort(out.gpus.begin(), out.gpus.end());
  return out;
}

PlacementOutcome SpreadPlacement::place(const ClusterState& state, const PlacementRequest& req) const {
  const int gpn = state.gpus_per_node();
  PlacementOutcome out;
  if (req.gpus <= gpn) {
    for (int c = gpn; c >= req.gpus; --c) {
      int node = next_in_range(state, req, c);
      if (node >= 0) {
        take_node(state, node, req.gpus, out.gpus);
        return out;
      }
    }
    out.why = sub_node_failure(state, req.gpus);
    return out;
  }
  const int k = req.gpus / gpn;
  out.why = whole_node_shortage(state, req.gpus, k);
  if (out.why.kind != WaitKind::None) return out;
  struct Pick {
    int group, whole, taken = 0;
  };
  std::vector<Pick> groups;
  int covered = 0;
  state.for_each_group_most_whole_first([&](int g, int whole) {
    if (whole == 0 || (req.max_groups > 0 && static_cast<int>(groups.size()) == req.max_groups)) return false;
    if (!req.group_in_range(g)) return true;
    groups.push_back({g, whole});
    covered += whole;
    return true;
  });
  if (covered < k) {
    out.why = topology_failure(state, req, k);
    return out;
  }
  // One node per group per round; then take each group's share, lowest node index first.
  int remaining = k;
  while (remaining > 0)
    for (auto& p : groups)
      if (remaining > 0 && p.taken < p.whole) ++p.taken, --remaining;
  for (const auto& p : groups) take_whole_nodes(state, p.group, p.taken, out.gpus);
  std::sort(out.gpus.begin(), out.gpus.end());
  return out;
}

}  // namespace tt
