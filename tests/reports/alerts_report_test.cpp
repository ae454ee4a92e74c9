// The alert views of a RunRecord: alerts.rules.yml (checked by promtool), the "alerts" and "telemetry" sections of
// report.json, the HTML alert timeline and failures table, series.csv's telemetry columns, metrics.prom's registry.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>

#include "reports/csv.hpp"
#include "reports/html.hpp"
#include "reports/prometheus.hpp"
#include "reports/report.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"
#include "tests/skip.hpp"

using namespace tt;

namespace {

RunRecord alert_record() {
  RunRecord r = testing::sample_record();
  r.alert_rules = {{"NodeDown", "traintwin_nodes_down > 0", Seconds(30), "critical", {{"team", "infra \"ops\""}},
                    "A node is down:\nsee the runbook"},
                   {"GpuBusyLow", "sum(traintwin_job_alive{job_name!=\"x\"}) < 0.5", Seconds(5400), "warning", {}, ""}};
  r.alerts = {{"NodeDown", "critical", {{"team", "infra"}}, 1, Seconds(2400), Seconds(2430), Seconds(4000)},
              {"GpuBusyLow", "warning", {}, 0.25, Seconds(3000), Seconds(4800), std::nullopt}};
  r.fault_times = {Seconds(2400)};
  SeriesId up = r.metrics.add(metric::kNodesUp, {});
  SeriesId q = r.metrics.add(metric::kQueueLength, {{"queue", "pretrain"}});
  r.metrics.set(up, 2);
  r.metrics.set(q, 0);
  r.telemetry.interval = Seconds(60);
  r.telemetry.columns = {"traintwin_nodes_up", "traintwin_queue_length{queue=\"pretrain\"}"};
  r.telemetry.times = {Seconds(0), Seconds(60), Seconds(2460)};
  r.telemetry.rows = {{2, std::nan("")}, {2, 1}, {1, 0}};
  return r;
}

std::optional<testing::CliResult> promtool(const std::string& args, const std::string& file, const std::string& text) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) return std::nullopt;
  auto dir = testing::scratch_dir("promtool-rules");
  std::ofstream(dir / file, std::ios::binary) << text;
  const std::string cmd = "promtool " + args + " " + (dir / file).string() + " 2>&1";
  testing::CliResult res;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) res.output.append(buf, n);
  const int status = pclose(pipe);
  res.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return res;
}

}  // namespace

TEST_CASE("alerts.rules.yml: one group, PromQL, for, severity and labels, annotations", "[reports]") {
  const std::string yml = prometheus_rules(alert_record());
  CHECK_THAT(yml, Catch::Contains("groups:\n  - name: \"traintwin-mini\"\n    rules:\n"));
  CHECK_THAT(yml, Catch::Contains("      - alert: NodeDown\n        expr: \"traintwin_nodes_down > 0\"\n"
                                  "        for: 30s\n        labels:\n          severity: \"critical\"\n"
                                  "          team: \"infra \\\"ops\\\"\"\n        annotations:\n"
                                  "          summary: \"A node is down:\\nsee the runbook\"\n"));
  CHECK_THAT(yml, Catch::Contains("expr: \"sum(traintwin_job_alive{job_name!=\\\"x\\\"}) < 0.5\"\n        for: 1h30m\n"));
  CHECK_THAT(yml, Catch::Contains("summary: \"GpuBusyLow\""));  // no summary: the name
}

TEST_CASE("alerts.rules.yml passes promtool check rules", "[reports][promtool]") {
  auto checked = promtool("check rules", "alerts.rules.yml", prometheus_rules(alert_record()));
  if (!checked) TT_SKIP("promtool is absent; run scripts/install-deps.sh (package prometheus)");
  INFO(checked->output);
  CHECK(checked->exit_code == 0);
  CHECK_THAT(checked->output, Catch::Contains("SUCCESS: 2 rules found"));
  auto none = promtool("check rules", "none.rules.yml", prometheus_rules(testing::sample_record()));
  CHECK(none->exit_code == 0);
}

