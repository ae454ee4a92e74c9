// Topology's paths: hop distances to a destination (cached tables, Boost.Graph breadth-first searches) and the
// fewest-hops paths walked down them, with ECMP-style choices among tied next hops. The graph itself, its builder and
// the other queries are in topology.cpp.
#include <algorithm>
#include <array>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/compressed_sparse_row_graph.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <unordered_map>
#include <vector>

#include "core/topo/topology.hpp"

namespace tt {

namespace {
std::uint64_t mix(std::uint64_t x) {  // splitmix64 finalizer
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

Path Topology::path(VertexId from, VertexId to) const { return ecmp_path(from, to, 0); }

// A breadth-first search from the destination gives every vertex its hop distance to it; walking from the source down
// the distances and choosing among tied next hops by vertex index (or by `spread`) makes the choice explicit and
// deterministic.
struct Topology::HopCache {
  std::mutex mutex;
  // Tables of the destinations searched or composed, a byte per vertex (kFar: unreachable): at 16,384 GPUs each is
  // 19 KB and a plan reads ~2,300 of them. A fabric 255 hops deep is refused (a search writes into `wide` first).
  static constexpr std::uint8_t kFar = HopDistances::kFar;
  std::unordered_map<VertexId, std::vector<std::uint8_t>> by_destination;
  std::vector<std::uint16_t> wide;
  // The graph without the storage target's links, as a compressed sparse row graph (both directions of each link):
  // what every search to a switch or GPU walks. Built at the first such search; a search over it is several times
  // faster than over the filtered adjacency list (~250 searches per 16,384-GPU iteration plan, NVSwitches composed).
  using Csr = boost::compressed_sparse_row_graph<boost::directedS>;
  std::optional<Csr> transit_csr;

  const Csr& csr(const Topology& t) {
    if (!transit_csr) {
      const TopoGraph& g = t.graph_;
      std::vector<std::pair<std::size_t, std::size_t>> arcs;
      arcs.reserve(2 * boost::num_edges(g));
      for (auto [e, end] = boost::edges(g); e != end; ++e) {
        const VertexId a = boost::source(*e, g), b = boost::target(*e, g);
        if (g[a].kind == VertexKind::Storage || g[b].kind == VertexKind::Storage) continue;
        arcs.emplace_back(a, b);
        arcs.emplace_back(b, a);
      }
      std::sort(arcs.begin(), arcs.end());
      transit_csr.emplace(boost::edges_are_sorted, arcs.begin(), arcs.end(), boost::num_vertices(g));
    }
    return *transit_csr;
  }

  // The storage target is an endpoint, never a transit hop: the search leaves it out (unless it is the destination)
  // and it gets 1 + the least distance of its neighbours, as a search that reached it without leaving it would give.
  struct Transit {
    const TopoGraph* g = nullptr;
    VertexId to = 0;
    bool operator()(VertexId v) const { return (*g)[v].kind != VertexKind::Storage || v == to; }
  };

  // An NVSwitch is reached only through its GPUs, and each of them only from its other neighbours (its NICs' leaves):
  // every shortest path from outside the node ends leaf, GPU, NVSwitch. So the NVSwitch's distances are 2 + the least
  // of those leaves' (1 for its GPUs, 0 for itself), read from their tables (the least of several kept once per set
  // of leaves: a rail-optimized group's nodes share theirs) instead of a search and a table of its own: 2,048 of the
  // ~2,300 destinations of a 16,384-GPU rail-optimized plan. Leaves and spines are searched; so is an NVSwitch with a
  // neighbour that is not a GPU, or a GPU with a neighbour that is a GPU, an NVSwitch or the storage target.
  std::unordered_map<VertexId, const std::uint8_t*> composed_by_switch;  // the least of its leaves' tables; null: searched
  std::map<std::vector<VertexId>, std::vector<std::uint8_t>> least_of_leaves;
  static constexpr VertexId kNoOwner = std::numeric_limits<VertexId>::max();
  std::vector<VertexId> owner;  // by vertex: the composed NVSwitch of its node (its GPUs and itself), else kNoOwner

  // The least of the leaves' tables for NVSwitch `to`; null when it is searched instead (or is no NVSwitch).
  const std::uint8_t* composed(const Topology& t, VertexId to) {
    const TopoGraph& g = t.graph_;
    if (g[to].kind != VertexKind::NvSwitch) return nullptr;
    auto [it, fresh] = composed_by_switch.try_emplace(to, nullptr);
    if (!fresh) return it->second;
    std::vector<VertexId> gpus, outer;
    for (auto [e, end] = boost::out_edges(to, g); e != end; ++e) {
      const VertexId gpu = boost::target(*e, g);
      if (g[gpu].kind != VertexKind::Gpu) return nullptr;
      gpus.push_back(gpu);
      for (auto [f, fend] = boost::out_edges(gpu, g); f != fend; ++f) {
        const VertexId u = boost::target(*f, g);
        if (u == to) continue;
        const VertexKind k = g[u].kind;
        if (k == VertexKind::Gpu || k == VertexKind::NvSwitch || k == VertexKind::Storage) return nullptr;
        outer.push_back(u);
      }
    }
    std::sort(outer.begin(), outer.end());
    outer.erase(std::unique(outer.begin(), outer.end()), outer.end());
    if (outer.empty()) return nullptr;
    const std::uint8_t* base = nullptr;
    if (outer.size() == 1) {
      base = table(t, outer[0]).data();  // leaves: searched, never composed
    } else {
      auto [least, made] = least_of_leaves.try_emplace(outer);
      if (made) {
        std::vector<std::uint8_t>& out = least->second;
        out = table(t, outer[0]);
        const std::size_t n = out.size();
        for (std::size_t i = 1; i < outer.size(); ++i) {  // one table at a time: loops the compiler vectorizes
          const std::uint8_t* d = table(t, outer[i]).data();
          for (std::size_t v = 0; v < n; ++v) out[v] = std::min(out[v], d[v]);
        }
      }
      base = least->second.data();
    }
    // A GPU of the node is 3 hops + the leaves' least from outside: the deepest finite distance + 3 must stay a byte.
    const std::size_t n = boost::num_vertices(g);
    std::uint8_t top = 0;  // the deepest distance + 1 (kFar wraps to 0): a max the compiler vectorizes
    for (std::size_t v = 0; v < n; ++v) top = std::max(top, static_cast<std::uint8_t>(base[v] + 1));
    if (top + 2 >= kFar) too_deep(t, to);
    if (owner.empty()) owner.assign(n, kNoOwner);  // once: HopDistances keep pointers into it
    owner[to] = to;
    for (VertexId gpu : gpus) owner[gpu] = to;
    it->second = base;
    return base;
  }

  [[noreturn]] static void too_deep(const Topology& t, VertexId to) {
    throw std::invalid_argument("topology \"" + t.name_ + "\": a vertex is 255 or more hops from \"" +
                                t.graph_[to].name + "\" (hop distances are kept up to 254)");
  }

  const std::vector<std::uint8_t>& table(const Topology& t, VertexId to) {
    auto [it, fresh] = by_destination.try_emplace(to);
    std::vector<std::uint8_t>& out = it->second;
    if (!fresh) return out;
    const TopoGraph& g = t.graph_;
    std::vector<std::uint16_t>& dist = wide;
    dist.assign(boost::num_vertices(g), kUnreachable);
    dist[to] = 0;
    auto record = boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge())));
    if (g[to].kind != VertexKind::Storage) {
      boost::breadth_first_search(csr(t), to, record);
    } else {
      boost::filtered_graph<TopoGraph, boost::keep_all, Transit> transit(g, boost::keep_all(), Transit{&g, to});
      boost::breadth_first_search(transit, to, record);
    }
    if (t.has_storage_ && t.storage_ != to) {
      std::uint16_t least = kUnreachable;
      for (auto [e, end] = boost::out_edges(t.storage_, g); e != end; ++e)
        least = std::min(least, dist[boost::target(*e, g)]);
      if (least != kUnreachable) dist[t.storage_] = static_cast<std::uint16_t>(least + 1);
    }
    out.resize(dist.size());
    for (std::size_t v = 0; v < dist.size(); ++v) {
      if (dist[v] != kUnreachable && dist[v] >= kFar) too_deep(t, to);
      out[v] = dist[v] == kUnreachable ? kFar : static_cast<std::uint8_t>(dist[v]);
    }
    return out;
  }
};

