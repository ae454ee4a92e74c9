#include "core/plan/comm_planner.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "core/plan/collective.hpp"
#include "core/plan/comm_layout.hpp"
#include "tests/core/plan/comm_fixture.hpp"

using namespace tt;
using testing::first_gpus;
using testing::h100_nodes;

namespace {

CommPlanner::Option find(const std::vector<CommPlanner::Option>& options, Algorithm a, Protocol p) {
  for (const auto& o : options)
    if (o.algorithm == a && o.protocol == p) return o;
  FAIL("no option " << to_string(a) << "/" << to_string(p));
  return {};
}

// The size at which two options take the same time, from their latencies and bandwidths (time = lat + size / bw).
double crossover(const CommPlanner::Option& a, const CommPlanner::Option& b, double probe) {
  const double bw_a = probe / (a.time - a.latency).value, bw_b = probe / (b.time - b.latency).value;
  return (b.latency - a.latency).value / (1 / bw_a - 1 / bw_b);
}

}  // namespace

TEST_CASE("planner: the choice is the fastest option, and flips where the cost model says", "[unit][plan]") {
  Topology topo = h100_nodes(1);
  CommConstants k = nccl_constants(topo.gpu());  // NCCL's figures: one straight line per option
  k.protocol_enabled = {true, false, true};  // LL and Simple: one crossover to look at
  CommPlanner planner(topo, k);
  const auto gpus = first_gpus(8);
  const double probe = 1 << 30;
  auto options = planner.options(Collective::AllReduce, gpus, Bytes(probe));
  const auto ll = find(options, Algorithm::Ring, Protocol::LL);
  const auto nvls = find(options, Algorithm::Nvls, Protocol::Simple);
  CHECK(ll.latency < nvls.latency);  // LL starts sooner; NVLS moves bytes faster
  const double at = crossover(ll, nvls, probe);
  INFO("ring/LL -> NVLS at " << at << " bytes");
  REQUIRE(at > 1e3);
  REQUIRE(at < 1e8);
  for (double size : {at / 4, at * 0.9, at * 1.1, at * 4}) {
    CommGroup g = planner.plan(Collective::AllReduce, gpus, Bytes(size));
    double best = 1e9;
    for (const auto& o : planner.options(Collective::AllReduce, gpus, Bytes(size))) best = std::min(best, o.time.value);
    CHECK(g.predicted.value == Approx(best));
    CHECK(g.algorithm == (size < at ? Algorithm::Ring : Algorithm::Nvls));
  }
}

TEST_CASE("planner: small messages take LL, large ones Simple, trees win mid-size across many nodes", "[unit][plan]") {
  SECTION("one node without NVLS (A100)") {
    Topology topo = h100_nodes(1, "A100-SXM");
    CommPlanner planner(topo, comm_constants(topo.gpu()));
    for (const auto& o : planner.options(Collective::AllReduce, first_gpus(8), Bytes(1 << 20)))
      CHECK(o.algorithm != Algorithm::Nvls);
    CHECK(planner.plan(Collective::AllReduce, first_gpus(8), Bytes(1024)).protocol == Protocol::LL);
    CommGroup big = planner.plan(Collective::AllReduce, first_gpus(8), Bytes(4e9));
    CHECK(big.algorithm == Algorithm::Ring);
    CHECK(big.protocol != Protocol::LL);
  }
  SECTION("16 nodes") {
    Topology topo = h100_nodes(16);
    CommPlanner planner(topo, comm_constants(topo.gpu()));
    const auto gpus = first_gpus(128);
    CommGroup small = planner.plan(Collective::AllReduce, gpus, Bytes(8192));
    CHECK(small.algorithm == Algorithm::Tree);  // log2(16) network steps instead of 32
    CHECK(small.protocol == Protocol::LL);
    CHECK(planner.plan(Collective::AllReduce, gpus, Bytes(8e9)).algorithm == Algorithm::Ring);
  }
  SECTION("NCCL_ALGO-like override: only rings") {
    Topology topo = h100_nodes(16);
    CommOverrides o;
    o.algorithms = std::vector<Algorithm>{Algorithm::Ring};
    CommPlanner planner(topo, comm_constants(topo.gpu(), o));
    for (const auto& opt : planner.options(Collective::AllReduce, first_gpus(128), Bytes(8192)))
      CHECK(opt.algorithm == Algorithm::Ring);
  }
}

