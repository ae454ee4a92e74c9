// Topologies and small helpers shared by the SimGrid driver tests. Every simulation runs in its own process
// (sim/isolated.hpp); results come back as JSON text.
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "core/model/gpu.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/generators.hpp"

namespace tt::testing {

inline FabricParams fabric(int nodes, int gpus_per_node, int nodes_per_group) {
  FabricParams p;
  p.name = "sim-test";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.gpus_per_node = gpus_per_node;
  p.nic_bandwidth = BytesPerSecond(50e9);  // 400 Gb/s
  p.nodes_per_group = nodes_per_group;
  p.link_latency = Seconds(1e-6);
  p.nvlink_latency = Seconds(0.5e-6);
  p.storage_bandwidth = BytesPerSecond(100e9);
  return p;
}

inline CommGroup all_reduce(std::vector<int> gpus, double bytes, int calls = 1) {
  CommGroup g;
  g.collective = Collective::AllReduce;
  g.gpus = std::move(gpus);
  g.bytes = Bytes(bytes);
  g.calls = calls;
  return g;
}

inline nlohmann::json seconds_json(const std::vector<Seconds>& v) {
  auto out = nlohmann::json::array();
  for (Seconds s : v) out.push_back(s.value);
  return out;
}

}  // namespace tt::testing
