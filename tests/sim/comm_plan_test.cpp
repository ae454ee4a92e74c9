// The SimGrid driver executes the CommPlanner's plan: uncontended, a planned collective takes the closed-form time;
// sharing links with another plan slows it as the flows say.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/plan/comm_planner.hpp"
#include "sim/collective.hpp"
#include "sim/isolated.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;

namespace {

nlohmann::json time_in_child(const Topology& topo, const std::vector<CommStep>& steps) {
  return nlohmann::json::parse(sim::run_isolated([&] {
    sim::CollectiveTimes t = sim::time_collectives(topo, steps);
    nlohmann::json j;
    j["steps"] = tt::testing::seconds_json(t.steps);
    j["groups"] = nlohmann::json::array();
    for (const auto& g : t.groups) j["groups"].push_back(tt::testing::seconds_json(g));
    return j.dump();
  }));
}

std::vector<int> range(int from, int count, int stride = 1) {
  std::vector<int> v;
  for (int i = 0; i < count; ++i) v.push_back(from + i * stride);
  return v;
}

}  // namespace

TEST_CASE("sim: every algorithm's planned transfers take the predicted time on an idle fabric", "[sim]") {
  Topology topo = make_rail_optimized(fabric(4, 8, 4));
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  const Bytes size(256e6);
  struct Case {
    const char* what;
    Collective c;
    Algorithm a;
    Protocol p;
    std::vector<int> gpus;
  };
  const std::vector<Case> cases = {
      {"ring, 4 nodes x 8 (8 rail-aligned channels)", Collective::AllReduce, Algorithm::Ring, Protocol::Simple,
       range(0, 32)},
      {"double binary tree, 4 nodes x 8", Collective::AllReduce, Algorithm::Tree, Protocol::LL128, range(0, 32)},
      {"hierarchical, 4 nodes x 8 (three phases)", Collective::AllReduce, Algorithm::Hierarchical, Protocol::Simple,
       range(0, 32)},
      {"NVLS in one node", Collective::AllReduce, Algorithm::Nvls, Protocol::Simple, range(8, 8)},
      {"NVLS tree, 2 nodes x 8 (NVLS inside, rails exchange)", Collective::AllReduce, Algorithm::NvlsTree,
       Protocol::Simple, range(0, 16)},
      {"NVLS tree, 4 nodes x 8 (NVLS inside, trees per rail)", Collective::AllReduce, Algorithm::NvlsTree,
       Protocol::Simple, range(0, 32)},
      {"all-gather ring on one rail", Collective::AllGather, Algorithm::Ring, Protocol::LL128, range(5, 4, 8)},
      {"broadcast chain", Collective::Broadcast, Algorithm::Ring, Protocol::Simple, range(0, 16)},
      {"alltoall", Collective::AllToAll, Algorithm::P2p, Protocol::Simple, range(0, 16)},
  };
  std::vector<CommStep> steps;
  for (const Case& c : cases)
    steps.push_back(CommStep{c.what, {planner.plan(c.c, c.gpus, size, 2, 0, std::make_pair(c.a, c.p))}});
  auto j = time_in_child(topo, steps);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const CommGroup& g = steps[i].groups[0];
    INFO(cases[i].what << ": simulated " << j["steps"][i].get<double>() << " s, predicted " << g.predicted.value);
    CHECK(g.algorithm == cases[i].a);
    CHECK(j["steps"][i].get<double>() == Approx(g.predicted.value).epsilon(0.01));
  }
}

TEST_CASE("sim: two planned all-reduces on the same NICs share them", "[sim]") {
  // Two data-parallel groups on rail 0 of the same two nodes: GPU 0 and GPU 8 appear in both (as two jobs' ranks
  // would on a shared node in a mis-scheduled cluster), so both rings cross the same rail-0 NIC links.
  Topology topo = make_rail_optimized(fabric(2, 8, 2));
  CommPlanner planner(topo, comm_constants(topo.gpu()));
  const Bytes size(1e9);
  CommGroup a = planner.plan(Collective::AllReduce, {0, 8}, size);
  CommGroup b = planner.plan(Collective::AllReduce, {0, 8}, size);
  auto alone = time_in_child(topo, {CommStep{"dp", {a}}});
  auto both = time_in_child(topo, {CommStep{"dp", {a, b}}});
  const double transfer = (a.predicted - a.latency).value;
  CHECK(alone["steps"][0].get<double>() == Approx(a.predicted.value).epsilon(0.01));
  CHECK(both["groups"][0][0].get<double>() == Approx(a.latency.value + 2 * transfer).epsilon(0.01));
}