TEST_CASE("planner: a ring's bus bandwidth is its links' times NCCL's efficiency", "[unit][plan]") {
  SECTION("8 x H100 in a node: NVLink at NCCL's 20.6 of 25 GB/s per link") {
    Topology topo = h100_nodes(1);
    CommConstants k = comm_constants(topo.gpu());
    k.algorithm_enabled[static_cast<int>(Algorithm::Nvls)] = false;
    CommPlanner planner(topo, k);
    CommGroup g = planner.plan(Collective::AllReduce, first_gpus(8), Bytes(8e9));
    REQUIRE(g.algorithm == Algorithm::Ring);
    REQUIRE(g.protocol == Protocol::Simple);
    const double busbw = bandwidth(Collective::AllReduce, 8, Bytes(8e9), g.predicted - g.latency).busbw.value;
    CHECK(busbw == Approx(450e9 * 20.6 / 25));
  }
  SECTION("2 nodes: eight rings, one per NIC, 8 x 50 GB/s") {
    Topology topo = h100_nodes(2);
    CommPlanner planner(topo, comm_constants(topo.gpu()));
    CommGroup g = planner.plan(Collective::AllReduce, first_gpus(16), Bytes(8e9), 1, 0,
                               std::make_pair(Algorithm::Ring, Protocol::Simple));
    const double busbw = bandwidth(Collective::AllReduce, 16, Bytes(8e9), g.predicted - g.latency).busbw.value;
    CHECK(busbw == Approx(400e9));
  }
  SECTION("NVLS: NCCL's 5/6 of the NVLink bandwidth as algbw; the default corrects it to the measured peak") {
    Topology topo = h100_nodes(1);
    CommPlanner planner(topo, nccl_constants(topo.gpu()));
    CommGroup g = planner.plan(Collective::AllReduce, first_gpus(8), Bytes(8e9));
    REQUIRE(g.algorithm == Algorithm::Nvls);
    CHECK(8e9 / (g.predicted - g.latency).value == Approx(450e9 * 20.6 / 25 * 5 / 6));
    // comm_constants.cpp: large-band NVLS bandwidth x 0.865, fitted to the public ND H100 v5 / H200 v5 tables.
    CommPlanner shipped(topo, comm_constants(topo.gpu()));
    CommGroup d = shipped.plan(Collective::AllReduce, first_gpus(8), Bytes(8e9));
    REQUIRE(d.algorithm == Algorithm::Nvls);
    CHECK(8e9 / (d.predicted - d.latency).value == Approx(450e9 * 20.6 / 25 * 5 / 6 * 0.865));
  }
}

