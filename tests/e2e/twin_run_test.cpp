// traintwin real --twin A: the run the CPU twin fitted to a real run predicts, and traintwin calibrate --predicted P
// --measured B: how it compares with a real run of the same scenario, job by job.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using namespace tt::testing;
using nlohmann::json;

namespace {

const std::string kCalibrate = std::string(TT_SOURCE_DIR) + "/tests/data/cpu-twin/calibrate.json";
const std::string kPredict = std::string(TT_SOURCE_DIR) + "/tests/data/cpu-twin/predict.json";
const std::string kReal = " --devices cpu:4 --time-scale 100000 --quiet";

// A: a real run of the calibration jobs; C: a real run of other shapes; P: C's scenario predicted by the twin of A.
// Returns the comparison's output; its --out is DIR/comparison.json.
CliResult predict_and_measure(const std::filesystem::path& dir) {
  for (const auto& [scenario, name] : {std::pair{kCalibrate, "a"}, std::pair{kPredict, "c"}}) {
    auto r = run_cli("real " + scenario + kReal + " --out " + (dir / name).string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
  }
  auto p = run_cli("real " + kPredict + kReal + " --twin " + (dir / "a").string() + " --out " + (dir / "p").string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  return run_cli("calibrate --predicted " + (dir / "p").string() + " --measured " + (dir / "c").string() + " --out " +
                 (dir / "comparison.json").string());
}

const json& summary(const json& doc, const std::string& figure) { return doc.at("summary").at(figure); }

}  // namespace

TEST_CASE("real --twin: a predicted run, deterministic, compared job by job with a real one", "[e2e][real]") {
  const auto dir = scratch_dir("twin-run");
  auto r = predict_and_measure(dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* text : {"mid-seq", "small-model-3h", "checkpoint_write", "median", "worst"})
    CHECK(r.output.find(text) != std::string::npos);
  const json doc = json::parse(read_file(dir / "comparison.json"));
  REQUIRE(doc["jobs"].size() == 2);
  for (const json& j : doc["jobs"]) {
    CHECK(j["measured_state"] == "completed");
    CHECK(j["predicted_state"] == "completed");
    CHECK(j["figures"]["run"]["predicted_s"].get<double>() > 0);
    CHECK(j["figures"]["run"]["error"].is_number());
  }
  CHECK(summary(doc, "run")["jobs"] == 2);
  CHECK(summary(doc, "checkpoint_write")["jobs"] == 2);

  // The predicted run is a report like a real run's, marked as the twin's, and the same inputs give the same bytes.
  const json report = json::parse(read_file(dir / "p" / "report.json"));
  CHECK(report["driver"] == "real-twin");
  CHECK(report["driver_info"]["twin"].get<std::string>().find("measurements.jsonl") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir / "p" / "run"));  // no worker state: nothing ran
  auto again = run_cli("real " + kPredict + kReal + " --twin " + (dir / "a").string() + " --out " +
                       (dir / "p2").string());
  REQUIRE(again.exit_code == 0);
  CHECK(read_file(dir / "p" / "report.json") == read_file(dir / "p2" / "report.json"));

  // What it cannot do exits 2 and says why.
  std::filesystem::create_directories(dir / "empty");
  auto no_run = run_cli("real " + kPredict + kReal + " --twin " + (dir / "empty").string() + " --out " +
                        (dir / "x").string());
  CHECK(no_run.exit_code == 2);
  CHECK(no_run.output.find("measurements.jsonl") != std::string::npos);
  auto cuda = run_cli("real " + kPredict + " --devices cuda:4 --twin " + (dir / "a").string() + " --out " +
                      (dir / "x").string());
  CHECK(cuda.exit_code == 2);
  CHECK(cuda.output.find("cpu:N") != std::string::npos);
  auto other = run_cli("calibrate --predicted " + (dir / "p").string() + " --measured " + (dir / "a").string());
  CHECK(other.exit_code == 2);
  CHECK(other.output.find("/jobs") != std::string::npos);
  CHECK(run_cli("calibrate --predicted " + (dir / "p").string()).exit_code == 2);
  CHECK(run_cli("calibrate --predicted " + (dir / "empty").string() + " --measured " + (dir / "c").string())
            .exit_code == 2);
}

// Hidden from test discovery ([.]): run in the ctest entry calibrate.from_run_bound ("[serial]", RUN_SERIAL), alone.
// Generous bounds on a shared machine: one of three attempts must predict each job's run time (first start to end)
// within 35% and their median within 25% (measured here, quiet, three attempts: median 6.7-10.1%, worst job
// 8.3-15.3%). An attempt counts when the calibration run's own iterations are steady (a twin cannot follow a machine
// whose load moves within a run); a machine too unsteady in every attempt skips, a twin off by 2x fails.
TEST_CASE("real --twin: the twin of one run predicts another run's job run times", "[.][e2e][real][serial]") {
  std::string seen;
  int counted = 0;
  for (int attempt = 1; attempt <= 3; ++attempt) {
    const auto dir = scratch_dir("twin-run-bound-" + std::to_string(attempt));
    auto r = predict_and_measure(dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    auto fit = run_cli("calibrate --from-run " + (dir / "a").string() + " --out " + (dir / "twin.json").string());
    REQUIRE(fit.exit_code == 0);
    double own = 0;  // the calibration run's worst job: its twin's error of the median iteration, in sample
    for (const json& e : json::parse(read_file(dir / "twin.json"))["calibration"]["fit"])
      if (e["job"] != "all jobs" && e["phase"] == "iteration")
        own = std::max(own, std::abs(e["median_error"].get<double>()));
    const json doc = json::parse(read_file(dir / "comparison.json"));
    const double median = summary(doc, "run")["median_abs_error"], worst = summary(doc, "run")["worst_abs_error"];
    seen += "attempt " + std::to_string(attempt) + ": own fit's worst job " + std::to_string(own) + "; run time " +
            "median " + std::to_string(median) + ", worst " + std::to_string(worst) + "\n";
    if (own > 0.15) continue;
    ++counted;
    if (median < 0.25 && worst < 0.35) {
      SUCCEED(seen);
      return;
    }
  }
  INFO(seen);
  if (counted == 0) TT_SKIP("this machine is too unsteady to measure: " + seen);
  FAIL("no attempt predicted the other run's job run times within the bounds");
}
