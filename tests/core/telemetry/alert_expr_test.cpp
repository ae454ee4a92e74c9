#include "core/telemetry/alert_expr.hpp"

#include <catch2/catch.hpp>

using namespace tt;

namespace {

AlertCondition parse(const std::string& text) {
  std::string error;
  auto c = parse_alert_expr(text, error);
  INFO(text << ": " << error);
  REQUIRE(c);
  return *c;
}

std::string error_of(const std::string& text) {
  std::string error;
  auto c = parse_alert_expr(text, error);
  CHECK_FALSE(c);
  return error;
}

// Three jobs' liveness: a (alive), b (dead), c (dead, other queue); d declared but absent.
MetricRegistry jobs_alive() {
  MetricRegistry r;
  r.set(r.add(metric::kJobAlive, {{"job_name", "a"}, {"queue", "q1"}}), 1);
  r.set(r.add(metric::kJobAlive, {{"job_name", "b"}, {"queue", "q1"}}), 0);
  r.set(r.add(metric::kJobAlive, {{"job_name", "c"}, {"queue", "q2"}}), 0);
  r.add(metric::kJobAlive, {{"job_name", "d"}, {"queue", "q2"}});
  return r;
}

}  // namespace

TEST_CASE("alert expr: PromQL subset parsed and written back the same", "[unit][telemetry]") {
  AlertCondition c = parse("sum(traintwin_job_alive{job_name=\"a\", queue!=\"q2\"}) <= 0.5");
  CHECK(c.metric == "traintwin_job_alive");
  CHECK(c.aggregation == Aggregation::Sum);
  REQUIRE(c.matchers.size() == 2);
  CHECK(c.matchers[0] == LabelMatcher{"job_name", true, "a"});
  CHECK(c.matchers[1] == LabelMatcher{"queue", false, "q2"});
  CHECK(c.op == CompareOp::Le);
  CHECK(c.threshold == 0.5);
  CHECK(to_promql(c) == "sum(traintwin_job_alive{job_name=\"a\",queue!=\"q2\"}) <= 0.5");
  for (const char* text : {"traintwin_nodes_down > 0", "count(traintwin_job_alive) != 3",
                           "traintwin_queue_length{queue=\"a\\\"b\"} >= 1e+21", "min(traintwin_gpus_up) < -2"})
    CHECK(to_promql(parse(text)) == text);
  CHECK(parse("traintwin_nodes_down>0") == parse("  traintwin_nodes_down   >   0 "));
}

// Found by fuzz/ (tests/data/fuzz/alert_expr/): "\n" in a label value was read as "n", so a value with a newline,
// which to_promql writes as "\n", changed on the way back.
TEST_CASE("alert expr: escapes in label values are PromQL's, and a newline survives to_promql and back",
          "[unit][telemetry]") {
  CHECK(parse("m{q=\"a\\nb\\tc\\\\d\\\"e\"} > 0").matchers[0].value == "a\nb\tc\\d\"e");
  const AlertCondition raw = parse("m{q=\"a\nb\"} > 0");  // a raw newline inside the quotes
  CHECK(raw.matchers[0].value == "a\nb");
  CHECK(to_promql(raw) == "m{q=\"a\\nb\"} > 0");
  CHECK(parse(to_promql(raw)) == raw);
}

TEST_CASE("alert expr: errors say where and what was expected", "[unit][telemetry]") {
  CHECK_THAT(error_of(""), Catch::Contains("at character 1: expected a metric name"));
  CHECK_THAT(error_of("rate(traintwin_nodes_down) > 0"), Catch::Contains("expected an aggregation"));
  CHECK_THAT(error_of("traintwin_nodes_down"), Catch::Contains("expected a comparison"));
  CHECK_THAT(error_of("traintwin_nodes_down > x"), Catch::Contains("expected a number"));
  CHECK_THAT(error_of("traintwin_nodes_down > 1 and"), Catch::Contains("at character 26: expected the end"));
  CHECK_THAT(error_of("traintwin_job_alive{job_name=~\"a.*\"} > 0"), Catch::Contains("regular expressions"));
  CHECK_THAT(error_of("sum(traintwin_gpus_up > 1"), Catch::Contains("\")\" closing the aggregation"));
}

TEST_CASE("alert values: label matching, one instance per series, absent series never match", "[unit][telemetry]") {
  MetricRegistry r = jobs_alive();
  auto dead = alert_values(parse("traintwin_job_alive == 0"), r);
  REQUIRE(dead.size() == 2);
  CHECK(dead[0].first == LabelSet{{"job_name", "b"}, {"queue", "q1"}});
  CHECK(dead[1].first == LabelSet{{"job_name", "c"}, {"queue", "q2"}});
  CHECK(alert_values(parse("traintwin_job_alive{queue=\"q2\"} == 0"), r).size() == 1);
  CHECK(alert_values(parse("traintwin_job_alive{queue!=\"q2\"} == 0"), r).size() == 1);
  CHECK(alert_values(parse("traintwin_job_alive{job_name=\"d\"} == 0"), r).empty());
  CHECK(alert_values(parse("traintwin_job_alive{job_name=\"zz\"} >= 0"), r).empty());
}

TEST_CASE("alert values: aggregations over the matching series", "[unit][telemetry]") {
  MetricRegistry r = jobs_alive();
  auto one = [&](const std::string& text) {
    auto v = alert_values(parse(text), r);
    REQUIRE(v.size() == 1);
    CHECK(v[0].first.empty());
    return v[0].second;
  };
  CHECK(one("sum(traintwin_job_alive) >= 0") == 1);
  CHECK(one("count(traintwin_job_alive) > 0") == 3);  // the absent series is not counted
  CHECK(one("max(traintwin_job_alive) > 0") == 1);
  CHECK(one("min(traintwin_job_alive) == 0") == 0);
  CHECK(one("avg(traintwin_job_alive{queue=\"q1\"}) == 0.5") == 0.5);
  CHECK(alert_values(parse("sum(traintwin_job_alive) > 1"), r).empty());  // the comparison filters
  CHECK(alert_values(parse("count(traintwin_job_alive{job_name=\"zz\"}) == 0"), r).empty());  // as in PromQL
}
