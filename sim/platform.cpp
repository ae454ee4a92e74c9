#include "sim/platform.hpp"

#include <boost/container/deque.hpp>
#include <boost/container/options.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/kernel/routing/NetZoneImpl.hpp>
#include <simgrid/s4u.hpp>
#include <simgrid/version.h>
#include <stdexcept>
#include <xbt/log.h>

#include "core/topo/pair_index.hpp"

namespace sg4 = simgrid::s4u;
namespace kr = simgrid::kernel::routing;

namespace tt::sim {

std::map<std::string, std::string> pin_network_model() {
  xbt_log_control_set("xbt_cfg.thres:warning");  // one line per setting otherwise
  static const std::pair<const char*, const char*> kSettings[] = {
      {"network/model", "CM02"},            // max-min sharing, no TCP factors (LV08 applies 0.97 x bw, 13.01 x lat)
      {"network/crosstraffic", "0"},        // full duplex is explicit: one link per direction
      {"network/bandwidth-factor", "1"},    //
      {"network/latency-factor", "1"},      // links carry no latency anyway (see platform.hpp)
      {"network/weight-S", "0"},            // no RTT weighting of shares
      {"network/TCP-gamma", "0"},           // no window bound gamma / (2 x latency) on a flow's rate
      {"network/optim", "Lazy"},            //
      {"cpu/model", "Cas01"},               //
      {"cpu/optim", "Lazy"},                //
      {"surf/precision", "1e-09"},          // timing precision (s)
      {"maxmin/precision", "1e-05"},        // sharing precision
  };
  std::map<std::string, std::string> pinned;
  for (const auto& [name, value] : kSettings) {
    sg4::Engine::set_config(std::string(name) + ":" + value);
    pinned[name] = value;
  }
  int major = 0, minor = 0, patch = 0;
  sg_version_get(&major, &minor, &patch);
  pinned["simgrid_version"] = std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
  pinned["routing"] = "topology fewest-hops paths, ECMP-hashed per host pair; a leaf's spine cables and parallel cables bonded";
  pinned["latency"] = "analytic: links carry bandwidth only; a collective step adds its alpha terms";
  return pinned;
}

// Serves routes from the topology instead of a shortest-path table (see platform.hpp).
class TopologyZone final : public kr::NetZoneImpl {
 public:
  TopologyZone(const std::string& name, Platform::Impl& platform) : NetZoneImpl(name), platform_(platform) {}
  void get_local_route(const kr::NetPoint* src, const kr::NetPoint* dst, kr::Route* into, double* latency) override;