TEST_CASE("planner: transfers of each algorithm, and predict() from them equals the plan's prediction",
          "[unit][plan]") {
  Topology topo = h100_nodes(4);
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  const auto gpus = first_gpus(32);
  const Bytes size(256e6);
  auto forced = [&](Collective c, Algorithm a, Protocol p, std::vector<int> members) {
    CommGroup g = planner.plan(c, std::move(members), size, 3, 0, std::make_pair(a, p));
    REQUIRE(g.algorithm == a);
    REQUIRE(g.protocol == p);
    CHECK(planner.predict(g).value == Approx(g.predicted.value));
    CHECK(g.bytes.value == Approx(3 * size.value));
    return g;
  };
  SECTION("ring: 8 channels x 32 edges, every inter-node edge on one rail") {
    CommGroup g = forced(Collective::AllReduce, Algorithm::Ring, Protocol::Simple, gpus);
    REQUIRE(g.phases.size() == 1);
    CHECK(g.phases[0].size() == 8 * 32);
    for (const Transfer& t : g.phases[0])
      if (t.from / 8 != t.to / 8) CHECK(t.from % 8 == t.to % 8);
  }
  SECTION("tree: chains and tree edges, both ways") {
    CommGroup g = forced(Collective::AllReduce, Algorithm::Tree, Protocol::LL128, gpus);
    REQUIRE(g.phases.size() == 1);
    // per channel and tree: 4 chains of 7 edges, 3 tree edges; each both ways
    CHECK(g.phases[0].size() == 8 * 2 * (4 * 7 + 3) * 2);
  }
  SECTION("hierarchical: reduce-scatter, all-reduce per rail, all-gather") {
    CommGroup g = forced(Collective::AllReduce, Algorithm::Hierarchical, Protocol::Simple, gpus);
    REQUIRE(g.phases.size() == 3);
    CHECK(g.phases[0].size() == 32);
    CHECK(g.phases[1].size() == 32);
    for (const Transfer& t : g.phases[1]) CHECK(t.from % 8 == t.to % 8);
    for (const Transfer& t : g.phases[0]) CHECK(t.from / 8 == t.to / 8);
  }
  SECTION("NVLS inside a node: every ordered pair") {
    CommGroup g = forced(Collective::AllReduce, Algorithm::Nvls, Protocol::Simple, first_gpus(8));
    CHECK(g.phases[0].size() == 56);
  }
  SECTION("broadcast from a root: a chain of n - 1 edges per channel") {
    CommGroup g = planner.plan(Collective::Broadcast, gpus, size, 1, 5);
    CHECK(g.algorithm == Algorithm::Ring);
    CHECK(g.phases[0].size() == 8 * 31);
    for (const Transfer& t : g.phases[0]) CHECK(t.to != 5);
  }
  SECTION("sendrecv and alltoall: point to point") {
    CommGroup s = planner.plan(Collective::SendRecv, {0, 8}, size);
    CHECK(s.algorithm == Algorithm::P2p);
    CHECK(s.phases[0] == CommPhase{{0, 8, s.phases[0][0].share}});
    CommGroup a = planner.plan(Collective::AllToAll, first_gpus(8), size);
    CHECK(a.phases[0].size() == 56);
  }
  CHECK(planner.options(Collective::AllReduce, {3}, size).empty());
  CHECK(planner.plan(Collective::AllReduce, {3}, size).phases.empty());
}

TEST_CASE("planner: point-to-point runs Simple whatever the protocols allow, as NCCL's send/recv does",
          "[unit][plan]") {
  Topology topo = h100_nodes(2);
  CommOverrides o;
  o.protocols = std::vector<Protocol>{Protocol::LL};
  CommPlanner planner(topo, comm_constants(topo.gpu(), o));
  for (Collective c : {Collective::SendRecv, Collective::AllToAll}) {
    CommGroup g = planner.plan(c, {0, 8}, Bytes(1e6));
    INFO(to_string(c));
    CHECK(g.algorithm == Algorithm::P2p);
    CHECK(g.protocol == Protocol::Simple);
    CHECK(!g.phases.empty());
  }
  CHECK(planner.plan(Collective::AllReduce, {0, 8}, Bytes(1e6)).protocol == Protocol::LL);
}

TEST_CASE("planner: a pair across nodes on one rail exchanges over that rail, at least the payload", "[unit][plan]") {
  // The transfers name GPUs, not links: a driver routes them over what is up (sim/platform.hpp).
  Topology topo = h100_nodes(2);
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  CommGroup g = planner.plan(Collective::AllReduce, {3, 11}, Bytes(1e9));
  for (const Transfer& t : g.phases[0]) {
    CHECK(t.from % 8 == 3);
    CHECK(t.to % 8 == 3);
    CHECK(t.share >= 1.0);  // 2(n-1)/n = 1 of payload, plus any protocol and efficiency overhead
  }
}

