// traintwin accept end to end: the seven items for real on this machine (cpu:4), each broken in turn by its test hook
// and named; the twin's plan of the bundled 2 x 8 H100 cluster; our own commtest log judged against a plan for this
// machine, and the same log with one size 30% slower; bad input exits 2 with the line or pointer.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fstream>
#include <sstream>

#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

const std::string kScenario = std::string(TT_SOURCE_DIR) + "/scenarios/accept-local.json";

// A quicker list for the fault-injection cases: one calibration run over fewer sizes, a faster clock.
std::string quick(const std::string& out) {
  return "accept --devices cpu:4 --scenario " + kScenario + " --out " + out +
         " --calibration-runs 1 -b 1K -e 64K --time-scale 120 --quiet";
}

nlohmann::json items_of(const std::string& out) { return nlohmann::json::parse(read_file(out + "/accept.json")); }

}  // namespace

// Hidden from test discovery ([.]): tests/CMakeLists.txt runs it as its own ctest entry, accept.cpu4_all_items, with
// RUN_SERIAL. Its collective item judges loopback busbw against thresholds calibrated minutes earlier on the same
// cores; another test's four ranks started between the calibration and the measured run (ctest -j2: the fault-injection
// case below) slowed 4 of 9 sizes past their thresholds (CI, stop 32), which is what the item should say of a machine
// whose load moved, and not what this test is about.
TEST_CASE("e2e: traintwin accept --devices cpu:4 passes all seven items, JUnit one testcase per item",
          "[.][e2e][slow][serial]") {
  const std::string out = scratch_dir("accept-cpu4").string();
  auto r = run_cli("accept --devices cpu:4 --scenario " + kScenario + " --out " + out + " --calibration-runs 2 -e 256K" +
                   " --write-plan " + out + "/plan.json --quiet");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("# Items: 7, failed 0: OK"));
  const std::string junit = read_file(out + "/accept.junit.xml");
  for (const char* item : {"health", "collective", "kernels", "scheduler", "observability", "node_failure", "checkpoint"})
    CHECK_THAT(junit, Catch::Contains(std::string("name=\"") + item + "\""));
  CHECK_THAT(junit, Catch::Contains("tests=\"7\" failures=\"0\"") && Catch::Contains("name=\"measured\"") &&
                        Catch::Contains("name=\"expected\"") && Catch::Contains("<system-out>"));
  const auto doc = items_of(out);
  CHECK(doc["passed"] == true);
  REQUIRE(doc["items"].size() == 7);
  for (const auto& i : doc["items"]) {
    CHECK(i["verdict"] == "passed");
    CHECK_FALSE(i["measured"].get<std::string>().empty());
    CHECK_FALSE(i["evidence"].get<std::string>().empty());
  }
  CHECK_THAT(read_file(out + "/accept.html"), Catch::Contains("<h1>Acceptance: passed</h1>"));
  const auto plan = nlohmann::json::parse(read_file(out + "/plan.json"));
  CHECK(plan["ranks"] == 4);
  CHECK(plan["comm"].size() == 9);  // 1K .. 256K
  CHECK(plan["times"].size() == 5);
}

TEST_CASE("e2e: traintwin accept fails, naming the item, when a test hook breaks each item in turn", "[e2e][slow]") {
  for (const char* item : {"health", "collective", "kernels", "scheduler", "observability", "node_failure", "checkpoint"}) {
    const std::string out = scratch_dir(std::string("accept-inject-") + item).string();
    auto r = run_cli(quick(out) + " --inject " + item);
    INFO(item << ":\n" << r.output);
    CHECK(r.exit_code == 1);
    const auto doc = items_of(out);
    CHECK(doc["passed"] == false);
    const auto failed = doc["failed_items"].get<std::vector<std::string>>();
    CHECK(std::find(failed.begin(), failed.end(), item) != failed.end());
    for (const auto& i : doc["items"])
      if (i["item"] == item) CHECK_FALSE(i["failure"].get<std::string>().empty());
  }
}

