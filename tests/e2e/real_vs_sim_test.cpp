// The test of "identical policies": the same scenario run on real worker processes (`traintwin real`) takes the
// decisions of the simulator's golden log, tests/golden/<scenario>.decisions.txt (launch order, placements,
// preemption, failure detection, recovery, completion; tests/e2e/golden_decisions_test.cpp holds the simulator to it);
// only times and the reasons' wording of what each driver saw differ.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"
#include "tests/e2e/real_vs_sim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using tt::testing::decision_columns;
using tt::testing::read_file;
using tt::testing::check_same_decisions;
using tt::testing::run_cli;
using tt::testing::run_sim_and_real;
using tt::testing::scratch_dir;

namespace {

// kind, job and nodes of each decision: what must agree between drivers (reasons quote measured times and causes).
std::vector<std::string> decision_sequence(const json& report) {
  std::vector<std::string> out;
  for (const auto& d : report["decisions"]) {
    std::string line = d["kind"].get<std::string>();  // appended step by step: GCC 12 -Wrestrict false positive
    line += ' ';
    line += d.value("job", std::string());
    for (const auto& n : d.value("nodes", json::array())) {
      line += ' ';
      line += n.get<std::string>();
    }
    out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("e2e: real-quickstart takes the same decisions in simulation and for real", "[e2e][real]") {
  // The hang is noticed after 2 s real of silence (200 s of scenario at time scale 100, early enough for the story
  // below): long enough that no load on this machine starves a worker's heartbeat thread into a false hang, and
  // iterations paced to 255 ms real leave the timeline room for a slow machine.
  const auto runs =
      run_sim_and_real("real-quickstart", "real-vs-sim", "--devices cpu:4 --time-scale 100 --heartbeat-timeout 2");
  check_same_decisions(runs, "real-quickstart");

  json sim_report = json::parse(read_file(runs.sim_dir / "report.json"));
  json real_report = json::parse(read_file(runs.real_dir / "report.json"));
  CHECK(real_report["driver"] == "real");
  CHECK(real_report["driver_info"]["devices"] == "cpu:4");
  for (const char* view : {"junit.xml", "report.html", "trace.json", "series.csv", "jobs.csv"})
    CHECK(fs::exists(runs.real_dir / view));

  // And it is the story told in the scenario's header.
  std::vector<std::string> story;
  for (const auto& line : decision_sequence(sim_report))
    if (line.rfind("pending", 0) != 0) story.push_back(line);
  CHECK(story == std::vector<std::string>{"submit pretrain-8b", "submit finetune-8b", "launch pretrain-8b a0",
                                          "launch finetune-8b a1", "submit eval-8b", "detect pretrain-8b a0",
                                          "requeue pretrain-8b", "launch pretrain-8b a0", "node_down  a1",
                                          "detect finetune-8b a1", "requeue finetune-8b", "complete pretrain-8b a0",
                                          "launch finetune-8b a0", "node_up  a1", "launch eval-8b a1",
                                          "complete eval-8b a1", "complete finetune-8b a0"});
  // The hang was caught by the heartbeat watchdog for real, by the fault itself in simulation.
  CHECK_THAT(real_report["jobs"][0]["failures"][0]["cause"].get<std::string>(), Catch::Contains("sent no heartbeat"));
  // Either way the failures are filed under the same fault kinds, so lost GPU-hours by cause compare across drivers.
  for (std::size_t j = 0; j < sim_report["jobs"].size(); ++j) {
    std::vector<std::string> sim_kinds, real_kinds;
    for (const auto& f : sim_report["jobs"][j]["failures"]) sim_kinds.push_back(f["kind"]);
    for (const auto& f : real_report["jobs"][j]["failures"]) real_kinds.push_back(f["kind"]);
    INFO("job " << j);
    CHECK(real_kinds == sim_kinds);
  }
  std::vector<std::string> causes;
  for (const auto& [cause, totals] : real_report["failures"]["lost_gpu_hours_by_cause"].items()) causes.push_back(cause);
  CHECK(causes == std::vector<std::string>{"hang", "node_crash"});
}

TEST_CASE("e2e: real-reclaim-crash (a reclaim preemption and a node crash) takes the golden decisions for real",
          "[e2e][real]") {
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/real-reclaim-crash.json";
  auto dir = scratch_dir("real-reclaim-crash");
  // No hang to catch: a long silence floor keeps a starved worker on a loaded machine from faking one.
  auto real =
      run_cli("real " + scenario + " --devices cpu:4 --time-scale 300 --heartbeat-timeout 5 --out " + dir.string());
  INFO("traintwin real:\n" << real.output);
  REQUIRE(real.exit_code == 0);
  const auto golden =
      decision_columns(read_file(fs::path(TT_SOURCE_DIR) / "tests/golden/real-reclaim-crash.decisions.txt"));
  const auto seen = decision_columns(read_file(dir / "decisions.txt"));
  CHECK(seen == golden);
  // The victim is research-dp, the most recently admitted of the borrowing queue's jobs, under both drivers.
  CHECK(std::find(seen.begin(), seen.end(), "preempt research-dp a1") != seen.end());
}

TEST_CASE("e2e: traintwin real rejects devices that do not fit, with exit code 2", "[e2e][real]") {
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/real-quickstart.json";
  auto dir = scratch_dir("real-bad-devices");
  auto r = run_cli("real " + scenario + " --devices cpu:3 --out " + dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("cpu:3 does not match the 4 GPUs"));
  r = run_cli("real " + scenario + " --devices gpu:4 --out " + dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("expected cpu:N or cuda:N"));
  r = run_cli("real " + scenario + " --devices cpu:4 --time-scale 0 --out " + dir.string());
  CHECK(r.exit_code == 2);
  // Async checkpoints: workers write synchronously; refused with the pointer, never dropped silently.
  const auto async_dir = scratch_dir("real-async");
  const std::string async_scenario = (async_dir / "async.json").string();
  {
    std::string text = read_file(scenario);
    const std::string every = "\"checkpoint\": {\"every\": 10}";
    text.replace(text.find(every), every.size(), "\"checkpoint\": {\"every\": 10, \"async\": true}");
    const std::string topology = "../topologies/";
    text.replace(text.find(topology), topology.size(), std::string(TT_SOURCE_DIR) + "/topologies/");
    std::ofstream(async_scenario) << text;
  }
  r = run_cli("real " + async_scenario + " --devices cpu:4 --out " + async_dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/jobs/0/checkpoint/async"));
  r = run_cli("worker --rank 0");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("worker: --"));
}
