// Node pools end to end (docs/pools.md): the elastic burst scales the cloud pool up and down with the same decisions
// under the simulator and under `traintwin real` (scaling as worker slots); spot reclaims requeue jobs from their
// checkpoints; report.json carries "pools" only for scenarios with pools; a malformed pool exits 2 with its pointer.
#include <catch2/catch.hpp>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"
#include "tests/e2e/real_vs_sim.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using tt::testing::check_same_decisions;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::run_sim_and_real;
using tt::testing::scratch_dir;

TEST_CASE("e2e: elastic-burst takes the same scaling decisions in simulation and for real", "[e2e][real]") {
  const auto runs =
      run_sim_and_real("elastic-burst", "pools-burst", "--devices cpu:6 --time-scale 100 --heartbeat-timeout 5");
  check_same_decisions(runs, "elastic-burst");
  // The real driver added the cloud nodes' devices as worker slots and took them away again.
  CHECK_THAT(runs.real.output, Catch::Contains("join the worker slots"));
  CHECK_THAT(runs.real.output, Catch::Contains("leave the worker slots"));
  const json report = json::parse(read_file(runs.real_dir / "report.json"));
  REQUIRE(report.contains("pools"));
  const json& cloud = report["pools"]["pools"][1];
  CHECK(cloud["name"] == "cloud");
  CHECK(cloud["scale_ups"] == 2);
  CHECK(cloud["scale_downs"] == 2);
  // Billing: the owned node for the whole run, each cloud node from its request to its release.
  const json& capacity = report["pools"]["capacity"];
  REQUIRE(capacity.size() == 3);
  for (const auto& c : capacity) {
    CHECK(c["gpus"] == 2);
    CHECK(c["end_s"].get<double>() > c["start_s"].get<double>());
  }
}

