#include "core/plan/comm_planner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <tuple>

#include "core/plan/collective.hpp"
#include "core/plan/comm_layout.hpp"

namespace tt {

VertexId gpu_vertex(const Topology& topo, int global_gpu) {
  return topo.gpu_vertex(global_gpu / topo.gpus_per_node(), global_gpu % topo.gpus_per_node());
}

namespace {

// What the cost model needs to know about one phase of an algorithm.
struct PhaseSpec {
  Algorithm row = Algorithm::Ring;  // NCCL's table row: Ring, Tree, Nvls; P2p for point-to-point
  Collective coll = Collective::AllReduce;
  int ranks = 1;
  int nodes = 1;
  double fraction = 1;    // of the call's size this phase moves
  double ratio = 1;       // raw algbw over the link (bus) bandwidth it uses
  double nccl_ratio = 1;  // NCCL's bus bandwidth -> algorithm bandwidth factor
  double inter_scale = 1;  // NvlsTree: NCCL's network bandwidth over what its trees' link loads give (build())
};

int log2i(double x) {
  int n = 0;
  while (x >= 2) x /= 2, ++n;
  return n;
}

int idx(Algorithm a) { return static_cast<int>(a); }
int idx(Protocol p) { return static_cast<int>(p); }
int idx(Medium m) { return static_cast<int>(m); }

template <class T>
void put_bytes(std::string& s, const T& v) {
  s.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// NCCL's PXN: a transfer between nodes on different rails goes over NVLink to the sender's GPU on the receiver's
// rail, which sends it over its own NIC. Both legs carry the whole share (pipelined, in the same phase).
CommPhase pxn(const CommPhase& phase, int gpus_per_node) {
  CommPhase out;
  for (const Transfer& t : phase) {
    const int from_node = t.from / gpus_per_node, to_node = t.to / gpus_per_node;
    const int to_rail = t.to % gpus_per_node;
    if (from_node == to_node || t.from % gpus_per_node == to_rail) {
      out.push_back(t);
      continue;
    }
    const int proxy = from_node * gpus_per_node + to_rail;
    out.push_back({t.from, proxy, t.share});
    out.push_back({proxy, t.to, t.share});
  }
  return out;
}

void add_ring(CommPhase& phase, const std::vector<int>& ring, double share) {
  const auto n = ring.size();
  if (n < 2) return;
  for (std::size_t i = 0; i < n; ++i) phase.push_back({ring[i], ring[(i + 1) % n], share});
}

}  // namespace

struct CommPlanner::Built {
  Algorithm algorithm = Algorithm::Ring;
  std::vector<CommPhase> phases;  // shares before protocol and efficiency overheads
  std::vector<PhaseSpec> specs;
  std::vector<PhaseCost> costs;
};

CommPlanner::CommPlanner(const Topology& topo, CommConstants k)
    : topo_(topo),
      k_(std::move(k)),
      route_index_(static_cast<std::size_t>(topo.total_gpus())),
      tail_index_(boost::num_vertices(topo.graph())),
      next_hops_index_(boost::num_vertices(topo.graph())) {
  // Plans by shape need the fabric's symmetry: a generator that joins every leaf to every spine alike within a group,
  // checked on the links themselves (a scenario may edit a generated topology's links through an explicit one).
  const std::string& gen = topo.generator();
  if ((gen != "rail-optimized" && gen != "leaf-spine" && gen != "nvlink-rack") || topo.site_count() != 1 ||
      topo.groups() < 1)
    return;
  const auto& g = topo.graph();
  // A vertex's links as (kind, bandwidth, latency, kind of the other end), sorted: what makes two vertices alike.
  auto links_of = [&](VertexId v) {
    std::vector<std::tuple<int, double, double, int>> out;
    for (auto [it, end] = boost::out_edges(v, g); it != end; ++it) {
      const LinkProps& l = g[*it];
      out.emplace_back(static_cast<int>(l.kind), l.bandwidth.value, l.latency.value,
                       static_cast<int>(g[boost::target(*it, g)].kind));
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  using Links = std::vector<std::tuple<int, double, double, int>>;
  std::optional<std::vector<Links>> node_links;  // the first node's: its GPUs' in local order, then its NVSwitch's
  std::vector<std::pair<int, std::vector<Links>>> group_key(static_cast<std::size_t>(topo.groups()));
  for (const NodeInfo& n : topo.nodes()) {
    std::vector<Links> mine;
    for (VertexId v : n.gpus) mine.push_back(links_of(v));
    mine.push_back(links_of(n.nvswitch));
    if (!node_links) node_links = std::move(mine);
    else if (mine != *node_links) return;
    if (n.group < 0 || n.group >= topo.groups()) return;
    ++group_key[static_cast<std::size_t>(n.group)].first;
  }
  for (VertexId v = 0; v < boost::num_vertices(g); ++v)
    if (g[v].kind == VertexKind::Leaf) {
      if (g[v].group < 0 || g[v].group >= topo.groups()) return;
      group_key[static_cast<std::size_t>(g[v].group)].second.push_back(links_of(v));  // leaves in vertex order
    }
  // Rails alike too: every leaf of a group has the same links (a rail-optimized group's leaves, one per rail).
  for (const auto& key : group_key)
    for (const Links& leaf : key.second)
      if (leaf != key.second.front()) return;
  std::vector<std::pair<int, std::vector<Links>>> classes;
  for (const auto& key : group_key) {
    auto it = std::find(classes.begin(), classes.end(), key);
    group_class_.push_back(static_cast<int>(it - classes.begin()));
    if (it == classes.end()) classes.push_back(key);
  }
}

// Fewest-hops paths from `from` to `to` as a fluid: at each vertex the transfer splits evenly over the next hops that
// tie, walking down the hop distances to `to` (breadth-first from `to`, not through the storage target). Where the
// walk's frontier is one vertex, the segment since the previous such vertex ends: all of the transfer passes there, and
// the vertices in between tie toward it exactly as toward `to`, so the segment is the same for every pair through both.
// Likewise the rest of the route from such a vertex depends only on it and `to`: a walk that reaches one whose rest is
// known (the source's leaf, for another GPU of the leaf) takes it instead of walking on.
const CommPlanner::Route& CommPlanner::route(int from, int to) const {
  std::uint32_t& slot = route_index_.slot(static_cast<std::size_t>(from), static_cast<std::size_t>(to));
  if (slot != 0) return routes_[slot - 1];
  const auto& g = topo_.graph();
  const VertexId src = gpu_vertex(topo_, from), dst = gpu_vertex(topo_, to);
  const bool same_node = from / topo_.gpus_per_node() == to / topo_.gpus_per_node();
  const Toward& toward = toward_gpu(to, dst);
  const Topology::HopDistances& hops = toward.hops;
  auto dist = [&](VertexId v) { return hops[v] == Topology::kUnreachable ? -1 : static_cast<int>(hops[v]); };
  Route r;
  Segment seg;  // since `start`, for a unit of mass there
  VertexId start = src;
  // The frontier at each distance, in ascending vertex order (the order the fractions are summed in); `mass_` holds
  // the mass reaching each vertex of the next one. The vectors are the planner's scratch, kept between calls.
  mass_.resize(boost::num_vertices(g), 0.0);
  Scratch& w = scratch_;
  std::vector<VertexId>& frontier = w.frontier;
  std::vector<VertexId>& next = w.next;
  std::vector<double>& frontier_mass = w.frontier_mass;
  std::vector<std::pair<VertexId, int>>& ties = w.ties;             // next vertex, link direction
  std::vector<std::pair<VertexId, std::size_t>>& cuts = w.cuts;     // cut vertices walked through, with r's size there
  std::vector<std::pair<std::uint32_t, std::uint32_t>>& lists = w.lists;  // ranges of next_hops_
  std::vector<NextHop>& merged = w.merged;
  frontier.assign(1, src);
  frontier_mass.assign(1, 1.0);
  cuts.clear();
  // The destination's distances are 1 + the least of its neighbours' (the storage target aside, which is never a
  // GPU's neighbour in a generated topology): a vertex at distance d >= 2 has a neighbour at d - 1 exactly when that
  // neighbour is one hop nearer to one of the destination's neighbours whose distance is least at the vertex (hop
  // distances of adjacent vertices differ by at most one). So the ties at such a vertex are the union of its cached
  // next hops toward those neighbours, in the order of its links: the same ties, in the same order, as a scan of its
  // links.
  const std::vector<Via>& via = toward.via;
  const bool by_next_hops = toward.by_next_hops;
  for (int d = dist(src); d > 0; --d) {
    next.clear();
    for (std::size_t i = 0; i < frontier.size(); ++i) {
      const VertexId v = frontier[i];
      ties.clear();
      bool nvlink_tie = false;
      if (by_next_hops && d >= 2) {
        lists.clear();
        std::uint16_t least = Topology::kUnreachable;
        for (const Via& x : via) least = std::min(least, x.hops[v]);
        for (const Via& x : via)
          if (x.hops[v] == least) lists.push_back(next_hops(v, x.root, x.hops));
        const NextHop* first = next_hops_.data() + lists[0].first;
        const NextHop* last = next_hops_.data() + lists[0].second;
        if (lists.size() > 1) {  // merged by link position, each link once
          merged.clear();
          for (const auto& [b, e] : lists) merged.insert(merged.end(), next_hops_.begin() + b, next_hops_.begin() + e);
          auto before = [](const NextHop& x, const NextHop& y) { return x.ordinal < y.ordinal; };
          auto same = [](const NextHop& x, const NextHop& y) { return x.ordinal == y.ordinal; };
          std::sort(merged.begin(), merged.end(), before);
          merged.erase(std::unique(merged.begin(), merged.end(), same), merged.end());
          first = merged.data();
          last = merged.data() + merged.size();
        }
        for (const NextHop* h = first; h != last; ++h) {
          ties.emplace_back(h->to, h->direction);
          nvlink_tie = nvlink_tie || topo_.link(h->direction / 2).kind == LinkKind::NvLink;
        }
      } else {
        for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
          const VertexId u = boost::target(*e, g);
          if (dist(u) != d - 1 || (g[u].kind == VertexKind::Storage && u != dst)) continue;
          const int id = g[*e].id;  // direction relative to the stored edge, as Hop::forward
          ties.emplace_back(u, 2 * id + (boost::source(topo_.edges()[id], g) == v ? 0 : 1));
          nvlink_tie = nvlink_tie || topo_.link(id).kind == LinkKind::NvLink;
        }
      }
      // Inside a node NCCL moves data over NVLink (P2P), never out through a NIC and back, even where a leaf is as
      // few hops away as the NVSwitch.
      if (same_node && nvlink_tie)
        ties.erase(std::remove_if(ties.begin(), ties.end(),
                                  [&](const auto& t) { return topo_.link(t.second / 2).kind != LinkKind::NvLink; }),
                   ties.end());
      const double share = frontier_mass[i] / static_cast<double>(ties.size());
      for (const auto& [u, dir] : ties) {
        seg.emplace_back(dir, share);
        if (mass_[u] == 0) next.push_back(u);
        mass_[u] += share;
      }
    }
    std::sort(next.begin(), next.end());
    frontier.swap(next);
    frontier_mass.resize(frontier.size());
    for (std::size_t i = 0; i < frontier.size(); ++i) {
      frontier_mass[i] = mass_[frontier[i]];
      mass_[frontier[i]] = 0;
    }
    if (frontier.size() == 1) {  // a cut: the segment since `start` ends here, and the walk goes on from a unit
      const std::uint64_t key = (static_cast<std::uint64_t>(start) << 32) | static_cast<std::uint64_t>(frontier[0]);
      auto [it, fresh] = segment_of_.try_emplace(key, static_cast<int>(segments_.size()));
      if (fresh) {
        route_entries_ += seg.size();
        segments_.push_back(std::move(seg));
      }
      r.push_back(it->second);
      seg.clear();
      start = frontier[0];
      frontier_mass[0] = 1.0;
      if (start == dst) break;
      std::uint32_t& known = tail_index_.slot(start, dst);
      if (known != 0) {
        const Route& rest = tails_[known - 1];
        r.insert(r.end(), rest.begin(), rest.end());
        break;
      }
      cuts.emplace_back(start, r.size());
    }
  }
  for (const auto& [v, at] : cuts) {  // the rest of the route from each cut walked through
    tails_.emplace_back(r.begin() + static_cast<std::ptrdiff_t>(at), r.end());
    route_entries_ += tails_.back().size();
    tail_index_.slot(v, dst) = static_cast<std::uint32_t>(tails_.size());
  }
  route_entries_ += r.size();
  routes_.push_back(std::move(r));
  slot = static_cast<std::uint32_t>(routes_.size());
  return routes_.back();
}

const CommPlanner::Toward& CommPlanner::toward_gpu(int to, VertexId dst) const {
  if (toward_.empty()) toward_.resize(static_cast<std::size_t>(topo_.total_gpus()));
  std::optional<Toward>& slot = toward_[static_cast<std::size_t>(to)];
  if (slot) return *slot;
  const auto& g = topo_.graph();
  Toward t;
  t.hops = topo_.hops_to(dst);
  bool by_next_hops = true;  // else by scanning every link (a destination next to the storage target, or to many)
  for (auto [e, end] = boost::out_edges(dst, g); e != end && by_next_hops; ++e) {
    const VertexId u = boost::target(*e, g);
    if (std::any_of(t.via.begin(), t.via.end(), [&](const Via& x) { return x.root == u; })) continue;  // parallel
    by_next_hops = g[u].kind != VertexKind::Storage && t.via.size() < 4;
    if (by_next_hops) t.via.push_back({u, topo_.hops_to(u)});
  }
  t.by_next_hops = by_next_hops && !t.via.empty();
  slot = std::move(t);
  return *slot;
}

std::pair<std::uint32_t, std::uint32_t> CommPlanner::next_hops(
    VertexId v, VertexId root, const Topology::HopDistances& hops) const {
  std::uint32_t& slot = next_hops_index_.slot(root, v);
  if (slot == 0) {
    const auto& g = topo_.graph();
    const std::uint16_t here = hops[v];
    const auto begin = static_cast<std::uint32_t>(next_hops_.size());
    int ordinal = 0;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e, ++ordinal) {
      const VertexId u = boost::target(*e, g);
      if (g[u].kind == VertexKind::Storage || hops[u] == Topology::kUnreachable || hops[u] + 1 != here) continue;
      const int id = g[*e].id;
      next_hops_.push_back({u, 2 * id + (boost::source(topo_.edges()[id], g) == v ? 0 : 1), ordinal});
    }
    next_hop_ranges_.emplace_back(begin, static_cast<std::uint32_t>(next_hops_.size()));
    slot = static_cast<std::uint32_t>(next_hop_ranges_.size());
    route_entries_ += next_hops_.size() - begin + 1;
  }
  return next_hop_ranges_[slot - 1];
}

bool CommPlanner::route_cache_full() const {
  if (route_entries_ > kRouteCacheEntries) return true;
  // A pair index keeps a row per source and a page per 64 destinations met: over a month of placements on 8,192
  // GPUs the GPU pairs' index alone held 186 MiB (its ceiling is 4 bytes a pair: 1 GiB at 16,384 GPUs) while the
  // entries stayed under their bound.
  const std::size_t headers = (routes_.size() + tails_.size()) * sizeof(Route);
  return route_index_.bytes() + tail_index_.bytes() + next_hops_index_.bytes() + headers > kRouteIndexBytes;
}

CommPlanner::PhaseCost CommPlanner::phase_cost(const CommPhase& phase) const {
  if (route_cache_full()) {  // start over, between phases: nothing refers to a route or segment now
    routes_ = {};
    route_index_.release();
    segments_ = {};
    segment_of_ = {};
    tails_ = {};
    tail_index_.release();
    next_hops_ = {};
    next_hops_index_.release();
    next_hop_ranges_ = {};
    route_entries_ = 0;
  }
  // Shares summed per segment first, then spread over each segment's links once.
  for (const Transfer& t : phase) {
    if (t.from == t.to || t.share <= 0) continue;
    const Route& r = route(t.from, t.to);
    segment_share_.resize(segments_.size(), 0.0);  // route() may have added segments
    for (int sg : r) {
      if (segment_share_[sg] == 0) touched_segments_.push_back(sg);
      segment_share_[sg] += t.share;
    }
  }
  load_.resize(2 * topo_.edges().size(), 0.0);
  for (int sg : touched_segments_) {
    const double share = segment_share_[sg];
    segment_share_[sg] = 0;
    for (const auto& [i, fraction] : segments_[sg]) {
      if (load_[i] == 0) touched_.push_back(i);
      load_[i] += share * fraction;
    }
  }
  touched_segments_.clear();
  PhaseCost cost;
  for (int i : touched_) {
    const LinkProps& link = topo_.link(i / 2);
    const double t = load_[i] / link.bandwidth.value;
    if (t > cost.seconds_per_byte) cost.seconds_per_byte = t, cost.bottleneck = link.kind;
    double& by_kind = link.kind == LinkKind::NvLink ? cost.nvlink_seconds_per_byte : cost.other_seconds_per_byte;
    by_kind = std::max(by_kind, t);
    load_[i] = 0;
  }
  touched_.clear();
  return cost;
}

// Lays out an algorithm's transfers, or nothing when it cannot run this collective on these GPUs.
std::optional<CommPlanner::Built> CommPlanner::build(Collective c, Algorithm a, const std::vector<int>& gpus,
                                                     int root) const {
  const CollectiveInfo& info = collective_info(c);
  const GroupLayout l = layout_of(gpus, topo_.gpus_per_node());
  const int n = l.size();
  const int m = static_cast<int>(l.nodes.size());
  if (n < 2) return std::nullopt;
  Built b;
  b.algorithm = a;
  PhaseSpec spec;
  spec.coll = c;
  spec.ranks = n;
  spec.nodes = m;
  CommPhase phase;
  switch (a) {
    case Algorithm::Ring: {
      if (!info.ring_share) return std::nullopt;
      auto rings = ring_channels(l);
      const double share = info.ring_share(n) / static_cast<double>(rings.size());
      for (auto& ring : rings) {
        if (c == Collective::Broadcast || c == Collective::Reduce) {
          // A pipelined chain from the root (broadcast) or to it (reduce) along the ring.
          const int r = gpus[std::clamp(root, 0, static_cast<int>(gpus.size()) - 1)];
          std::rotate(ring.begin(), std::find(ring.begin(), ring.end(), r), ring.end());
          for (std::size_t j = 0; j + 1 < ring.size(); ++j)
            phase.push_back(c == Collective::Broadcast ? Transfer{ring[j], ring[j + 1], share}
                                                       : Transfer{ring[j + 1], ring[j], share});
        } else {
          add_ring(phase, ring, share);
        }
      }
      spec.row = Algorithm::Ring;
      spec.ratio = spec.nccl_ratio = static_cast<double>(n) / info.ring_steps(n);
      break;
    }
    case Algorithm::Tree: {
      if (c != Collective::AllReduce) return std::nullopt;
      auto trees = tree_channels(l);
      const double share = 1.0 / static_cast<double>(trees.size());  // each tree reduces and broadcasts its part
      for (const TreeChannel& t : trees) {
        for (const auto& chain : t.chains)
          for (std::size_t j = 0; j + 1 < chain.size(); ++j) {
            phase.push_back({chain[j + 1], chain[j], share});
            phase.push_back({chain[j], chain[j + 1], share});
          }
        for (std::size_t i = 0; i < t.parent.size(); ++i)
          if (t.parent[i] >= 0) {
            phase.push_back({t.chains[i][0], t.chains[t.parent[i]][0], share});
            phase.push_back({t.chains[t.parent[i]][0], t.chains[i][0], share});
          }
      }
      spec.row = Algorithm::Tree;
      spec.ratio = spec.nccl_ratio = 0.5;
      break;
    }
    case Algorithm::Nvls: {
      if (!info.nvls_share || !k_.nvls || m != 1) return std::nullopt;
      const double share = info.nvls_share(n);
      for (int from : l.members[0])
        for (int to : l.members[0])
          if (from != to) phase.push_back({from, to, share});
      spec.row = Algorithm::Nvls;
      spec.ratio = info.nvls_ratio(n);
      spec.nccl_ratio = 5.0 / 6.0;  // tuning.cc: NVLS bus bandwidth -> algorithm bandwidth
      break;
    }
    case Algorithm::NvlsTree: {
      // NCCL's NVLSTree: NVLS inside each node (each GPU exchanges its share with the switch, as in one node) while,
      // pipelined with it, each GPU's 1/k of the node's sum goes up and down the double binary trees over the nodes
      // on its rail (tree_channels: channel c on rail c), half on each tree. Two nodes: each rail's GPUs exchange 1/k
      // both ways. More: tuning.cc takes half the network bandwidth of two nodes (bwInter / 2), which is what an inner
      // node's GPU carries on many nodes (three edges in one tree, one in the other); where the trees load a node
      // less (four nodes: three edges in all), inter_scale brings the network side to NCCL's figure.
      const int k = static_cast<int>(l.members[0].size());
      if (c != Collective::AllReduce || !k_.nvls || m < 2 || !l.uniform || k < 2) return std::nullopt;
      const double intra = info.nvls_share(k);
      for (const auto& members : l.members)
        for (int from : members)
          for (int to : members)
            if (from != to) phase.push_back({from, to, intra});
      const auto trees = tree_channels(l);
      const double inter = 1.0 / (k * 2.0);  // a rail's 1/k, half on each of its two trees
      std::vector<int> edges(m, 0);          // per node, over the two trees of a channel
      for (std::size_t t = 0; t < trees.size(); ++t)
        for (std::size_t i = 0; i < trees[t].parent.size(); ++i)
          if (const int parent = trees[t].parent[i]; parent >= 0) {
            phase.push_back({trees[t].chains[i][0], trees[t].chains[parent][0], inter});
            phase.push_back({trees[t].chains[parent][0], trees[t].chains[i][0], inter});
            if (t < 2) ++edges[i], ++edges[parent];
          }
      const int busiest = *std::max_element(edges.begin(), edges.end());  // x 1/(2k) each way on its NIC
      spec.inter_scale = busiest / (m <= 2 ? 2.0 : 4.0);
      spec.row = Algorithm::NvlsTree;
      spec.ratio = info.nvls_ratio(k);
      spec.nccl_ratio = 5.0 / 6.0;  // tuning.cc (2.20): NVLS and NVLSTree bus bandwidth -> algorithm bandwidth
      break;
    }
    case Algorithm::Hierarchical: {
      const int k = static_cast<int>(l.members[0].size());
      if (c != Collective::AllReduce || m < 2 || !l.uniform || k < 2) return std::nullopt;
      // Reduce-scatter inside each node, all-reduce of each 1/k shard across nodes on its rail, all-gather inside.
      const CollectiveInfo& rs = collective_info(Collective::ReduceScatter);
      const CollectiveInfo& ag = collective_info(Collective::AllGather);
      CommPhase intra_rs, inter, intra_ag;
      for (const auto& members : l.members) {
        add_ring(intra_rs, members, rs.ring_share(k));
        add_ring(intra_ag, members, ag.ring_share(k));
      }
      for (int r = 0; r < k; ++r) {
        std::vector<int> rail;
        for (const auto& members : l.members) rail.push_back(members[r]);
        add_ring(inter, rail, info.ring_share(m) / k);
      }
      PhaseSpec s1{Algorithm::Ring, Collective::ReduceScatter, k, 1, 1.0, k / (k - 1.0), k / (k - 1.0)};
      PhaseSpec s2{Algorithm::Ring, Collective::AllReduce, m, m, 1.0 / k, m / (2.0 * (m - 1)), m / (2.0 * (m - 1))};
      PhaseSpec s3{Algorithm::Ring, Collective::AllGather, k, 1, 1.0, k / (k - 1.0), k / (k - 1.0)};
      b.phases = {std::move(intra_rs), pxn(inter, topo_.gpus_per_node()), std::move(intra_ag)};
      b.specs = {s1, s2, s3};
      for (const auto& p : b.phases) b.costs.push_back(phase_cost(p));
      return b;
    }
    case Algorithm::P2p: {
      if (c == Collective::AllToAll) {
        for (int from : gpus)
          for (int to : gpus)
            if (from != to) phase.push_back({from, to, 1.0 / n});
      } else if (c == Collective::SendRecv) {
        for (std::size_t i = 0; i + 1 < gpus.size(); ++i) phase.push_back({gpus[i], gpus[i + 1], 1.0});
      } else {
        return std::nullopt;
      }
      spec.row = Algorithm::P2p;
      break;
    }
  }
  b.phases.push_back(pxn(phase, topo_.gpus_per_node()));
  b.specs.push_back(spec);
  b.costs.push_back(phase_cost(b.phases.back()));
  return b;
}

namespace {

// NCCL's latency of one phase (tuning.cc, ncclTopoTuneModel and ncclTopoGetAlgoTime), in seconds.
//   ring all-reduce / reduce-scatter / all-gather: base + (nsteps - nInterSteps) x intra + nInterSteps x inter, where
//     intra is at least the network post overhead on several nodes (x3 for Simple), and a multi-node Simple
//     all-reduce of at least 64 bytes per channel and rank pays the ring "plateau" factor;
//   ring broadcast / reduce: base + one hop of the medium (NCCL's sameChannels case);
//   tree: base + 2 x ((ranks per node - 1) x intra + log2(nodes) x inter);
//   NVLS: the NVLink hop alone (plus the network one across nodes);
//   NVLSTree: base + the NVLink hop + 2 x log2(nodes) network hops;
//   p2p (ours: NCCL's table has no row): ring/Simple base + one hop of the medium.
double phase_latency(const CommConstants& k, const PhaseSpec& s, Protocol p, double size) {
  const int pi = idx(p);
  const Medium hw = s.nodes > 1 ? Medium::Net : Medium::NvLink;
  if (s.row == Algorithm::P2p)
    return k.base_latency[idx(Algorithm::Ring)][idx(Protocol::Simple)] +
           k.hw_latency[idx(hw)][idx(Algorithm::Ring)][idx(Protocol::Simple)];
  const int a = idx(s.row);
  double intra = k.hw_latency[idx(Medium::NvLink)][a][pi];
  const double inter = k.hw_latency[idx(Medium::Net)][a][pi];
  const double base = k.base_latency[a][pi];
  switch (s.row) {
    case Algorithm::Ring: {
      if (s.coll == Collective::Broadcast || s.coll == Collective::Reduce) return base + k.hw_latency[idx(hw)][a][pi];
      const CollectiveInfo& info = collective_info(s.coll);
      const int steps = info.ring_steps(s.ranks);
      const int inter_steps = std::min(steps, info.ring_inter_steps(s.nodes));
      if (s.nodes > 1) intra = std::max(intra, k.net_overhead * (p == Protocol::Simple ? 3 : 1));
      double lat = base + (steps - inter_steps) * intra + inter_steps * inter;
      if (p == Protocol::Simple && s.nodes > 1 && s.coll == Collective::AllReduce &&
          size / (static_cast<double>(k.channels) * s.ranks) >= 64)
        lat *= k.ring_plateau;
      return lat;
    }
    case Algorithm::Tree: return base + 2 * ((s.ranks / s.nodes - 1) * intra + log2i(s.nodes) * inter);
    case Algorithm::Nvls: return intra + (s.nodes > 1 ? inter : 0);
    case Algorithm::NvlsTree: return base + intra + 2 * log2i(s.nodes) * inter;
    default: return base;
  }
}

// NCCL's refinements of the bus bandwidth of one phase (tuning.cc): LL and LL128 factors and caps, the tree's.
double refine(const CommConstants& k, const PhaseSpec& s, Protocol p, double bus) {
  const int n = node_class(s.nodes);
  const double ch = k.channels;
  const double ppn = static_cast<double>(s.ranks) / s.nodes;
  if (s.row == Algorithm::Ring) {
    if (p == Protocol::LL) {
      const bool quarter = s.nodes > 1 || s.coll == Collective::AllReduce || s.coll == Collective::Reduce;
      return std::min(k.ll_max_bandwidth[n], bus * (quarter ? 1.0 / 4.0 : 1.0 / 3.0));
    }
    if (p == Protocol::LL128)
      return std::min(bus * (ppn < 2 ? k.ll128_ppn1_factor : 0.92), ch * k.ring_ll128_per_channel[n]);
    return bus;
  }
  if (s.row == Algorithm::Tree) {
    bus = std::min(bus * 0.92, ch * k.tree_per_channel[n]);
    if (p == Protocol::LL) return std::min(bus / 3.8, k.ll_max_bandwidth[n]);
    if (p == Protocol::LL128)
      return std::min(bus * (s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), ch * k.tree_ll128_per_channel[n]);
    return bus;
  }
  return bus;
}

}  // namespace

std::optional<std::pair<CommPlanner::Option, std::vector<double>>> CommPlanner::evaluate(const Built& b, Protocol p,
                                                                                         Bytes size) const {
  if ((b.algorithm == Algorithm::Nvls || b.algorithm == Algorithm::NvlsTree || b.algorithm == Algorithm::P2p) &&
      p != Protocol::Simple)
    return std::nullopt;
  // NCCL_PROTO restricts the collectives' tuning only: point-to-point runs Simple whatever it says.
  if (!k_.protocol_enabled[idx(p)] && b.algorithm != Algorithm::P2p) return std::nullopt;
  Option o{b.algorithm, p, Seconds(0), Seconds(0), BytesPerSecond(0), Seconds(0)};
  std::vector<double> wire(b.phases.size(), 1.0);
  double transfer = 0;
  for (std::size_t i = 0; i < b.phases.size(); ++i) {
    const PhaseSpec& s = b.specs[i];
    o.latency += Seconds(phase_latency(k_, s, p, size.value));
    if (b.costs[i].seconds_per_byte <= 0) continue;
    const PhaseCost& cost = b.costs[i];
    const double raw = s.fraction / cost.seconds_per_byte;  // phase bytes per second, uncontended
    const double efficiency = cost.bottleneck == LinkKind::NvLink ? k_.nvlink_efficiency : k_.net_efficiency;
    double bus = raw / s.ratio * efficiency;
    if (s.row == Algorithm::NvlsTree) {
      // tuning.cc: nChannels x min(bwIntra, bwInter), each side at its own medium's efficiency.
      const double inf = std::numeric_limits<double>::infinity();
      const double intra = cost.nvlink_seconds_per_byte > 0
                               ? s.fraction / cost.nvlink_seconds_per_byte / s.ratio * k_.nvlink_efficiency
                               : inf;
      const double inter = cost.other_seconds_per_byte > 0 ? s.fraction / cost.other_seconds_per_byte / s.ratio *
                                                                 k_.net_efficiency * s.inter_scale
                                                           : inf;
      bus = std::min(intra, inter);
    }
    double algbw = refine(k_, s, p, bus) * s.nccl_ratio;
    if (s.row == Algorithm::Tree) {
      const int log_size = log2i(size.value / 64);
      if (log_size < 23) algbw *= k_.tree_correction[idx(p)][log_size];
    }
    if (algbw <= 0) return std::nullopt;
    wire[i] = raw / algbw;
    transfer += size.value * s.fraction / algbw;
  }
  // The calibrated correction of this algorithm, protocol, node class and size band (comm_constants.hpp).
  int nodes = 1;
  for (const PhaseSpec& s : b.specs) nodes = std::max(nodes, s.nodes);
  const RegimeFactors& f = k_.regime[idx(b.algorithm)][idx(p)][node_class(nodes)][static_cast<int>(size_band(size))];
  o.nccl_time = o.latency + Seconds(transfer);
  o.latency = o.latency * f.latency;
  transfer /= f.bandwidth;
  for (double& w : wire) w /= f.bandwidth;
  o.time = o.latency + Seconds(transfer);
  o.algbw = BytesPerSecond(o.time.value > 0 ? size.value / o.time.value : 0);
  return std::make_pair(o, std::move(wire));
}

std::vector<CommPlanner::Option> CommPlanner::options(Collective c, const std::vector<int>& gpus, Bytes size,
                                                      int root) const {
  std::vector<Option> out;
  for (Algorithm a : collective_info(c).algorithms) {
    if (!k_.algorithm_enabled[idx(a)]) continue;
    auto b = build(c, a, gpus, root);
    if (!b) continue;
    for (int p = 0; p < kProtocols; ++p)
      if (auto e = evaluate(*b, static_cast<Protocol>(p), size)) out.push_back(e->first);
  }
  return out;
}

CommGroup CommPlanner::plan(Collective c, std::vector<int> gpus, Bytes size, int calls, int root,
                            std::optional<std::pair<Algorithm, Protocol>> force) const {
  std::string key;
  auto put = [&key](const auto& v) { key.append(reinterpret_cast<const char*>(&v), sizeof v); };
  put(c);
  put(size.value);
  put(calls);
  put(root);
  put(force.has_value());
  if (force) {
    put(force->first);
    put(force->second);
  }
  key.append(reinterpret_cast<const char*>(gpus.data()), gpus.size() * sizeof(int));
  // Empty on a fabric whose plans are all kept by shape: no lookup (a fleet's table of every placement planned grew to
  // 64 MiB, and each lookup a few cache misses, where the shape's renaming costs less).
  if (!plans_.empty())
    if (auto it = plans_.find(key); it != plans_.end()) return it->second;
  std::size_t bytes = 2 * key.size() + sizeof(CommGroup);
  auto keep = [&](std::string k, const CommGroup& g) {
    if (plans_bytes_ + bytes > kPlansBytes) {
      plans_.clear();
      plans_bytes_ = 0;
    }
    plans_bytes_ += bytes;
    plans_.emplace(std::move(k), g);
  };
  if (!interchangeable()) {
    CommGroup g = plan_anew(c, std::move(gpus), size, calls, root, force);
    for (const CommPhase& phase : g.phases) bytes += phase.size() * sizeof(Transfer);
    keep(std::move(key), g);
    return g;
  }
  // The shape: the arguments but the GPUs, then each node's group (numbered by first appearance) and class, then each
  // GPU as (node position, local index).
  const int per = topo_.gpus_per_node();
  std::vector<int> nodes;
  nodes.reserve(gpus.size());
  for (int gpu : gpus) nodes.push_back(gpu / per);
  std::sort(nodes.begin(), nodes.end());
  nodes.erase(std::unique(nodes.begin(), nodes.end()), nodes.end());
  std::vector<int> locals;  // the local indices (rails) the group's GPUs use
  for (int gpu : gpus) locals.push_back(gpu % per);
  std::sort(locals.begin(), locals.end());
  locals.erase(std::unique(locals.begin(), locals.end()), locals.end());
  std::string shape = key.substr(0, key.size() - gpus.size() * sizeof(int));
  {
    std::vector<int> seen;  // groups in order of first appearance
    for (int n : nodes) {
      const int group = topo_.nodes()[static_cast<std::size_t>(n)].group;
      auto it = std::find(seen.begin(), seen.end(), group);
      const int number = static_cast<int>(it - seen.begin());
      if (it == seen.end()) seen.push_back(group);
      put_bytes(shape, number);
      put_bytes(shape, group_class_[static_cast<std::size_t>(group)]);
    }
  }
  // (node position, position of its local index among those used); -1 for a GPU off the group's nodes or rails (a
  // plan that names one is not kept by shape).
  auto canonical = [&](int gpu) {
    const auto it = std::lower_bound(nodes.begin(), nodes.end(), gpu / per);
    const auto rail = std::lower_bound(locals.begin(), locals.end(), gpu % per);
    if (it == nodes.end() || *it != gpu / per || rail == locals.end() || *rail != gpu % per) return -1;
    return static_cast<int>(it - nodes.begin()) * per + static_cast<int>(rail - locals.begin());
  };
  for (int gpu : gpus) put_bytes(shape, canonical(gpu));
  auto rename = [&](const CommGroup& from, auto&& f) {
    CommGroup to = from;
    for (int& gpu : to.gpus) gpu = f(gpu);
    for (CommPhase& phase : to.phases)
      for (Transfer& t : phase) {
        t.from = f(t.from);
        t.to = f(t.to);
      }
    return to;
  };
  if (auto it = shapes_.find(shape); it != shapes_.end()) {
    ++shape_reuses_;
    CommGroup g = rename(it->second, [&](int c) {
      return nodes[static_cast<std::size_t>(c / per)] * per + locals[static_cast<std::size_t>(c % per)];
    });
    return g;
  }
  CommGroup g = plan_anew(c, std::move(gpus), size, calls, root, force);
  std::size_t transfers = 0;
  for (const CommPhase& phase : g.phases) transfers += phase.size();
  bytes += transfers * sizeof(Transfer);
  bool named = true;  // every GPU the plan names is on the group's nodes
  CommGroup canon = rename(g, [&](int gpu) {
    const int k = canonical(gpu);
    named = named && k >= 0;
    return k;
  });
  if (named) {
    const std::size_t shape_bytes = 2 * shape.size() + sizeof(CommGroup) + transfers * sizeof(Transfer);
    if (shapes_bytes_ + shape_bytes > kPlansBytes) {
      shapes_.clear();
      shapes_bytes_ = 0;
    }
    shapes_bytes_ += shape_bytes;
    shapes_.emplace(std::move(shape), std::move(canon));
  } else {  // not kept by shape: by its arguments
    keep(std::move(key), g);
  }
  return g;
}

CommGroup CommPlanner::plan_anew(Collective c, std::vector<int> gpus, Bytes size, int calls, int root,
                                 std::optional<std::pair<Algorithm, Protocol>> force) const {
  CommGroup g;
  g.collective = c;
  g.bytes = size * calls;
  g.calls = calls;
  g.root = root;
  std::optional<Built> best_built;
  std::optional<std::pair<Option, std::vector<double>>> best;
  bool best_forced = false;
  for (Algorithm a : collective_info(c).algorithms) {
    if (!k_.algorithm_enabled[idx(a)] && !(force && force->first == a)) continue;
    auto b = build(c, a, gpus, root);
    if (!b) continue;
    for (int pi = 0; pi < kProtocols; ++pi) {
      const auto p = static_cast<Protocol>(pi);
      auto e = evaluate(*b, p, size);
      if (!e) continue;
      const bool forced = force && force->first == a && force->second == p;
      if (!best || forced || (!best_forced && prefers(e->first, best->first))) {
        best = std::move(e);
        best_built = *b;
        best_forced = forced;
      }
    }
  }
  g.gpus = std::move(gpus);
  if (!best) return g;
  const Option& o = best->first;
  g.algorithm = o.algorithm;
  g.protocol = o.protocol;
  g.latency = o.latency;
  g.predicted = o.time * calls;
  g.phases = std::move(best_built->phases);
  for (std::size_t i = 0; i < g.phases.size(); ++i)
    for (Transfer& t : g.phases[i]) t.share *= best->second[i];
  return g;
}

Seconds CommPlanner::predict(const CommGroup& g) const {
  Seconds t = g.latency * g.calls;
  for (const CommPhase& phase : g.phases) t += Seconds(g.bytes.value * phase_cost(phase).seconds_per_byte);
  return t;
}

}  // namespace tt
