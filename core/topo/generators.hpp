// Topology generators. Each documents the shape it builds; all take validated parameters (core/io checks the input).
#pragma once

#include <string>

#include "core/topo/topology.hpp"

namespace tt {

struct FabricParams {
  std::string name;
  GpuSpec gpu;
  int nodes = 1;
  int gpus_per_node = 8;
  BytesPerSecond nic_bandwidth;        // per GPU NIC, per direction
  int nodes_per_group = 32;            // nodes under one set of leaf switches (a scalable unit or a rack)
  int spines = 0;                      // 0: derived (one spine per leaf port group); ignored when there is one group
  double oversubscription = 1.0;       // leaf downlink : uplink bandwidth, >= 1
  Seconds nvlink_latency = Seconds(0.5e-6);
  Seconds link_latency = Seconds(1e-6);  // per NIC/fabric link
  BytesPerSecond storage_bandwidth;    // the storage target's total bandwidth
};

//   n GPUs on one NVSwitch; the storage target hangs off the NVSwitch.
//
//      gpu0  gpu1 ... gpuN-1
//        \    |       /
//         [ NVSwitch ]---storage
Topology make_single_node(const FabricParams& p);

// Rail-optimized fat-tree (DGX SuperPOD style): in each group of nodes, NIC r of every node goes to the group's
// rail-r leaf; every leaf connects to every spine with uplink = downlink / oversubscription.
//
//            spine0 ........ spineS-1 ---- storage
//           /   |    \         |   \
//     leaf(g0,r0) ... leaf(g0,r7)   leaf(g1,r0) ...
//        |  \            |  \          |
//      n0.g0 n1.g0 ... n0.g7 n1.g7   n32.g0 ...
//      (inside a node all GPUs share an NVSwitch)
Topology make_rail_optimized(const FabricParams& p);

// Leaf-spine (rack style): all NICs of a node go to its rack's one leaf (ToR); leaves connect to every spine with
// uplink = downlink / oversubscription.
//
//        spine0 ... spineS-1 ---- storage
//         |    \   /    |
//       leaf0   leaf1 ...
//       / | \    / | \
//     n0 n1 ..  nK ...   (all 8 NICs of a node on one leaf)
Topology make_leaf_spine(const FabricParams& p);

}  // namespace tt
