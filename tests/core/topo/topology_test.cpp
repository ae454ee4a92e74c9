#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "core/topo/generators.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::fabric;

namespace {

// The vertices a path visits, by name, starting at `from`; checks that the hops chain up.
std::vector<std::string> visited(const Topology& t, VertexId from, const Path& path) {
  const auto& g = t.graph();
  std::vector<std::string> out{g[from].name};
  VertexId cur = from;
  for (const Hop& h : path) {
    VertexId s = boost::source(h.edge, g), d = boost::target(h.edge, g);
    REQUIRE((h.forward ? s : d) == cur);
    cur = h.forward ? d : s;
    out.push_back(g[cur].name);
  }
  return out;
}

constexpr double kNic = 50e9;  // 400Gb/s

}  // namespace

TEST_CASE("to_string names every kind", "[unit]") {
  CHECK(std::string(to_string(VertexKind::Spine)) == "spine");
  CHECK(std::string(to_string(VertexKind::NvSwitch)) == "nvswitch");
  CHECK(std::string(to_string(LinkKind::NvLink)) == "nvlink");
  CHECK(std::string(to_string(LinkKind::Storage)) == "storage");
}

TEST_CASE("lookups by name", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  int v = t.find_vertex("n3/gpu5");
  REQUIRE(v >= 0);
  CHECK(static_cast<VertexId>(v) == t.gpu_vertex(3, 5));
  CHECK(t.graph()[v].kind == VertexKind::Gpu);
  CHECK(t.graph()[v].node == 3);
  CHECK(t.graph()[v].local == 5);
  CHECK(static_cast<VertexId>(t.find_vertex("n3/nvswitch")) == t.nodes()[3].nvswitch);
  CHECK(t.find_vertex("n16/gpu0") == -1);
  CHECK(t.find_node("n15") == 15);
  CHECK(t.find_node("n16") == -1);
  int l = t.find_link("n3/gpu5~n3/nvswitch");
  REQUIRE(l >= 0);
  CHECK(t.link(l).name == "n3/gpu5~n3/nvswitch");
  CHECK(t.find_link("nope") == -1);
  std::set<std::string> names;
  for (std::size_t i = 0; i < t.edges().size(); ++i) {
    names.insert(t.link(static_cast<int>(i)).name);
    CHECK(t.find_link(t.link(static_cast<int>(i)).name) == static_cast<int>(i));
  }
  CHECK(names.size() == t.edges().size());
}

TEST_CASE("copies and moves own their edges", "[unit]") {
  Topology copy;
  {
    Topology original = make_rail_optimized(fabric(16, 8, 8));
    copy = original;
    Topology moved(std::move(original));
    CHECK(moved.edges().size() == copy.edges().size());
    CHECK(moved.link(7).name == copy.link(7).name);
  }
  for (std::size_t i = 0; i < copy.edges().size(); ++i) {
    EdgeId e = copy.edges()[i];
    CHECK(copy.graph()[e].id == static_cast<int>(i));
    CHECK(copy.find_link(copy.graph()[e].name) == static_cast<int>(i));
  }
  Path p = copy.path(copy.gpu_vertex(0, 1), copy.gpu_vertex(12, 1));
  CHECK(p.size() == 4);
  CHECK(copy.bisection_bandwidth().value == Approx(16 * 8 * kNic / 2));
}

TEST_CASE("paths: same node through the NVSwitch", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  VertexId a = t.gpu_vertex(2, 0), b = t.gpu_vertex(2, 6);
  Path p = t.path(a, b);
  REQUIRE(p.size() == 2);
  CHECK(visited(t, a, p) == std::vector<std::string>{"n2/gpu0", "n2/nvswitch", "n2/gpu6"});
  CHECK(t.graph()[p[0].edge].kind == LinkKind::NvLink);
  CHECK(t.latency(p).value == Approx(1e-6));
  CHECK(t.bottleneck(p).value == Approx(450e9));
  CHECK(t.path(a, a).empty());
}

