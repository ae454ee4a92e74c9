#include "core/topo/generators.hpp"

#include <algorithm>
#include <cassert>

namespace tt {

int group_count(const FabricParams& p) { return (p.nodes + p.nodes_per_group - 1) / p.nodes_per_group; }

int spine_count(const FabricParams& p) {
  if (group_count(p) <= 1) return 0;
  return p.spines > 0 ? p.spines : p.gpus_per_node;
}

namespace {

// Appending keeps GCC 12 quiet: "literal" + std::to_string() trips a false -Wrestrict at -O3.
std::string numbered(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}

std::string link_name(const Topology::Builder& b, VertexId lower, VertexId upper) {
  return b.t.graph()[lower].name + "~" + b.t.graph()[upper].name;
}

void link(Topology::Builder& b, VertexId lower, VertexId upper, LinkKind kind, BytesPerSecond bw, Seconds lat) {
  b.add_link(lower, upper, kind, link_name(b, lower, upper), bw, lat);
}

void check(const FabricParams& p) {
  assert(p.nodes >= 1 && p.gpus_per_node >= 1 && p.nodes_per_group >= 1 && p.spines >= 0);
  assert(p.oversubscription >= 1.0);
  (void)p;
}

int nodes_in_group(const FabricParams& p, int g) {
  return std::min(p.nodes_per_group, p.nodes - g * p.nodes_per_group);
}

// Adds the spines (none with a single group) and joins every leaf to every spine; `leaves_of_group` lists the leaves of
// each group, `uplink_of_group` the total uplink of each of its leaves.
std::vector<VertexId> add_spines(Topology::Builder& b, const FabricParams& p,
                                 const std::vector<std::vector<VertexId>>& leaves_of_group,
                                 const std::vector<BytesPerSecond>& uplink_of_group) {
  std::vector<VertexId> spines;
  const int s = spine_count(p);
  for (int i = 0; i < s; ++i) spines.push_back(b.add_switch(VertexKind::Spine, numbered("spine", i)));
  for (std::size_t g = 0; g < leaves_of_group.size() && s > 0; ++g)
    for (VertexId leaf : leaves_of_group[g])
      for (VertexId spine : spines) link(b, leaf, spine, LinkKind::Fabric, uplink_of_group[g] / s, p.link_latency);
  return spines;
}

void add_storage(Topology::Builder& b, const FabricParams& p, const std::vector<VertexId>& attach) {
  if (p.storage_bandwidth.value <= 0 || attach.empty()) return;
  VertexId st = b.add_storage("storage");
  const BytesPerSecond each = p.storage_bandwidth / static_cast<double>(attach.size());
  for (VertexId v : attach) link(b, v, st, LinkKind::Storage, each, p.link_latency);
}

}  // namespace

Topology make_single_node(const FabricParams& p) {
  check(p);
  Topology::Builder b(p.name, "single-node", p.gpu, p.gpus_per_node);
  int n = b.add_node("n0", 0, p.nvlink_latency);
  add_storage(b, p, {b.t.nodes()[n].nvswitch});
  return std::move(b).build();
}

namespace {
Topology rail_optimized(const FabricParams& p, const char* generator) {
  check(p);
  Topology::Builder b(p.name, generator, p.gpu, p.gpus_per_node);
  const int groups = group_count(p);
  const std::size_t gpus = static_cast<std::size_t>(p.nodes) * p.gpus_per_node;
  const std::size_t leaf_count = static_cast<std::size_t>(groups) * p.gpus_per_node;
  const std::size_t spine_total = static_cast<std::size_t>(spine_count(p));
  b.reserve(gpus + p.nodes + leaf_count + spine_total + 1,
            2 * gpus + leaf_count * spine_total + std::max(spine_total, leaf_count));
  for (int i = 0; i < p.nodes; ++i) b.add_node(numbered("n", i), i / p.nodes_per_group, p.nvlink_latency);
  std::vector<std::vector<VertexId>> leaves(groups);
  std::vector<BytesPerSecond> uplink(groups);
  for (int g = 0; g < groups; ++g) {
    uplink[g] = p.nic_bandwidth * (nodes_in_group(p, g) / p.oversubscription);
    for (int r = 0; r < p.gpus_per_node; ++r)
      leaves[g].push_back(b.add_switch(VertexKind::Leaf, numbered("leaf-g", g) + numbered("-r", r), g));
  }
  for (int i = 0; i < p.nodes; ++i) {
    const NodeInfo& node = b.t.nodes()[i];
    for (int r = 0; r < p.gpus_per_node; ++r)
      link(b, node.gpus[r], leaves[node.group][r], LinkKind::Nic, p.nic_bandwidth, p.link_latency);
  }
  std::vector<VertexId> spines = add_spines(b, p, leaves, uplink);
  add_storage(b, p, groups > 1 ? spines : leaves[0]);
  return std::move(b).build();
}
}  // namespace

Topology make_rail_optimized(const FabricParams& p) { return rail_optimized(p, "rail-optimized"); }

Topology make_nvlink_rack(const FabricParams& p) { return rail_optimized(p, "nvlink-rack"); }

Topology make_leaf_spine(const FabricParams& p) {
  check(p);
  Topology::Builder b(p.name, "leaf-spine", p.gpu, p.gpus_per_node);
  const int groups = group_count(p);
  for (int i = 0; i < p.nodes; ++i) b.add_node(numbered("n", i), i / p.nodes_per_group, p.nvlink_latency);
  std::vector<std::vector<VertexId>> leaves(groups);
  std::vector<BytesPerSecond> uplink(groups);
  for (int g = 0; g < groups; ++g) {
    uplink[g] = p.nic_bandwidth * (nodes_in_group(p, g) * p.gpus_per_node / p.oversubscription);
    leaves[g].push_back(b.add_switch(VertexKind::Leaf, numbered("leaf-g", g), g));
  }
  for (int i = 0; i < p.nodes; ++i) {
    const NodeInfo& node = b.t.nodes()[i];
    for (int r = 0; r < p.gpus_per_node; ++r)
      link(b, node.gpus[r], leaves[node.group][0], LinkKind::Nic, p.nic_bandwidth, p.link_latency);
  }
  std::vector<VertexId> spines = add_spines(b, p, leaves, uplink);
  add_storage(b, p, groups > 1 ? spines : leaves[0]);
  return std::move(b).build();
}

}  // namespace tt
