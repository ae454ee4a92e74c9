#include "core/topo/topology.hpp"

#include <algorithm>
#include <boost/graph/push_relabel_max_flow.hpp>
#include <limits>
#include <stdexcept>
#include <unordered_map>

namespace tt {

const char* to_string(VertexKind k) {
  switch (k) {
    case VertexKind::Gpu: return "gpu";
    case VertexKind::NvSwitch: return "nvswitch";
    case VertexKind::Leaf: return "leaf";
    case VertexKind::Spine: return "spine";
    case VertexKind::Storage: return "storage";
  }
  return "?";
}

const char* to_string(LinkKind k) {
  switch (k) {
    case LinkKind::NvLink: return "nvlink";
    case LinkKind::Nic: return "nic";
    case LinkKind::Fabric: return "fabric";
    case LinkKind::Storage: return "storage";
  }
  return "?";
}

// --- copies: adjacency_list has no move constructor and its edge descriptors point into their own graph ---

Topology::Topology(const Topology& other)
    : name_(other.name_),
      generator_(other.generator_),
      gpu_(other.gpu_),
      graph_(other.graph_),
      nodes_(other.nodes_),
      gpus_per_node_(other.gpus_per_node_),
      groups_(other.groups_),
      storage_(other.storage_),
      has_storage_(other.has_storage_),
      sites_(other.sites_),
      inter_site_link_(other.inter_site_link_),
      vertex_index_(other.vertex_index_),
      node_index_(other.node_index_),
      link_index_(other.link_index_),
      kind_count_(other.kind_count_),
      hop_cache_(other.hop_cache_) {  // the same graph: the same distances (the cache is locked per lookup)
  remap_edges();
}

Topology::Topology(Topology&& other) : Topology() { *this = std::move(other); }

Topology& Topology::operator=(const Topology& other) {
  if (this == &other) return *this;
  Topology copy(other);
  *this = std::move(copy);
  return *this;
}

Topology& Topology::operator=(Topology&& other) {
  if (this == &other) return *this;
  hop_cache_ = std::move(other.hop_cache_);
  name_ = std::move(other.name_);
  generator_ = std::move(other.generator_);
  gpu_ = std::move(other.gpu_);
  graph_ = other.graph_;  // a copy: see above
  nodes_ = std::move(other.nodes_);
  gpus_per_node_ = other.gpus_per_node_;
  groups_ = other.groups_;
  storage_ = other.storage_;
  has_storage_ = other.has_storage_;
  sites_ = std::move(other.sites_);
  inter_site_link_ = other.inter_site_link_;
  vertex_index_ = std::move(other.vertex_index_);
  node_index_ = std::move(other.node_index_);
  link_index_ = std::move(other.link_index_);
  kind_count_ = other.kind_count_;
  remap_edges();
  return *this;
}

void Topology::remap_edges() {
  edges_.assign(boost::num_edges(graph_), EdgeId());
  for (auto [it, end] = boost::edges(graph_); it != end; ++it) edges_[graph_[*it].id] = *it;
}

// --- builder ---

Topology::Builder::Builder(std::string name, std::string generator, GpuSpec gpu, int gpus_per_node) {
  t.name_ = std::move(name);
  t.generator_ = std::move(generator);
  t.gpu_ = std::move(gpu);
  t.gpus_per_node_ = gpus_per_node;
}

namespace {
VertexId add_vertex_named(TopoGraph& g, std::unordered_map<std::string, int>& index, VertexProps props) {
  auto [it, fresh] = index.try_emplace(props.name, static_cast<int>(boost::num_vertices(g)));
  if (!fresh) throw std::invalid_argument("duplicate vertex name \"" + props.name + "\"");
  return boost::add_vertex(std::move(props), g);
}
}  // namespace

int Topology::Builder::add_node(const std::string& name, int group, Seconds nvlink_latency) {
  if (t.node_index_.count(name)) throw std::invalid_argument("duplicate node name \"" + name + "\"");
  int node = static_cast<int>(t.nodes_.size());
  NodeInfo info;
  info.name = name;
  info.group = group;
  info.site = t.sites_.empty() ? 0 : static_cast<int>(t.sites_.size()) - 1;
  for (int i = 0; i < t.gpus_per_node_; ++i) {
    VertexProps p{VertexKind::Gpu, name + "/gpu" + std::to_string(i), node, i, group};
    info.gpus.push_back(add_vertex_named(t.graph_, t.vertex_index_, std::move(p)));
  }
  info.nvswitch = add_vertex_named(t.graph_, t.vertex_index_,
                                   VertexProps{VertexKind::NvSwitch, name + "/nvswitch", node, -1, group});
  t.kind_count_[static_cast<int>(VertexKind::Gpu)] += t.gpus_per_node_;
  t.kind_count_[static_cast<int>(VertexKind::NvSwitch)] += 1;
  const std::string& sw = t.graph_[info.nvswitch].name;
  for (int i = 0; i < t.gpus_per_node_; ++i) {
    VertexId g = info.gpus[i];
    add_link(g, info.nvswitch, LinkKind::NvLink, t.graph_[g].name + "~" + sw, t.gpu_.nvlink, nvlink_latency);
  }
  t.node_index_.emplace(name, node);
  t.nodes_.push_back(std::move(info));
  if (!t.sites_.empty()) {
    SiteInfo& site = t.sites_.back();
    site.end_node = node + 1;
    site.end_group = std::max(site.end_group, group + 1);
  }
  return node;
}

VertexId Topology::Builder::add_switch(VertexKind kind, const std::string& name, int group) {
  if (kind != VertexKind::Leaf && kind != VertexKind::Spine && kind != VertexKind::NvSwitch)
    throw std::invalid_argument("add_switch: not a switch kind: " + std::string(to_string(kind)));
  VertexId v = add_vertex_named(t.graph_, t.vertex_index_, VertexProps{kind, name, -1, -1, group});
  t.kind_count_[static_cast<int>(kind)] += 1;
  return v;
}

VertexId Topology::Builder::add_storage(const std::string& name) {
  const bool site_has = t.sites_.empty() ? t.has_storage_ : t.sites_.back().has_storage;
  if (site_has) throw std::invalid_argument("a topology (or a site) has at most one storage vertex");
  VertexId v = add_vertex_named(t.graph_, t.vertex_index_, VertexProps{VertexKind::Storage, name, -1, -1, -1});
  if (!t.has_storage_) t.storage_ = v;
  t.has_storage_ = true;
  if (!t.sites_.empty()) {
    t.sites_.back().has_storage = true;
    t.sites_.back().storage = v;
  }
  t.kind_count_[static_cast<int>(VertexKind::Storage)] += 1;
  return v;
}

void Topology::Builder::begin_site(const std::string& name) {
  SiteInfo site;
  site.name = name;
  site.first_node = site.end_node = static_cast<int>(t.nodes_.size());
  site.first_group = site.end_group = t.sites_.empty() ? 0 : t.sites_.back().end_group;
  t.sites_.push_back(std::move(site));
}

EdgeId Topology::Builder::add_link(VertexId a, VertexId b, LinkKind kind, const std::string& name, BytesPerSecond bw,
                                   Seconds lat) {
  if (a == b) throw std::invalid_argument("link \"" + name + "\" joins a vertex to itself");
  const int id = static_cast<int>(t.edges_.size());
  if (!t.link_index_.try_emplace(name, id).second) throw std::invalid_argument("duplicate link name \"" + name + "\"");
  EdgeId e = boost::add_edge(a, b, LinkProps{kind, name, bw, lat, id}, t.graph_).first;
  t.edges_.push_back(e);
  return e;
}

void Topology::Builder::reserve(std::size_t vertices, std::size_t links) {
  t.vertex_index_.reserve(vertices);
  t.link_index_.reserve(links);
  t.edges_.reserve(links);
}

Topology Topology::Builder::build() && {
  int groups = 0;
  for (const auto& n : t.nodes_) groups = std::max(groups, n.group + 1);
  t.groups_ = groups;
  t.hop_cache_ = make_hop_cache();  // now, so that every copy shares it
  return std::move(t);
}

// --- queries ---

int Topology::find_vertex(const std::string& name) const {
  auto it = vertex_index_.find(name);
  return it == vertex_index_.end() ? -1 : it->second;
}

int Topology::find_node(const std::string& name) const {
  auto it = node_index_.find(name);
  return it == node_index_.end() ? -1 : it->second;
}

int Topology::find_link(const std::string& name) const {
  auto it = link_index_.find(name);
  return it == link_index_.end() ? -1 : it->second;
}

int Topology::switch_count(VertexKind kind) const { return kind_count_[static_cast<int>(kind)]; }

BytesPerSecond Topology::storage_bandwidth() const {
  BytesPerSecond total;
  if (!has_storage_) return total;
  for (auto [it, end] = boost::out_edges(storage_, graph_); it != end; ++it) total += graph_[*it].bandwidth;
  return total;
}

Seconds Topology::latency(const Path& p) const {
  Seconds total;
  for (const Hop& h : p) total += graph_[h.edge].latency;
  return total;
}

BytesPerSecond Topology::bottleneck(const Path& p) const {
  BytesPerSecond narrowest(std::numeric_limits<double>::infinity());  // an empty path constrains nothing
  for (const Hop& h : p) narrowest = std::min(narrowest, graph_[h.edge].bandwidth);
  return narrowest;
}

BytesPerSecond Topology::bisection_bandwidth() const {
  using Traits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
  using FlowGraph = boost::adjacency_list<
      boost::vecS, boost::vecS, boost::directedS, boost::no_property,
      boost::property<boost::edge_capacity_t, long long,
                      boost::property<boost::edge_residual_capacity_t, long long,
                                      boost::property<boost::edge_reverse_t, Traits::edge_descriptor>>>>;
  const auto n = boost::num_vertices(graph_);
  FlowGraph flow(n + 2);
  const auto source = n, sink = n + 1;
  auto capacity = boost::get(boost::edge_capacity, flow);
  auto reverse = boost::get(boost::edge_reverse, flow);
  auto add_arc = [&](std::size_t u, std::size_t v, long long cap) {
    auto forward = boost::add_edge(u, v, flow).first;
    auto back = boost::add_edge(v, u, flow).first;
    capacity[forward] = cap;
    capacity[back] = 0;
    reverse[forward] = back;
    reverse[back] = forward;
  };
  // Whole bytes per second keep push-relabel exact; the rounding is far below any real link's precision.
  // Each GPU's arc from the source (to the sink) carries what its own links can, which never limits the flow. Not one
  // "infinite" capacity for all: Boost starts the source's excess at the type's maximum, and flow pushed back to the
  // source overflows it (signed overflow, undefined; UBSan found it on the bundled 4,096-GPU topologies) once the
  // source arcs together hold more than that maximum.
  std::vector<long long> reach(n, 1);
  for (EdgeId e : edges_) {
    VertexId a = boost::source(e, graph_), b = boost::target(e, graph_);
    if (graph_[a].kind == VertexKind::Storage || graph_[b].kind == VertexKind::Storage) continue;
    long long cap = std::llround(graph_[e].bandwidth.value);
    add_arc(a, b, cap);
    add_arc(b, a, cap);
    reach[a] += cap;
    reach[b] += cap;
  }
  std::vector<VertexId> first, second;
  if (nodes_.size() == 1) {
    const auto& gpus = nodes_[0].gpus;
    first.assign(gpus.begin(), gpus.begin() + gpus.size() / 2);
    second.assign(gpus.begin() + gpus.size() / 2, gpus.end());
  } else {
    for (std::size_t i = 0; i < nodes_.size(); ++i) {
      auto& half = i < nodes_.size() / 2 ? first : second;
      half.insert(half.end(), nodes_[i].gpus.begin(), nodes_[i].gpus.end());
    }
  }
  if (first.empty() || second.empty()) return BytesPerSecond(0);
  for (VertexId g : first) add_arc(source, g, reach[g]);
  for (VertexId g : second) add_arc(g, sink, reach[g]);
  long long max_flow = boost::push_relabel_max_flow(flow, source, sink);
  return BytesPerSecond(static_cast<double>(max_flow));
}

}  // namespace tt
