#include "core/telemetry/alert_evaluator.hpp"

#include <catch2/catch.hpp>

using namespace tt;

namespace {

AlertSpec rule(const std::string& name, Aggregation agg, CompareOp op, double threshold, double for_s) {
  AlertSpec a;
  a.name = name;
  a.condition = {std::string(metric::kQueueLength), {}, agg, op, threshold};
  a.for_duration = Seconds(for_s);
  a.severity = "warning";
  return a;
}

}  // namespace

TEST_CASE("alert evaluator: pending, then firing exactly at active-since + for, then resolved", "[unit][telemetry]") {
  std::vector<AlertSpec> rules = {rule("Backlog", Aggregation::Sum, CompareOp::Gt, 2, 300)};
  AlertEvaluator ev(rules);
  MetricRegistry r;
  SeriesId q = r.add(metric::kQueueLength, {{"queue", "a"}});
  r.set(q, 1);
  CHECK(ev.evaluate(r, Seconds(0)).empty());
  CHECK_FALSE(ev.next_deadline());
  r.set(q, 3);
  CHECK(ev.evaluate(r, Seconds(100.25)).empty());  // pending
  REQUIRE(ev.next_deadline());
  CHECK(*ev.next_deadline() == Seconds(400.25));
  CHECK(ev.evaluate(r, Seconds(400)).empty());
  auto fired = ev.evaluate(r, *ev.next_deadline());
  REQUIRE(fired.size() == 1);
  CHECK(fired[0].fired);
  CHECK(fired[0].value == 3);
  CHECK(fired[0].active_since == Seconds(100.25));
  CHECK(ev.firing(0) == 1);
  CHECK_FALSE(ev.next_deadline());  // firing: nothing left to time
  CHECK(ev.evaluate(r, Seconds(500)).empty());  // still firing: no second transition
  r.set(q, 2);
  auto resolved = ev.evaluate(r, Seconds(600));
  REQUIRE(resolved.size() == 1);
  CHECK_FALSE(resolved[0].fired);
  CHECK(ev.firing(0) == 0);
}

TEST_CASE("alert evaluator: a condition shorter than `for` never fires; for 0 fires at once", "[unit][telemetry]") {
  std::vector<AlertSpec> rules = {rule("Slow", Aggregation::None, CompareOp::Ge, 1, 60),
                                  rule("Now", Aggregation::None, CompareOp::Ge, 1, 0)};
  AlertEvaluator ev(rules);
  MetricRegistry r;
  SeriesId a = r.add(metric::kQueueLength, {{"queue", "a"}});
  SeriesId b = r.add(metric::kQueueLength, {{"queue", "b"}});
  r.set(a, 1);
  r.set(b, 0);
  auto t = ev.evaluate(r, Seconds(10));
  REQUIRE(t.size() == 1);  // Now fires for queue a; Slow is pending
  CHECK(t[0].rule == 1);
  CHECK(t[0].labels == LabelSet{{"queue", "a"}});
  r.set(a, 0);
  t = ev.evaluate(r, Seconds(40));
  REQUIRE(t.size() == 1);  // Now resolves; the pending Slow is dropped without a transition
  CHECK(t[0].rule == 1);
  CHECK_FALSE(t[0].fired);
  CHECK_FALSE(ev.next_deadline());
  r.set(a, 1);
  r.set(b, 1);  // per-series instances: each has its own pending time
  ev.evaluate(r, Seconds(50));
  r.clear(a);  // an absent series resolves like a false condition
  t = ev.evaluate(r, Seconds(110));
  int fired = 0, resolved = 0;
  for (const auto& x : t) (x.fired ? fired : resolved) += 1;
  CHECK(fired == 1);     // Slow for b (pending since 50)
  CHECK(resolved == 1);  // Now for a
}
