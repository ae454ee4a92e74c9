// compare_runs (core/calib/run_comparison.hpp): a predicted run's report against a measured one, job by job.
#include "core/calib/run_comparison.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "core/io/input_error.hpp"

using namespace tt;
using nlohmann::json;

namespace {

json job(const std::string& name, json start, json end, double iteration, double write, int writes) {
  return {{"name", name},
          {"state", end.is_null() ? "running" : "completed"},
          {"submit_s", 0.0},
          {"start_s", start},
          {"end_s", end},
          {"mean_iteration_s", iteration > 0 ? json(iteration) : json(nullptr)},
          {"checkpoint", {{"write_time", {{"count", writes}, {"mean_s", write}}}}}};
}

json report(std::vector<json> jobs) { return {{"jobs", jobs}, {"schema_version", 1}}; }

}  // namespace

TEST_CASE("run comparison: each job's figures, their errors and the summary over jobs [unit]") {
  const json measured = report({job("a", 100.0, 1100.0, 10.0, 5.0, 2), job("b", 1100.0, 3100.0, 20.0, 0.0, 0)});
  const json predicted = report({job("a", 0.0, 1200.0, 11.0, 4.0, 2), job("b", 1200.0, 2700.0, 18.0, 0.0, 0)});
  const RunComparison c = compare_runs(predicted, "p.json", measured, "m.json");
  REQUIRE(c.jobs.size() == 2);
  const auto& a = c.jobs[0].figures;
  CHECK(*a[static_cast<int>(RunFigure::Wait)].error() == Approx(-1.0));  // measured 100 s, predicted none
  CHECK(*a[static_cast<int>(RunFigure::Run)].error() == Approx(0.2));    // 1000 -> 1200
  CHECK(*a[static_cast<int>(RunFigure::Iteration)].error() == Approx(0.1));
  CHECK(*a[static_cast<int>(RunFigure::CheckpointWrite)].error() == Approx(-0.2));
  const auto& b = c.jobs[1].figures;
  CHECK(*b[static_cast<int>(RunFigure::Run)].error() == Approx(-0.25));  // 2000 -> 1500
  CHECK_FALSE(b[static_cast<int>(RunFigure::CheckpointWrite)].measured);  // no write: no figure
  CHECK_FALSE(b[static_cast<int>(RunFigure::CheckpointWrite)].error());
  const FigureSummary& run = c.summary[static_cast<int>(RunFigure::Run)];
  CHECK(run.jobs == 2);
  CHECK(run.median_abs == Approx(0.225));
  CHECK(run.worst_abs == Approx(0.25));
  CHECK(run.worst_job == "b");
  CHECK(c.summary[static_cast<int>(RunFigure::CheckpointWrite)].jobs == 1);
}

TEST_CASE("run comparison: a job that never ended has no run time, other scenarios are refused [unit]") {
  const json measured = report({job("a", 0.0, nullptr, 10.0, 1.0, 1)});
  const RunComparison c = compare_runs(report({job("a", 0.0, 50.0, 10.0, 1.0, 1)}), "p.json", measured, "m.json");
  CHECK_FALSE(c.jobs[0].figures[static_cast<int>(RunFigure::Run)].error());
  CHECK(c.jobs[0].measured_state == "running");

  CHECK_THROWS_WITH(compare_runs(report({job("x", 0.0, 1.0, 1.0, 1.0, 1)}), "p.json", measured, "m.json"),
                    Catch::Contains("p.json") && Catch::Contains("/jobs/0/name"));
  CHECK_THROWS_WITH(compare_runs(report({}), "p.json", measured, "m.json"), Catch::Contains("/jobs"));
  json broken = measured;
  broken["jobs"][0]["start_s"] = "soon";
  CHECK_THROWS_WITH(compare_runs(measured, "p.json", broken, "m.json"),
                    Catch::Contains("m.json") && Catch::Contains("/jobs/0/start_s"));
  CHECK_THROWS_AS(compare_runs(json::array(), "p.json", measured, "m.json"), InputError);
}
