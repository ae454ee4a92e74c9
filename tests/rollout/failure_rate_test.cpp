// The failure_rate release effect (core/drive/release_effects.hpp): GPUs of nodes on the release fail at the added rate,
// as a Poisson process drawn from the seed; nodes on other releases never do. tests/data/rollout-failures.json runs a
// two-day window with 24 failures per node-day, 10 minutes of repair each, on the canary's two nodes.
#include <catch2/catch.hpp>
#include <set>

#include "tests/rollout/variant_run.hpp"

namespace {

using Run = tt::testing::VariantRun;

Run run_with(const std::string& name, const std::string& from, const std::string& to) {
  Run r = tt::testing::run_fixture_variant("rollout-failures", name, from, to);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return r;
}

int gpu_failures(const nlohmann::json& report) { return report["failures"]["faults_injected"].value("gpu_failure", 0); }

}  // namespace

TEST_CASE("failure_rate: upgraded nodes fail at the added rate, seeded, others never", "[e2e][rollout]") {
  const Run a = run_with("a", "", "");
  const Run again = run_with("again", "", "");
  // Same seed, same failures at the same instants.
  CHECK(a.decisions == again.decisions);
  // Two nodes for two days (less the repairs, when a node cannot fail again): the mean gap between failures of one
  // node is 1h + 10m, so about 2 x 48h / 70m = 82 failures; the 99.9% Poisson range is about [55, 112].
  const int n = gpu_failures(a.report);
  CHECK(n >= 55);
  CHECK(n <= 112);
  // Only the upgraded nodes' GPUs failed: every node_down names n0 or n1.
  int downs = 0;
  for (const std::string& line : tt::testing::lines_of(a.decisions)) {
    if (line.find("  node_down  ") == std::string::npos) continue;
    ++downs;
    CHECK((line.find("  n0  ") != std::string::npos || line.find("  n1  ") != std::string::npos));
  }
  CHECK(downs == n);
  // A copy that failed with its node waits for the node's repair before it relaunches there: no launch on a node
  // that is down, and at least one relaunch that waited.
  std::set<std::string> down;
  int waited = 0;
  for (const std::string& line : tt::testing::lines_of(a.decisions)) {
    for (const std::string node : {"n0", "n1"}) {
      if (line.find("  node_down  -  " + node + "  ") != std::string::npos) down.insert(node);
      if (line.find("  node_up  -  " + node + "  ") != std::string::npos) down.erase(node);
      if (line.find("  launch  ") != std::string::npos && down.count(node))
        CHECK(line.find("  " + node) == std::string::npos);
    }
    waited += line.find("restarts on its nodes once") != std::string::npos;
  }
  CHECK(waited > 0);
  // The canary copy failed with its nodes, the baseline never: the failures threshold rolls the release back.
  const auto& step = a.report["rollout"]["steps"][0];
  CHECK(step["verdicts"][0]["canary"].get<double>() > 0);
  CHECK(step["verdicts"][0]["baseline"].get<double>() == 0);
  CHECK(a.report["rollout"]["outcome"] == "rolled back");
  // Another seed draws other failures.
  const Run other = run_with("seed", "\"seed\": 1", "\"seed\": 2");
  CHECK(other.decisions != a.decisions);
  // No extra rate: no failure at all, and the release is promoted.
  const Run none = run_with("none", "\"failure_rate\": 24", "\"failure_rate\": 0");
  CHECK(gpu_failures(none.report) == 0);
  CHECK(none.report["rollout"]["outcome"] == "promoted");
}
