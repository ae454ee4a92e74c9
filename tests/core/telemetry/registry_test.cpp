#include "core/telemetry/registry.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "core/telemetry/exposition.hpp"
#include "core/telemetry/metric_catalogue.hpp"

using namespace tt;

TEST_CASE("metric catalogue: unique Prometheus names, counters end in _total, per-job series carry job_name",
          "[unit][telemetry]") {
  std::set<std::string_view> seen;
  for (const auto& m : metric::catalogue()) {
    CHECK(seen.insert(m.name).second);
    CHECK(m.name.rfind("traintwin_", 0) == 0);
    const bool total = m.name.size() > 6 && m.name.substr(m.name.size() - 6) == "_total";
    CHECK(total == (m.type == metric::Type::Counter));
    for (auto l : m.labels) CHECK(l != "job");  // reserved for the scrape target
    CHECK(!m.help.empty());
  }
  for (auto name : {metric::kJobState, metric::kJobAlive, metric::kJobRestarts, metric::kJobGpuMemory,
                    metric::kCheckpointDuration})
    CHECK(metric::find(name)->labels.front() == "job_name");
  CHECK(metric::find("traintwin_no_such_metric") == nullptr);
}

TEST_CASE("registry: series are absent until set, updated by id, cleared back to absent", "[unit][telemetry]") {
  MetricRegistry r;
  SeriesId up = r.add(metric::kNodesUp, {});
  SeriesId q1 = r.add(metric::kQueueLength, {{"queue", "a"}});
  SeriesId q2 = r.add(metric::kQueueLength, {{"queue", "b \"x\""}});
  CHECK_FALSE(r.present(up));
  CHECK(exposition_text(r).empty());  // a family with no present series is left out entirely
  r.set(up, 15);
  r.set(q1, 2);
  r.set(q2, 0.25);
  CHECK(r.value(q1) == 2);
  CHECK(r.family(metric::kQueueLength)->series.size() == 2);
  const std::string text = exposition_text(r);
  CHECK_THAT(text, Catch::Contains("# TYPE traintwin_nodes_up gauge\ntraintwin_nodes_up 15\n"));
  CHECK_THAT(text, Catch::Contains("traintwin_queue_length{queue=\"a\"} 2\n"));
  CHECK_THAT(text, Catch::Contains("traintwin_queue_length{queue=\"b \\\"x\\\"\"} 0.25\n"));
  // HELP and TYPE once per family, before its series.
  CHECK(text.find("# HELP traintwin_queue_length") < text.find("traintwin_queue_length{queue=\"a\"}"));
  r.clear(q1);
  CHECK_FALSE(r.present(q1));
  CHECK_THAT(exposition_text(r), !Catch::Contains("queue=\"a\""));
  CHECK_THAT(exposition_text(r, {metric::kQueueLength}), !Catch::Contains("traintwin_queue_length"));
}

TEST_CASE("exposition numbers: shortest round trip and the special values", "[unit][telemetry]") {
  CHECK(exposition_number(0) == "0");
  CHECK(exposition_number(3) == "3");
  CHECK(exposition_number(0.1) == "0.1");
  CHECK(exposition_number(1e21) == "1e+21");
  CHECK(exposition_number(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(exposition_number(std::nan("")) == "NaN");
}