 private:
  Platform::Impl& platform_;
};

struct Platform::Impl {
  const Topology& topo;
  TopologyZone* zone = nullptr;
  std::vector<sg4::Host*> gpus;                           // by global GPU index
  std::vector<VertexId> gpu_vertex;                       // ... its vertex
  std::vector<VertexId> vertex_of_point;                  // by NetPoint::id() (its index in the zone)
  std::vector<std::array<sg4::Link*, 2>> links;           // by cable: [0] source->target, [1] target->source
  std::vector<std::array<int, 2>> link_ids;               // ... their numbers (Platform::link_count())
  int link_count = 0;
  std::vector<double> bandwidth;                          // by link number: its SimGrid bandwidth now
  std::vector<double> capacity;                           // ... and without reservations (Platform::capacity)
  std::vector<char> link_on;                              // ... and whether it is on
  // A leaf's cables to the spines, and parallel cables (the same two ends: explicit topologies), are bonded into one
  // SimGrid link per direction whose bandwidth is the sum of the members that are up, as the planner's even split of a
  // transfer over equal-cost paths assumes (each spine path then carries the leaf's traffic over the number of paths);
  // a pair's route still names the member its hash chose, so a member's fault strikes and re-routes the pairs on it.
  std::vector<int> bond;                                  // by cable: the first cable with the same two ends
  std::vector<char> flipped;                              // by cable: its source is its bond's target
  std::map<int, std::vector<int>> members;                // by bond with two or more cables: its cables
  // A bond of two or more cables, what its SimGrid links' bandwidths sum, member by member in `members` order, kept as
  // its members change (refresh()): a leaf's 32 spine cables are summed at every reservation a job makes or ends, and
  // reading them from the per-cable state cost a cache miss or more per member. A member that is down holds 0.0, which
  // adds nothing to a sum of non-negative terms: the sums are those of the members that are up, bit for bit.
  struct BondState {
    std::array<std::vector<double>, 2> left;  // by direction read against the bond's anchor: left_on() of the member
    std::vector<double> nominal;              // nominal_of() of the member
    std::vector<char> member_up;              // whether the member counts in `up`
    int up = 0;                               // members up
  };
  std::vector<BondState> bonds;   // by bond with two or more cables
  std::vector<int> bond_slot;     // by cable: its bond's position in `bonds`, -1 for a cable bonded to no other
  std::vector<int> member_pos;    // by cable in such a bond: its position in `members`
  std::vector<int> down;                                  // by cable: nested downs
  std::vector<double> factor;                             // by cable: share of its bandwidth (storage_slow)
  std::vector<double> cable_bandwidth;                    // by cable: the topology's (dense: the graph's edge
                                                          // properties are one allocation each, a cache miss apart)
  std::vector<double> reserved;                           // by directional link: bytes/s set aside (reserve())
  std::vector<int> pairs;                                 // ... for how many GPU pairs
  std::vector<std::uint64_t> touched;                     // by link number: the reserve() call that last touched it
  std::uint64_t touch = 0;                                // reserve() calls of several links
  std::uint64_t capacity_changes = 0;                     // values of `capacity` changed (Platform::capacity_changes)
  sg4::Host* storage = nullptr;
  sg4::Host* mgmt = nullptr;
  std::uint64_t generation = 0;                           // bumped when a cable changes state
  struct RouteState {
    bool preferred = false;  // the pair's first choice, taken while all of its cables are up
    // route.cables again, beside `preferred`, where there are at most kNear of them (every route of a generated
    // fabric): a cable changed somewhere makes every lookup check its route's cables, which then reads one line.
    static constexpr std::size_t kNear = 7;
    std::uint8_t near = 0;  // how many: 0 where the route has more (then route.cables is read)
    std::array<int, kNear> near_cables{};
    Route route;
    std::vector<simgrid::kernel::resource::StandardLinkImpl*> impls;  // route.links' kernel links, as SimGrid takes them
  };
  // Every route state made. A deque never moves its elements (callers keep Route addresses); Boost's, with blocks of
  // 1,024 states, keeps its map of blocks small enough to stay cached (std::deque's blocks are 512 bytes, four states:
  // at 16,384 GPUs its map was 1.6 MB, a cache miss of its own at every lookup).
  mutable boost::container::deque<RouteState, void,
                                  boost::container::deque_options_t<boost::container::block_size<1024u>>>
      routes;
  // A pair's slot: its position in routes + 1 (0: none yet) and, beside it, the cable generation its route was last
  // made or checked at (its low 32 bits: the index forgets every pair as they wrap, next_generation()). A lookup whose
  // route is current reads the slot alone, not the route (compiling a job's flows looks up every pair it sends
  // between, most of them current, and only keeps the addresses).
  struct RouteSlot {
    std::uint32_t position;
    std::uint32_t checked;
  };
  mutable BasicPairIndex<RouteSlot> index;  // by (source vertex, destination vertex)

  explicit Impl(const Topology& t) : topo(t), index(boost::num_vertices(t.graph())) {}

  VertexId vertex(const sg4::Host* host) const { return vertex_of_point.at(host->get_netpoint()->id()); }

  const Route& route_between(VertexId from, VertexId to) const { return current(from, to).route; }

