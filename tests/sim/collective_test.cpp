// Flow-level collectives against the alpha-beta closed form, and sharing of a bottleneck between two of them.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/collective.hpp"
#include "sim/isolated.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::all_reduce;
using tt::testing::fabric;

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

double ring_closed_form(int n, double bytes, double bandwidth, double alpha, int calls) {
  return 2.0 * (n - 1) / n * bytes / bandwidth + 2.0 * (n - 1) * calls * alpha;
}

}  // namespace

TEST_CASE("sim: a ring all-reduce on an uncontended fabric matches the alpha-beta closed form", "[sim]") {
  const double S = 1e9;
  SECTION("8 GPUs on one rail across 8 nodes (NIC links through the rail leaf)") {
    Topology topo = make_rail_optimized(fabric(8, 8, 8));
    std::vector<int> rail0;
    for (int node = 0; node < 8; ++node) rail0.push_back(node * 8);
    CommStep step{"dp", {all_reduce(rail0, S, 3)}};
    auto j = time_in_child(topo, {step});
    const double expected = ring_closed_form(8, S, 50e9, 2e-6, 3);
    INFO("simulated " << j["total"].get<double>() << " s, closed form " << expected << " s");
    CHECK(j["total"].get<double>() == Approx(expected).epsilon(0.01));
    CHECK(j["settings"]["network/model"] == "CM02");
    CHECK(j["settings"]["network/TCP-gamma"] == "0");
    CHECK(j["settings"].contains("simgrid_version"));
  }
  SECTION("8 GPUs inside one node (NVLink through the NVSwitch)") {
    Topology topo = make_single_node(fabric(1, 8, 1));
    CommStep step{"tp", {all_reduce({0, 1, 2, 3, 4, 5, 6, 7}, S, 100)}};
    auto j = time_in_child(topo, {step});
    const double expected = ring_closed_form(8, S, 450e9, 1e-6, 100);
    INFO("simulated " << j["total"].get<double>() << " s, closed form " << expected << " s");
    CHECK(j["total"].get<double>() == Approx(expected).epsilon(0.01));
  }
  SECTION("steps run in order and add up") {
    Topology topo = make_single_node(fabric(1, 8, 1));
    CommStep a{"a", {all_reduce({0, 1, 2, 3}, S)}};
    CommStep b{"b", {all_reduce({4, 5, 6, 7}, 2 * S)}};
    auto j = time_in_child(topo, {a, b});
    const double expected = ring_closed_form(4, S, 450e9, 1e-6, 1) + ring_closed_form(4, 2 * S, 450e9, 1e-6, 1);
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
  const double S = 1e9, B = 50e9, alpha = 4e-6;
  REQUIRE(topo.bottleneck(topo.path(topo.gpu_vertex(0, 0), topo.gpu_vertex(2, 0))).value == Approx(B));

  auto alone = time_in_child(topo, {CommStep{"dp", {all_reduce({0, 2}, S)}}});
  auto both = time_in_child(topo, {CommStep{"dp", {all_reduce({0, 2}, S), all_reduce({1, 3}, S)}}});
  const double solo = ring_closed_form(2, S, B, alpha, 1);
  const double shared = ring_closed_form(2, S, B / 2, alpha, 1);
  CHECK(alone["total"].get<double>() == Approx(solo).epsilon(0.01));
  for (int g = 0; g < 2; ++g) {
    INFO("group " << g);
    CHECK(both["groups"][0][g].get<double>() == Approx(shared).epsilon(0.01));
  }
  // Rings that do not cross the uplink (n0 with n1 under one leaf) do not slow each other down.
  auto local = time_in_child(topo, {CommStep{"dp", {all_reduce({0, 1}, S), all_reduce({2, 3}, S)}}});
  CHECK(local["groups"][0][0].get<double>() == Approx(ring_closed_form(2, S, B, 2e-6, 1)).epsilon(0.01));
}
