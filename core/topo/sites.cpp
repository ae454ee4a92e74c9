#include "core/topo/sites.hpp"

#include <cassert>
#include <stdexcept>

namespace tt {

std::string default_gateway(const Topology& fabric) {
  const auto& g = fabric.graph();
  for (VertexKind kind : {VertexKind::Spine, VertexKind::Leaf})
    for (VertexId v = 0; v < boost::num_vertices(g); ++v)
      if (g[v].kind == kind) return g[v].name;
  return g[fabric.nodes().at(0).nvswitch].name;
}

namespace {

// Copies one site's fabric into the builder under "<site>." names; returns the new id of each old vertex.
std::vector<VertexId> copy_site(Topology::Builder& b, const SiteFabric& site) {
  const Topology& f = site.fabric;
  const auto& g = f.graph();
  const std::string prefix = site.name + ".";
  const int group_offset = b.t.sites().empty() ? 0 : b.t.sites().back().end_group;
  b.begin_site(site.name);
  std::vector<VertexId> map(boost::num_vertices(g));
  Seconds nvlink_latency;
  for (EdgeId e : f.edges())
    if (g[e].kind == LinkKind::NvLink) {
      nvlink_latency = g[e].latency;
      break;
    }
  for (const NodeInfo& n : f.nodes()) {
    const int node = b.add_node(prefix + n.name, group_offset + n.group, nvlink_latency);
    const NodeInfo& copy = b.t.nodes()[node];
    for (std::size_t i = 0; i < n.gpus.size(); ++i) map[n.gpus[i]] = copy.gpus[i];
    map[n.nvswitch] = copy.nvswitch;
  }
  for (VertexId v = 0; v < boost::num_vertices(g); ++v) {
    if (g[v].kind == VertexKind::Leaf || g[v].kind == VertexKind::Spine)
      map[v] = b.add_switch(g[v].kind, prefix + g[v].name, g[v].group >= 0 ? group_offset + g[v].group : -1);
    else if (g[v].kind == VertexKind::Storage)
      map[v] = b.add_storage(prefix + g[v].name);
  }
  for (EdgeId e : f.edges()) {
    if (g[e].kind == LinkKind::NvLink) continue;  // add_node made them
    b.add_link(map[boost::source(e, g)], map[boost::target(e, g)], g[e].kind, prefix + g[e].name, g[e].bandwidth,
               g[e].latency);
  }
  return map;
}

}  // namespace

Topology join_sites(const std::string& name, const std::vector<SiteFabric>& sites, const InterSiteLink& link) {
  if (sites.size() != 2) throw std::invalid_argument("join_sites: two sites");
  const Topology& first = sites[0].fabric;
  assert(first.gpus_per_node() == sites[1].fabric.gpus_per_node());
  Topology::Builder b(name, "sites", first.gpu(), first.gpus_per_node());
  std::vector<VertexId> gateways;
  for (const SiteFabric& site : sites) {
    std::vector<VertexId> map = copy_site(b, site);
    const std::string gw = site.gateway.empty() ? default_gateway(site.fabric) : site.gateway;
    const int v = site.fabric.find_vertex(gw);
    if (v < 0) throw std::invalid_argument("join_sites: no gateway vertex \"" + gw + "\" in site " + site.name);
    gateways.push_back(map[static_cast<VertexId>(v)]);
  }
  b.add_link(gateways[0], gateways[1], LinkKind::Fabric, sites[0].name + "~" + sites[1].name, link.bandwidth,
             link.latency);
  b.set_inter_site_link(static_cast<int>(b.t.edges().size()) - 1);
  return std::move(b).build();
}

}  // namespace tt