// A control-plane outage in the acceptance scenario is played by both halves of `accept --devices`: the twin that
// sets the expected times and the real run. The node crash at 4m falls inside the outage (3m-5m): it is detected only
// when decisions resume, 60 s after it instead of the heartbeat's 30 s, by the twin and for real alike (before, both
// ignored the outage silently).
TEST_CASE("e2e: traintwin accept --devices plays a control-plane outage in the twin and for real", "[e2e][slow]") {
  const std::string out = scratch_dir("accept-control-plane").string();
  std::string text = read_file(kScenario);
  const std::string crash = R"({"kind": "node_crash", "at": "4m")", topology = "../topologies/";
  REQUIRE(text.find(crash) != std::string::npos);
  text.replace(text.find(crash), 0, R"({"kind": "control_plane_crash", "at": "3m", "repair": "2m"}, )");
  text.replace(text.find(topology), topology.size(), std::string(TT_SOURCE_DIR) + "/topologies/");
  const std::string scenario = out + "/accept-control-plane.json";
  std::ofstream(scenario) << text;
  auto r = run_cli("accept --devices cpu:4 --scenario " + scenario + " --out " + out +
                   " --calibration-runs 1 -b 1K -e 64K --time-scale 120 --quiet");
  INFO(r.output);
  REQUIRE(r.exit_code <= 1);  // the collective item's busbw may fall short on a loaded machine: not what this tests
  int seen = 0;
  const auto doc = items_of(out);
  for (const auto& i : doc["items"])
    if (i["item"] == "node_failure") {
      ++seen;
      CHECK(i["verdict"] == "passed");
      CHECK_THAT(i["expected"].get<std::string>(), Catch::Contains("(twin 60.0 s)"));
      const std::string measured = i["measured"].get<std::string>();
      const auto at = measured.find("worst detect ");
      REQUIRE(at != std::string::npos);
      CHECK(std::stod(measured.substr(at + 13)) >= 59.0);
    }
  CHECK(seen == 1);
  const auto report = nlohmann::json::parse(read_file(out + "/run-report/report.json"));
  CHECK_THAT(report["driver_info"]["control_plane_outages"].get<std::string>(),
             Catch::StartsWith("down from 3m 00s to 5m 00s"));
}

TEST_CASE("e2e: traintwin accept --scenario writes the 2 x 8 H100 plan with busbw per size and passes on the twin",
          "[e2e]") {
  const std::string out = scratch_dir("accept-2x8").string();
  auto r = run_cli("accept --scenario " + std::string(TT_SOURCE_DIR) + "/scenarios/accept-2x8-h100.json --out " + out +
                   " --write-plan " + out + "/plan.json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("busbw(GB/s)") && Catch::Contains("8589934592") &&
                           Catch::Contains("kernels        SKIPPED"));
  const auto plan = nlohmann::json::parse(read_file(out + "/plan.json"));
  CHECK(plan["topology"] == "rail-2x8-h100");
  CHECK(plan["ranks"] == 16);
  CHECK(plan["nodes"] == 2);
  REQUIRE(plan["comm"].size() == 31);  // 8 B .. 8 GiB
  double last = 0;
  for (const auto& c : plan["comm"]) {
    CHECK(c["busbw_gbps"].get<double>() > last);  // the curve rises with size
    CHECK(c["threshold_gbps"].get<double>() < c["busbw_gbps"].get<double>());
    CHECK(c["false_failure"].get<double>() == Approx(1e-3));
    last = c["busbw_gbps"].get<double>();
  }
  CHECK(last > 300);  // 8 GiB over 2 x 8 H100 on 400 Gb/s rails
  std::vector<std::string> metrics;
  for (const auto& t : plan["times"]) metrics.push_back(t["metric"]);
  CHECK(metrics == std::vector<std::string>{"detect", "recover", "alert_latency", "checkpoint_write",
                                            "checkpoint_restore"});
}

