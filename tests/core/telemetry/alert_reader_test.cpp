// The scenario's "telemetry" and "alerts" sections and the alert.* checks: strict reading, errors with a pointer.
#include <catch2/catch.hpp>

#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;
using nlohmann::json;

namespace {

json base() {
  return parse_json_text(R"({
    "name": "alerts", "seed": 1,
    "topology": {"name": "t", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 2, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 2,
                 "storage": {"bandwidth": "100GB/s"}},
    "queues": [{"name": "q", "gpu_quota": 16}],
    "jobs": [{"name": "train", "queue": "q", "gpus": 8, "model": "llama3-8b", "parallel": {"tp": 8},
              "iterations": 10, "global_batch": 8, "seq_len": 1024}],
    "telemetry": {"interval": "30s", "node_series": true},
    "alerts": [
      {"name": "NodeDown", "expr": "traintwin_nodes_down > 0", "for": "1m", "severity": "critical",
       "labels": {"team": "infra"}, "summary": "a node is down"},
      {"name": "TrainDead", "metric": "traintwin_job_alive", "match": {"job_name": "train"},
       "aggregation": "min", "op": "==", "threshold": 0}
    ],
    "checks": [{"metric": "alert.time_to_fire", "alert": "NodeDown", "op": "<=", "value": "2m"},
               {"metric": "alert.firings", "alert": "TrainDead", "op": "==", "value": 0}]
  })", "alerts.json");
}

void expect_error(const json& doc, const std::string& pointer, const std::string& says) {
  try {
    read_scenario(doc, "alerts.json");
    FAIL("no InputError for " << pointer);
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(e.file() == "alerts.json");
    CHECK(e.pointer() == pointer);
    CHECK_THAT(e.expected(), Catch::Contains(says));
  }
}

}  // namespace

TEST_CASE("scenario alerts: both forms, telemetry options and alert checks are read", "[unit][io]") {
  Scenario s = read_scenario(base(), "alerts.json");
  CHECK(s.telemetry.interval == Seconds(30));
  CHECK(s.telemetry.node_series);
  REQUIRE(s.alerts.size() == 2);
  CHECK(s.alerts[0].name == "NodeDown");
  CHECK(s.alerts[0].condition.metric == "traintwin_nodes_down");
  CHECK(s.alerts[0].for_duration == Seconds(60));
  CHECK(s.alerts[0].severity == "critical");
  CHECK(s.alerts[0].labels.at("team") == "infra");
  CHECK(s.alerts[1].condition.aggregation == Aggregation::Min);
  CHECK(s.alerts[1].condition.op == CompareOp::Eq);
  CHECK(s.alerts[1].condition.matchers == std::vector<LabelMatcher>{{"job_name", true, "train"}});
  CHECK(s.alerts[1].severity == "warning");  // the default
  CHECK(s.alerts[1].for_duration == Seconds(0));
  REQUIRE(s.checks.size() == 2);
  CHECK(s.checks[0].alert == "NodeDown");
  CHECK(s.checks[0].value == 120);
  CHECK(s.checks[0].name == "alert.time_to_fire(NodeDown) <= 2m");
  json plain = base();
  plain.erase("telemetry");
  CHECK(read_scenario(plain, "alerts.json").telemetry.interval == Seconds(60));  // the default
}

TEST_CASE("scenario alerts: bad rules are InputErrors naming the pointer", "[unit][io]") {
  json d = base();
  d["alerts"][0]["expr"] = "traintwin_node_down > 0";
  expect_error(d, "/alerts/0/expr", "did you mean \"traintwin_nodes_down\"");
  d = base();
  d["alerts"][1]["metric"] = "gpu_temp";
  expect_error(d, "/alerts/1/metric", "a metric of traintwin's catalogue");
  d = base();
  d["alerts"][1]["match"] = {{"node", "n0"}};
  expect_error(d, "/alerts/1/match", "label matchers on the labels of traintwin_job_alive (job_name, queue)");
  d = base();
  d["alerts"][0]["expr"] = "traintwin_nodes_down >";
  expect_error(d, "/alerts/0/expr", "at character 23: expected a number");
  d = base();
  d["alerts"][0]["metric"] = "traintwin_nodes_down";
  expect_error(d, "/alerts/0", "found both");
  d = base();
  d["alerts"][1]["aggregation"] = "median";
  expect_error(d, "/alerts/1/aggregation", "an aggregation (sum, max, min, avg, count)");
  d = base();
  d["alerts"][0]["severity"] = "page";
  expect_error(d, "/alerts/0/severity", "a severity (info, warning, critical)");
  d = base();
  d["alerts"][0]["for"] = "-1m";
  expect_error(d, "/alerts/0/for", "non-negative");
  d = base();
  d["alerts"][1]["name"] = "NodeDown";
  expect_error(d, "/alerts/1/name", "already /alerts/0");
  d = base();
  d["alerts"][0]["name"] = "node-down";
  expect_error(d, "/alerts/0/name", "letters, digits and underscores");
  d = base();
  d["alerts"][0]["labels"] = {{"severity", "x"}};
  expect_error(d, "/alerts/0/labels/severity", "neither \"alertname\" nor \"severity\"");
  d = base();
  d["alerts"][0]["fire_after"] = "1m";
  expect_error(d, "/alerts/0/fire_after", "a known key");
  d = base();
  d["telemetry"]["interval"] = "0s";
  expect_error(d, "/telemetry/interval", "greater than zero");
}

TEST_CASE("scenario alerts: alert checks must name a rule", "[unit][io]") {
  json d = base();
  d["checks"][0]["alert"] = "NodeDwn";
  expect_error(d, "/checks/0/alert", "did you mean \"NodeDown\"");
  d = base();
  d["checks"][1].erase("alert");
  expect_error(d, "/checks/1/alert", "");
  d = base();
  d["checks"].push_back({{"metric", "cluster.failures"}, {"alert", "NodeDown"}, {"value", 0}});
  d["checks"][2]["op"] = "==";
  expect_error(d, "/checks/2/alert", "only alert.* metrics take one");
}
