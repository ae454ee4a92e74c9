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
  const auto base = nlohmann::json::parse(read_file(fs::path(TT_SOURCE_DIR) / "scenarios/quickstart.json"), nullptr,
                                          true, /*ignore_comments=*/true);
  using nlohmann::json;
  // Each case patches one thing into the bundled quickstart scenario (JSON pointer -> new value, or null to remove).
  struct Case {
    std::string patch_at;
    json value;
    std::string reported_at;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"/queuez", json::array(), "/queuez", "known key"},
      {"/jobs/0/gpus", 4096, "/jobs/0/gpus", ""},                       // bigger than the 128-GPU cluster
      {"/jobs/0/model", "llama9-1t", "/jobs/0/model", "llama3-8b"},      // unknown preset, lists the known ones
      {"/jobs/0/submit", 30, "/jobs/0/submit", "unit"},                  // a bare number
      {"/jobs/0/submit", "-5m", "/jobs/0/submit", "non-negative"},
      {"/jobs/1/queue", "nobody", "/jobs/1/queue", "pretrain"},          // unknown queue, lists the known ones
      {"/jobs/1/name", "pretrain-70b", "/jobs/1/name", "already"},
      {"/jobs/1/parallel/tp", 3, "/jobs/1/gpus", "tp x pp x dp"},       // tp x pp x dp != gpus
      {"/jobs/2/iterations", 0, "/jobs/2/iterations", ">= 1"},
      {"/jobs/2/iterations", 12.5, "/jobs/2/iterations", "integer"},
      {"/queues/0/gpu_quota", -8, "/queues/0/gpu_quota", ""},
      {"/faults/0/node", "n99", "/faults/0/node", "n0"},
      {"/faults/0/kind", "meteor", "/faults/0/kind", "node_crash"},
      {"/recovery/detection_timeout", "soon", "/recovery/detection_timeout", "unit"},
      {"/checks/0/op", "~=", "/checks/0/op", "<="},
      {"/checks/1/job", "ghost", "/checks/1/job", "pretrain-70b"},
      {"/perf/compute_efficiency", 1.5, "/perf/compute_efficiency", ""},
      {"/topology", "does-not-exist.json", "/topology", ""},
  };
  int i = 0;
  for (const auto& c : cases) {
    json scenario = base;
    scenario["topology"] = std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json";
    scenario[json::json_pointer(c.patch_at)] = c.value;
    auto file = dir / ("bad" + std::to_string(i++) + ".json");
    std::ofstream(file) << scenario.dump(2);
    DYNAMIC_SECTION(c.patch_at << " = " << c.value.dump()) {
      auto r = run_cli("validate " + file.string());
      INFO(r.output);
      CHECK(r.exit_code == 2);
      CHECK_THAT(r.output, Catch::Contains(file.string()));
      CHECK_THAT(r.output, Catch::Contains("at " + c.reported_at + ":"));
      if (!c.says.empty()) CHECK_THAT(r.output, Catch::Contains(c.says));
    }
  }
  CHECK(cases.size() >= 15);
  // `run` reports the same way, and a syntax error and a missing file exit 2 too.
  auto file = dir / "syntax.json";
  std::ofstream(file) << "{\"name\": \"bad\",";
  auto syntax = run_cli("run " + file.string() + " --out " + dir.string());
  CHECK(syntax.exit_code == 2);
  CHECK_THAT(syntax.output, Catch::Contains("line 1"));
  CHECK(run_cli("run " + (dir / "does-not-exist.json").string()).exit_code == 2);
}
