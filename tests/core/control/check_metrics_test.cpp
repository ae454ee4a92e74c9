#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "core/control/check_metrics.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;

namespace {

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// The cells of each row of the first table after `heading` whose header row starts with `first_column`.
std::vector<std::vector<std::string>> doc_table(const std::string& path, const std::string& heading,
                                                const std::string& first_column) {
  std::ifstream in(path);
  REQUIRE(in);
  std::string line;
  while (std::getline(in, line) && line != heading) {
  }
  while (std::getline(in, line) && line.rfind("| " + first_column + " ", 0) != 0) {
  }
  std::getline(in, line);  // |---|---|
  std::vector<std::vector<std::string>> rows;
  while (std::getline(in, line) && line.rfind("|", 0) == 0) {
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    for (std::string cell; std::getline(ss, cell, '|');) cells.push_back(trim(cell));
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("check metrics: docs/scenario-format.md lists exactly the table, row for row", "[unit][control]") {
  auto rows = doc_table(std::string(TT_SOURCE_DIR) + "/docs/scenario-format.md", "## Checks", "metric");
  auto metrics = check_metrics();
  REQUIRE(rows.size() == metrics.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const CheckMetric& m = metrics[i];
    INFO("row " << i << ": " << m.name);
    REQUIRE(rows[i].size() == 4);
    CHECK(rows[i][0] == "`" + std::string(m.name) + "`");
    CHECK(rows[i][1] == value_text(m.unit));
    CHECK(rows[i][2] == to_string(m.better));
    CHECK(rows[i][3] == m.description);
  }
}

TEST_CASE("check metrics: names are unique, carry their scope's prefix and time metrics are durations",
          "[unit][control]") {
  std::set<std::string_view> names;
  for (const auto& m : check_metrics()) {
    INFO(m.name);
    CHECK(names.insert(m.name).second);
    const char* prefix = m.scope == MetricScope::Job     ? "job."
                         : m.scope == MetricScope::Alert ? "alert."
                         : m.scope == MetricScope::Queue ? "queue."
                                                         : "cluster.";
    CHECK(m.name.rfind(prefix, 0) == 0);
    CHECK(m.measure != nullptr);
    CHECK(find_check_metric(m.name) == &m);
    CHECK(is_time_metric(std::string(m.name)) == (m.unit == MetricUnit::Duration));
  }
  CHECK(find_check_metric("job.finish") == nullptr);
  CHECK_FALSE(is_time_metric("job.finish"));
}

TEST_CASE("check metrics: measured through the table, for the job named", "[unit][control]") {
  RunRecord r;
  JobRecord a;
  a.name = "a", a.state = JobStatus::Completed, a.end = Seconds(100), a.first_start = Seconds(10), a.restarts = 2;
  JobRecord b;
  b.name = "b", b.state = JobStatus::Running, b.first_start = Seconds(20);
  r.jobs = {a, b};
  r.goodput = 0.75;
  CHECK(measure_metric(r, "job.end", "a") == 100.0);
  CHECK_FALSE(measure_metric(r, "job.end", "b"));  // not completed
  CHECK(measure_metric(r, "job.start", "b") == 20.0);
  CHECK(measure_metric(r, "job.restarts", "a") == 2.0);
  CHECK_FALSE(measure_metric(r, "job.restarts", "c"));     // no such job
  CHECK_FALSE(measure_metric(r, "cluster.makespan", ""));  // not every job completed
  CHECK(measure_metric(r, "cluster.unfinished_jobs", "") == 1.0);
  CHECK(measure_metric(r, "cluster.goodput", "") == 0.75);
  CHECK_FALSE(measure_metric(r, "cluster.nothing", ""));
  r.jobs[1].state = JobStatus::Completed, r.jobs[1].end = Seconds(300);
  CHECK(measure_metric(r, "cluster.makespan", "") == 300.0);
}

TEST_CASE("check metrics: the scenario reader takes every metric of the table, with its scope's subject and unit",
          "[unit][control][io]") {
  const char* const kScenario = R"({
    "name": "metrics", "queues": [{"name": "q", "gpu_quota": 8}],
    "topology": {"name": "one", "generator": "rail-optimized", "gpu": "H100-SXM", "nodes": 1, "gpus_per_node": 8,
                 "nic_bandwidth": "400Gbps", "nodes_per_group": 1,
                 "storage": {"bandwidth": "200GB/s"}},
    "jobs": [{"name": "j", "queue": "q", "gpus": 8, "model": "llama3-8b", "parallel": {"tp": 8}, "iterations": 10,
              "global_batch": 8, "seq_len": 1024}],
    "alerts": [{"name": "A", "expr": "sum(traintwin_nodes_down) > 0"}]
  })";
  for (const auto& m : check_metrics()) {
    INFO(m.name);
    nlohmann::json doc = parse_json_text(kScenario, "metrics.json");
    nlohmann::json check = {{"metric", m.name}, {"op", "<="}};
    if (m.scope == MetricScope::Job) check["job"] = "j";
    if (m.scope == MetricScope::Alert) check["alert"] = "A";
    if (m.scope == MetricScope::Queue) check["queue"] = "q";
    const double expected = m.unit == MetricUnit::Duration ? 3600 : m.unit == MetricUnit::Ratio ? 0.5 : 3;
    check["value"] = m.unit == MetricUnit::Duration ? nlohmann::json("1h") : nlohmann::json(expected);
    doc["checks"] = nlohmann::json::array({check});
    Scenario s = read_scenario(doc, "metrics.json");
    REQUIRE(s.checks.size() == 1);
    CHECK(s.checks[0].metric == m.name);
    CHECK(s.checks[0].value == expected);
    CHECK(s.checks[0].job == (m.scope == MetricScope::Job ? "j" : ""));
    CHECK(s.checks[0].alert == (m.scope == MetricScope::Alert ? "A" : ""));
    CHECK(s.checks[0].queue == (m.scope == MetricScope::Queue ? "q" : ""));
  }
}
