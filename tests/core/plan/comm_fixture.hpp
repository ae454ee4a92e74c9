// Topologies for the communication planner tests: 8 x H100 nodes with 8 x 400 Gb/s NICs, rail-optimized.
#pragma once

#include <numeric>
#include <vector>

#include "core/model/gpu.hpp"
#include "core/topo/generators.hpp"

namespace tt::testing {

inline Topology h100_nodes(int nodes, const char* gpu = "H100-SXM", int nodes_per_group = 32) {
  FabricParams p;
  p.name = "comm-test";
  p.gpu = *find_gpu(gpu);
  p.nodes = nodes;
  p.gpus_per_node = 8;
  p.nic_bandwidth = BytesPerSecond(50e9);
  p.nodes_per_group = nodes_per_group;
  p.storage_bandwidth = BytesPerSecond(100e9);
  return nodes == 1 ? make_single_node(p) : make_rail_optimized(p);
}

inline std::vector<int> first_gpus(int n) {
  std::vector<int> g(n);
  std::iota(g.begin(), g.end(), 0);
  return g;
}

}  // namespace tt::testing