  // The pair's state with its route as of now (`routes` is mutable: a lookup updates it).
  RouteState& current(VertexId from, VertexId to) const {
    RouteSlot& slot = index.slot(from, to);
    const auto now = static_cast<std::uint32_t>(generation);
    const bool fresh = slot.position == 0;
    if (fresh) {
      routes.emplace_back();
      slot.position = static_cast<std::uint32_t>(routes.size());
      slot.checked = now - 1;  // not current until made (below): a lookup that threw leaves it to be made again
    }
    RouteState& st = routes[slot.position - 1];
    if (!fresh && slot.checked == now) return st;
    if (!fresh && st.preferred && all_up(st)) {
      slot.checked = now;
      return st;
    }
    const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | static_cast<std::uint64_t>(to);
    auto [path, preferred] = choose(from, to, key);
    st.route = Route{};
    st.impls.clear();
    st.route.cables.reserve(path.size());
    st.route.links.reserve(path.size());
    st.route.link_ids.reserve(path.size());
    st.impls.reserve(path.size());
    for (const Hop& hop : path) {
      const LinkProps& props = topo.graph()[hop.edge];
      st.route.cables.push_back(props.id);
      st.route.links.push_back(links[props.id][hop.forward ? 0 : 1]);
      st.route.link_ids.push_back(link_ids[props.id][hop.forward ? 0 : 1]);
      st.impls.push_back(st.route.links.back()->get_impl());
      st.route.latency += props.latency;
    }
    st.near = st.route.cables.size() <= RouteState::kNear ? static_cast<std::uint8_t>(st.route.cables.size()) : 0;
    std::copy_n(st.route.cables.begin(), st.near, st.near_cables.begin());
    st.preferred = preferred;
    slot.checked = now;
    return st;
  }

  // A cable changed state: every route is checked again at its next lookup. Where the generation's low 32 bits (what a
  // slot keeps) wrap, a route checked 2^32 changes ago would pass for current: the index forgets every pair instead
  // (their states stay where they are, for the addresses callers keep; each pair gets a new one).
  void next_generation() {
    if (static_cast<std::uint32_t>(++generation) == 0) index.release();
  }

  bool all_up(const RouteState& st) const {
    auto up = [&](int c) { return down[c] == 0; };
    if (st.near > 0) return std::all_of(st.near_cables.begin(), st.near_cables.begin() + st.near, up);
    return std::all_of(st.route.cables.begin(), st.route.cables.end(), up);
  }

  // The first of a few ECMP-hashed fewest-hops paths that, when one exists, avoids down cables (the fabric routes
  // around a failed link when an equal-cost alternative exists; a GPU's own NIC cable has none). Returns the path and
  // whether it is the pair's first choice.
  std::pair<Path, bool> choose(VertexId from, VertexId to, std::uint64_t key) const {
    std::optional<Path> first;
    for (std::uint64_t attempt = 0; attempt < 16; ++attempt) {
      Path p = topo.ecmp_path(from, to, spread(key + attempt * 0x9e3779b97f4a7c15ULL));
      const bool up = std::all_of(p.begin(), p.end(), [&](const Hop& h) { return down[topo.graph()[h.edge].id] == 0; });
      if (up && !first) return {std::move(p), true};  // the first choice is up (the common case: no copy kept)
      if (!first) first = p;
      if (up) {
        const bool preferred = p == *first;
        return {std::move(p), preferred};
      }
    }
    if (first) return {std::move(*first), true};
    return {topo.path(from, to), true};
  }

  static std::uint64_t spread(std::uint64_t x) {  // splitmix64; never 0 (0 asks ecmp_path for the first tie)
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return (x ^ (x >> 31)) | 1;
  }

