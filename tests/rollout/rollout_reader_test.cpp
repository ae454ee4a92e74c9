// The rollout and noise sections: a bundled rollout reads into its plan and copies; each bad spec is an InputError
// naming the file and the JSON pointer, and the CLI exits 2 with it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <fstream>
#include <nlohmann/json.hpp>

#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "tests/e2e/cli_support.hpp"

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

const std::string kGood = std::string(TT_SOURCE_DIR) + "/scenarios/rollout-good.json";

json good() { return tt::load_json_file(kGood); }

// The pointer of the InputError the edited scenario raises ("" when it reads).
std::string error_pointer(const json& doc, std::string* message = nullptr) {
  try {
    tt::read_scenario(doc, kGood);
  } catch (const tt::InputError& e) {
    if (message) *message = e.what();
    return e.pointer();
  }
  return "";
}

}  // namespace

TEST_CASE("a bundled rollout reads into its plan, effects and copies", "[unit][rollout]") {
  const tt::Scenario s = tt::read_scenario_file(kGood);
  REQUIRE(s.rollout.enabled());
  const auto& p = *s.rollout.plan;
  CHECK(p.release == "2027.02");
  CHECK(p.from == "2026.11");
  CHECK(p.pool.size() == 8);
  REQUIRE(p.steps.size() == 3);
  CHECK(p.steps[0].nodes == 2);
  CHECK(p.steps[2].nodes == 8);  // fraction 1.0
  CHECK(p.window == tt::Seconds(3600));
  REQUIRE(p.canary.job >= 0);
  const tt::JobSpec& canary = s.jobs[p.canary.job];
  CHECK(canary.name == "canary/finetune-8b");
  CHECK(canary.gpus == 16);
  CHECK(canary.parallel.dp == 2);
  CHECK(canary.global_batch == 64);  // scaled with dp
  CHECK(s.jobs[p.canary.baseline_job].name == "baseline/finetune-8b");
  CHECK(s.rollout.noise.jitter_sd == 0.01);
  CHECK(s.rollout.may_share("2027.02", "2026.11"));
}

TEST_CASE("bad rollout specs name the pointer", "[unit][rollout]") {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    std::string pointer;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"unknown release", [](json& d) { d["rollout"]["release"] = "2099.01"; }, "/rollout/release", "2099.01"},
      {"the current release", [](json& d) { d["rollout"]["release"] = "2026.11"; }, "/rollout/release", "current"},
      {"effects of an unknown release", [](json& d) { d["rollout"]["releases"]["2099.01"] = json::object(); },
       "/rollout/releases/2099.01", "not one"},
      {"pool larger than the cluster", [](json& d) { d["rollout"]["pool"] = 17; }, "/rollout/pool", "16 nodes"},
      {"unknown pool node", [](json& d) { d["rollout"]["pool"] = {"n0", "n99"}; }, "/rollout/pool/1", "n99"},
      {"step larger than the pool", [](json& d) { d["rollout"]["steps"][1]["nodes"] = 9; }, "/rollout/steps/1/nodes",
       "at most the pool's 8"},
      {"a step after full rollout",
       [](json& d) { d["rollout"]["steps"].push_back({{"nodes", 8}}); }, "/rollout/steps/3", "after the full rollout"},
      {"steps not increasing", [](json& d) { d["rollout"]["steps"][1]["nodes"] = 2; }, "/rollout/steps/1",
       "more nodes than the step before"},
      {"no room for the baseline", [](json& d) { d["rollout"]["steps"][1]["nodes"] = 7; }, "/rollout/steps/1",
       "room for the baseline"},
      {"metric that does not exist", [](json& d) { d["rollout"]["analysis"][0]["metric"] = "latency"; },
       "/rollout/analysis/0/metric", "iteration_time"},
      {"rank test on a count", [](json& d) { d["rollout"]["analysis"][1] = {{"metric", "failures"},
                                                                            {"test", "mann_whitney"},
                                                                            {"confidence", 0.98}}; },
       "/rollout/analysis/1/test", "threshold"},
      {"unknown test", [](json& d) { d["rollout"]["analysis"][0]["test"] = "t_test"; }, "/rollout/analysis/0/test",
       "mann_whitney"},
      {"canary of an unknown job", [](json& d) { d["rollout"]["canary"]["copy_of"] = "nope"; },
       "/rollout/canary/copy_of", "finetune-8b"},
      {"canary not whole nodes", [](json& d) { d["rollout"]["canary"]["gpus"] = 12; }, "/rollout/canary/gpus",
       "whole nodes"},
      {"both nodes and fraction", [](json& d) { d["rollout"]["steps"][0]["fraction"] = 0.25; }, "/rollout/steps/0",
       "exactly one"},
      {"unknown key", [](json& d) { d["rollout"]["windw"] = "1h"; }, "/rollout/windw", "window"},
      {"no preflight matrix", [](json& d) { d.erase("preflight"); }, "/rollout", "preflight"},
      {"noise out of range", [](json& d) { d["noise"]["jitter_sd"] = -0.1; }, "/noise/jitter_sd", ""},
      {"interval beyond the window", [](json& d) { d["rollout"]["interval"] = "2h"; }, "/rollout/interval", "window"},
  };
  for (const auto& c : cases) {
    DYNAMIC_SECTION(c.what) {
      json doc = good();
      c.edit(doc);
      std::string message;
      CHECK(error_pointer(doc, &message) == c.pointer);
      INFO(message);
      CHECK_THAT(message, Catch::Contains(c.says));
    }
  }
}

TEST_CASE("traintwin run exits 2 on a bad rollout, naming the file and the pointer", "[e2e][rollout]") {
  const auto dir = tt::testing::scratch_dir("rollout-bad");
  json doc = good();
  doc["rollout"]["release"] = "2099.01";
  doc["topology"] = std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json";
  doc["preflight"]["matrix"] = std::string(TT_SOURCE_DIR) + "/matrices/rollout.json";
  const fs::path file = dir / "rollout-bad.json";
  std::ofstream(file) << doc.dump(2);
  const auto r = tt::testing::run_cli("run " + file.string() + " --quiet --out " + (dir / "out").string());
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/rollout/release"));
  CHECK_THAT(r.output, Catch::Contains("rollout-bad.json"));
}