TEST_CASE("paths: same rail, one group, through one leaf", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  VertexId a = t.gpu_vertex(1, 3), b = t.gpu_vertex(6, 3);
  Path p = t.path(a, b);
  CHECK(visited(t, a, p) == std::vector<std::string>{"n1/gpu3", "leaf-g0-r3", "n6/gpu3"});
  CHECK(t.bottleneck(p).value == Approx(kNic));
  CHECK(t.latency(p).value == Approx(2e-6));
  // Reversed, the same links crossed the other way.
  Path back = t.path(b, a);
  REQUIRE(back.size() == 2);
  CHECK(back[0].edge == p[1].edge);
  CHECK(back[0].forward != p[1].forward);
}

TEST_CASE("paths: different groups go leaf-spine-leaf", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  VertexId a = t.gpu_vertex(0, 2), b = t.gpu_vertex(9, 2);
  Path p = t.path(a, b);
  auto names = visited(t, a, p);
  REQUIRE(names.size() == 5);
  CHECK(names[1] == "leaf-g0-r2");
  CHECK(names[2] == "spine0");  // ties broken by vertex index
  CHECK(names[3] == "leaf-g1-r2");
  CHECK(t.latency(p).value == Approx(4e-6));
  CHECK(t.path(a, b) == p);  // deterministic
}

TEST_CASE("ecmp paths spread flows over every spine, at the same length", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  VertexId a = t.gpu_vertex(0, 2), b = t.gpu_vertex(9, 2);
  CHECK(t.ecmp_path(a, b, 0) == t.path(a, b));
  std::set<std::string> spines;
  for (std::uint64_t spread = 1; spread <= 200; ++spread) {
    Path p = t.ecmp_path(a, b, spread);
    REQUIRE(p.size() == 4);
    auto names = visited(t, a, p);
    spines.insert(names[2]);
    CHECK(t.ecmp_path(a, b, spread) == p);
  }
  CHECK(spines.size() == 8);
}