  void check_simulable() const {
    if (topo.total_gpus() == 0) throw std::invalid_argument("topology \"" + topo.name() + "\" has no GPU");
    if (topo.gpu().dense_bf16.value <= 0)
      throw std::invalid_argument("topology \"" + topo.name() + "\": GPU " + topo.gpu().name + " has no bf16 peak");
    const auto& g = topo.graph();
    std::vector<int> dist(boost::num_vertices(g), -1);
    const VertexId root = topo.gpu_vertex(0, 0);
    dist[root] = 0;
    boost::breadth_first_search(
        g, root, boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge()))));
    for (VertexId v = 0; v < dist.size(); ++v)
      if (dist[v] < 0 && (g[v].kind == VertexKind::Gpu || g[v].kind == VertexKind::Storage))
        throw std::invalid_argument("topology \"" + topo.name() + "\": " + g[v].name + " cannot reach " +
                                    g[root].name);
    for (EdgeId e : topo.edges())
      if (g[e].bandwidth.value <= 0)
        throw std::invalid_argument("topology \"" + topo.name() + "\": link " + g[e].name + " has no bandwidth");
  }

  // What a directional link leaves from its cable's factor and the reservations on it.
  double left_on(int link) const {
    const double nominal = cable_bandwidth[link / 2] * factor[link / 2];
    return std::max(nominal - reserved[link], nominal / (pairs[link] + 1));
  }
  double nominal_of(int cable) const { return cable_bandwidth[cable] * factor[cable]; }

  // A bonded cable's terms in its bond's sums, after its reservations, factor or state changed.
  void refresh(int cable) {
    const int slot = bond_slot[cable];
    if (slot < 0) return;
    BondState& b = bonds[static_cast<std::size_t>(slot)];
    const auto k = static_cast<std::size_t>(member_pos[cable]);
    const bool is_up = down[cable] == 0, was_up = b.member_up[k] != 0;
    for (int anchored = 0; anchored < 2; ++anchored)
      b.left[static_cast<std::size_t>(anchored)][k] =
          is_up ? left_on(2 * cable + (flipped[cable] ? 1 - anchored : anchored)) : 0.0;
    b.nominal[k] = is_up ? nominal_of(cable) : 0.0;
    b.up += static_cast<int>(is_up) - static_cast<int>(was_up);
    b.member_up[k] = static_cast<char>(is_up);
  }

  // The bandwidth of a directional link; of a bond, the sum over its members that are up, each in the same direction.
  void apply(int link) {
    const int cable = link / 2, dir = link % 2;
    const auto id = static_cast<std::size_t>(link_ids[cable][dir]);
    const int slot = bond_slot[cable];
    if (slot < 0) {
      links[cable][dir]->set_bandwidth(left_on(link));
      bandwidth[id] = links[cable][dir]->get_bandwidth();
      set_capacity(id, nominal_of(cable));
      return;
    }
    const BondState& b = bonds[static_cast<std::size_t>(slot)];
    if (b.up == 0) return;  // with every member down the bond is off (set_cable)
    double sum = 0, whole = 0;
    for (const double left : b.left[static_cast<std::size_t>(flipped[cable] ? 1 - dir : dir)]) sum += left;
    for (const double nominal : b.nominal) whole += nominal;
    links[cable][dir]->set_bandwidth(sum);
    bandwidth[id] = links[cable][dir]->get_bandwidth();
    set_capacity(id, whole);
  }
  void set_capacity(std::size_t id, double value) {
    if (capacity[id] == value) return;
    capacity[id] = value;
    ++capacity_changes;
  }

  // A bond is on while one of its members is up.
  void set_cable(int cable, bool on) {
    refresh(cable);
    const auto group = members.find(bond[cable]);
    if (group != members.end())
      on = std::any_of(group->second.begin(), group->second.end(), [&](int m) { return down[m] == 0; });
    for (sg4::Link* l : links[cable]) {
      if (on)
        l->turn_on();
      else
        l->turn_off();
    }
    for (int id : link_ids[cable]) link_on[static_cast<std::size_t>(id)] = on;
    if (group != members.end() && on) {
      apply(2 * cable);
      apply(2 * cable + 1);
    }
  }
};