TEST_CASE("planner: transfers between two leaf groups split evenly over the spines, however the routes were cached",
          "[unit][plan]") {
  // 4 nodes in two groups of 2 under 4:1 oversubscribed spines: each rail leaf has 2 x 50 GB/s / 4 = 25 GB/s up,
  // over 8 spines (3.125 GB/s per leaf-spine link).
  FabricParams p;
  p.name = "two-groups";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = 4;
  p.nodes_per_group = 2;
  p.oversubscription = 4;
  p.nic_bandwidth = BytesPerSecond(50e9);
  p.storage_bandwidth = BytesPerSecond(100e9);
  const Topology topo = make_rail_optimized(p);
  // Rail 0: n0 -> n2 and n1 -> n3 both leave group 0's rail-0 leaf for group 1's: 2 x 1/8 on each of its uplinks.
  CommGroup g;
  g.bytes = Bytes(1e9);
  g.phases = {{{0, 16, 1.0}, {8, 24, 1.0}}};
  const double per_byte = 2.0 / 8 / (50e9 * 2 / 4 / 8);
  CommPlanner fresh(topo, comm_constants(topo.gpu()));
  CHECK(fresh.predict(g).value == Approx(1e9 * per_byte).epsilon(1e-12));
  // A planner that routed other pairs through the same leaves and spines first (rails 0 and 1, both directions, and
  // within nodes) predicts the same, to the last bit.
  CommPlanner warm(topo, comm_constants(topo.gpu()));
  CommGroup other;
  other.bytes = Bytes(1e9);
  other.phases = {{{16, 0, 1.0}, {24, 8, 0.5}, {1, 17, 1.0}, {9, 25, 1.0}, {0, 1, 1.0}, {8, 16, 0.25}}};
  CHECK(warm.predict(other).value > 0);
  CHECK(warm.predict(g).value == fresh.predict(g).value);
  // One transfer alone: half the load.
  g.phases = {{{0, 16, 1.0}}};
  CHECK(warm.predict(g).value == Approx(1e9 * per_byte / 2).epsilon(1e-12));
}

namespace {

// 12 nodes of 8 H100, rail-optimized in leaf groups of 4, the last group partial (`nodes` = 10: groups of 4, 4, 2).
Topology three_groups(int nodes) {
  FabricParams p;
  p.name = "three-groups";
  p.gpu = *find_gpu("H100-SXM");
  p.nodes = nodes;
  p.nodes_per_group = 4;
  p.oversubscription = 2;
  p.nic_bandwidth = BytesPerSecond(50e9);
  p.storage_bandwidth = BytesPerSecond(100e9);
  return make_rail_optimized(p);
}

// The group's GPUs: `per_node` local GPUs from `first` of each node in `nodes`.
std::vector<int> on(const std::vector<int>& nodes, int per_node, int first = 0) {
  std::vector<int> gpus;
  for (int n : nodes)
    for (int i = 0; i < per_node; ++i) gpus.push_back(n * 8 + first + i);
  return gpus;
}

}  // namespace

TEST_CASE("planner: a group of a shape met before takes that plan renamed, as planning it anew would give",
          "[unit][plan]") {
  const Topology topo = three_groups(12);
  CommPlanner shared(topo, comm_constants(topo.gpu()));
  REQUIRE(shared.interchangeable());
  struct Case {
    std::vector<int> first, same;  // two placements of one shape
    int per_node;
  };
  // Nodes 0-3 are group 0, 4-7 group 1, 8-11 group 2: three nodes of one group and one of the next, elsewhere; two
  // nodes in each of two groups; one node (8 GPUs); two GPUs on each of five nodes over three groups (the second
  // placement shares a node with the first).
  const std::vector<Case> cases = {{{0, 1, 2, 4}, {5, 6, 7, 9}, 8},
                                   {{1, 3, 8, 9}, {4, 6, 10, 11}, 8},
                                   {{2}, {7}, 8},
                                   {{0, 3, 5, 9, 10}, {0, 2, 6, 8, 11}, 2}};
  std::uint64_t reuses = 0;
  for (Collective c : {Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter}) {
    for (const Case& k : cases) {
      INFO(to_string(c) << " on " << k.first.size() << " nodes");
      shared.plan(c, on(k.first, k.per_node), Bytes(64e6));
      const CommGroup taken = shared.plan(c, on(k.same, k.per_node), Bytes(64e6));
      CommPlanner fresh(topo, comm_constants(topo.gpu()));
      const CommGroup anew = fresh.plan(c, on(k.same, k.per_node), Bytes(64e6));
      ++reuses;
      CHECK(taken.algorithm == anew.algorithm);
      CHECK(taken.protocol == anew.protocol);
      CHECK(taken.gpus == anew.gpus);
      CHECK(taken.phases == anew.phases);
      CHECK(taken.predicted.value == Approx(anew.predicted.value).epsilon(1e-12));
      CHECK(taken.latency.value == Approx(anew.latency.value).epsilon(1e-12));
      CHECK(fresh.predict(taken).value == Approx(anew.predicted.value).epsilon(1e-12));
    }
  }
  // A job's data-parallel groups, one per rail over the same nodes: rail 3's plan serves rail 5 (and rails 2 and 6 of
  // two GPUs each serve rails 1 and 4).
  for (const auto& [from, to, width] : {std::tuple{3, 5, 1}, std::tuple{2, 1, 2}}) {
    INFO("rails from " << from << " to " << to);
    shared.plan(Collective::AllReduce, on({0, 4, 5, 8}, width, from), Bytes(256e6));
    const CommGroup taken = shared.plan(Collective::AllReduce, on({0, 4, 5, 8}, width, to), Bytes(256e6));
    CommPlanner fresh(topo, comm_constants(topo.gpu()));
    const CommGroup anew = fresh.plan(Collective::AllReduce, on({0, 4, 5, 8}, width, to), Bytes(256e6));
    ++reuses;
    CHECK(taken.gpus == anew.gpus);
    CHECK(taken.phases == anew.phases);
    CHECK(taken.predicted.value == Approx(anew.predicted.value).epsilon(1e-12));
  }
  CHECK(shared.shape_reuses() == reuses);
}

