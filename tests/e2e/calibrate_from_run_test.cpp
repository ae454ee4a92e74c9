// traintwin calibrate --from-run: the CPU twin of this machine fitted to one real run predicts another's phases.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using namespace tt::testing;
using nlohmann::json;

namespace {

const std::string kScenario = std::string(TT_SOURCE_DIR) + "/tests/data/cpu-twin/calibrate.json";

// The "all jobs" row of `phase` in an errors array of calibrate --out.
json all_jobs(const json& errors, const std::string& phase) {
  for (const json& e : errors)
    if (e["job"] == "all jobs" && e["phase"] == phase) return e;
  FAIL("no \"all jobs\" row for " << phase);
  return {};
}

// Two real runs of the same jobs with other seeds (A, B); the twin fitted to A predicts B. At time scale 100000 no
// iteration waits for its pace. Returns calibrate's result; its --out is DIR/twin.json.
CliResult calibrate_pair(const std::filesystem::path& dir) {
  for (const char* run : {"a --seed 1", "b --seed 5"}) {
    const std::string name(run, 1);
    auto r = run_cli("real " + kScenario + " --devices cpu:4 --time-scale 100000 --quiet --out " +
                     (dir / name).string() + std::string(run).substr(1));
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    REQUIRE(std::filesystem::exists(dir / name / "run" / "measurements.jsonl"));
  }
  return run_cli("calibrate --from-run " + (dir / "a").string() + " --check " + (dir / "b").string() + " --out " +
                 (dir / "twin.json").string());
}

}  // namespace

TEST_CASE("calibrate --from-run: the twin with its fit and the prediction error's distribution", "[e2e][real]") {
  const auto dir = scratch_dir("calibrate-from-run");
  const std::string out = (dir / "twin.json").string();
  auto r = calibrate_pair(dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* text : {"attention at", "alpha", "MB/s written", "prediction of", "all jobs", "<=5%"})
    CHECK(r.output.find(text) != std::string::npos);

  const json doc = json::parse(read_file(out));
  for (const char* phase : {"compute", "allreduce", "update", "checkpoint"})
    CHECK(doc["cpu_twin"][phase]["samples"].get<int>() > 0);
  CHECK(doc["cpu_twin"]["compute"]["shapes"] == 4);
  // Present and not negative: on a loaded machine the least-squares fit can give attention a per-FLOP cost <= 0
  // (unconstrained; the time goes to the constant and per-parameter terms), written as 0 GFLOP/s.
  CHECK(doc["cpu_twin"]["compute"]["attention_gflops"].get<double>() >= 0);
  const json& check = doc["calibration"]["check"]["errors"];
  for (const char* phase : {"iteration", "allreduce", "compute", "checkpoint"}) {
    const json e = all_jobs(check, phase);
    INFO(phase << ": " << e.dump());
    int binned = 0;
    for (const json& b : e["abs_error_histogram"]) binned += b["samples"].get<int>();
    CHECK(binned == e["samples"].get<int>());
    CHECK(e["abs_error_histogram"].size() == 7);
    for (const char* q : {"p10", "p25", "p50", "p75", "p90"}) CHECK(e["signed_error_quantiles"].contains(q));
    CHECK_FALSE(e["extrapolated"].get<bool>());
  }
  CHECK(all_jobs(check, "iteration")["samples"] == 4 * 120);

  // Malformed inputs exit 2 naming the file (and line).
  std::filesystem::create_directories(dir / "empty");
  auto empty = run_cli("calibrate --from-run " + (dir / "empty").string());
  CHECK(empty.exit_code == 2);
  CHECK(empty.output.find((dir / "empty" / "measurements.jsonl").string()) != std::string::npos);
  {
    std::ofstream bad(dir / "bad.jsonl");
    bad << read_file(dir / "a" / "run" / "measurements.jsonl").substr(0, 400) << "\n{\"event\":\"phase\"}\n";
  }
  auto bad = run_cli("calibrate --from-run " + (dir / "bad.jsonl").string());
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("bad.jsonl: at line ") != std::string::npos);
  CHECK(run_cli("calibrate --check " + (dir / "a").string()).exit_code == 2);
  CHECK(run_cli("calibrate --from-run " + (dir / "a").string() + " --topology t.json").exit_code == 2);
  CHECK(run_cli("calibrate").exit_code == 2);
}

// Hidden from test discovery ([.]): tests/CMakeLists.txt runs it as its own ctest entry, calibrate.from_run_bound,
// with RUN_SERIAL, so that no other test shares the CPUs while it measures them.
// What it holds is each job's typical time, the error of the median (predicted / measured median - 1): per sample the
// error on this 2-core machine is wide even when it is quiet (median |error| 30-50%: millisecond iterations and Gloo
// all-reduces over loopback jitter), which no twin that predicts one time per shape can follow.
TEST_CASE("calibrate --from-run: the twin predicts another run's typical iteration and all-reduce times",
          "[.][e2e][real][serial]") {
  // Generous bounds on a shared machine: an attempt counts when the twin fits each job of its own run within 15% (error
  // of the median: a machine whose load moves within a run, ctest -j2 among others, can push it far beyond); one of
  // three attempts that count must predict the other run's median within 35% over all jobs and within 75% for each
  // (a twin off by 2x fails; measured here when quiet: 13-20% over all jobs, 31-36% for the worst job). A machine too unsteady in every attempt skips; a twin that predicts badly fails.
  auto worst_job = [](const json& errors, const std::string& phase) {
    double worst = 0;
    for (const json& e : errors)
      if (e["job"] != "all jobs" && e["phase"] == phase)
        worst = std::max(worst, std::abs(e["median_error"].get<double>()));
    return worst;
  };
  int counted = 0;
  std::string seen;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const auto dir = scratch_dir("calibrate-from-run-bound-" + std::to_string(attempt));
    auto r = calibrate_pair(dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const json doc = json::parse(read_file(dir / "twin.json"));
    const double own = worst_job(doc["calibration"]["fit"], "iteration");
    const json& check = doc["calibration"]["check"]["errors"];
    const double iteration = std::abs(all_jobs(check, "iteration")["median_error"].get<double>());
    const double allreduce = std::abs(all_jobs(check, "allreduce")["median_error"].get<double>());
    const double job_iteration = worst_job(check, "iteration"), job_allreduce = worst_job(check, "allreduce");
    seen += "attempt " + std::to_string(attempt) + ": own fit's worst job " + std::to_string(own) +
            "; prediction, all jobs: iteration " + std::to_string(iteration) + ", all-reduce " +
            std::to_string(allreduce) + "; worst job: iteration " + std::to_string(job_iteration) + ", all-reduce " +
            std::to_string(job_allreduce) + "\n";
    if (own > 0.15) continue;
    ++counted;
    if (iteration < 0.35 && allreduce < 0.35 && job_iteration < 0.75 && job_allreduce < 0.75) {
      SUCCEED(seen);
      return;
    }
  }
  INFO(seen);
  if (counted == 0) TT_SKIP("this machine is too unsteady to measure: " + seen);
  FAIL("no attempt predicted the other run within the bounds");
}