namespace {

// The commtest log with the row of `size` made `factor` times slower: time / factor, algbw and busbw x factor, for both
// passes, as nccl-tests would have printed it.
std::string slow_row(const std::string& log, const std::string& size, double factor) {
  std::string out;
  for (const auto& line : tt::testing::lines_of(log)) {
    std::istringstream in(line);
    std::vector<std::string> tok;
    for (std::string t; in >> t;) tok.push_back(t);
    if (tok.size() == 13 && tok[0] == size) {
      char buf[512];
      const auto t = [&](int i) { return std::stod(tok[static_cast<std::size_t>(i)]); };
      std::snprintf(buf, sizeof buf, "  %10s %12s %8s %6s %6s %9.2f %7.2f %7.2f %7s %9.2f %7.2f %7.2f %7s", tok[0].c_str(),
                    tok[1].c_str(), tok[2].c_str(), tok[3].c_str(), tok[4].c_str(), t(5) / factor, t(6) * factor,
                    t(7) * factor, tok[8].c_str(), t(9) / factor, t(10) * factor, t(11) * factor, tok[12].c_str());
      out += buf;
    } else {
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace

// Hidden from test discovery ([.]): it measures this machine's loopback and judges it within ~14% of its own fit, so
// tests/CMakeLists.txt runs it alone (accept.commtest_judged, RUN_SERIAL): beside other tests under ctest -j2 one size
// once measured 35% below the fit.
TEST_CASE("e2e: our commtest log judged against a plan for this machine passes, one size 30% slow fails it",
          "[.][e2e][loopback]") {
  const auto dir = scratch_dir("accept-nccl-tests");
  auto ct = run_cli("commtest --devices cpu:4 -b 64K -e 4M -f 4");
  REQUIRE(ct.exit_code == 0);
  const std::string log = (dir / "commtest.log").string();
  {
    std::ofstream(log) << ct.output;
  }
  // The plan for this machine, calibrated on that log, with the noise of a quiet machine (5%, named on the command
  // line): this 2-core shared machine's own spread is too wide to see 30% (docs/acceptance.md).
  const std::string plan = (dir / "plan.json").string();
  auto p = run_cli("accept --devices cpu:4 --scenario " + kScenario + " --calibration " + log +
                   " --comm-sigma 0.05 --plan-only --write-plan " + plan + " --quiet --out " + dir.string());
  INFO(p.output);
  REQUIRE(p.exit_code == 0);
  auto ok = run_cli("accept --plan " + plan + " --nccl-tests " + log);
  INFO(ok.output);
  CHECK(ok.exit_code == 0);
  CHECK_THAT(ok.output, Catch::Contains("# Sizes: 4, failed 0: OK"));

  const std::string slow = (dir / "commtest-slow.log").string();
  {
    std::ofstream(slow) << slow_row(ct.output, "1048576", 0.7);
  }
  auto bad = run_cli("accept --plan " + plan + " --nccl-tests " + slow + " --json");
  INFO(bad.output);
  CHECK(bad.exit_code == 1);
  const auto doc = nlohmann::json::parse(bad.output);
  CHECK(doc["failed_sizes"] == nlohmann::json::array({"1048576"}));
}

TEST_CASE("e2e: traintwin accept exits 2 for a log that is not nccl-tests output or a plan of another cluster",
          "[e2e]") {
  const auto dir = scratch_dir("accept-bad-input");
  const std::string plan16 = (dir / "plan16.json").string();
  REQUIRE(run_cli("accept --scenario " + std::string(TT_SOURCE_DIR) + "/scenarios/accept-2x8-h100.json --plan-only " +
                  "--write-plan " + plan16 + " --quiet")
              .exit_code == 0);
  auto ct = run_cli("commtest --devices cpu:4 -b 1K -e 4K");
  const std::string log = (dir / "commtest.log").string();
  {
    std::ofstream(log) << ct.output;
  }
  auto other = run_cli("accept --plan " + plan16 + " --nccl-tests " + log);
  CHECK(other.exit_code == 2);
  CHECK_THAT(other.output, Catch::Contains(log + ": at line ") && Catch::Contains("a log of 16 ranks") &&
                               Catch::Contains("rail-2x8-h100") && Catch::Contains("found 4 ranks"));
  const std::string text = (dir / "notes.txt").string();
  {
    std::ofstream(text) << "all good, 400 GB/s\n";
  }
  auto not_log = run_cli("accept --plan " + plan16 + " --nccl-tests " + text);
  CHECK(not_log.exit_code == 2);
  CHECK_THAT(not_log.output, Catch::Contains(text + ": at line 1: an nccl-tests result table"));
  auto not_plan = run_cli("accept --plan " + log + " --nccl-tests " + log);
  CHECK(not_plan.exit_code == 2);
  auto bad_plan = nlohmann::json::parse(read_file(plan16));
  bad_plan["comm"][3]["busbw_gbps"] = "fast";
  const std::string broken = (dir / "broken.json").string();
  {
    std::ofstream(broken) << bad_plan.dump();
  }
  auto ptr = run_cli("accept --plan " + broken + " --nccl-tests " + log);
  CHECK(ptr.exit_code == 2);
  CHECK_THAT(ptr.output, Catch::Contains("/comm/3/busbw_gbps"));
}

TEST_CASE("e2e: traintwin accept --devices cuda:N exits 4 where there is no CUDA device", "[e2e]") {
  auto probe = run_cli("kernelcheck --device cuda --seqlens 64 --head-dims 64");
  if (probe.exit_code != 4) TT_SKIP("a CUDA device is present: this machine does not take the exit-4 path");
  auto r = run_cli("accept --devices cuda:2 --out " + scratch_dir("accept-cuda").string());
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.output, Catch::Contains("nothing was checked"));
}
