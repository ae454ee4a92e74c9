// sim::run with the real Controller: measured iterations against the closed form, fast-forward against explicit
// simulation, cost against events, and failures turned into controller events.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "sim/collective.hpp"
#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;
using tt::testing::fault;
using tt::testing::llama8b;
using tt::testing::sim_scenario;
using tt::testing::simulate;

namespace {

Scenario with_fast_forward(Scenario s, bool on) {
  s.sim.fast_forward = on;
  return s;
}

void check_same_end_times(const nlohmann::json& ff, const nlohmann::json& explicit_run, double tolerance) {
  REQUIRE(ff["jobs"].size() == explicit_run["jobs"].size());
  for (std::size_t i = 0; i < ff["jobs"].size(); ++i) {
    const auto& a = ff["jobs"][i];
    const auto& b = explicit_run["jobs"][i];
    INFO(a["name"] << ": fast-forward ends at " << a["end"] << " s, explicit at " << b["end"] << " s; restarts "
                   << a["restarts"] << " vs " << b["restarts"]);
    CHECK(a["state"] == "completed");
    CHECK(b["state"] == "completed");
    CHECK(a["restarts"] == b["restarts"]);
    CHECK(a["end"].get<double>() == Approx(b["end"].get<double>()).epsilon(tolerance));
  }
}

}  // namespace

TEST_CASE("sim: an uncontended job's measured iteration matches the perf model", "[sim]") {
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)),
                            {llama8b("tp8-dp2", Parallelism{8, 1, 2}, 20, 0)});
  auto r = simulate(s);
  const auto& job = r["jobs"][0];
  CHECK(job["state"] == "completed");
  CHECK(job["measured"].get<double>() == Approx(job["predicted"].get<double>()).epsilon(0.01));
  CHECK(r["driver"] == "sim");
  CHECK(r["driver_info"]["network/model"] == "CM02");
  CHECK(r["driver_info"]["fast_forward"] == "on");
}

TEST_CASE("sim: fast-forward and explicit simulation give the same job end times", "[sim]") {
  SECTION("three jobs on disjoint nodes, checkpoints, a node crash under one of them") {
    // 6 nodes x 8 GPUs in one leaf group; n1 (under job a) crashes at 20 min and is back 30 min later.
    Scenario s = sim_scenario(make_rail_optimized(fabric(6, 8, 8)),
                              {llama8b("a", Parallelism{8, 1, 2}, 1200, 100),
                               llama8b("b", Parallelism{8, 1, 1}, 900, 200, 0, 32),
                               llama8b("c", Parallelism{4, 1, 4}, 600, 150, 600)},
                              {fault(FaultKind::NodeCrash, 1200, "n1", 1800)});
    auto ff = simulate(with_fast_forward(s, true));
    auto ex = simulate(with_fast_forward(s, false));
    check_same_end_times(ff, ex, 0.005);
    CHECK(ff["jobs"][0]["restarts"] == 1);
    CHECK(ff["events"].get<long long>() * 5 < ex["events"].get<long long>());
  }
  SECTION("two jobs whose data-parallel rings share oversubscribed uplinks") {
    // 3 groups of 2 nodes, one spine, 4:1 oversubscribed: a (n0-n2) and b (n3-n5) both cross group 1's uplinks.
    FabricParams p = fabric(6, 8, 2);
    p.spines = 1;
    p.oversubscription = 4.0;
    Scenario s = sim_scenario(make_rail_optimized(p), {llama8b("a", Parallelism{8, 1, 3}, 800, 200),
                                                       llama8b("b", Parallelism{8, 1, 3}, 600, 100, 300, 60)});
    auto ff = simulate(with_fast_forward(s, true));
    auto ex = simulate(with_fast_forward(s, false));
    INFO("a: measured " << ff["jobs"][0]["measured"] << " s (fast-forward), " << ex["jobs"][0]["measured"]
                        << " s (explicit), predicted alone " << ff["jobs"][0]["predicted"] << " s");
    check_same_end_times(ff, ex, 0.005);
  }
}

TEST_CASE("sim: with fast-forward the cost grows with events, not iterations", "[sim]") {
  auto activities = [](std::int64_t iterations) {
    Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)),
                              {llama8b("long", Parallelism{8, 1, 2}, iterations, 0)});
    return simulate(s)["activities"].get<long long>();
  };
  const long long short_run = activities(1000);
  const long long long_run = activities(100000);
  INFO("activities: " << short_run << " for 1000 iterations, " << long_run << " for 100000");
  CHECK(long_run == short_run);
}