// ecmp_path as Topology documents it, by scanning every link of every vertex on the way: the reference for the
// shortcut it takes near the destination on wide switches (a spine linked to every leaf).
tt::Path ecmp_by_scan(const Topology& t, VertexId from, VertexId to, std::uint64_t spread) {
  auto mix = [](std::uint64_t x) {  // splitmix64's finalizer, as topology.cpp hashes
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  const auto& g = t.graph();
  const Topology::HopDistances dist = t.hops_to(to);
  const bool same_node = g[from].kind == VertexKind::Gpu && g[to].kind == VertexKind::Gpu && g[from].node == g[to].node;
  tt::Path out;
  VertexId cur = from;
  for (int step = 0; cur != to; ++step) {
    std::vector<std::pair<VertexId, int>> ties;
    for (auto [it, end] = boost::out_edges(cur, g); it != end; ++it) {
      const VertexId v = boost::target(*it, g);
      const bool endpoint_only = g[v].kind == VertexKind::Storage && v != from && v != to;
      if (!endpoint_only && dist[v] + 1 == dist[cur]) ties.push_back({v, g[*it].id});
    }
    if (same_node && std::any_of(ties.begin(), ties.end(), [&](auto& s) { return t.link(s.second).kind == LinkKind::NvLink; }))
      std::erase_if(ties, [&](auto& s) { return t.link(s.second).kind != LinkKind::NvLink; });
    std::sort(ties.begin(), ties.end());
    REQUIRE(!ties.empty());
    const std::size_t pick = spread == 0 ? 0 : mix(spread ^ mix(static_cast<std::uint64_t>(step))) % ties.size();
    const EdgeId e = t.edges()[ties[pick].second];
    out.push_back(tt::Hop{e, boost::source(e, g) == cur});
    cur = ties[pick].first;
  }
  return out;
}

TEST_CASE("ecmp paths on wide spines are the paths a scan of every link finds", "[unit]") {
  // 64 groups of 8 nodes, 8 rails: each spine links to 512 leaves; 2:1 leaf-spine racks for the other generator.
  for (const Topology& t : {make_rail_optimized(fabric(512, 8, 8)), make_leaf_spine(fabric(256, 4, 8, 2.0))}) {
    INFO(t.name() << " " << t.generator());
    const int nodes = static_cast<int>(t.nodes().size());
    std::vector<VertexId> ends;
    for (int n : {0, 1, 7, 8, 100, 255, nodes - 1})
      for (int local : {0, 3, 7}) ends.push_back(t.gpu_vertex(n, local));
    if (t.has_storage()) ends.push_back(t.storage());
    int compared = 0;
    for (VertexId a : ends)
      for (VertexId b : ends) {
        if (a == b) continue;
        for (std::uint64_t spread : {0ULL, 1ULL, 7ULL, 12345ULL, 0x9e3779b97f4a7c15ULL}) {
          REQUIRE(t.ecmp_path(a, b, spread) == ecmp_by_scan(t, a, b, spread));
          ++compared;
        }
      }
    CHECK(compared > 2000);
  }
}

TEST_CASE("leaf-spine paths: same rack through its leaf, across racks through a spine", "[unit]") {
  Topology t = make_leaf_spine(fabric(32, 4, 4, 2.0));
  VertexId a = t.gpu_vertex(0, 0);
  CHECK(visited(t, a, t.path(a, t.gpu_vertex(3, 5))) == std::vector<std::string>{"n0/gpu0", "leaf-g0", "n3/gpu5"});
  auto far = visited(t, a, t.path(a, t.gpu_vertex(31, 5)));
  CHECK(far == std::vector<std::string>{"n0/gpu0", "leaf-g0", "spine0", "leaf-g7", "n31/gpu5"});
}

TEST_CASE("unreachable vertices make path() throw", "[unit]") {
  Topology::Builder b("islands", "explicit", *find_gpu("A100-SXM"), 2);
  b.add_node("a", 0, Seconds(1e-6));
  b.add_node("b", 0, Seconds(1e-6));
  Topology t = std::move(b).build();
  CHECK(t.path(t.gpu_vertex(0, 0), t.gpu_vertex(0, 1)).size() == 2);
  CHECK_THROWS_AS(t.path(t.gpu_vertex(0, 0), t.gpu_vertex(1, 0)), std::invalid_argument);
  CHECK(t.bisection_bandwidth().value == 0);
}

TEST_CASE("builder rejects duplicate names", "[unit]") {
  Topology::Builder b("dup", "explicit", *find_gpu("A100-SXM"), 1);
  b.add_node("a", 0, Seconds(1e-6));
  CHECK_THROWS_AS(b.add_node("a", 0, Seconds(1e-6)), std::invalid_argument);
  VertexId s = b.add_switch(VertexKind::Leaf, "leaf0", 0);
  CHECK_THROWS_AS(b.add_switch(VertexKind::Spine, "leaf0"), std::invalid_argument);
  b.add_link(b.t.gpu_vertex(0, 0), s, LinkKind::Nic, "x", BytesPerSecond(1e9), Seconds(1e-6));
  CHECK_THROWS_AS(b.add_link(b.t.gpu_vertex(0, 0), s, LinkKind::Nic, "x", BytesPerSecond(1e9), Seconds(1e-6)),
                  std::invalid_argument);
}

TEST_CASE("bisection: non-blocking rail-optimized fabric equals N x g x B / 2", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  CHECK(t.bisection_bandwidth().value == Approx(16 * 8 * kNic / 2));
  Topology four = make_rail_optimized(fabric(32, 8, 4));
  CHECK(four.bisection_bandwidth().value == Approx(32 * 8 * kNic / 2));
}

// Boost's push-relabel starts the source's excess at the capacity type's maximum: source arcs that together hold more
// than that made flow pushed back to the source overflow a long long (undefined behaviour; UBSan caught it on the
// bundled 4,096-GPU topologies). Each GPU's source arc now holds what its links can carry. Run under the sanitized build
// (cmake/sanitize.cmake) this fails on the old code; everywhere it checks the figure at a size past that point.
TEST_CASE("bisection: 8,192 GPUs, source arcs within the flow type's range", "[unit]") {
  Topology big = make_rail_optimized(fabric(1024, 32, 32));
  CHECK(big.bisection_bandwidth().value == Approx(1024 * 8 * kNic / 2));
}

TEST_CASE("bisection: 2:1 oversubscribed rail-optimized fabric is half of it", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8, 2.0));
  CHECK(t.bisection_bandwidth().value == Approx(16 * 8 * kNic / 2 / 2));
  Topology four = make_rail_optimized(fabric(32, 8, 0, 2.0));
  CHECK(four.bisection_bandwidth().value == Approx(32 * 8 * kNic / 2 / 2));
  Topology three = make_rail_optimized(fabric(48, 8, 0, 3.0));
  CHECK(three.bisection_bandwidth().value == Approx(48 * 8 * kNic / 2 / 3));
}

