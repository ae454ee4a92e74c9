// A corrupted checkpoint under the SimGrid driver: the fault reaches the Controller at its time, and the restart after
// a crash redoes exactly one more checkpoint interval (or everything, when retention kept no older checkpoint).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;
using tt::testing::fault;
using tt::testing::llama8b;
using tt::testing::sim_scenario;

namespace {

// One 16-GPU job checkpointing every 10 iterations; n1 crashes at 1800 s (after several checkpoints).
nlohmann::json run(bool corrupt, int keep) {
  std::vector<FaultSpec> faults;
  if (corrupt) faults.push_back(fault(FaultKind::CheckpointCorrupt, 1800, "a"));  // listed first: applied first
  faults.push_back(fault(FaultKind::NodeCrash, 1800, "n1", 600));
  Scenario s = sim_scenario(make_rail_optimized(fabric(4, 8, 2)), {llama8b("a", Parallelism{8, 1, 2}, 3000, 10)},
                            std::move(faults));
  s.jobs[0].checkpoint_keep = keep;
  return nlohmann::json::parse(sim::run_isolated([&] {
    Controller c(s);
    sim::run(s, c);
    const JobRecord& jr = c.record().jobs[0];
    nlohmann::json j{{"state", tt::to_string(jr.state)}, {"checkpoints", jr.checkpoints}, {"decisions", nlohmann::json::array()}};
    for (const auto& f : jr.failures) j["lost"].push_back(f.lost_iterations);
    for (const auto& d : c.record().decisions) j["decisions"].push_back(d.kind + ": " + d.reason);
    return j.dump();
  }));
}

}  // namespace

TEST_CASE("sim: a corrupted newest checkpoint costs one more checkpoint interval at the next restart", "[sim]") {
  auto base = run(false, 0);
  auto bad = run(true, 0);
  INFO(bad["decisions"].dump(1));
  REQUIRE(base["state"] == "completed");
  REQUIRE(bad["state"] == "completed");
  REQUIRE(base["lost"].size() == 1);
  REQUIRE(bad["lost"].size() == 1);
  REQUIRE(base["checkpoints"].get<int>() >= 2);
  CHECK(bad["lost"][0].get<int>() == base["lost"][0].get<int>() + 10);
  bool logged = false;
  for (const auto& d : bad["decisions"]) logged |= d.get<std::string>().find("fails its checksum") != std::string::npos;
  CHECK(logged);
}

TEST_CASE("sim: with only one checkpoint retained, a corrupted one restarts the job from the start", "[sim]") {
  auto base = run(false, 1);
  auto bad = run(true, 1);
  INFO(bad["decisions"].dump(1));
  REQUIRE(bad["state"] == "completed");
  REQUIRE(base["lost"].size() == 1);
  REQUIRE(bad["lost"].size() == 1);
  // The base run resumes from its last checkpoint C (a multiple of 10, at least 20 by 1800 s); the corrupted one from
  // iteration 0: it loses C iterations more.
  const int more = bad["lost"][0].get<int>() - base["lost"][0].get<int>();
  CHECK(more >= 20);
  CHECK(more % 10 == 0);
}