void TopologyZone::get_local_route(const kr::NetPoint* src, const kr::NetPoint* dst, kr::Route* into, double*) {
  const auto& st = platform_.current(platform_.vertex_of_point.at(src->id()), platform_.vertex_of_point.at(dst->id()));
  into->link_list_.insert(into->link_list_.end(), st.impls.begin(), st.impls.end());
}

Platform::Platform(const Topology& topology) : impl_(std::make_unique<Impl>(topology)) {
  Impl& p = *impl_;
  p.check_simulable();
  const auto& g = topology.graph();
  p.zone = new TopologyZone("traintwin", p);  // owned by the engine
  sg4::NetZone* zone = p.zone->get_iface();

  const double gpu_speed = topology.gpu().dense_bf16.value;
  for (VertexId v = 0; v < boost::num_vertices(g); ++v) {
    const VertexProps& props = g[v];
    kr::NetPoint* point = nullptr;
    if (props.kind == VertexKind::Gpu || props.kind == VertexKind::Storage) {
      sg4::Host* host = zone->create_host(props.name, props.kind == VertexKind::Gpu ? gpu_speed : 1e9);
      point = host->get_netpoint();
      if (props.kind == VertexKind::Storage && !p.storage) p.storage = host;
    } else {
      point = zone->create_router(props.name);
    }
    if (p.vertex_of_point.size() <= point->id()) p.vertex_of_point.resize(point->id() + 1);
    p.vertex_of_point[point->id()] = v;
  }
  p.gpus.resize(topology.total_gpus());
  p.gpu_vertex.resize(topology.total_gpus());
  for (int node = 0; node < static_cast<int>(topology.nodes().size()); ++node)
    for (int local = 0; local < topology.gpus_per_node(); ++local) {
      const VertexId v = topology.gpu_vertex(node, local);
      p.gpus[node * topology.gpus_per_node() + local] = sg4::Host::by_name(g[v].name);
      p.gpu_vertex[node * topology.gpus_per_node() + local] = v;
    }

  p.links.resize(topology.edges().size());
  p.link_ids.resize(topology.edges().size());
  p.down.assign(topology.edges().size(), 0);
  p.factor.assign(topology.edges().size(), 1.0);
  for (std::size_t i = 0; i < topology.edges().size(); ++i)
    p.cable_bandwidth.push_back(topology.link(static_cast<int>(i)).bandwidth.value);
  p.reserved.assign(2 * topology.edges().size(), 0.0);
  p.pairs.assign(2 * topology.edges().size(), 0);
  p.bond.resize(topology.edges().size());
  p.flipped.assign(topology.edges().size(), 0);
  // A bond's key: a leaf's cables to spines, whatever the spine (the planner splits a transfer evenly over the spine
  // paths, so each of them carries the leaf's traffic over the number of spines: the bundle's sum is the same
  // constraint); else the two ends. Each cable's direction is read against its bond's anchor (the leaf, or the first
  // cable's source).
  constexpr VertexId kAnyEnd = std::numeric_limits<VertexId>::max();
  std::map<std::pair<VertexId, VertexId>, int> first_of;  // by key: the bond's first cable
  for (std::size_t i = 0; i < topology.edges().size(); ++i) {
    const EdgeId e = topology.edges()[i];
    const VertexId s = boost::source(e, g), t = boost::target(e, g);
    const VertexKind ks = g[s].kind, kt = g[t].kind;
    std::pair<VertexId, VertexId> key{std::min(s, t), std::max(s, t)};
    if (ks == VertexKind::Leaf && kt == VertexKind::Spine) key = {s, kAnyEnd};
    if (ks == VertexKind::Spine && kt == VertexKind::Leaf) key = {t, kAnyEnd};
    const int first = first_of.try_emplace(key, static_cast<int>(i)).first->second;
    const VertexId anchor = key.second == kAnyEnd ? key.first : boost::source(topology.edges()[first], g);
    p.bond[i] = first;
    p.flipped[i] = (s == anchor) != (boost::source(topology.edges()[first], g) == anchor);
    if (first != static_cast<int>(i)) {
      auto& m = p.members[first];
      if (m.empty()) m.push_back(first);
      m.push_back(static_cast<int>(i));
    }
  }
  p.bond_slot.assign(topology.edges().size(), -1);
  p.member_pos.assign(topology.edges().size(), -1);
  for (const auto& [first, cables] : p.members) {
    Impl::BondState b;
    for (auto& left : b.left) left.assign(cables.size(), 0);
    b.nominal.assign(cables.size(), 0);
    b.member_up.assign(cables.size(), 0);
    p.bonds.push_back(std::move(b));
    for (std::size_t k = 0; k < cables.size(); ++k) {
      p.bond_slot[static_cast<std::size_t>(cables[k])] = static_cast<int>(p.bonds.size() - 1);
      p.member_pos[static_cast<std::size_t>(cables[k])] = static_cast<int>(k);
      p.refresh(cables[k]);
    }
  }
  for (std::size_t i = 0; i < topology.edges().size(); ++i) {
    const LinkProps& props = g[topology.edges()[i]];
    const int first = p.bond[i];
    if (first != static_cast<int>(i)) {  // a bond's later member: its first member's links, in its own direction
      for (int dir = 0; dir < 2; ++dir) {
        p.links[i][dir] = p.links[first][p.flipped[i] ? 1 - dir : dir];
        p.link_ids[i][dir] = p.link_ids[first][p.flipped[i] ? 1 - dir : dir];
      }
      continue;
    }
    double bandwidth = props.bandwidth.value;
    if (auto m = p.members.find(first); m != p.members.end()) {
      bandwidth = 0;
      for (int c : m->second) bandwidth += topology.link(c).bandwidth.value;
    }
    for (int dir = 0; dir < 2; ++dir) {
      p.links[i][dir] = zone->create_link(props.name + (dir == 0 ? ">" : "<"), bandwidth)->seal();
      p.link_ids[i][dir] = p.link_count++;
      p.bandwidth.push_back(p.links[i][dir]->get_bandwidth());
      p.capacity.push_back(p.bandwidth.back());
      p.link_on.push_back(1);
    }
  }
  p.touched.assign(static_cast<std::size_t>(p.link_count), 0);
  p.mgmt = zone->create_host("(mgmt)", 1e9);
  zone->seal();
}

