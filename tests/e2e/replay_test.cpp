// Replay: the events a run's driver handed its Controller (observed.jsonl), fed to a fresh Controller, give the run's
// report exactly (but for who drove it): decisions depend on nothing but what the driver observed, in order.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using tt::testing::bundled_scenarios;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

// The run's report and its replay's, without the driver's name and settings.
void check_replay_matches(const fs::path& scenario, const fs::path& run_dir, const std::string& name) {
  const fs::path replay_dir = scratch_dir("replayed-" + name);
  auto r = run_cli("replay " + scenario.string() + " " + (run_dir / "observed.jsonl").string() + " --quiet --out " +
                   replay_dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code != 2);
  json run = json::parse(read_file(run_dir / "report.json"));
  json replay = json::parse(read_file(replay_dir / "report.json"));
  CHECK(replay["driver"] == "replay");
  for (const char* k : {"driver", "driver_info"}) {
    run.erase(k);
    replay.erase(k);
  }
  CHECK(read_file(replay_dir / "decisions.txt") == read_file(run_dir / "decisions.txt"));
  CHECK(replay == run);
}

}  // namespace

TEST_CASE("e2e: replaying a simulated run's observed events gives its report", "[e2e]") {
  for (const fs::path& scenario : bundled_scenarios()) {
    const std::string name = scenario.stem().string();
    if (name == "drill-fleet-month") continue;  // 1,024 GPUs for a month: the same code, a larger log
    DYNAMIC_SECTION(name) {
      const fs::path dir = scratch_dir("replay-run-" + name);
      auto r = run_cli("run " + scenario.string() + " --observed --quiet --out " + dir.string());
      REQUIRE(r.exit_code != 2);
      check_replay_matches(scenario, dir, name);
    }
  }
}

TEST_CASE("e2e: replaying a real run's observed events gives its decisions exactly", "[e2e][real]") {
  const fs::path scenario = fs::path(TT_SOURCE_DIR) / "scenarios/real-reclaim-crash.json";
  const fs::path dir = scratch_dir("replay-real-run");
  auto r = run_cli("real " + scenario.string() + " --devices cpu:4 --time-scale 300 --heartbeat-timeout 5 --quiet --out " +
                   dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  check_replay_matches(scenario, dir, "real");
}

TEST_CASE("e2e: a malformed observed log exits 2 naming the file and line", "[e2e]") {
  const fs::path dir = scratch_dir("replay-bad");
  const fs::path log = dir / "observed.jsonl";
  std::ofstream(log) << "{\"t\": 0, \"event\": \"timer\"}\n{\"t\": 5, \"event\": \"node_down\", \"node\": 0}\n";
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json";
  auto r = run_cli("replay " + scenario + " " + log.string() + " --out " + dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("observed.jsonl") && Catch::Contains("/2/kind"));
  std::ofstream(log) << "{\"t\": 5, \"event\": \"timer\"}\n{\"t\": 1, \"event\": \"timer\"}\n";
  r = run_cli("replay " + scenario + " " + log.string() + " --out " + dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/2/t"));
}
