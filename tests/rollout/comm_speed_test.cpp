// The comm_speed release effect in the simulator (core/drive/release_effects.hpp plays it as a bandwidth factor on
// the upgraded nodes' NIC cables): a communication-bound job (an 8B model's data-parallel all-reduce across two nodes
// every iteration, tests/data/rollout-comm.json) is measurably slower on a release with slower communication, by
// about its communication time x (1 / comm_speed - 1); with comm_speed 1 nothing changes.
#include <catch2/catch.hpp>
#include "tests/rollout/variant_run.hpp"

namespace {

// The canary's iteration_time and collective_bandwidth verdicts of step 1 with the release's comm_speed set to `speed`.
nlohmann::json first_step(const std::string& speed) {
  const auto r =
      tt::testing::run_fixture_variant("rollout-comm", speed, "\"comm_speed\": 0.5", "\"comm_speed\": " + speed);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return r.report["rollout"]["steps"][0];
}

}  // namespace

TEST_CASE("comm_speed: slower communication measurably slows a communication-bound job", "[e2e][rollout]") {
  const auto same = first_step("1.0");
  const auto half = first_step("0.5");
  const auto quarter = first_step("0.25");
  const auto& base = half["verdicts"][0];
  REQUIRE(base["metric"] == "iteration_time");
  REQUIRE(half["verdicts"][1]["metric"] == "collective_bandwidth");
  // No change: the canary runs exactly as the baseline does, and is promoted.
  CHECK(same["verdicts"][0]["worse_by"].get<double>() == Approx(0).margin(1e-9));
  CHECK(same["outcome"] == "promote");
  // Half the bandwidth: each iteration pays its communication time once more. The baseline's iteration is compute
  // plus communication; the canary's extra time is the communication alone, a large share of this job's iteration.
  const double t_base = base["baseline"].get<double>();
  const double extra_half = half["verdicts"][0]["canary"].get<double>() - t_base;
  CHECK(extra_half / t_base > 0.3);
  CHECK(extra_half < t_base);
  CHECK(half["verdicts"][1]["worse_by"].get<double>() > 0.25);  // the collective bandwidth it measures drops too
  CHECK(half["outcome"] == "rollback");
  // A quarter of the bandwidth: three times the communication time, within 10% (latency does not scale).
  const double extra_quarter = quarter["verdicts"][0]["canary"].get<double>() - t_base;
  CHECK(extra_quarter / extra_half == Approx(3.0).epsilon(0.1));
  CHECK(quarter["verdicts"][0]["baseline"].get<double>() == Approx(t_base));
}