Platform::~Platform() = default;

const Topology& Platform::topology() const { return impl_->topo; }
sg4::Host* Platform::gpu(int global_gpu) const { return impl_->gpus.at(global_gpu); }
sg4::Host* Platform::storage() const { return impl_->storage; }
sg4::Host* Platform::storage_of_site(int site) const {
  const auto& sites = impl_->topo.sites();
  if (sites.empty()) return impl_->storage;
  const SiteInfo& s = sites.at(site);
  return s.has_storage ? sg4::Host::by_name(impl_->topo.graph()[s.storage].name) : nullptr;
}
sg4::Host* Platform::mgmt() const { return impl_->mgmt; }

const Route& Platform::route(const sg4::Host* from, const sg4::Host* to) const {
  return impl_->route_between(impl_->vertex(from), impl_->vertex(to));
}
const Route& Platform::gpu_route(int from_gpu, int to_gpu) const {
  return impl_->route_between(impl_->gpu_vertex.at(from_gpu), impl_->gpu_vertex.at(to_gpu));
}
const void* Platform::gpu_route_entry(int from_gpu, int to_gpu) const {
  const auto n = impl_->gpu_vertex.size();
  if (static_cast<std::size_t>(from_gpu) >= n || static_cast<std::size_t>(to_gpu) >= n) return nullptr;
  return impl_->index.home_entry(impl_->gpu_vertex[from_gpu], impl_->gpu_vertex[to_gpu]);
}