std::shared_ptr<Topology::HopCache> Topology::make_hop_cache() { return std::make_shared<HopCache>(); }

Topology::HopDistances Topology::hops_to(VertexId to) const {
  if (!hop_cache_) hop_cache_ = make_hop_cache();
  HopCache& cache = *hop_cache_;
  std::lock_guard lock(cache.mutex);
  HopDistances h;
  h.to_ = to;
  // Through a composed NVSwitch `sw` that is `to` itself (add 2) or its neighbour (add 3): from outside its node,
  // `add` + its leaves' least; `sw` is add - 2 hops from `to`, the node's GPUs add - 1.
  auto through_switch = [&](VertexId sw, const std::uint8_t* base, std::uint8_t add) {
    h.owner_ = cache.owner.data();
    h.switch_ = sw;
    h.switch_hops_ = static_cast<std::uint16_t>(add - 2);
    h.gpu_hops_ = static_cast<std::uint16_t>(add - 1);
    h.via_[h.count_] = base;
    h.add_[h.count_++] = add;
  };
  if (graph_[to].kind == VertexKind::Gpu) {  // through its neighbours' tables when they are few switches
    std::array<VertexId, HopDistances::kMaxVia> via{};
    int count = 0;
    bool shared = true;
    for (auto [e, end] = boost::out_edges(to, graph_); e != end && shared; ++e) {
      const VertexId u = boost::target(*e, graph_);
      if (std::find(via.begin(), via.begin() + count, u) != via.begin() + count) continue;  // parallel links
      shared = graph_[u].kind != VertexKind::Storage && count < HopDistances::kMaxVia;
      if (shared) via[count++] = u;
    }
    if (shared) {
      for (int i = 0; i < count; ++i) {
        if (const std::uint8_t* base = cache.composed(*this, via[i])) {
          through_switch(via[i], base, 3);
          continue;
        }
        h.via_[h.count_] = cache.table(*this, via[i]).data();
        h.add_[h.count_++] = 1;
      }
      return h;
    }
  }
  if (const std::uint8_t* base = cache.composed(*this, to)) {
    through_switch(to, base, 2);
    return h;
  }
  h.via_[0] = cache.table(*this, to).data();
  h.count_ = 1;
  return h;
}