TEST_CASE("e2e: spot-reclaims requeues jobs from checkpoints and reports its pools", "[e2e]") {
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/spot-reclaims.json";
  auto dir = scratch_dir("pools-spot");
  auto r = run_cli("run " + scenario + " --out " + dir.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const json report = json::parse(read_file(dir / "report.json"));
  const json& spot = report["pools"]["pools"][1];
  CHECK(spot["kind"] == "spot");
  CHECK(spot["reclaims"].get<int>() >= 1);
  CHECK(spot["jobs_requeued"].get<int>() >= 1);
  int reclaimed_segments = 0;
  for (const auto& j : report["jobs"])
    for (const auto& s : j["segments"]) reclaimed_segments += s["outcome"] == "reclaimed";
  CHECK(reclaimed_segments == spot["jobs_requeued"].get<int>());
  // metrics.prom: one series per pool, the report's figures.
  const std::string prom = read_file(dir / "metrics.prom");
  auto spot_series = [&](const std::string& name, const char* key) {
    return name + "{pool=\"spot\",kind=\"spot\"} " + std::to_string(spot[key].get<int>()) + "\n";
  };
  CHECK_THAT(prom, Catch::Contains(spot_series("traintwin_pool_reclaims_total", "reclaims")));
  CHECK_THAT(prom, Catch::Contains(spot_series("traintwin_pool_scale_ups_total", "scale_ups")));
  CHECK_THAT(prom, Catch::Contains(spot_series("traintwin_pool_scale_downs_total", "scale_downs")));
  CHECK_THAT(prom, Catch::Contains(spot_series("traintwin_pool_reclaim_requeues_total", "jobs_requeued")));
  CHECK_THAT(prom, Catch::Contains("traintwin_pool_nodes_in_service{pool=\"reserved\",kind=\"fixed\"} 2\n"));
  CHECK_THAT(prom, Catch::Contains("# TYPE traintwin_pool_nodes_provisioning gauge\n"));
  // report.html: the pools section, a table per pool and the nodes in service over time.
  const std::string html = read_file(dir / "report.html");
  CHECK_THAT(html, Catch::Contains("<section id=\"pools\">"));
  CHECK_THAT(html, Catch::Contains("<h3>spot <small>(spot)</small></h3>"));
  CHECK_THAT(html, Catch::Contains("<tr><td>reclaim notices / reclaims</td><td class=\"num\">" +
                                   std::to_string(spot["reclaim_notices"].get<int>()) + " / " +
                                   std::to_string(spot["reclaims"].get<int>()) + "</td></tr>"));
  CHECK_THAT(html, Catch::Contains("<h3>Nodes in service</h3>"));
  // Scenarios without pools have no "pools" key.
  auto plain = scratch_dir("pools-none");
  REQUIRE(run_cli("run " + std::string(TT_SOURCE_DIR) + "/scenarios/real-quickstart.json --quiet --out " +
                  plain.string())
              .exit_code == 0);
  CHECK_FALSE(json::parse(read_file(plain / "report.json")).contains("pools"));
  CHECK_THAT(read_file(plain / "metrics.prom"), !Catch::Contains("traintwin_pool_"));
  CHECK_THAT(read_file(plain / "report.html"), !Catch::Contains("<section id=\"pools\">"));
}

TEST_CASE("e2e: a malformed pool exits 2 naming the pointer", "[e2e]") {
  auto dir = scratch_dir("pools-bad");
  json doc = json::parse(read_file(fs::path(TT_SOURCE_DIR) / "scenarios/elastic-burst.json"), nullptr, true, true);
  doc["pools"][1]["min"] = 3;
  std::ofstream(dir / "bad.json") << doc.dump(2);
  auto r = run_cli("run " + (dir / "bad.json").string() + " --out " + dir.string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/pools/1/min"));
}

namespace {

// scenarios/spot-checkpoint-on-notice.json (sparse cadence checkpoints) with its spot pool's checkpoint_on_notice as
// given, and no checks (they pin the setting on).
fs::path on_notice_variant(const fs::path& dir, bool on_notice) {
  json doc = json::parse(read_file(fs::path(TT_SOURCE_DIR) / "scenarios/spot-checkpoint-on-notice.json"), nullptr,
                         true, true);
  doc["pools"][1]["reclaim"]["checkpoint_on_notice"] = on_notice;
  doc.erase("checks");
  const fs::path file = dir / (on_notice ? "on.json" : "off.json");
  std::ofstream(file) << doc.dump(2);
  return file;
}

}  // namespace

TEST_CASE("e2e: a checkpoint written at the reclaim notice cuts the work reclaims lose", "[e2e]") {
  auto dir = scratch_dir("pools-on-notice");
  std::vector<json> spot;
  for (bool on : {false, true}) {
    const fs::path out = dir / (on ? "on" : "off");
    auto r = run_cli("run " + on_notice_variant(dir, on).string() + " --quiet --out " + out.string());
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    spot.push_back(json::parse(read_file(out / "report.json"))["pools"]["pools"][1]);
    // The same scenario twice gives the same report (the on-demand write is played deterministically).
    if (on) {
      auto again =
          run_cli("run " + on_notice_variant(dir, on).string() + " --quiet --out " + (dir / "again").string());
      REQUIRE(again.exit_code == 0);
      CHECK(read_file(out / "report.json") == read_file(dir / "again" / "report.json"));
      CHECK_THAT(read_file(out / "decisions.txt"), Catch::Contains("reclaim_checkpoint_now"));
    }
  }
  INFO("off: " << spot[0].dump() << "\non: " << spot[1].dump());
  CHECK(spot[0]["checkpoints_on_notice"] == 0);
  CHECK(spot[1]["checkpoints_on_notice"].get<int>() >= 1);
  CHECK(spot[1]["checkpoints_in_notice"].get<int>() > spot[0]["checkpoints_in_notice"].get<int>());
  CHECK(spot[0]["jobs_requeued"].get<int>() >= 1);
  CHECK(spot[1]["reclaim_lost_gpu_hours"].get<double>() < spot[0]["reclaim_lost_gpu_hours"].get<double>());
}

TEST_CASE("e2e: traintwin real refuses checkpoint_on_notice with exit 2 and the pointer", "[e2e][real]") {
  auto dir = scratch_dir("pools-on-notice-real");
  auto r = run_cli("real " + on_notice_variant(dir, true).string() + " --devices cpu:48 --out " +
                   (dir / "out").string());
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("/pools/1/reclaim/checkpoint_on_notice"));
}