TEST_CASE("bisection: leaf-spine, single group and single node", "[unit]") {
  CHECK(make_leaf_spine(fabric(32, 4, 4, 2.0)).bisection_bandwidth().value == Approx(32 * 8 * kNic / 2 / 2));
  // One group: no spines; the halves meet at the rail leaves, limited by the NICs.
  CHECK(make_rail_optimized(fabric(4, 32, 0)).bisection_bandwidth().value == Approx(4 * 8 * kNic / 2));
  // One node: GPUs 0-3 to 4-7 over NVLink; storage is left out.
  CHECK(make_single_node(fabric(1, 1, 0)).bisection_bandwidth().value == Approx(4 * 450e9));
}

TEST_CASE("topology: paths never transit the storage target", "[unit][topo]") {
  // One group: storage hangs off every leaf, so leaf -> storage -> leaf ties with the NVSwitch detour on hop count.
  tt::Topology t = tt::testing::rail_cluster(2, 8);
  const auto& g = t.graph();
  for (int a = 0; a < 8; ++a)
    for (int b = 0; b < 8; ++b)
      for (std::uint64_t spread : {0ULL, 1ULL, 7ULL, 12345ULL}) {
        tt::Path p = t.ecmp_path(t.gpu_vertex(0, a), t.gpu_vertex(1, b), spread);
        for (const auto& hop : p) {
          CHECK(g[boost::source(hop.edge, g)].kind != tt::VertexKind::Storage);
          CHECK(g[boost::target(hop.edge, g)].kind != tt::VertexKind::Storage);
        }
      }
  tt::Path to_storage = t.path(t.gpu_vertex(0, 3), t.storage());
  const auto last = to_storage.back().edge;
  CHECK((g[boost::source(last, g)].kind == tt::VertexKind::Storage || g[boost::target(last, g)].kind == tt::VertexKind::Storage));
}

namespace {
// Hop distances to `to` the plain way: a search from `to` over the whole graph that reaches the storage target but
// never leaves it (unless it is `to`). hops_to() must agree everywhere, whether it reads a GPU's distances through its
// switches' tables or searches itself.
std::vector<std::uint16_t> reference_hops(const Topology& t, VertexId to) {
  const auto& g = t.graph();
  std::vector<std::uint16_t> dist(boost::num_vertices(g), Topology::kUnreachable);
  std::vector<VertexId> queue{to};
  dist[to] = 0;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const VertexId v = queue[head];
    if (g[v].kind == VertexKind::Storage && v != to) continue;
    for (auto [e, end] = boost::out_edges(v, g); e != end; ++e) {
      const VertexId u = boost::target(*e, g);
      if (dist[u] == Topology::kUnreachable) dist[u] = static_cast<std::uint16_t>(dist[v] + 1), queue.push_back(u);
    }
  }
  return dist;
}