TEST_CASE("sim: a step alone on its cables is timed once per part and reused, and reuse does not move the end",
          "[sim]") {
  // 16 GPUs on two nodes of different leaf groups, the only job: the tensor-parallel all-reduce stays inside each node
  // (two parts, one per node, of the same signature), the data-parallel one crosses the spines in eight rings, one per
  // rail, that share no link (eight parts of the same signature). The first measured iteration runs one part of each
  // signature in SimGrid and takes the 1 + 7 others' times from them; the second one runs nothing.
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 1)), {llama8b("dp", Parallelism{8, 1, 2}, 3000, 0)});
  s.sim.fast_forward = true;
  s.sim.measure_iterations = 2;
  const auto fast = simulate(s);
  s.sim.fast_forward = false;
  const auto exact = simulate(s);
  CHECK(fast["step_reuses"].get<long long>() == 8 + 10);
  CHECK(exact["step_reuses"].get<long long>() == 0);
  const double a = fast["jobs"][0]["end"].get<double>(), b = exact["jobs"][0]["end"].get<double>();
  INFO("end " << a << " s with reuse and fast-forward, " << b << " s iteration by iteration");
  CHECK(std::abs(a - b) <= 1e-6 * b);
}

TEST_CASE("sim: a step crossing a link that is down is never timed from a measurement", "[sim]") {
  // The job's first attempt measures its steps; n0 crashes at 100 s and is back at 200 s, the job restarts on the same
  // GPUs, and n1's rail-3 NIC cable goes down at 250 s, while the restart starts up (no flow to strike yet). The second
  // attempt's flows over the cable fail as they would without a measurement to reuse: a part with a link down has a
  // signature of its own.
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 1)), {llama8b("dp", Parallelism{8, 1, 2}, 400, 50)},
                            {fault(FaultKind::NodeCrash, 100, "n0", 100),
                             fault(FaultKind::LinkDown, 250, "n1/gpu3~leaf-g1-r3", 1000)});
  auto r = simulate(s);
  INFO(r["decisions"].dump(1));
  const auto& job = r["jobs"][0];
  CHECK(job["state"] == "completed");
  REQUIRE(job["failures"].size() >= 2);
  CHECK(job["failures"][1]["cause"] == "link n1/gpu3~leaf-g1-r3 went down");
}

TEST_CASE("sim: a link going down under a job stalls it, and the controller restarts it", "[sim]") {
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("dp", Parallelism{8, 1, 2}, 600, 100)},
                            {fault(FaultKind::LinkDown, 300, "n1/gpu3~leaf-g0-r3", 200)});
  auto r = simulate(s);
  const auto& job = r["jobs"][0];
  INFO(r.dump(1));
  CHECK(job["state"] == "completed");
  CHECK(job["restarts"].get<int>() >= 1);
  REQUIRE(job["failures"].size() >= 1);
  CHECK(job["failures"][0]["cause"] == "link n1/gpu3~leaf-g0-r3 went down");
  CHECK(job["failures"][0]["at"].get<double>() == Approx(300).margin(1e-6));
}

TEST_CASE("sim: a fault naming an unknown node is an error before the run", "[sim]") {
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("j", Parallelism{8, 1, 1}, 10, 0)},
                            {fault(FaultKind::NodeCrash, 10, "n9", 10)});
  CHECK_THROWS_WITH(simulate(s), Catch::Contains("no node named \"n9\""));
}

TEST_CASE("sim: a fabric link failure stalls the jobs crossing it, and the restarted job routes around it", "[sim]") {
  // Two leaf groups of two nodes, two spines; one job over all four nodes. Group 0's uplinks to spine0 all go down
  // for 20 minutes: the job's flows hashed onto them break, and its next attempt uses spine1 only.
  FabricParams p = fabric(4, 8, 2);
  p.spines = 2;
  std::vector<FaultSpec> faults;
  for (int rail = 0; rail < 8; ++rail)
    faults.push_back(fault(FaultKind::LinkDown, 300, "leaf-g0-r" + std::to_string(rail) + "~spine0", 1200));
  Scenario s = sim_scenario(make_rail_optimized(p), {llama8b("wide", Parallelism{8, 1, 4}, 600, 100, 0, 64)}, faults);
  auto r = simulate(s);
  const auto& job = r["jobs"][0];
  INFO(r["decisions"].dump(1));
  CHECK(job["state"] == "completed");
  CHECK(job["restarts"] == 1);
  REQUIRE(job["failures"].size() == 1);
  CHECK_THAT(job["failures"][0]["cause"].get<std::string>(), Catch::Matches("link leaf-g0-r.~spine0 went down"));
}

TEST_CASE("sim: the run stops at the horizon with the jobs still running", "[sim]") {
  Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("long", Parallelism{8, 1, 2}, 100000, 500)});
  s.sim.horizon = Seconds(3600);
  for (bool ff : {true, false}) {
    s.sim.fast_forward = ff;
    auto r = simulate(s);
    INFO("fast_forward " << ff);
    CHECK(r["end_time"].get<double>() == Approx(3600));
    CHECK(r["jobs"][0]["state"] == "unfinished");
    CHECK(r["jobs"][0]["iterations_done"].get<long long>() > 0);
  }
}

TEST_CASE("sim: a second simulation in one process is a clear error", "[sim]") {
  Topology topo = make_single_node(fabric(1, 8, 1));
  std::string answer = sim::run_isolated([&] {
    sim::time_collectives(topo, {});
    try {
      sim::time_collectives(topo, {});
    } catch (const std::logic_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  });
  CHECK_THAT(answer, Catch::Contains("one simulation per process"));
}
