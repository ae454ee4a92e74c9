// Every bundled scenario is a golden test: it runs under the simulator and all of its checks pass.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

TEST_CASE("e2e: every bundled scenario runs and its checks pass", "[e2e]") {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TT_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    std::string name = entry.path().stem().string();
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("scenario-" + name);
      auto r = run_cli("run " + entry.path().string() + " --out " + out.string());
      INFO(r.output);
      CHECK(r.exit_code == 0);
      auto report = nlohmann::json::parse(read_file(out / "report.json"));
      CHECK(report["checks_failed"] == 0);
      CHECK(report["checks"].size() > 0);
      CHECK(report["driver_info"].contains("network/model"));
    }
  }
  CHECK(seen >= 1);
}

TEST_CASE("e2e: the same scenario and seed give a byte-identical report", "[e2e]") {
  auto a = scratch_dir("determinism-a");
  auto b = scratch_dir("determinism-b");
  std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json";
  REQUIRE(run_cli("run " + scenario + " --quiet --out " + a.string()).exit_code == 0);
  REQUIRE(run_cli("run " + scenario + " --quiet --out " + b.string()).exit_code == 0);
  std::string ra = read_file(a / "report.json");
  CHECK(ra.size() > 1000);
  CHECK(ra == read_file(b / "report.json"));
}

TEST_CASE("e2e: a failing check exits 1 and says what was expected and measured", "[e2e]") {
  auto dir = scratch_dir("failing-check");
  auto scenario = nlohmann::json::parse(read_file(fs::path(TT_SOURCE_DIR) / "scenarios/quickstart.json"), nullptr,
                                        true, /*ignore_comments=*/true);
  scenario["topology"] = std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json";
  scenario["checks"] = nlohmann::json::array(
      {{{"name", "impossible"}, {"metric", "job.end"}, {"job", "pretrain-70b"}, {"op", "<="}, {"value", "1m"}}});
  std::ofstream(dir / "s.json") << scenario.dump(2);
  auto r = run_cli("run " + (dir / "s.json").string() + " --out " + dir.string());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.output, Catch::Contains("FAIL  impossible"));
  CHECK_THAT(r.output, Catch::Contains("expected job.end(pretrain-70b) <= 60.0 s; measured"));
}

TEST_CASE("e2e: bad input exits 2 naming the file and the JSON pointer", "[e2e]") {
  auto dir = scratch_dir("bad-input");
  const std::string topo = std::string("\"") + TT_SOURCE_DIR + "/topologies/rail-16x8-h100.json\"";
  const std::string base_job = R"({"name": "j", "queue": "q", "submit": "0s", "gpus": GPUS, "model": "llama3-8b",
      "parallel": {"tp": 8, "pp": 1, "dp": DP}, "iterations": 10, "global_batch": 64, "seq_len": 4096})";
  auto scenario_with = [&](const std::string& job) {
    return R"({"name": "bad", "topology": )" + topo + R"(, "queues": [{"name": "q", "gpu_quota": 4096}], "jobs": [)" +
           job + "]}";
  };
  auto job_with = [&](int gpus, int dp) {
    std::string j = base_job;
    j.replace(j.find("GPUS"), 4, std::to_string(gpus));
    j.replace(j.find("DP"), 2, std::to_string(dp));
    return j;
  };
  std::vector<std::pair<std::string, std::string>> cases = {
      {scenario_with(job_with(256, 32)), "/jobs/0/gpus"},  // bigger than the 128-GPU cluster
      {R"({"name": "bad", "topology": )" + topo + R"(, "queuez": []})", "/queuez"},
      {"{\"name\": \"bad\",", ""},
  };
  int i = 0;
  for (const auto& [body, pointer] : cases) {
    auto file = dir / ("bad" + std::to_string(i++) + ".json");
    std::ofstream(file) << body;
    auto r = run_cli("run " + file.string() + " --out " + dir.string());
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(file.string()));
    if (!pointer.empty()) CHECK_THAT(r.output, Catch::Contains("at " + pointer + ":"));
  }
  auto missing = run_cli("run " + (dir / "does-not-exist.json").string());
  CHECK(missing.exit_code == 2);
}