TEST_CASE("planner: shapes tell apart groups of different sizes, and a fabric not known alike keeps none",
          "[unit][plan]") {
  // Groups of 4, 4 and 2 nodes: the last one's leaves have half the uplink. A group of two nodes in group 0 and two
  // in group 2 is not the shape of two in group 0 and two in group 1.
  const Topology topo = three_groups(10);
  CommPlanner shared(topo, comm_constants(topo.gpu()));
  REQUIRE(shared.interchangeable());
  shared.plan(Collective::AllReduce, on({0, 1, 4, 5}, 8), Bytes(1e9));
  const CommGroup other = shared.plan(Collective::AllReduce, on({2, 3, 8, 9}, 8), Bytes(1e9));
  CHECK(shared.shape_reuses() == 0);
  CommPlanner fresh(topo, comm_constants(topo.gpu()));
  CHECK(other.predicted.value == fresh.plan(Collective::AllReduce, on({2, 3, 8, 9}, 8), Bytes(1e9)).predicted.value);
  // The same two groups of four, elsewhere: taken.
  shared.plan(Collective::AllReduce, on({1, 2, 6, 7}, 8), Bytes(1e9));
  CHECK(shared.shape_reuses() == 1);
  // A generator whose symmetry the planner does not assume (one node): nothing kept by shape.
  const Topology single = h100_nodes(1);
  CHECK_FALSE(CommPlanner(single, comm_constants(single.gpu())).interchangeable());
}

// The planner picks as NCCL's tuning does, by NCCL's own figures: a correction changes the predicted time of the
// option it corrects, not which option runs. Picking the fastest corrected option instead is a setting.
TEST_CASE("planner: a plan asked again is the same plan, kept by shape on a fabric known alike, else by arguments",
          "[unit][plan]") {
  const Topology alike = three_groups(10);
  const Topology single = h100_nodes(1);
  for (const Topology* topo : {&alike, &single}) {
    CommPlanner planner(*topo, comm_constants(topo->gpu()));
    INFO("interchangeable " << planner.interchangeable());
    const std::vector<int> gpus = planner.interchangeable() ? on({0, 1, 4, 5}, 8) : std::vector<int>{0, 2, 4, 6};
    const CommGroup first = planner.plan(Collective::AllReduce, gpus, Bytes(1e9), 3);
    const std::uint64_t reuses = planner.shape_reuses();
    const CommGroup again = planner.plan(Collective::AllReduce, gpus, Bytes(1e9), 3);
    CHECK(again.gpus == first.gpus);
    CHECK(again.phases == first.phases);
    CHECK(again.predicted.value == first.predicted.value);
    CHECK(again.calls == first.calls);
    CHECK(planner.shape_reuses() == reuses + (planner.interchangeable() ? 1 : 0));
  }
}

