// Topology: the cluster as a Boost.Graph of GPUs, NVSwitches, leaf and spine switches and a storage target, joined by
// full-duplex links (one graph edge per cable, the same bandwidth in each direction). Built by a generator
// (core/topo/generators.hpp) or from an explicit description; immutable once built. Ids are dense indices.
// EdgeIds belong to one Topology object: a copy remaps its own edges(), so take EdgeIds from the copy you query.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <boost/graph/adjacency_list.hpp>
#include <memory>
#include <string>
#include <unordered_map>
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
  int group = -1;    // for Leaf: the leaf group (scalable unit / rack) it serves; for Gpu and NvSwitch: its node's
};

struct LinkProps {
  LinkKind kind = LinkKind::Fabric;
  std::string name;  // unique
  BytesPerSecond bandwidth;  // per direction
  Seconds latency;
  int id = -1;       // index in Topology::edges() (stable across copies, unlike EdgeId)
};

using TopoGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, VertexProps, LinkProps>;
using VertexId = TopoGraph::vertex_descriptor;
using EdgeId = TopoGraph::edge_descriptor;

struct NodeInfo {
  std::string name;               // "n3"
  std::vector<VertexId> gpus;     // in local order
  VertexId nvswitch;
  int group = 0;                  // leaf group (scalable unit / rack); nodes of one group share leaf switches
  int site = 0;                   // index into Topology::sites(); 0 in a one-site topology
};

// A site of a multi-site topology (core/topo/sites.hpp): its own fabric and storage target. Nodes of a site are
// contiguous (first_node .. end_node - 1), and so are its leaf groups.
struct SiteInfo {
  std::string name;
  int first_node = 0, end_node = 0;
  int first_group = 0, end_group = 0;
  bool has_storage = false;
  VertexId storage = 0;  // meaningful only when has_storage
};

// A route between two vertices: the links in order, each with the direction it is crossed in.
struct Hop {
  EdgeId edge;
  bool forward;  // true when crossed from source(edge) to target(edge)
  friend bool operator==(const Hop&, const Hop&) = default;
};
using Path = std::vector<Hop>;

class Topology {
 public:
  Topology() = default;
  // Copies and moves remap edges() onto the new graph (an adjacency_list edge descriptor points into its graph).
  Topology(const Topology& other);
  Topology(Topology&& other);
  Topology& operator=(const Topology& other);
  Topology& operator=(Topology&& other);

  const std::string& name() const { return name_; }
  const std::string& generator() const { return generator_; }  // "single-node", "rail-optimized", "leaf-spine", "explicit"
  const GpuSpec& gpu() const { return gpu_; }
  const TopoGraph& graph() const { return graph_; }
  const std::vector<NodeInfo>& nodes() const { return nodes_; }
  int gpus_per_node() const { return gpus_per_node_; }
  int total_gpus() const { return static_cast<int>(nodes_.size()) * gpus_per_node_; }
  int groups() const { return groups_; }
  bool has_storage() const { return has_storage_; }
  VertexId storage() const { return storage_; }  // meaningful only when has_storage()
  BytesPerSecond storage_bandwidth() const;       // sum over the storage vertex's links; zero without storage
  // Sites: empty for a one-site topology (every generator but join_sites, core/topo/sites.hpp). Otherwise each node's
  // NodeInfo::site indexes this list, storage() is the first site's, and inter_site_link() joins the sites.
  const std::vector<SiteInfo>& sites() const { return sites_; }
  int site_count() const { return sites_.empty() ? 1 : static_cast<int>(sites_.size()); }
  int inter_site_link() const { return inter_site_link_; }  // edge index, -1 without sites

  VertexId gpu_vertex(int node, int local) const { return nodes_[node].gpus[local]; }
  int find_vertex(const std::string& name) const;  // -1 when absent
  int find_node(const std::string& name) const;    // -1 when absent
  int find_link(const std::string& name) const;    // edge index in edges(), -1 when absent
  const std::vector<EdgeId>& edges() const { return edges_; }  // stable order (creation order)
  int switch_count(VertexKind kind) const;  // vertices of that kind (also counts Gpu and Storage vertices)
  const LinkProps& link(int index) const { return graph_[edges_[index]]; }