void check_all_hops(const Topology& t) {
  const auto n = boost::num_vertices(t.graph());
  for (VertexId to = 0; to < n; ++to) {
    const std::vector<std::uint16_t> want = reference_hops(t, to);
    const Topology::HopDistances got = t.hops_to(to);
    for (VertexId v = 0; v < n; ++v) {
      INFO(t.graph()[v].name << " -> " << t.graph()[to].name);
      REQUIRE(got[v] == want[v]);
    }
  }
}
}  // namespace

TEST_CASE("topology: hop distances through switches' tables equal a search from every destination", "[unit][topo]") {
  SECTION("rail-optimized, two groups and spines, storage on the spines") {
    FabricParams p = fabric(16, 8, 4);
    p.storage_bandwidth = BytesPerSecond(100e9);
    check_all_hops(make_rail_optimized(p));
  }
  SECTION("rail-optimized, one group, storage on every leaf") { check_all_hops(tt::testing::rail_cluster(2, 8)); }
  SECTION("leaf-spine, oversubscribed") { check_all_hops(make_leaf_spine(fabric(32, 4, 4, 2.0))); }
  SECTION("explicit: GPUs wired to the storage target search for themselves") {
    Topology::Builder b("odd", "explicit", *find_gpu("A100-SXM"), 2);
    b.add_node("a", 0, Seconds(1e-6));
    b.add_node("b", 0, Seconds(1e-6));
    VertexId leaf = b.add_switch(VertexKind::Leaf, "leaf0", 0);
    VertexId st = b.add_storage("storage");
    b.add_link(b.t.gpu_vertex(0, 0), leaf, LinkKind::Nic, "a0~leaf0", BytesPerSecond(1e9), Seconds(1e-6));
    b.add_link(b.t.gpu_vertex(1, 0), leaf, LinkKind::Nic, "b0~leaf0", BytesPerSecond(1e9), Seconds(1e-6));
    b.add_link(b.t.gpu_vertex(0, 1), st, LinkKind::Storage, "a1~storage", BytesPerSecond(1e9), Seconds(1e-6));
    b.add_link(b.t.gpu_vertex(1, 1), st, LinkKind::Storage, "b1~storage", BytesPerSecond(1e9), Seconds(1e-6));
    Topology t = std::move(b).build();
    check_all_hops(t);
    // a1 - a/nvswitch - a0 - leaf0 - b0 - b/nvswitch - b1, not the 2 hops through the storage target
    CHECK(t.hops_to(t.gpu_vertex(1, 1))[t.gpu_vertex(0, 1)] == 6);
  }
}

TEST_CASE("topology: a fabric 255 hops deep is refused by name, one 201 deep is measured", "[unit][topo]") {
  auto chain = [](int switches) {  // a0 - leaf0 - ... - leaf(n-1) - b0
    Topology::Builder b("chain", "explicit", *find_gpu("A100-SXM"), 1);
    b.add_node("a", 0, Seconds(1e-6));
    b.add_node("b", 0, Seconds(1e-6));
    VertexId prev = b.t.gpu_vertex(0, 0);
    for (int i = 0; i < switches; ++i) {
      const VertexId s = b.add_switch(VertexKind::Leaf, "leaf" + std::to_string(i), 0);
      b.add_link(prev, s, i == 0 ? LinkKind::Nic : LinkKind::Fabric, "l" + std::to_string(i), BytesPerSecond(1e9),
                 Seconds(1e-6));
      prev = s;
    }
    b.add_link(prev, b.t.gpu_vertex(1, 0), LinkKind::Nic, "last", BytesPerSecond(1e9), Seconds(1e-6));
    return std::move(b).build();
  };
  const Topology ok = chain(200);
  CHECK(ok.hops_to(ok.gpu_vertex(1, 0))[ok.gpu_vertex(0, 0)] == 201);
  const Topology deep = chain(300);
  CHECK_THROWS_WITH(deep.hops_to(deep.gpu_vertex(1, 0)), Catch::Contains("255 or more hops"));
}
