// Canary kind "any_job" (docs/rollout.md): no copies; the canary is every job on upgraded nodes, judged against the
// jobs on old nodes by each job's measured over planned iteration (tests/data/rollout-anyjob.json: four jobs on four
// nodes; the drained job lands back on the upgraded node). A 10% slower release is rolled back; no change is promoted.
// Bad specs: copy keys with kind any_job, an unknown kind, and a release that may not share jobs.
#include <catch2/catch.hpp>
#include "tests/rollout/variant_run.hpp"

namespace {

using Outcome = tt::testing::VariantRun;

Outcome run_variant(const std::string& name, const std::string& from, const std::string& to) {
  return tt::testing::run_fixture_variant("rollout-anyjob", name, from, to);
}

}  // namespace

TEST_CASE("any_job canary: the job landing on the upgraded node is judged against the others", "[e2e][rollout]") {
  const Outcome slow = run_variant("slow", "", "");
  INFO(slow.output);
  REQUIRE(slow.exit_code == 0);
  // No copies: the report has the scenario's four jobs only.
  CHECK(slow.report["jobs"].size() == 4);
  CHECK_THAT(slow.decisions, Catch::Contains("canary: any job on upgraded nodes"));
  // The drained job relaunched on the upgraded node n0 and ran there in the window.
  CHECK_THAT(slow.decisions, Catch::Contains("drain  a-8b  n0"));
  const auto& v = slow.report["rollout"]["steps"][0]["verdicts"][0];
  REQUIRE(v["metric"] == "iteration_time");
  CHECK(v["canary_samples"].get<int>() > 0);
  CHECK(v["baseline_samples"].get<int>() > v["canary_samples"].get<int>());  // three jobs against one
  // Relative to plan: ~1 on the old release; 1/0.9 of the compute on the new one.
  CHECK(v["baseline"].get<double>() == Approx(1.0).epsilon(0.1));
  CHECK(v["worse_by"].get<double>() > 0.05);
  CHECK(v["worse_by"].get<double>() < 0.12);
  CHECK_THAT(v["evidence"].get<std::string>(), Catch::Contains("measured over its planned iteration"));
  CHECK(slow.report["rollout"]["outcome"] == "rolled back");

  const Outcome same = run_variant("same", "\"compute_speed\": 0.9", "\"compute_speed\": 1.0");
  REQUIRE(same.exit_code == 0);
  CHECK(same.report["rollout"]["steps"][0]["verdicts"][0]["worse_by"].get<double>() == Approx(0).margin(0.01));
  CHECK(same.report["rollout"]["outcome"] == "promoted");
}

TEST_CASE("any_job canary: bad specs exit 2 with the pointer", "[e2e][rollout]") {
  auto bad = run_variant("copy-keys", "{\"kind\": \"any_job\"}", "{\"kind\": \"any_job\", \"gpus\": 8}");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("/rollout/canary/gpus"));
  bad = run_variant("kind", "{\"kind\": \"any_job\"}", "{\"kind\": \"all\"}");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("/rollout/canary/kind"));
  bad = run_variant("shares", ", \"shares_jobs_with\": [\"2026.11\"]", "");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("/rollout/canary/kind"));
  CHECK_THAT(bad.output, Catch::Contains("shares_jobs_with"));
}