Path Topology::ecmp_path(VertexId from, VertexId to, std::uint64_t spread) const {
  const auto n = boost::num_vertices(graph_);
  if (from >= n || to >= n) throw std::invalid_argument("path: vertex out of range");
  Path out;
  if (from == to) return out;
  out.reserve(8);
  // The storage target is an endpoint, never a transit hop (its links are not part of the compute fabric).
  auto endpoint_only = [&](VertexId v) { return graph_[v].kind == VertexKind::Storage && v != from && v != to; };
  const HopDistances dist = hops_to(to);
  if (dist[from] == kUnreachable)
    throw std::invalid_argument("path: \"" + graph_[to].name + "\" cannot be reached from \"" + graph_[from].name +
                                "\"");

  struct Step {
    VertexId next;
    int link;
  };
  // Between two GPUs of one node NCCL moves data over NVLink, never out through a NIC and back, even where a leaf is
  // as few hops away as the NVSwitch: among tied next hops, NVLink ones win (CommPlanner routes the same way).
  const bool same_node = graph_[from].kind == VertexKind::Gpu && graph_[to].kind == VertexKind::Gpu &&
                         graph_[from].node == graph_[to].node;
  auto keep_nvlink = [&](std::vector<Step>& t) {
    const auto nvlink = [&](const Step& s) { return link(s.link).kind == LinkKind::NvLink; };
    if (std::any_of(t.begin(), t.end(), nvlink))
      t.erase(std::remove_if(t.begin(), t.end(), [&](const Step& s) { return !nvlink(s); }), t.end());
  };
  thread_local std::vector<Step> ties;  // scratch kept between calls (a large run asks ~10^5 paths)
  // Near `to`, a wide switch (a spine with a link to every leaf) has few next hops, all of them `to` or a neighbour of
  // it: they are found from those few instead of from the switch's every link. `to`'s neighbours, parallel links
  // counted once, are listed when first needed (none when it has too many to list).
  constexpr std::size_t kWide = 32;
  std::array<VertexId, 8> near{};
  int near_count = -1;
  auto list_near = [&] {
    near_count = 0;
    if (boost::out_degree(to, graph_) > 64) return;
    for (auto [it, end] = boost::out_edges(to, graph_); it != end; ++it) {
      const VertexId u = boost::target(*it, graph_);
      if (std::find(near.begin(), near.begin() + near_count, u) != near.begin() + near_count) continue;
      if (near_count == static_cast<int>(near.size())) {
        near_count = 0;
        return;
      }
      near[near_count++] = u;
    }
  };
  VertexId cur = from;
  // cur's links to its neighbour v, parallel ones included, read from the shorter of the two lists.
  auto links_to = [&](VertexId v) {
    const bool from_v = boost::out_degree(v, graph_) < boost::out_degree(cur, graph_);
    for (auto [it, end] = boost::out_edges(from_v ? v : cur, graph_); it != end; ++it)
      if (boost::target(*it, graph_) == (from_v ? cur : v)) ties.push_back({v, graph_[*it].id});
  };
  for (int step = 0; cur != to; ++step) {
    ties.clear();
    const int here = dist[cur];
    const bool wide = boost::out_degree(cur, graph_) > kWide;
    if (wide && here == 2 && near_count < 0) list_near();
    if (wide && here == 1) {
      links_to(to);  // the only vertex 0 hops from `to`
    } else if (wide && here == 2 && near_count > 0) {
      for (int i = 0; i < near_count; ++i)  // every vertex 1 hop from `to` is among them
        if (!endpoint_only(near[i]) && dist[near[i]] + 1 == here) links_to(near[i]);
    } else {
      for (auto [it, end] = boost::out_edges(cur, graph_); it != end; ++it) {
        VertexId v = boost::target(*it, graph_);
        if (!endpoint_only(v) && dist[v] + 1 == here) ties.push_back({v, graph_[*it].id});
      }
    }
    if (same_node) keep_nvlink(ties);
    std::sort(ties.begin(), ties.end(),
              [](const Step& a, const Step& b) { return a.next != b.next ? a.next < b.next : a.link < b.link; });
    std::size_t pick = spread == 0 ? 0 : mix(spread ^ mix(static_cast<std::uint64_t>(step))) % ties.size();
    EdgeId e = edges_[ties[pick].link];
    out.push_back(Hop{e, boost::source(e, graph_) == cur});
    cur = ties[pick].next;
  }
  return out;
}

}  // namespace tt
