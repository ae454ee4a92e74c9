// The one fault stream every driver plays: order, tie-break, repairs, horizon, targets.
#include "core/drive/fault_player.hpp"

#include <catch2/catch.hpp>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using namespace tt::testing;

namespace {

FaultSpec fault(FaultKind kind, const std::string& target, double at, double repair = 0) {
  FaultSpec f;
  f.kind = kind;
  f.target = target;
  f.at = Seconds(at);
  f.repair = Seconds(repair);
  return f;
}

Scenario two_nodes() {
  Scenario s = scenario(rail_cluster(2), {{"q", 16}}, {job("a", "q", 8)});
  s.sim.horizon = Seconds(1000);
  return s;
}

}  // namespace

TEST_CASE("fault player: changes by time, at one instant by fault order, a fault before its own repair",
          "[unit][drive]") {
  Scenario s = two_nodes();
  const std::string n0 = s.topology.nodes()[0].name, n1 = s.topology.nodes()[1].name;
  FaultPlayer p(s, {fault(FaultKind::NodeCrash, n0, 100, 50), fault(FaultKind::NodeCrash, n1, 150, 10),
                    fault(FaultKind::Hang, n1, 150), fault(FaultKind::NodeCrash, n1, 10, 0)});
  std::vector<std::pair<double, std::size_t>> seen;
  std::vector<bool> starts;
  for (const FaultChange& c : p.changes()) {
    seen.push_back({c.at.value, c.fault});
    starts.push_back(c.starts);
  }
  // Fault 3 starts and is repaired at 10 (a zero repair comes right after its fault); fault 0's repair at 150 comes
  // before fault 1 and 2, which start at 150 in file order.
  CHECK(seen == std::vector<std::pair<double, std::size_t>>{{10, 3}, {10, 3}, {100, 0}, {150, 0}, {150, 1}, {150, 2},
                                                            {160, 1}});
  CHECK(starts == std::vector<bool>{true, false, true, false, true, true, false});
}

TEST_CASE("fault player: changes at or after the horizon are never played, take_due gives them in order",
          "[unit][drive]") {
  Scenario s = two_nodes();
  const std::string n0 = s.topology.nodes()[0].name;
  FaultPlayer p(s, {fault(FaultKind::NodeCrash, n0, 900, 100), fault(FaultKind::NodeCrash, n0, 1000, 1)});
  REQUIRE(p.changes().size() == 1);
  CHECK(p.next_at() == Seconds(900));
  CHECK_FALSE(p.take_due(Seconds(899)));
  auto c = p.take_due(Seconds(950));
  REQUIRE(c);
  CHECK(c->fault == 0);
  CHECK_FALSE(p.next_at());
}

TEST_CASE("fault player: targets resolve to topology indices, an unknown one names the fault", "[unit][drive]") {
  Scenario s = two_nodes();
  const Topology& t = s.topology;
  const std::string n1 = t.nodes()[1].name;
  const std::string gpu = t.graph()[t.gpu_vertex(1, 2)].name;
  FaultPlayer p(s, {fault(FaultKind::NodeCrash, n1, 1, 1), fault(FaultKind::Straggler, gpu, 2, 1),
                    fault(FaultKind::CheckpointCorrupt, "a", 3)});
  CHECK(p.target(0).node == 1);
  CHECK(p.target(0).gpus == std::vector<int>{8, 9, 10, 11, 12, 13, 14, 15});
  CHECK_FALSE(p.target(0).cables.empty());
  CHECK(p.target(1).gpus == std::vector<int>{10});
  CHECK(p.target(1).cables.empty());
  CHECK(p.target(2).job == 0);
  CHECK_THROWS_WITH(FaultPlayer(s, {fault(FaultKind::NodeCrash, "nope", 1, 1)}),
                    Catch::Contains("fault 0 (node_crash)") && Catch::Contains("\"nope\""));
}