  // Fewest-hops path (breadth-first search; ties broken by vertex index so it is deterministic). Empty when
  // from == to; throws std::invalid_argument when `to` cannot be reached.
  Path path(VertexId from, VertexId to) const;
  // A fewest-hops path like path(), but where several next hops tie, `spread` picks one of them (ECMP-style hashing:
  // flows given different spreads are spread over parallel spines). spread == 0 gives path().
  Path ecmp_path(VertexId from, VertexId to, std::uint64_t spread) const;
  // Hop distance of every vertex to `to` (kUnreachable when none), never through the storage target unless it is
  // `to`. A breadth-first search (Boost.Graph) gives a table per switch or storage destination, a byte per vertex,
  // computed once and cached (shared by copies; the graph never changes once built). A GPU is reached only through its
  // neighbours (its NVSwitch, its NIC's leaf), so its distances are 1 + the least of theirs: GPU destinations read their
  // switches' tables instead of a search and a table each (16,640 GPUs share 2,600 switches' tables in
  // bench_flagship). An NVSwitch whose GPUs reach out only through leaves is reached from outside its node through
  // those leaves: 2 + the least of their tables, kept once per set of leaves (a rail-optimized group's nodes share one:
  // 64 tables instead of 2,048 at 16,384 GPUs), its own node's GPUs at 1.
  static constexpr std::uint16_t kUnreachable = 0xffff;
  class HopDistances {
   public:
    std::uint16_t operator[](VertexId v) const {
      if (v == to_) return 0;
      if (owner_ != nullptr && owner_[v] == switch_) return v == switch_ ? switch_hops_ : gpu_hops_;
      unsigned least = kUnreachable;
      for (int i = 0; i < count_; ++i) {
        const unsigned d = via_[i][v];
        if (d != kFar) least = std::min(least, d + add_[i]);
      }
      return static_cast<std::uint16_t>(least);
    }
    static constexpr std::uint8_t kFar = 0xff;  // unreachable, in a table (a byte per vertex)

   private:
    friend class Topology;
    static constexpr int kMaxVia = 4;  // a GPU with more neighbours gets a table of its own
    VertexId to_ = 0;
    int count_ = 0;
    std::array<const std::uint8_t*, kMaxVia> via_{};
    std::array<std::uint8_t, kMaxVia> add_{};  // hops added to each table's
    // The node of a composed NVSwitch (above): its vertices (owner_[v] == switch_) are switch_hops_ and gpu_hops_ away.
    const VertexId* owner_ = nullptr;
    VertexId switch_ = 0;
    std::uint16_t switch_hops_ = 0, gpu_hops_ = 0;
  };
  HopDistances hops_to(VertexId to) const;
  // Sum of the latencies along a path, and its narrowest link.
  Seconds latency(const Path& p) const;
  BytesPerSecond bottleneck(const Path& p) const;

  // Bisection bandwidth: maximum flow (Boost push-relabel) from the GPUs of the first half of the nodes to those of
  // the second half, one direction. Nodes are split in index order, which generators lay out group by group. The
  // storage vertex is left out. A one-node topology splits its GPUs in local order instead.
  BytesPerSecond bisection_bandwidth() const;

  // Builder interface, used by generators and the explicit reader.
  struct Builder;

 private:
  friend struct Builder;
  void remap_edges();
  std::string name_;
  std::string generator_;
  GpuSpec gpu_;
  TopoGraph graph_;
  std::vector<NodeInfo> nodes_;
  std::vector<EdgeId> edges_;
  int gpus_per_node_ = 0;
  int groups_ = 0;
  VertexId storage_ = 0;
  bool has_storage_ = false;
  std::vector<SiteInfo> sites_;
  int inter_site_link_ = -1;
  std::unordered_map<std::string, int> vertex_index_;
  std::unordered_map<std::string, int> node_index_;
  std::unordered_map<std::string, int> link_index_;
  std::array<int, 5> kind_count_{};  // by VertexKind
  struct HopCache;
  static std::shared_ptr<HopCache> make_hop_cache();  // topology_paths.cpp, where HopCache is
  mutable std::shared_ptr<HopCache> hop_cache_;  // by destination vertex: hops_to()
};

// Names must be unique (vertices among vertices, links among links); a duplicate throws std::invalid_argument, so
// readers check names first to report them with a JSON pointer.
struct Topology::Builder {
  Topology t;
  explicit Builder(std::string name, std::string generator, GpuSpec gpu, int gpus_per_node);
  // Adds a node with gpus_per_node GPUs "<name>/gpu<i>" on one NVSwitch "<name>/nvswitch", joined by NvLink links
  // "<name>/gpu<i>~<name>/nvswitch" at the GPU's NVLink bandwidth.
  int add_node(const std::string& name, int group, Seconds nvlink_latency);
  VertexId add_switch(VertexKind kind, const std::string& name, int group = -1);
  VertexId add_storage(const std::string& name);  // at most one (one per site after begin_site)
  // Starts a site: nodes added from now on belong to it (core/topo/sites.hpp).
  void begin_site(const std::string& name);
  void set_inter_site_link(int edge) { t.inter_site_link_ = edge; }
  EdgeId add_link(VertexId a, VertexId b, LinkKind kind, const std::string& name, BytesPerSecond bw, Seconds lat);
  // Room for this many vertices and links in all, when a generator knows them: the name indexes grow once.
  void reserve(std::size_t vertices, std::size_t links);
  Topology build() &&;
};

}  // namespace tt