TEST_CASE("report.json: alerts and telemetry sections", "[reports]") {
  nlohmann::json j = report_json(alert_record());
  const auto& a = j["alerts"];
  REQUIRE(a["rules"].size() == 2);
  CHECK(a["rules"][0]["expr"] == "traintwin_nodes_down > 0");
  CHECK(a["rules"][0]["for_s"] == 30.0);
  REQUIRE(a["firings"].size() == 2);
  CHECK(a["firings"][0]["fired_at_s"] == 2430.0);
  CHECK(a["firings"][0]["resolved_at_s"] == 4000.0);
  CHECK(a["firings"][0]["labels"]["team"] == "infra");
  CHECK(a["firings"][1]["resolved_at_s"].is_null());
  CHECK(a["fault_times_s"] == nlohmann::json::array({2400.0}));
  const auto& t = j["telemetry"];
  CHECK(t["columns"][0] == "t_s");
  CHECK(t["columns"][2] == "traintwin_queue_length{queue=\"pretrain\"}");
  CHECK(t["rows"][0][2].is_null());  // absent
  CHECK(t["rows"][2] == nlohmann::json::array({2460.0, 1.0, 0.0}));
  CHECK(report_json(alert_record()).dump() == j.dump());
}

TEST_CASE("report.html: alert timeline with severity colours, rules, failures with detect and recover times",
          "[reports]") {
  const std::string html = report_html(alert_record());
  CHECK_THAT(html, Catch::Contains("<section id=\"alerts\"><h2>Alerts</h2>"));
  CHECK_THAT(html, Catch::Contains("<svg class=\"chart alerts\""));
  CHECK_THAT(html, Catch::Contains("class=\"firing critical\"><title>NodeDown (critical) firing 40m 30s to"));
  CHECK_THAT(html, Catch::Contains("fill=\"#d62728\" class=\"firing critical\""));
  CHECK_THAT(html, Catch::Contains("fill=\"#f28e2b\" class=\"firing warning\""));
  CHECK_THAT(html, Catch::Contains("class=\"fault\"><title>fault at 40m"));
  CHECK_THAT(html, Catch::Contains("<code>traintwin_nodes_down &gt; 0</code>"));
  CHECK_THAT(html, Catch::Contains("<section id=\"failures\"><h2>Failures per job</h2>"));
  CHECK_THAT(html, Catch::Contains("<td>node n1 crash</td><td>heartbeat</td>"));
  const std::string plain = report_html(testing::sample_record());
  CHECK_THAT(plain, Catch::Contains("This scenario has no alert rules."));
}

TEST_CASE("series.csv: telemetry columns beside the state columns, rows at both time bases", "[reports]") {
  const std::string csv = series_csv(alert_record());
  std::istringstream in(csv);
  std::vector<std::string> rows;
  for (std::string line; std::getline(in, line);) rows.push_back(line);
  CHECK(rows[0] ==
        "t_s,gpus_allocated,gpus_up,jobs_running,jobs_pending,traintwin_nodes_up,"
        "\"traintwin_queue_length{queue=\"\"pretrain\"\"}\"");
  CHECK(rows[1] == "0,8,16,1,0,2,");  // absent: empty
  CHECK(rows[2] == "60,8,16,1,0,2,1");  // a sample between two state changes carries the state forward
  CHECK(rows[3] == "600,16,16,2,0,2,1");
  bool at_2460 = false;
  for (const auto& r : rows) at_2460 |= r == "2460,8,8,1,1,1,0";  // both bases at one time: one row
  CHECK(at_2460);
}

TEST_CASE("metrics.prom: the registry's families after the end-of-run ones, no family twice", "[reports]") {
  const std::string text = prometheus_text(alert_record());
  CHECK_THAT(text, Catch::Contains("# TYPE traintwin_nodes_up gauge\ntraintwin_nodes_up 2\n"));
  CHECK_THAT(text, Catch::Contains("traintwin_queue_length{queue=\"pretrain\"} 0\n"));
  std::set<std::string> types;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("# TYPE ", 0) == 0) CHECK(types.insert(line).second);
}
