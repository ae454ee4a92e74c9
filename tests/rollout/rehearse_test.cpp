// traintwin rehearse end to end on a small rollout: over 200 seeds with no change, the one-sided Mann-Whitney test at
// 98% confidence falsely rolls back about as often as its own level says (2% per comparison: the nominal rate lies in
// the 99% Clopper-Pearson interval of what was seen), and with the release as given (5% slower compute) it is caught.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/rollout/statistics.hpp"
#include "tests/e2e/cli_support.hpp"

using nlohmann::json;

namespace {
const std::string kScenario = std::string(TT_SOURCE_DIR) + "/tests/data/rollout-rehearse.json";
}

TEST_CASE("rehearse: no change rolls back at the rank test's own level", "[e2e][rollout][slow]") {
  const auto dir = tt::testing::scratch_dir("rehearse-no-change");
  const auto r = tt::testing::run_cli("rehearse " + kScenario + " --seeds 200 -j 2 --variants no-change --json " +
                                      (dir / "r.json").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("false rollback rate (no change)"));
  CHECK_THAT(r.output, Catch::Contains("Clopper-Pearson"));
  const json j = json::parse(tt::testing::read_file(dir / "r.json"));
  CHECK(j["failed_runs"] == 0);
  CHECK(j["runs"].size() == 200);
  const json& m = j["metrics"]["iteration_time/mann_whitney"]["per_comparison_false_alarm"];
  const int k = m["count"], n = m["runs"];
  CHECK(n == 200);  // one comparison per run: the second step is the full rollout
  const tt::rollout::Interval iv = tt::rollout::clopper_pearson(k, n, 0.99);
  INFO(k << " false alarms in " << n << " comparisons; 99% interval [" << iv.lo << ", " << iv.hi << "]");
  CHECK(iv.lo <= 0.02);
  CHECK(iv.hi >= 0.02);
  // Every false alarm is a false rollback here.
  CHECK(j["no_change"]["rejected"]["count"] == k);
  CHECK(j["metrics"]["iteration_time/mann_whitney"].contains("confidence_for_false_alarm"));
}

TEST_CASE("rehearse: a 5% slower release is caught", "[e2e][rollout]") {
  const auto dir = tt::testing::scratch_dir("rehearse-as-given");
  const auto r = tt::testing::run_cli("rehearse " + kScenario + " --seeds 20 -j 2 --variants as-given --json " +
                                      (dir / "r.json").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json j = json::parse(tt::testing::read_file(dir / "r.json"));
  const json& d = j["as_given"]["rejected"];
  CHECK(d["runs"] == 20);
  CHECK(d["count"].get<int>() >= 19);
  CHECK(j["as_given"]["canary_gpu_hours_mean"].get<double>() > 0);
}

TEST_CASE("rehearse refuses a scenario without a rollout", "[e2e][rollout]") {
  const auto r =
      tt::testing::run_cli("rehearse " + std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json --seeds 2");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("rollout"));
}
