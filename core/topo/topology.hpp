// Topology: the cluster as a Boost.Graph of GPUs, NVSwitches, leaf and spine switches and a storage target, joined by
// full-duplex links (one graph edge per cable, the same bandwidth in each direction). Built by a generator
// (core/topo/generators.hpp) or from an explicit description; immutable once built. Ids are dense indices.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <string>
#include <vector>

#include "core/model/gpu.hpp"
#include "core/model/units.hpp"

namespace tt {

enum class VertexKind { Gpu, NvSwitch, Leaf, Spine, Storage };
enum class LinkKind { NvLink, Nic, Fabric, Storage };

const char* to_string(VertexKind k);
const char* to_string(LinkKind k);

struct VertexProps {
  VertexKind kind = VertexKind::Gpu;
  std::string name;  // unique: "n3/gpu5", "n3/nvswitch", "leaf-su0-rail2", "spine4", "storage"
  int node = -1;     // for Gpu and NvSwitch: index into Topology::nodes()
  int local = -1;    // for Gpu: index within its node (= its rail)
  int group = -1;    // for Leaf: the leaf group (scalable unit / rack) it serves
};

struct LinkProps {
  LinkKind kind = LinkKind::Fabric;
  std::string name;  // unique
  BytesPerSecond bandwidth;  // per direction
  Seconds latency;
};

using TopoGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, LinkProps>;
using VertexId = TopoGraph::vertex_descriptor;
using EdgeId = TopoGraph::edge_descriptor;

struct NodeInfo {
  std::string name;               // "n3"
  std::vector<VertexId> gpus;     // in local order
  VertexId nvswitch;
  int group = 0;                  // leaf group (scalable unit / rack); nodes of one group share leaf switches
};

// A route between two vertices: the links in order, each with the direction it is crossed in.
struct Hop {
  EdgeId edge;
  bool forward;  // true when crossed from source(edge) to target(edge)
};
using Path = std::vector<Hop>;

class Topology {
 public:
  Topology() = default;

  const std::string& name() const { return name_; }
  const std::string& generator() const { return generator_; }  // "single-node", "rail-optimized", "leaf-spine", "explicit"
  const GpuSpec& gpu() const { return gpu_; }
  const TopoGraph& graph() const { return graph_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int total_gpus() const { return static_cast<int>(nodes_.size()) * gpus_per_node_; }
  int groups() const { return groups_; }
  VertexId storage() const { return storage_; }
  BytesPerSecond storage_bandwidth() const;

  VertexId gpu_vertex(int node, int local) const { return nodes_[node].gpus[local]; }
  int find_vertex(const std::string& name) const;  // -1 when absent
  int find_node(const std::string& name) const;    // -1 when absent
  int find_link(const std::string& name) const;    // edge index in edges(), -1 when absent
  const std::vector<EdgeId>& edges() const { return edges_; }  // stable order (creation order)
  int switch_count(VertexKind kind) const;

  // Fewest-hops path (breadth-first search; ties broken by vertex index so it is deterministic).
  Path path(VertexId from, VertexId to) const;
  // Sum of the latencies along a path, and its narrowest link.
  Seconds latency(const Path& p) const;
  BytesPerSecond bottleneck(const Path& p) const;

  // Bisection bandwidth: maximum flow (Boost push-relabel) from the GPUs of the first half of the nodes to those of
  // the second half, one direction. Nodes are split in index order, which generators lay out group by group.
  BytesPerSecond bisection_bandwidth() const;

  // Builder interface, used by generators and the explicit reader.
  struct Builder;

 private:
  friend struct Builder;
  std::string name_;
  std::string generator_;
  GpuSpec gpu_;
  TopoGraph graph_;
  std::vector<NodeInfo> nodes_;
  std::vector<EdgeId> edges_;
  int gpus_per_node_ = 0;
  int groups_ = 0;
  VertexId storage_ = 0;
};

struct Topology::Builder {
  Topology t;
  explicit Builder(std::string name, std::string generator, GpuSpec gpu, int gpus_per_node);
  // Adds a node with gpus_per_node GPUs on one NVSwitch (GPU<->NVSwitch links at the GPU's NVLink bandwidth).
  int add_node(const std::string& name, int group, Seconds nvlink_latency);
  VertexId add_switch(VertexKind kind, const std::string& name, int group = -1);
  VertexId add_storage(const std::string& name);
  EdgeId add_link(VertexId a, VertexId b, LinkKind kind, const std::string& name, BytesPerSecond bw, Seconds lat);
  Topology build() &&;
};

}  // namespace tt
