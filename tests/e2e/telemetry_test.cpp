// The telemetry files of every bundled scenario: metrics.prom passes `promtool check metrics` (skipped with a warning
// without promtool) and `traintwin logs --json` gives back events.jsonl line for line.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

TEST_CASE("e2e: every bundled scenario writes a valid metrics.prom and a readable events.jsonl", "[e2e]") {
  const bool promtool = std::system("command -v promtool > /dev/null 2>&1") == 0;
  if (!promtool)
    WARN("promtool is absent: metrics.prom not validated; run scripts/install-deps.sh (package prometheus)");
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TT_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    const std::string name = entry.path().stem().string();
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("telemetry-" + name);
      auto run = run_cli("run " + entry.path().string() + " --quiet --out " + out.string());
      REQUIRE(run.exit_code == 0);
      const std::string metrics = read_file(out / "metrics.prom");
      CHECK_THAT(metrics, Catch::Contains("\ntraintwin_cluster_gpus "));
      CHECK_THAT(metrics, Catch::Contains("traintwin_job_ettr_ratio{job_name="));
      if (promtool) {
        const std::string cmd = "promtool check metrics < " + (out / "metrics.prom").string() + " 2>&1";
        FILE* pipe = popen(cmd.c_str(), "r");
        REQUIRE(pipe);
        std::string said;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) said.append(buf, n);
        int status = pclose(pipe);
        INFO("promtool said:\n" << said);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        CHECK(said.empty());
      }
      auto logs = run_cli("logs " + out.string() + " --json");
      CHECK(logs.exit_code == 0);
      CHECK(logs.output == read_file(out / "events.jsonl"));
      CHECK(logs.output.size() > 100);
    }
  }
  CHECK(seen >= 1);
}

TEST_CASE("e2e: alerts.rules.yml passes promtool check rules, and the HTML shows the alert timeline", "[e2e]") {
  const bool promtool = std::system("command -v promtool > /dev/null 2>&1") == 0;
  if (!promtool)
    WARN("promtool is absent: alerts.rules.yml not validated; run scripts/install-deps.sh (package prometheus)");
  const std::pair<const char*, const char*> cases[] = {
      {"quickstart", "NodeDown fires within the 60s heartbeat window"},
      {"drill-node-failure", "only the deadlock stalls training for 5 minutes"},
      {"drill-link-flap-timeout", "the aggressive timeout fails the job on the first flap"}};
  for (const auto& [name, alert_check] : cases) {
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
      if (promtool) {
        FILE* pipe = popen(("promtool check rules " + (out / "alerts.rules.yml").string() + " 2>&1").c_str(), "r");
        REQUIRE(pipe);
        std::string said;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) said.append(buf, n);
        const int status = pclose(pipe);
        INFO("promtool said:\n" << said);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        CHECK_THAT(said, Catch::Contains("SUCCESS"));
      }
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
