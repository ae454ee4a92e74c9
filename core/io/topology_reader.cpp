// Topology documents (topologies/*.json, or a scenario's inline "topology" object). Every key, its unit and default:
//
//   name               string, required
//   generator          "rail-optimized" | "leaf-spine" | "nvlink-rack" | "single-node" | "explicit", required
//   gpu                GPU catalog name ("A100-SXM", "H100-SXM", "H200", "B200"), required
//   nvlink_latency     duration, default "0.5us" (each GPU<->NVSwitch link)
//   link_latency       duration, default "1us" (each NIC, fabric and storage link; explicit links may override it)
//   storage            object, required:
//     bandwidth        bandwidth > 0, the storage target's total ("200GB/s"), split evenly over its links
//     attach           explicit only: a vertex name or an array of them (switches or NVSwitches), required
//
// "single-node":       gpus             integer 1..576, required
// "rail-optimized", "leaf-spine" (at most 262144 GPUs in all, in every form):
//   nodes              integer 1..65536, required
//   gpus_per_node      integer 1..576, required
//   nic_bandwidth      bandwidth > 0 per GPU NIC and direction ("400Gbps"), required
//   nodes_per_group    integer >= 1, default 32 for rail-optimized (a SuperPOD scalable unit), 4 for leaf-spine (a
//                      rack of four 8-GPU servers); the last group may be smaller
//   spines             integer 1..4096, default gpus_per_node; only allowed with two or more groups; leaves (groups x
//                      gpus_per_node for rail-optimized, one per group for leaf-spine) x spines at most 262144
//   oversubscription   number in [1, 1000], default 1 (non-blocking): leaf downlink / uplink bandwidth
// "nvlink-rack" (rack-scale NVLink, GB200 NVL72: each rack one NVLink domain, racks on a rail-optimized fabric):
//   racks              integer 1..65536, required
//   trays_per_rack     integer >= 1, default 18;  gpus_per_tray  integer >= 1, default 4; a rack's GPUs (trays x GPUs
//                      per tray) at most 576, the NVLink domain the scheduler places in as one node
//   nic_bandwidth, spines, oversubscription as for "rail-optimized"; racks_per_group integer >= 1, default 8
// "explicit":
//   gpus_per_node      integer 1..576, required
//   nodes              non-empty array of {"name": string, "group": integer in [0, number of nodes), default 0}
//   switches           array of {"name": string, "kind": "leaf" | "spine", "group": a node's group, default none}
//   links              array of {"name": string, default "<from>~<to>"; "from", "to": vertex names ("a0/gpu3",
//                      "a0/nvswitch", "leaf0"); "bandwidth": bandwidth > 0; "latency": duration, default link_latency}
//                      A link touching a GPU or NVSwitch is a Nic link, any other a Fabric link. Every node must be
//                      reachable from every other. Parallel links (the same two ends, names of their own) carry a
//                      transfer split evenly over them in the planner and one bonded link of their summed bandwidth
//                      in the simulation (sim/platform.cpp); a fault on one of them leaves the others up.
// Node and switch names may not contain '/' or '~' and may not be "storage".
// "sites" (two sites under one scheduler, core/topo/sites.hpp; docs/sites.md); no "gpu" or latencies of its own:
//   sites              array of exactly two {"name": string without '.', '/', '~' (unique),
//                      "topology": a topology object of any other generator (same GPU and gpus_per_node in both),
//                      "gateway": a leaf or spine name of that fabric, default its first spine, else first leaf}
//   inter_site         object, required: {"bandwidth": bandwidth > 0 per direction, "latency": duration >= 0}
#include <boost/graph/connected_components.hpp>
#include <set>

#include "core/topo/sites.hpp"

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/topo/generators.hpp"

