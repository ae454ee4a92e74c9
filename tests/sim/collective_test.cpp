// Flow-level collectives: a planned ring all-reduce takes the planner's predicted time on an idle fabric, its bandwidth
// term is the ring's 2(n-1)/n x S over the links' rate, and two rings sharing one bottleneck link each get half of it.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "sim/collective.hpp"
#include "sim/isolated.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;
using tt::testing::ring_all_reduce;

namespace {

// Times `steps` in a child process; returns {"total": s, "groups": [[s...]...], "settings": {...}}.
nlohmann::json time_in_child(const Topology& topo, const std::vector<CommStep>& steps) {
  return nlohmann::json::parse(sim::run_isolated([&] {
    sim::CollectiveTimes t = sim::time_collectives(topo, steps);
    nlohmann::json j;
    j["total"] = t.total.value;
    j["groups"] = nlohmann::json::array();
    for (const auto& g : t.groups) j["groups"].push_back(tt::testing::seconds_json(g));
    j["settings"] = t.settings;
    return j.dump();
  }));
}

// The bandwidth term of `calls` ring all-reduces of `bytes` each over n GPUs on links of `bandwidth`.
double ring_transfer(int n, double bytes, double bandwidth, int calls) {
  return calls * 2.0 * (n - 1) / n * bytes / bandwidth;
}

// Simulates `calls` planned ring all-reduces of `bytes` each over `gpus`, alone: they take the predicted time, and what
// is left after the latency is the ring's bandwidth term over links of `link` bytes per second. Returns the timing.
nlohmann::json check_ring(const Topology& topo, const CommPlanner& planner, std::vector<int> gpus, double bytes,
                          int calls, double link) {
  const int n = static_cast<int>(gpus.size());
  const CommGroup g = ring_all_reduce(planner, std::move(gpus), bytes, calls);
  auto j = time_in_child(topo, {CommStep{"ring", {g}}});
  const double simulated = j["total"].get<double>();
  INFO("simulated " << simulated << " s, predicted " << g.predicted.value << " s");
  CHECK(simulated == Approx(g.predicted.value).epsilon(0.01));
  CHECK(simulated - calls * g.latency.value == Approx(ring_transfer(n, bytes, link, calls)).epsilon(0.01));
  return j;
}

}  // namespace

TEST_CASE("sim: a planned ring all-reduce on an uncontended fabric takes the predicted time", "[sim]") {
  const double S = 1e9;
  SECTION("8 GPUs on one rail across 8 nodes (NIC links through the rail leaf)") {
    Topology topo = make_rail_optimized(fabric(8, 8, 8));
    CommPlanner planner(topo, nccl_constants(topo.gpu()));
    std::vector<int> rail0;
    for (int node = 0; node < 8; ++node) rail0.push_back(node * 8);
    auto j = check_ring(topo, planner, rail0, S, 3, 50e9 * planner.constants().net_efficiency);
    // The shipped corrections for three nodes and more (comm_constants.cpp) slow the ring's transfer by their
    // bandwidth factor; the simulation executes the corrected plan.
    CommPlanner shipped(topo, comm_constants(topo.gpu()));
    const auto& ring = shipped.constants().regime[static_cast<int>(Algorithm::Ring)];
    const double factor = ring[static_cast<int>(Protocol::Simple)][2][static_cast<int>(SizeBand::Large)].bandwidth;
    CHECK(factor < 1);
    check_ring(topo, shipped, rail0, S, 3, 50e9 * shipped.constants().net_efficiency * factor);
    CHECK(j["settings"]["network/model"] == "CM02");
    CHECK(j["settings"]["network/TCP-gamma"] == "0");
    CHECK(j["settings"].contains("simgrid_version"));
  }
  SECTION("8 GPUs inside one node (NVLink through the NVSwitch)") {
    Topology topo = make_single_node(fabric(1, 8, 1));
    CommPlanner planner(topo, comm_constants(topo.gpu()));
    check_ring(topo, planner, {0, 1, 2, 3, 4, 5, 6, 7}, S, 100, 450e9 * planner.constants().nvlink_efficiency);
  }
  SECTION("steps run in order and add up") {
    Topology topo = make_single_node(fabric(1, 8, 1));
    CommPlanner planner(topo, comm_constants(topo.gpu()));
    CommStep a{"a", {ring_all_reduce(planner, {0, 1, 2, 3}, S)}};
    CommStep b{"b", {ring_all_reduce(planner, {4, 5, 6, 7}, 2 * S)}};
    auto j = time_in_child(topo, {a, b});
    const double expected = (a.groups[0].predicted + b.groups[0].predicted).value;
    CHECK(j["total"].get<double>() == Approx(expected).epsilon(0.01));
  }
}

