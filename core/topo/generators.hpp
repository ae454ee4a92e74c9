// Topology generators. Each documents the shape it builds; all take validated parameters (core/io checks the input).
// Names (scenarios refer to them, e.g. in link_down faults) are fixed by the scheme below, stable across versions.
#pragma once

#include <string>

#include "core/topo/topology.hpp"

namespace tt {

// Naming scheme shared by all generators:
//   nodes       "n0" .. "n<N-1>", laid out group by group (nodes_per_group consecutive nodes form group g)
//   GPUs        "n3/gpu5"            NVSwitch  "n3/nvswitch"          storage "storage"
//   leaves      "leaf-g0-r5" (rail-optimized: group 0, rail 5)   "leaf-g0" (leaf-spine: group/rack 0)
//   spines      "spine0" .. "spine<S-1>"
//   links       "<a>~<b>", the two vertex names, the lower layer first:
//               "n3/gpu5~n3/nvswitch" (NvLink), "n3/gpu5~leaf-g0-r5" (Nic), "leaf-g0-r5~spine2" (Fabric),
//               "spine0~storage", "leaf-g0-r3~storage" or "n0/nvswitch~storage" (Storage)
// Vertex ids are allocated in this order: nodes (each: its GPUs, then its NVSwitch), leaves (group-major), spines,
// storage. The storage target exists only when storage_bandwidth > 0.

struct FabricParams {
  std::string name;
  GpuSpec gpu;
  int nodes = 1;
  int gpus_per_node = 8;
  BytesPerSecond nic_bandwidth;        // per GPU NIC, per direction
  int nodes_per_group = 32;            // nodes under one set of leaf switches (a scalable unit or a rack)
  int spines = 0;                      // 0: derived, gpus_per_node spines (one per rail plane); ignored with one group
  double oversubscription = 1.0;       // leaf downlink : uplink bandwidth, >= 1
  Seconds nvlink_latency = Seconds(0.5e-6);
  Seconds link_latency = Seconds(1e-6);  // per NIC/fabric/storage link
  BytesPerSecond storage_bandwidth;    // the storage target's total bandwidth, split evenly over its links
};

// The number of spines a fabric with these parameters gets (0 when there is a single group: no spine layer).
int spine_count(const FabricParams& p);
// The number of leaf groups: ceil(nodes / nodes_per_group); the last group may be smaller.
int group_count(const FabricParams& p);

//   n GPUs on one NVSwitch; the storage target hangs off the NVSwitch. Node "n0"; uses gpu, gpus_per_node,
//   nvlink_latency, link_latency (storage link) and storage_bandwidth.
//
//      gpu0  gpu1 ... gpuN-1
//        \    |       /
//         [ NVSwitch ]---storage
Topology make_single_node(const FabricParams& p);

// Rail-optimized fat-tree (DGX SuperPOD style): in each group of nodes, NIC r of every node goes to the group's
// rail-r leaf; every leaf connects to every spine with uplink = downlink / oversubscription. Per leaf, the total uplink
// (nodes in its group x nic_bandwidth / oversubscription) is split evenly over the spines, one link per spine.
// Storage hangs off every spine (storage_bandwidth / spines each); with a single group there is no spine layer and
// storage hangs off every leaf instead (storage_bandwidth / gpus_per_node each).
//
//            spine0 ........ spineS-1 ---- storage
//           /   |    \         |   \   (every leaf to every spine)
//     leaf(g0,r0) ... leaf(g0,r7)   leaf(g1,r0) ...
//        |  \            |  \          |
//      n0.g0 n1.g0 ... n0.g7 n1.g7   n32.g0 ...
//      (inside a node all GPUs share an NVSwitch)
Topology make_rail_optimized(const FabricParams& p);

// Rack-scale NVLink (GB200 NVL72 style): each rack is one NVLink domain, modelled as one node of gpus_per_node GPUs
// on one NVSwitch fabric (NVL72: 18 compute trays of 4 GPUs = 72; trays are not separate nodes: a job of at most a
// rack's GPUs always lies in one domain, a larger one takes whole racks). Racks are joined by a rail-optimized
// scale-out fabric, one NIC per GPU, exactly as make_rail_optimized (nodes_per_group racks under a set of leaves).
//
//            spine0 ........ spineS-1 ---- storage
//           /   |    \     (every leaf to every spine)
//     leaf(g0,r0) ... leaf(g0,r71)      (one leaf per GPU rail and group)
//        |  \             |  .
//      rack0 rack1 ...  (72 GPUs on one NVLink domain each: 18 trays x 4 behind the rack's NVSwitches)
Topology make_nvlink_rack(const FabricParams& p);

// Leaf-spine (rack style): all NICs of a node go to its rack's one leaf (ToR); leaves connect to every spine with
// uplink = downlink / oversubscription (per leaf: nodes in its rack x gpus_per_node x nic_bandwidth / oversubscription,
// split evenly over the spines). Storage hangs off every spine; with a single rack, off its one leaf.
//
//        spine0 ... spineS-1 ---- storage
//         |    \   /    |
//       leaf0   leaf1 ...
//       / | \    / | \   (NIC links)
//     n0 n1 ..  nK ...   (all 8 NICs of a node on one leaf)
Topology make_leaf_spine(const FabricParams& p);

}  // namespace tt
