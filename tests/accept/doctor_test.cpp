// traintwin doctor end to end: every cause it can name, provoked by a bundled scenario, a test scenario or a broken
// acceptance run, and found with its evidence (and the single change, where it names one).
#include <sys/stat.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace fs = std::filesystem;

namespace {

// Simulates `scenario` (relative to the source tree) into a fresh directory and returns the doctor's JSON for it.
nlohmann::json doctor_of_run(const std::string& scenario, const std::string& name, int* exit_code = nullptr) {
  const std::string out = scratch_dir("doctor-" + name).string();
  run_cli("run " + std::string(TT_SOURCE_DIR) + "/" + scenario + " --out " + out + " --quiet");
  auto r = run_cli("doctor " + out + " --json");
  INFO(r.output);
  if (exit_code) *exit_code = r.exit_code;
  return nlohmann::json::parse(r.output);
}

// The first cause of the first finding of `symptom` (about `subject`, when given).
nlohmann::json first_cause(const nlohmann::json& d, const std::string& symptom, const std::string& subject = "") {
  for (const auto& f : d["findings"])
    if (f["symptom"] == symptom && (subject.empty() || f["subject"] == subject) && !f["causes"].empty())
      return f["causes"][0];
  return nullptr;
}

std::string evidence(const nlohmann::json& cause) {
  std::string all;
  for (const auto& e : cause["evidence"]) all += e.get<std::string>() + "\n";
  return all;
}

}  // namespace

TEST_CASE("e2e: doctor names communication setup, with the preflight differences, for the ungated drill", "[e2e]") {
  int code = 0;
  const auto d = doctor_of_run("scenarios/drill-partial-upgrade-ungated.json", "ungated", &code);
  CHECK(code == 1);
  const auto c = first_cause(d, "failed_launch", "pretrain-70b");
  REQUIRE(c.is_object());
  CHECK(c["cause"] == "communication_setup");
  CHECK_THAT(evidence(c), Catch::Contains("nccl 2.18.3, expected 2.21.5") && Catch::Contains("node n4") &&
                              Catch::Contains("communicator setup hangs"));
  CHECK_THAT(c["change"].get<std::string>(), Catch::Contains("n4, n5, n6, n7"));
}

TEST_CASE("e2e: doctor names queueing with the single change, for fragmentation and for quota", "[e2e]") {
  const auto frag = first_cause(doctor_of_run("scenarios/fragmentation.json", "fragmentation"), "long_wait", "big-64");
  REQUIRE(frag.is_object());
  CHECK(frag["cause"] == "queueing");
  CHECK_THAT(frag["summary"].get<std::string>(), Catch::Contains("fragmentation"));
  CHECK_THAT(frag["change"].get<std::string>(), Catch::StartsWith("free 2 more whole node(s)"));
  // report.html says the same, from the record alone.
  const std::string html = tt::testing::read_file(fs::path(TT_BINARY_DIR) / "test-out/doctor-fragmentation/report.html");
  CHECK_THAT(html, Catch::Contains("<section id=\"doctor\">") && Catch::Contains("free 2 more whole node(s)"));

  const auto quota = first_cause(doctor_of_run("scenarios/quota-contention.json", "quota"), "long_wait", "pretrain-burst-4");
  REQUIRE(quota.is_object());
  CHECK(quota["cause"] == "queueing");
  CHECK_THAT(quota["change"].get<std::string>(), Catch::StartsWith("raise queue pretrain's nominal quota from 64 to "));
}

TEST_CASE("e2e: doctor names the failed resume and the checkpoint that failed its integrity check", "[e2e]") {
  const auto d = doctor_of_run("tests/data/scenarios/doctor-failed-resume.json", "failed-resume");
  const auto c = first_cause(d, "failed_restore", "pretrain-8b");
  REQUIRE(c.is_object());
  CHECK(c["cause"] == "failed_resume");
  CHECK_THAT(evidence(c), Catch::Contains("the checkpoint after iteration 140 fails its checksum"));
}

TEST_CASE("e2e: doctor names the operator slow path from iteration figures against the expectation", "[e2e]") {
  const auto d = doctor_of_run("tests/data/scenarios/doctor-slow-kernel.json", "slow-kernel");
  const auto c = first_cause(d, "failed_check");
  REQUIRE(c.is_object());
  CHECK(c["cause"] == "operator_slow_path");
  CHECK_THAT(evidence(c), Catch::Contains("s per iteration against 11.582 s predicted"));
}

TEST_CASE("e2e: doctor names missing metrics and checkpoint permissions from the run directory", "[e2e]") {
  const std::string out = scratch_dir("doctor-rundir").string();
  REQUIRE(run_cli("run " + std::string(TT_SOURCE_DIR) + "/scenarios/accept-local.json --out " + out + " --quiet")
              .exit_code == 0);
  CHECK(run_cli("doctor " + out).exit_code == 0);  // a healthy run: nothing to explain
  fs::remove(fs::path(out) / "metrics.prom");
  const auto ckpt = fs::path(out) / "run" / "job0-train-dp" / "checkpoints";
  fs::create_directories(ckpt);
  ::chmod(ckpt.c_str(), 0);
  auto r = run_cli("doctor " + out + " --json");
  ::chmod(ckpt.c_str(), 0700);
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const auto d = nlohmann::json::parse(r.output);
  const auto m = first_cause(d, "missing_metrics");
  REQUIRE(m.is_object());
  CHECK(m["cause"] == "missing_metrics");
  const auto p = first_cause(d, "failed_restore", "checkpoints");
  REQUIRE(p.is_object());
  CHECK(p["cause"] == "failed_resume");
  CHECK_THAT(evidence(p), Catch::Contains("mode 0000"));
  CHECK_THAT(p["change"].get<std::string>(), Catch::Contains("read and write access"));
}

TEST_CASE("e2e: doctor reads a failed acceptance run: metrics endpoint down, checkpoint that cannot be restored",
          "[e2e][slow]") {
  const std::string out = scratch_dir("doctor-accept").string();
  auto a = run_cli("accept --devices cpu:4 --scenario " + std::string(TT_SOURCE_DIR) +
                   "/scenarios/accept-local.json --out " + out +
                   " --calibration-runs 1 -b 1K -e 16K --time-scale 120 --quiet --inject observability --inject "
                   "checkpoint");
  INFO(a.output);
  REQUIRE(a.exit_code == 1);
  auto r = run_cli("doctor " + out + " --json");
  INFO(r.output);
  CHECK(r.exit_code == 1);
  const auto d = nlohmann::json::parse(r.output);
  const auto m = first_cause(d, "failed_item", "accept observability");
  REQUIRE(m.is_object());
  CHECK(m["cause"] == "missing_metrics");
  CHECK_THAT(evidence(m), Catch::Contains("503"));
  const auto c = first_cause(d, "failed_item", "accept checkpoint");
  REQUIRE(c.is_object());
  CHECK(c["cause"] == "failed_resume");
  CHECK_THAT(evidence(c), Catch::Contains("iteration 6"));
}

TEST_CASE("e2e: doctor exits 2 naming a missing or corrupt report", "[e2e]") {
  const std::string out = scratch_dir("doctor-missing").string();
  auto r = run_cli("doctor " + out);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("report.json"));
}