TEST_CASE("planner: a correction changes the time, not the choice, unless the fastest corrected option is asked for",
          "[unit][plan]") {
  const Topology two = h100_nodes(2);
  const auto gpus = first_gpus(16);
  const Bytes size(131072);
  CommOverrides none;
  none.regimes = std::vector<RegimeOverride>{};
  const CommGroup raw = CommPlanner(two, comm_constants(two.gpu(), none)).plan(Collective::AllReduce, gpus, size);
  CommOverrides slow = none;
  slow.regimes = std::vector<RegimeOverride>{{raw.algorithm, raw.protocol, 1, SizeBand::Medium, {10.0, 0.1}}};
  const CommGroup nccl = CommPlanner(two, comm_constants(two.gpu(), slow)).plan(Collective::AllReduce, gpus, size);
  CHECK(nccl.algorithm == raw.algorithm);
  CHECK(nccl.protocol == raw.protocol);
  CHECK(nccl.predicted.value == Approx(10 * raw.predicted.value));
  slow.selection = Selection::Fastest;
  const CommGroup fastest = CommPlanner(two, comm_constants(two.gpu(), slow)).plan(Collective::AllReduce, gpus, size);
  CHECK((fastest.algorithm != raw.algorithm || fastest.protocol != raw.protocol));
  CHECK(fastest.predicted < nccl.predicted);
}

// NCCL's NVLSTree (tuning.cc at 2.20.3): Simple only, across nodes of an NVLS-capable GPU, latency 23 us over NVLink
// plus 2 x log2(nodes) x 14 us over the network, bus bandwidth min(bwIntra, bwInter) on two nodes (bwInter / 2
// beyond), x 5/6. On two H100 nodes (8 x 50 GB/s NICs each) the NVLink side binds: NCCL's figures alone give ~579
// GB/s bus bandwidth at 8 GiB, the shipped two-node corrections ~453 (nccl-tests#309 measured 468.5: the corrections
// are one line through 16 MiB-16 GiB).
TEST_CASE("planner: NVLSTree across nodes of an NVLS GPU, Simple only, NCCL's latency and bandwidth", "[unit][plan]") {
  const Topology two = h100_nodes(2);
  const auto gpus = first_gpus(16);
  const Bytes big(8.0 * (1 << 30));
  const double busbw = 2.0 * 15 / 16;  // nccl-tests' all-reduce factor at 16 ranks
  {
    const CommPlanner raw(two, nccl_constants(two.gpu()));
    const auto options = raw.options(Collective::AllReduce, gpus, big);
    const auto t = find(options, Algorithm::NvlsTree, Protocol::Simple);
    for (const auto& o : options)
      if (o.algorithm == Algorithm::NvlsTree) CHECK(o.protocol == Protocol::Simple);
    CHECK(t.latency.value == Approx(23e-6 + 2 * 1 * 14e-6));
    const double bus = big.value / (t.time - t.latency).value * busbw;
    CHECK(bus == Approx(450e9 * 20.6 / 25 * 5 / 6 * busbw).epsilon(1e-6));  // NVLink-bound, at NCCL's efficiency
  }
  const CommPlanner planner(two, comm_constants(two.gpu()));
  CommGroup g = planner.plan(Collective::AllReduce, gpus, big);
  CHECK(g.algorithm == Algorithm::NvlsTree);
  CHECK(big.value / g.predicted.value * busbw / 1e9 == Approx(468.7).epsilon(0.04));
  // Four nodes: the network side is NCCL's half of two nodes', and NVLSTree's latency adds two network hops per level.
  const Topology four = h100_nodes(4);
  const CommPlanner raw4(four, nccl_constants(four.gpu()));
  const auto t4 = find(raw4.options(Collective::AllReduce, first_gpus(32), big), Algorithm::NvlsTree, Protocol::Simple);
  CHECK(t4.latency.value == Approx(23e-6 + 2 * 2 * 14e-6));
  CHECK(big.value / (t4.time - t4.latency).value == Approx(8 * 50e9 * 9.0 / 8 / 2 * 5 / 6).epsilon(1e-6));
  // Not where NVLS is not: one node, an A100, or with NVLS switched off.
  for (const auto& o : planner.options(Collective::AllReduce, first_gpus(8), big))
    CHECK(o.algorithm != Algorithm::NvlsTree);
  const Topology a100 = h100_nodes(2, "A100-SXM");
  for (const auto& o : CommPlanner(a100, comm_constants(a100.gpu())).options(Collective::AllReduce, gpus, big))
    CHECK(o.algorithm != Algorithm::NvlsTree);
  CHECK(parse_algorithm("NVLSTree") == Algorithm::NvlsTree);
  CHECK(parse_algorithm("nvls_tree") == Algorithm::NvlsTree);
}
