// The hybrid scenarios end to end: the cost section reaches report.json, the HTML and metrics.prom; the crash moves a
// checkpoint over the inter-site link in the simulator; the same seed gives the same bytes; scenarios without a cost
// section keep their report shape.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

std::string scenario(const char* name) { return std::string(TT_SOURCE_DIR) + "/scenarios/" + name + ".json"; }

}  // namespace

TEST_CASE("e2e: hybrid-overflow is priced in every report and moves a checkpoint between sites", "[e2e][cost]") {
  auto out = scratch_dir("hybrid-overflow");
  auto r = run_cli("run " + scenario("hybrid-overflow") + " --out " + out.string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("cost: "));
  auto report = nlohmann::json::parse(read_file(out / "report.json"));
  REQUIRE(report.contains("cost"));
  const auto& cost = report["cost"];
  CHECK(cost["currency"] == "USD");
  CHECK(cost["sites"].size() == 2);
  double jobs = 0;
  for (const auto& j : cost["jobs"]) jobs += j["total"].get<double>();
  CHECK(jobs + cost["idle"].get<double>() == Approx(cost["total"].get<double>()));
  CHECK(cost["inter_site_traffic"].get<double>() > 0);
  int moves = 0;
  for (const auto& j : report["jobs"]) {
    REQUIRE(j.contains("sites"));
    moves += j["sites"]["checkpoint_moves"].get<int>();
    if (j["sites"]["checkpoint_moves"].get<int>() > 0) {
      CHECK(j["sites"]["checkpoint_moved_bytes"].get<double>() == j["checkpoint"]["bytes"].get<double>());
      CHECK(j["sites"]["last_site"] == "cloud");
    }
  }
  CHECK(moves >= 1);
  bool move_logged = false;
  for (const auto& d : report["decisions"])
    if (d["kind"] == "launch" && d["reason"].get<std::string>().find("checkpoint moved from site private") !=
                                     std::string::npos)
      move_logged = true;
  CHECK(move_logged);
  const std::string prom = read_file(out / "metrics.prom");
  CHECK_THAT(prom, Catch::Contains("# TYPE traintwin_cost_run gauge"));
  CHECK_THAT(prom, Catch::Contains("traintwin_cost_queue{queue=\"team-a\",currency=\"USD\"}"));
  CHECK_THAT(read_file(out / "report.html"), Catch::Contains("<section id=\"cost\"><h2>Cost</h2>"));
}

TEST_CASE("e2e: hybrid-overflow twice gives a byte-identical report", "[e2e][cost]") {
  auto a = scratch_dir("hybrid-determinism-a");
  auto b = scratch_dir("hybrid-determinism-b");
  REQUIRE(run_cli("run " + scenario("hybrid-overflow") + " --quiet --out " + a.string()).exit_code == 0);
  REQUIRE(run_cli("run " + scenario("hybrid-overflow") + " --quiet --out " + b.string()).exit_code == 0);
  const std::string ra = read_file(a / "report.json");
  CHECK(ra.find("\"cost\"") != std::string::npos);
  CHECK(ra == read_file(b / "report.json"));
}

TEST_CASE("e2e: the owned-only variant never uses or bills the cloud, a scenario without prices has no cost key",
          "[e2e][cost]") {
  auto owned = scratch_dir("hybrid-owned");
  REQUIRE(run_cli("run " + scenario("hybrid-overflow-owned") + " --quiet --out " + owned.string()).exit_code == 0);
  auto report = nlohmann::json::parse(read_file(owned / "report.json"));
  for (const auto& j : report["jobs"]) {
    CHECK(j["sites"]["last_site"] == "private");
    CHECK(j["sites"]["checkpoint_moves"] == 0);
  }
  for (const auto& s : report["cost"]["sites"])
    if (s["site"] == "cloud") CHECK(s["billed_gpu_hours"] == 0.0);
  auto plain = scratch_dir("no-cost");
  REQUIRE(run_cli("run " + scenario("quickstart") + " --quiet --out " + plain.string()).exit_code == 0);
  CHECK_FALSE(nlohmann::json::parse(read_file(plain / "report.json")).contains("cost"));
  CHECK(read_file(plain / "metrics.prom").find("traintwin_cost") == std::string::npos);
}
