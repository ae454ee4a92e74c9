// The telemetry files of every bundled scenario: metrics.prom and alerts.rules.yml pass `promtool check` (those cases
// are skipped without promtool: tests/skip.hpp) and `traintwin logs --json` gives back events.jsonl line for line.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <utility>
#include <vector>

#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

namespace fs = std::filesystem;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

std::vector<fs::path> bundled_scenarios() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(TT_SOURCE_DIR) / "scenarios"))
    if (entry.path().extension() == ".json") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

bool have_promtool() { return std::system("command -v promtool > /dev/null 2>&1") == 0; }

// Runs `promtool ARGS` (e.g. "check metrics < FILE"); its exit status and what it said.
std::pair<int, std::string> promtool(const std::string& args) {
  FILE* pipe = popen(("promtool " + args + " 2>&1").c_str(), "r");
  REQUIRE(pipe);
  std::string said;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) said.append(buf, n);
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, said};
}

const std::pair<const char*, const char*> kAlertScenarios[] = {
    {"quickstart", "NodeDown fires within the 60s heartbeat window"},
    {"drill-node-failure", "only the deadlock stalls training for 5 minutes"},
    {"drill-link-flap-timeout", "the aggressive timeout fails the job on the first flap"}};

}  // namespace

TEST_CASE("e2e: every bundled scenario writes metrics.prom and a readable events.jsonl", "[e2e]") {
  const auto scenarios = bundled_scenarios();
  CHECK(scenarios.size() >= 1);
  for (const fs::path& scenario : scenarios) {
    const std::string name = scenario.stem().string();
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("telemetry-" + name);
      auto run = run_cli("run " + scenario.string() + " --quiet --out " + out.string());
      REQUIRE(run.exit_code == 0);
      const std::string metrics = read_file(out / "metrics.prom");
      CHECK_THAT(metrics, Catch::Contains("\ntraintwin_cluster_gpus "));
      CHECK_THAT(metrics, Catch::Contains("traintwin_job_ettr_ratio{job_name="));
      auto logs = run_cli("logs " + out.string() + " --json");
      CHECK(logs.exit_code == 0);
      CHECK(logs.output == read_file(out / "events.jsonl"));
      CHECK(logs.output.size() > 100);
    }
  }
}

TEST_CASE("e2e: every bundled scenario's metrics.prom passes promtool check metrics", "[e2e][promtool]") {
  if (!have_promtool()) TT_SKIP("promtool is absent; run scripts/install-deps.sh (package prometheus)");
  for (const fs::path& scenario : bundled_scenarios()) {
    const std::string name = scenario.stem().string();
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("telemetry-promtool-" + name);
      REQUIRE(run_cli("run " + scenario.string() + " --quiet --out " + out.string()).exit_code == 0);
      const auto [status, said] = promtool("check metrics < " + (out / "metrics.prom").string());
      INFO("promtool said:\n" << said);
      CHECK(status == 0);
      CHECK(said.empty());
    }
  }
}

TEST_CASE("e2e: the alert views: alerts.rules.yml, the HTML alert timeline, junit, events and series", "[e2e]") {
  for (const auto& [name, alert_check] : kAlertScenarios) {
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir(std::string("alerts-") + name);
      auto run = run_cli(std::string("run ") + TT_SOURCE_DIR + "/scenarios/" + name + ".json --quiet --out " +
                         out.string());
      REQUIRE(run.exit_code == 0);
      const std::string rules = read_file(out / "alerts.rules.yml");
      CHECK_THAT(rules, Catch::Contains("      - alert: "));
      const std::string html = read_file(out / "report.html");
      CHECK_THAT(html, Catch::Contains("<svg class=\"chart alerts\""));
      CHECK_THAT(html, Catch::Contains("class=\"firing "));
      const std::string junit = read_file(out / "junit.xml");  // alert checks are testcases like the others
      CHECK_THAT(junit, Catch::Contains("name=\"" + std::string(alert_check) + "\"") &&
                            Catch::Contains("failures=\"0\""));
      CHECK_THAT(read_file(out / "events.jsonl"), Catch::Contains("\"kind\":\"alert_firing\""));
      CHECK_THAT(read_file(out / "series.csv"), Catch::Contains(",traintwin_gpus_busy,"));
    }
  }
}

TEST_CASE("e2e: alerts.rules.yml passes promtool check rules", "[e2e][promtool]") {
  if (!have_promtool()) TT_SKIP("promtool is absent; run scripts/install-deps.sh (package prometheus)");
  for (const auto& scenario : kAlertScenarios) {
    const std::string name = scenario.first;
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("alerts-promtool-" + name);
      REQUIRE(run_cli("run " + std::string(TT_SOURCE_DIR) + "/scenarios/" + name + ".json --quiet --out " +
                      out.string())
                  .exit_code == 0);
      const auto [status, said] = promtool("check rules " + (out / "alerts.rules.yml").string());
      INFO("promtool said:\n" << said);
      CHECK(status == 0);
      CHECK_THAT(said, Catch::Contains("SUCCESS"));
    }
  }
}

TEST_CASE("e2e: an alert on an unknown metric exits 2 naming the file and pointer", "[e2e]") {
  auto dir = scratch_dir("alerts-bad");
  std::string text = read_file(fs::path(TT_SOURCE_DIR) / "scenarios" / "quickstart.json");
  const std::string from = "\"expr\": \"traintwin_nodes_down > 0\"";
  REQUIRE(text.find(from) != std::string::npos);
  text.replace(text.find(from), from.size(), "\"expr\": \"traintwin_node_down > 0\"");
  text.replace(text.find("../topologies/"), 14, std::string(TT_SOURCE_DIR) + "/topologies/");
  std::ofstream(dir / "bad.json") << text;
  auto run = run_cli("run " + (dir / "bad.json").string() + " --quiet --out " + (dir / "out").string());
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.output, Catch::Contains("bad.json") && Catch::Contains("/alerts/0/expr") &&
                             Catch::Contains("did you mean \"traintwin_nodes_down\""));
}
