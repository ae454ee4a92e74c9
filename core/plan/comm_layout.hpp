// Where a communication group's members sit, and the rings and trees laid over them. Rings follow rails: an edge
// between two nodes joins GPUs of the same local index (GPU i of a node talks over NIC i), so each channel crosses a
// node boundary through one rail leaf and no spine when the nodes share a leaf group. Pure functions of the members.
#pragma once

#include <vector>

namespace tt {

struct GroupLayout {
  std::vector<int> nodes;                 // distinct nodes, ascending
  std::vector<std::vector<int>> members;  // per node: its members (global GPU indices), by local index
  bool uniform = true;                    // every node holds members at the same local indices (rails)
  int gpus_per_node = 1;                  // of the topology
  int size() const;                       // members in all
};
GroupLayout layout_of(const std::vector<int>& gpus, int gpus_per_node);

// Ring channels (NCCL's channels, one ring each) over the members. One node: one ring in local order (the NVSwitch
// gives every order the same links). Several nodes with k members each on the same rails: k rings; ring c enters
// node i on rail r(c, i) and leaves on rail r(c, i+1), alternating between two rails so that every NIC carries one
// ring each way, and every inter-node edge is rail-aligned (with an odd node count and k = 2, the closing edge of
// each ring is not). Otherwise one ring, node after node in local order.
std::vector<std::vector<int>> ring_channels(const GroupLayout& l);

// A tree channel (NCCL's tree pattern): inside each node a chain from its head; across nodes a binary tree of heads.
struct TreeChannel {
  std::vector<std::vector<int>> chains;  // per node, head first
  std::vector<int> parent;               // per node (index into chains), -1 for the root
};
// The two trees of a double binary tree per channel: tree A is a heap over nodes (parent (i-1)/2), tree B the same
// heap over the nodes in reverse order, so most nodes that are inner in one tree are leaves in the other. Channel c
// has its heads on rail c (uniform layouts; else one channel headed by each node's first member).
std::vector<TreeChannel> tree_channels(const GroupLayout& l);

// True when every inter-node edge of the ring joins GPUs of the same local index.
bool rail_aligned(const std::vector<int>& ring, int gpus_per_node);

}  // namespace tt