TEST_CASE("sim: two all-reduces sharing one bottleneck link each get half of it", "[sim]") {
  // Leaf-spine, one GPU per node, two nodes per leaf, one spine: each leaf's single uplink carries two NICs' worth of
  // traffic (2:1 oversubscribed). Ring A joins n0 and n2, ring B n1 and n3: both cross the uplinks, in both directions.
  FabricParams p = fabric(4, 1, 2);
  p.spines = 1;
  p.oversubscription = 2.0;
  Topology topo = make_leaf_spine(p);
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  const double S = 1e9, B = 50e9;
  REQUIRE(topo.bottleneck(topo.path(topo.gpu_vertex(0, 0), topo.gpu_vertex(2, 0))).value == Approx(B));

  const CommGroup a = ring_all_reduce(planner, {0, 2}, S), b = ring_all_reduce(planner, {1, 3}, S);
  const double solo_transfer = (a.predicted - a.latency).value;
  CHECK(solo_transfer == Approx(ring_transfer(2, S, B * planner.constants().net_efficiency, 1)));
  auto alone = time_in_child(topo, {CommStep{"dp", {a}}});
  auto both = time_in_child(topo, {CommStep{"dp", {a, b}}});
  CHECK(alone["total"].get<double>() == Approx(a.predicted.value).epsilon(0.01));
  for (int g = 0; g < 2; ++g) {
    INFO("group " << g);
    CHECK(both["groups"][0][g].get<double>() == Approx(a.latency.value + 2 * solo_transfer).epsilon(0.01));
  }
  // Rings that do not cross the uplink (n0 with n1 under one leaf) do not slow each other down.
  const CommGroup c = ring_all_reduce(planner, {0, 1}, S), d = ring_all_reduce(planner, {2, 3}, S);
  auto local = time_in_child(topo, {CommStep{"dp", {c, d}}});
  CHECK(local["groups"][0][0].get<double>() == Approx(c.predicted.value).epsilon(0.01));
  CHECK(local["groups"][0][1].get<double>() == Approx(d.predicted.value).epsilon(0.01));
}

TEST_CASE("sim: a group the planner did not plan is refused, one that moves nothing takes no time", "[sim]") {
  Topology topo = make_single_node(fabric(1, 8, 1));
  CommGroup unplanned;
  unplanned.gpus = {0, 1};
  unplanned.bytes = Bytes(1e9);
  auto error = nlohmann::json::parse(sim::run_isolated([&] {
    try {
      sim::time_collectives(topo, {CommStep{"dp", {unplanned}}});
      return std::string("{}");
    } catch (const std::logic_error& e) {
      return nlohmann::json{{"error", e.what()}}.dump();
    }
  }));
  REQUIRE(error.contains("error"));
  CHECK_THAT(error["error"].get<std::string>(), Catch::Contains("all_reduce") && Catch::Contains("GPUs 0, 1"));

  CommPlanner planner(topo, comm_constants(topo.gpu()));
  const CommGroup alone = planner.plan(Collective::AllReduce, {3}, Bytes(1e9));
  REQUIRE(alone.phases.empty());
  auto j = time_in_child(topo, {CommStep{"tp", {alone}}});
  CHECK(j["total"].get<double>() == 0);
}

TEST_CASE("sim: flows as direct comms and as mailbox comms take the same times", "[sim]") {
  // run_step starts flows as direct host-to-host comms while few are in flight, else as mailbox comms between helper
  // actors (sim/collective.hpp): a 32-GPU ring and two 2-node rings contending for 2:1 uplinks, timed both ways.
  FabricParams p = fabric(8, 4, 2);
  p.spines = 1;
  p.oversubscription = 2.0;
  Topology topo = make_leaf_spine(p);
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  std::vector<int> all(32);
  for (int i = 0; i < 32; ++i) all[static_cast<std::size_t>(i)] = i;
  const std::vector<CommStep> steps = {
      CommStep{"dp", {ring_all_reduce(planner, all, 4e8, 2)}},
      CommStep{"pp", {ring_all_reduce(planner, {0, 9}, 1e9), ring_all_reduce(planner, {5, 12}, 1e9),
                      ring_all_reduce(planner, {16, 28}, 3e8)}}};
  auto timed = [&](long long bound) {
    return nlohmann::json::parse(sim::run_isolated([&] {
      sim::set_direct_comm_bound(bound);
      sim::CollectiveTimes t = sim::time_collectives(topo, steps);
      nlohmann::json j;
      for (const auto& g : t.groups) j.push_back(tt::testing::seconds_json(g));
      j.push_back(t.total.value);
      return j.dump();
    }));
  };
  // 4: the first pp pairs direct, the third and every dp phase (32 flows) through mailboxes, beside each other
  const auto direct = timed(1 << 20), mailbox = timed(0), mixed = timed(4);
  INFO(direct.dump() << "\n" << mailbox.dump());
  CHECK(direct.back().get<double>() > 0);
  const auto& slow = direct[1];
  CHECK(slow[0].get<double>() > slow[2].get<double>());  // the contended pair is slower than the lighter one
  for (std::size_t s = 0; s < direct.size(); ++s) {
    if (!direct[s].is_array()) {
      CHECK(mailbox[s].get<double>() == Approx(direct[s].get<double>()).epsilon(1e-12));
      CHECK(mixed[s].get<double>() == Approx(direct[s].get<double>()).epsilon(1e-12));
      continue;
    }
    for (std::size_t g = 0; g < direct[s].size(); ++g) {
      INFO("step " << s << " group " << g);
      CHECK(mailbox[s][g].get<double>() == Approx(direct[s][g].get<double>()).epsilon(1e-12));
      CHECK(mixed[s][g].get<double>() == Approx(direct[s][g].get<double>()).epsilon(1e-12));
    }
  }
}