namespace tt {
namespace {

constexpr int kMaxNodes = 65536;
constexpr int kMaxGpusPerNode = 576;
constexpr long long kMaxGpus = 262144;
// Leaf-to-spine links in all (every leaf joins every spine). A two-tier Clos of 512-port switches has at most 256
// spines x 512 leaves = 131,072; the bound is twice that. Beyond it a topology takes seconds and gigabytes to build
// (the fuzzer's finding: 57 groups x 576 rails x 576 default spines is 18.9 M links).
constexpr long long kMaxFabricLinks = 262144;

int bounded(JsonObject& o, const std::string& key, int min, int max) {
  auto v = o.integer(key, min);
  if (v > max) o.fail(key, "an integer <= " + std::to_string(max) + ", found " + std::to_string(v));
  return static_cast<int>(v);
}

std::optional<int> opt_bounded(JsonObject& o, const std::string& key, int min, int max) {
  if (!o.has(key)) {
    o.opt_integer(key, min);  // marks it read
    return std::nullopt;
  }
  return bounded(o, key, min, max);
}

GpuSpec read_gpu(JsonObject& o) {
  auto name = o.str("gpu");
  if (const GpuSpec* g = find_gpu(name)) return *g;
  std::string names;
  for (const auto& g : gpu_catalog()) names += (names.empty() ? "\"" : ", \"") + g.name + "\"";
  o.fail("gpu", "a GPU from the catalog (" + names + "), found \"" + name + "\"");
}

// A node or switch name: a vertex name in its own right, or the prefix of "<node>/gpu3".
std::string read_name(JsonObject& o, const std::string& key) {
  auto name = o.str(key);
  if (name.find_first_of("/~") != std::string::npos) o.fail(key, "a name without '/' or '~', found \"" + name + "\"");
  if (name == "storage") o.fail(key, "a name other than \"storage\" (the storage target's)");
  return name;
}

// The keys every fabric generator shares after its sizes: spines, oversubscription, storage; closes the object.
// `leaves_per_group` is the generator's (one per rail, or one); `size_key` the key that sets it, or the node count.
void read_scale_out(JsonObject& o, FabricParams& p, int leaves_per_group, const std::string& size_key) {
  auto spines = opt_bounded(o, "spines", 1, 4096);
  if (spines && group_count(p) < 2)
    o.fail("spines", "no \"spines\": with " + std::to_string(p.nodes) + " nodes and " +
                         std::to_string(p.nodes_per_group) + " per group there is one group and no spine layer");
  p.spines = spines.value_or(0);
  const long long leaves = static_cast<long long>(group_count(p)) * leaves_per_group;
  const long long fabric_links = leaves * spine_count(p);
  if (fabric_links > kMaxFabricLinks)
    o.fail(spines ? "spines" : size_key,
           "at most " + std::to_string(kMaxFabricLinks) + " leaf-to-spine links (leaves x spines), found " +
               std::to_string(leaves) + " leaves x " + std::to_string(spine_count(p)) + " spines" +
               (spines ? "" : " (the default: one spine per GPU of a node; set \"spines\" lower)"));
  p.oversubscription = o.opt_number("oversubscription", 1.0, 1000.0).value_or(1.0);
  auto storage = o.object("storage");
  p.storage_bandwidth = storage.bandwidth("bandwidth");
  storage.finish();
  o.finish();
}

Topology read_fabric(JsonObject& o, FabricParams p, const std::string& generator) {
  const bool rail = generator == "rail-optimized";
  p.nodes = bounded(o, "nodes", 1, kMaxNodes);
  p.gpus_per_node = bounded(o, "gpus_per_node", 1, kMaxGpusPerNode);
  if (static_cast<long long>(p.nodes) * p.gpus_per_node > kMaxGpus)
    o.fail("nodes", "at most " + std::to_string(kMaxGpus) + " GPUs in all, found " + std::to_string(p.nodes) + " x " +
                        std::to_string(p.gpus_per_node));
  p.nic_bandwidth = o.bandwidth("nic_bandwidth");
  p.nodes_per_group = opt_bounded(o, "nodes_per_group", 1, kMaxNodes).value_or(rail ? 32 : 4);
  read_scale_out(o, p, rail ? p.gpus_per_node : 1, "gpus_per_node");
  return rail ? make_rail_optimized(p) : make_leaf_spine(p);
}

Topology read_nvlink_rack(JsonObject& o, FabricParams p) {
  p.nodes = bounded(o, "racks", 1, kMaxNodes);
  const int trays = opt_bounded(o, "trays_per_rack", 1, kMaxGpusPerNode).value_or(18);
  const int per_tray = opt_bounded(o, "gpus_per_tray", 1, kMaxGpusPerNode).value_or(4);
  if (trays * per_tray > kMaxGpusPerNode)
    o.fail(o.has("gpus_per_tray") ? "gpus_per_tray" : "trays_per_rack",
           "at most " + std::to_string(kMaxGpusPerNode) +
               " GPUs in one NVLink domain (trays_per_rack x gpus_per_tray), found " + std::to_string(trays) +
               " x " + std::to_string(per_tray));
  p.gpus_per_node = trays * per_tray;
  if (static_cast<long long>(p.nodes) * p.gpus_per_node > kMaxGpus)
    o.fail("racks", "at most " + std::to_string(kMaxGpus) + " GPUs in all, found " + std::to_string(p.nodes) + " x " +
                        std::to_string(p.gpus_per_node));
  p.nic_bandwidth = o.bandwidth("nic_bandwidth");
  p.nodes_per_group = opt_bounded(o, "racks_per_group", 1, kMaxNodes).value_or(8);
  read_scale_out(o, p, p.gpus_per_node, o.has("gpus_per_tray") ? "gpus_per_tray" : "trays_per_rack");
  return make_nvlink_rack(p);
}

Topology read_single_node(JsonObject& o, FabricParams p) {
  p.nodes = 1;
  p.gpus_per_node = bounded(o, "gpus", 1, kMaxGpusPerNode);
  auto storage = o.object("storage");
  p.storage_bandwidth = storage.bandwidth("bandwidth");
  storage.finish();
  o.finish();
  return make_single_node(p);
}

// Resolves a vertex name of an explicit topology, failing at `key` of `o` when it is unknown.
VertexId resolve(const Topology::Builder& b, JsonObject& o, const std::string& key, const std::string& what) {
  auto name = o.str(key);
  int v = b.t.find_vertex(name);
  if (v < 0)
    o.fail(key,
           what + " (\"<node>/gpu<i>\", \"<node>/nvswitch\" or a switch name); no vertex is named \"" + name + "\"");
  return static_cast<VertexId>(v);
}

Topology read_explicit(JsonObject& o, const FabricParams& p) {
  const int gpus_per_node = bounded(o, "gpus_per_node", 1, kMaxGpusPerNode);
  Topology::Builder b(p.name, "explicit", p.gpu, gpus_per_node);
  std::set<std::string> names;  // nodes and switches share one namespace

  const auto node_values = o.array("nodes");
  if (static_cast<long long>(node_values.size()) * gpus_per_node > kMaxGpus)
    o.fail("nodes", "at most " + std::to_string(kMaxGpus) + " GPUs in all");
  const auto max_group = static_cast<std::int64_t>(node_values.size()) - 1;
  std::set<int> groups;
  for (const auto& [value, pointer] : node_values) {
    JsonObject node(*value, o.file(), pointer);
    auto name = read_name(node, "name");
    if (!names.insert(name).second) node.fail("name", "a unique node name; \"" + name + "\" is already used");
    auto group = node.opt_integer("group", 0).value_or(0);
    if (group > max_group)
      node.fail("group", "a group number below the number of nodes (" + std::to_string(max_group + 1) + ")");
    groups.insert(static_cast<int>(group));
    node.finish();
    b.add_node(name, static_cast<int>(group), p.nvlink_latency);
  }

  for (const auto& [value, pointer] : o.array("switches", /*allow_empty=*/true)) {
    JsonObject sw(*value, o.file(), pointer);
    auto name = read_name(sw, "name");
    if (!names.insert(name).second) sw.fail("name", "a unique switch name; \"" + name + "\" is already used");
    auto kind_name = sw.str("kind");
    VertexKind kind = VertexKind::Leaf;
    if (kind_name == "spine")
      kind = VertexKind::Spine;
    else if (kind_name != "leaf")
      sw.fail("kind", "\"leaf\" or \"spine\", found \"" + kind_name + "\"");
    auto group = sw.opt_integer("group", 0);
    if (group && !groups.count(static_cast<int>(*group)))
      sw.fail("group", "the group of some node, found " + std::to_string(*group));
    sw.finish();
    b.add_switch(kind, name, group ? static_cast<int>(*group) : -1);
  }

  for (const auto& [value, pointer] : o.array("links", /*allow_empty=*/true)) {
    JsonObject link(*value, o.file(), pointer);
    VertexId from = resolve(b, link, "from", "a vertex name");
    VertexId to = resolve(b, link, "to", "a vertex name");
    const auto& g = b.t.graph();
    if (from == to) link.fail("to", "a vertex other than \"from\" (\"" + g[from].name + "\")");
    auto bw = link.bandwidth("bandwidth");
    auto latency = link.opt_seconds("latency").value_or(p.link_latency);
    auto name = link.opt_str("name");
    std::string link_name = name.value_or(g[from].name + "~" + g[to].name);
    if (b.t.find_link(link_name) >= 0) {
      if (name) link.fail("name", "a unique link name; \"" + link_name + "\" is already used");
      link.fail_here("a \"name\" for this link: its default name \"" + link_name +
                     "\" is already used (parallel cables need names of their own)");
    }
    auto is_node_side = [&](VertexId v) { return g[v].kind == VertexKind::Gpu || g[v].kind == VertexKind::NvSwitch; };
    LinkKind kind = is_node_side(from) || is_node_side(to) ? LinkKind::Nic : LinkKind::Fabric;
    link.finish();
    b.add_link(from, to, kind, link_name, bw, latency);
  }

  auto storage = o.object("storage");
  const auto storage_bw = storage.bandwidth("bandwidth");
  std::vector<std::pair<VertexId, std::string>> attach;  // vertex, JSON pointer
  const auto& attach_value = storage.raw("attach");
  if (attach_value.is_string()) {
    attach.emplace_back(resolve(b, storage, "attach", "the vertex the storage target hangs off"),
                        storage.child_pointer("attach"));
  } else if (attach_value.is_array() && !attach_value.empty()) {
    for (const auto& [value, pointer] : storage.array("attach")) {
      if (!value->is_string())
        throw InputError(o.file(), pointer, "a vertex name, found " + std::string(value->type_name()));
      int v = b.t.find_vertex(value->get<std::string>());
      if (v < 0) throw InputError(o.file(), pointer, "a vertex name; no vertex is named " + value->dump());
      attach.emplace_back(static_cast<VertexId>(v), pointer);
    }
  } else {
    storage.fail("attach", "a vertex name or a non-empty array of vertex names");
  }
  storage.finish();
  o.finish();

  std::set<VertexId> seen;
  for (const auto& [v, where] : attach) {
    if (b.t.graph()[v].kind == VertexKind::Gpu)
      throw InputError(o.file(), where,
                       "a switch or NVSwitch to attach storage to, found the GPU \"" + b.t.graph()[v].name + "\"");
    if (!seen.insert(v).second)
      throw InputError(o.file(), where, "each attachment once; \"" + b.t.graph()[v].name + "\" is listed twice");
  }
  VertexId st = b.add_storage("storage");
  for (const auto& [v, where] : attach) {
    std::string link_name = b.t.graph()[v].name + "~storage";
    b.add_link(v, st, LinkKind::Storage, link_name, storage_bw / static_cast<double>(attach.size()), p.link_latency);
  }

  Topology t = std::move(b).build();
  std::vector<int> component(boost::num_vertices(t.graph()));
  boost::connected_components(t.graph(), component.data());
  const auto& nodes = t.nodes();
  for (std::size_t i = 1; i < nodes.size(); ++i)
    if (component[nodes[i].gpus[0]] != component[nodes[0].gpus[0]])
      throw InputError(
          o.file(), o.child_pointer("links"),
          "links that connect every node; node \"" + nodes[i].name + "\" cannot reach node \"" + nodes[0].name + "\"");
  return t;
}

Topology read_sites(JsonObject& o, const std::string& name) {
  std::vector<SiteFabric> sites;
  const auto values = o.array("sites");
  if (values.size() != 2)
    o.fail("sites", "exactly two sites (a private and a cloud one), found " + std::to_string(values.size()));
  std::set<std::string> names;
  for (const auto& [value, pointer] : values) {
    JsonObject site(*value, o.file(), pointer);
    SiteFabric f;
    f.name = site.str("name");
    if (f.name.empty() || f.name.find_first_of("./~") != std::string::npos)
      site.fail("name", "a non-empty site name without '.', '/' or '~', found \"" + f.name + "\"");
    if (!names.insert(f.name).second)
      site.fail("name", "a site name not used by the other site (its nodes would be in two sites); \"" + f.name +
                            "\" is already used");
    const auto& inner = site.raw("topology");
    if (!inner.is_object()) site.fail("topology", "a topology object, found " + std::string(inner.type_name()));
    if (inner.contains("generator") && inner["generator"] == "sites")
      site.fail("topology", "a single-site topology (a site may not hold sites)");
    f.fabric = read_topology(inner, o.file(), site.child_pointer("topology"));
    if (auto gw = site.opt_str("gateway")) {
      const int v = f.fabric.find_vertex(*gw);
      const auto kind = v < 0 ? VertexKind::Gpu : f.fabric.graph()[static_cast<VertexId>(v)].kind;
      if (kind != VertexKind::Leaf && kind != VertexKind::Spine)
        site.fail("gateway", "the name of a leaf or spine switch of the site's fabric, found \"" + *gw + "\"");
      f.gateway = *gw;
    }
    site.finish();
    if (!sites.empty()) {
      const Topology& a = sites[0].fabric;
      if (a.gpu().name != f.fabric.gpu().name || a.gpus_per_node() != f.fabric.gpus_per_node())
        throw InputError(o.file(), site.child_pointer("topology"),
                         "the same GPU and GPUs per node as the first site (" + a.gpu().name + " x " +
                             std::to_string(a.gpus_per_node()) + "), found " + f.fabric.gpu().name + " x " +
                             std::to_string(f.fabric.gpus_per_node()));
    }
    sites.push_back(std::move(f));
  }
  auto link = o.object("inter_site");
  InterSiteLink l;
  l.bandwidth = link.bandwidth("bandwidth");
  l.latency = link.seconds("latency");
  if (!(l.latency.value >= 0)) link.fail("latency", "a duration >= 0");
  link.finish();
  o.finish();
  return join_sites(name, sites, l);
}

}  // namespace

Topology read_topology(const nlohmann::json& doc, const std::string& file, const std::string& pointer) {
  JsonObject o(doc, file, pointer);
  FabricParams p;
  p.name = o.str("name");
  auto generator = o.str("generator");
  if (generator != "rail-optimized" && generator != "leaf-spine" && generator != "nvlink-rack" &&
      generator != "single-node" && generator != "explicit" && generator != "sites")
    o.fail("generator",
           "one of \"rail-optimized\", \"leaf-spine\", \"nvlink-rack\", \"single-node\", \"explicit\", " +
               std::string("\"sites\", found \"") + generator + "\"");
  if (generator == "sites") return read_sites(o, p.name);
  p.gpu = read_gpu(o);
  p.nvlink_latency = o.opt_seconds("nvlink_latency").value_or(Seconds(0.5e-6));
  p.link_latency = o.opt_seconds("link_latency").value_or(Seconds(1e-6));
  if (generator == "single-node") return read_single_node(o, p);
  if (generator == "nvlink-rack") return read_nvlink_rack(o, p);
  if (generator == "explicit") return read_explicit(o, p);
  return read_fabric(o, p, generator);
}

Topology read_topology_file(const std::string& path) { return read_topology(load_json_file(path), path, ""); }

}  // namespace tt