void Platform::cable_down(int cable) {
  if (impl_->down.at(cable)++ > 0) return;
  impl_->set_cable(cable, false);
  impl_->next_generation();
}

void Platform::cable_up(int cable) {
  if (impl_->down.at(cable) == 0 || --impl_->down[cable] > 0) return;
  impl_->set_cable(cable, true);
  impl_->next_generation();
}

bool Platform::cable_is_up(int cable) const { return impl_->down.at(cable) == 0; }

void Platform::reserve(int link, double bytes_per_second, int pairs) {
  Impl& p = *impl_;
  p.pairs.at(link) += pairs;
  // Back to exactly nothing when the last pair leaves: no rounding residue from adding and taking back.
  p.reserved[link] = p.pairs[link] == 0 ? 0.0 : p.reserved[link] + bytes_per_second;
  p.refresh(link / 2);
  p.apply(link);
}

void Platform::reserve(const std::vector<int>& links, const std::vector<double>& bytes, double seconds,
                       const std::vector<int>& pairs, int sign) {
  Impl& p = *impl_;
  std::vector<int> apply;  // a link of each SimGrid link touched, in order of first touch
  ++p.touch;
  for (std::size_t i = 0; i < links.size(); ++i) {
    const int link = links[i];
    p.pairs.at(link) += sign * pairs[i];
    p.reserved[link] = p.pairs[link] == 0 ? 0.0 : p.reserved[link] + (sign < 0 ? -bytes[i] : bytes[i]) / seconds;
    p.refresh(link / 2);
    if (std::uint64_t& at = p.touched[static_cast<std::size_t>(p.link_ids.at(link / 2)[link % 2])]; at != p.touch) {
      at = p.touch;
      apply.push_back(link);
    }
  }
  for (int link : apply) p.apply(link);
}

void Platform::set_bandwidth_factor(int cable, double factor) {
  impl_->factor.at(cable) = factor;
  impl_->refresh(cable);
  impl_->apply(2 * cable);
  impl_->apply(2 * cable + 1);
}

std::uint64_t Platform::generation() const { return impl_->generation; }

sg4::Link* Platform::link(int cable, bool forward) const { return impl_->links.at(cable)[forward ? 0 : 1]; }
int Platform::link_count() const { return impl_->link_count; }
int Platform::link_id(int link) const { return impl_->link_ids.at(static_cast<std::size_t>(link / 2))[link % 2]; }
double Platform::bandwidth(int link_id) const { return impl_->bandwidth[static_cast<std::size_t>(link_id)]; }
long long Platform::routes_kept() const { return static_cast<long long>(impl_->routes.size()); }
std::size_t Platform::route_index_bytes() const { return impl_->index.bytes(); }

bool Platform::routes_stay_on_end_nodes() const {
  const std::string& gen = impl_->topo.generator();
  return impl_->topo.site_count() == 1 &&
         (gen == "rail-optimized" || gen == "nvlink-rack" || gen == "leaf-spine" || gen == "single-node");
}
double Platform::capacity(int link_id) const { return impl_->capacity[static_cast<std::size_t>(link_id)]; }
std::uint64_t Platform::capacity_changes() const { return impl_->capacity_changes; }
bool Platform::link_is_on(int link_id) const { return impl_->link_on[static_cast<std::size_t>(link_id)] != 0; }

std::vector<int> Platform::node_cables(int node) const {
  const Topology& t = impl_->topo;
  std::vector<int> cables;
  for (VertexId v : t.nodes().at(node).gpus)
    for (auto [it, end] = boost::out_edges(v, t.graph()); it != end; ++it) cables.push_back(t.graph()[*it].id);
  std::sort(cables.begin(), cables.end());
  cables.erase(std::unique(cables.begin(), cables.end()), cables.end());
  return cables;
}

}  // namespace tt::sim
