#include "core/telemetry/alert_evaluator.hpp"

#include <catch2/catch.hpp>
#include <map>

#include "core/telemetry/alert_expr.hpp"

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

TEST_CASE("alert evaluator: a condition shorter than `for` never fires, for 0 fires at once", "[unit][telemetry]") {
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

namespace {

// The evaluator as it was before it went incremental: every rule over every series at every evaluation.
struct FullEvaluator {
  struct Inst {
    Seconds since;
    double value;
    bool firing;
  };
  const std::vector<AlertSpec>& rules;
  std::vector<std::map<LabelSet, Inst>> active = std::vector<std::map<LabelSet, Inst>>(rules.size());
  std::vector<AlertTransition> evaluate(const MetricRegistry& r, Seconds now) {
    std::vector<AlertTransition> out;
    for (std::size_t k = 0; k < rules.size(); ++k) {
      auto holding = alert_values(rules[k].condition, r);
      std::map<LabelSet, double> now_active(holding.begin(), holding.end());
      for (auto it = active[k].begin(); it != active[k].end();) {
        if (now_active.count(it->first)) {
          ++it;
          continue;
        }
        if (it->second.firing) out.push_back({int(k), it->first, it->second.value, false, it->second.since});
        it = active[k].erase(it);
      }
      for (const auto& [labels, value] : now_active) {
        auto [it, fresh] = active[k].try_emplace(labels, Inst{now, value, false});
        it->second.value = value;
        if (!it->second.firing && now >= it->second.since + rules[k].for_duration) {
          it->second.firing = true;
          out.push_back({int(k), labels, value, true, it->second.since});
        }
      }
    }
    return out;
  }
};

}  // namespace

TEST_CASE("alert evaluator: incremental evaluation gives the transitions of a full one", "[unit][telemetry]") {
  std::vector<AlertSpec> rules = {rule("Each", Aggregation::None, CompareOp::Gt, 5, 0),
                                  rule("EachFor", Aggregation::None, CompareOp::Ge, 3, 40),
                                  rule("Sum", Aggregation::Sum, CompareOp::Gt, 60, 25),
                                  rule("Max", Aggregation::Max, CompareOp::Ge, 9, 0),
                                  rule("Count", Aggregation::Count, CompareOp::Lt, 15, 10)};
  rules[1].condition.matchers = {{"queue", false, "q3"}};  // every queue but q3
  AlertEvaluator incremental(rules);
  FullEvaluator full{rules};
  MetricRegistry r;
  std::vector<SeriesId> ids;
  for (int i = 0; i < 20; ++i) ids.push_back(r.add(metric::kQueueLength, {{"queue", "q" + std::to_string(i)}}));
  std::uint64_t state = 12345;
  auto next = [&](int n) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int>((state >> 33) % static_cast<std::uint64_t>(n));
  };
  int transitions = 0;
  for (int step = 0; step < 2000; ++step) {
    const Seconds now(step * 7.0);
    for (int k = next(4); k >= 0; --k) {  // a few series change, some vanish
      const SeriesId id = ids[next(20)];
      if (next(10) == 0)
        r.clear(id);
      else
        r.set(id, next(11));
    }
    auto a = incremental.evaluate(r, now);
    r.clear_changes();
    auto b = full.evaluate(r, now);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      INFO("step " << step << " transition " << i);
      CHECK(a[i].rule == b[i].rule);
      CHECK(a[i].labels == b[i].labels);
      CHECK(a[i].value == b[i].value);
      CHECK(a[i].fired == b[i].fired);
      CHECK(a[i].active_since == b[i].active_since);
    }
    for (int k = 0; k < static_cast<int>(rules.size()); ++k) {
      int firing = 0;
      for (const auto& [labels, inst] : full.active[k]) firing += inst.firing;
      CHECK(incremental.firing(k) == firing);
    }
    transitions += static_cast<int>(a.size());
  }
  CHECK(transitions > 100);  // the sequence exercises the state machine
}

TEST_CASE("metric registry: a change is listed once until cleared, an unchanged value is no change",
          "[unit][telemetry]") {
  MetricRegistry r;
  SeriesId a = r.add(metric::kQueueLength, {{"queue", "a"}});
  SeriesId b = r.add(metric::kQueueLength, {{"queue", "b"}});
  const auto& fam = r.families()[a.family];
  r.set(a, 1);
  r.set(a, 2);
  r.set(b, 0);
  CHECK(fam.changes == std::vector<int>{0, 1});
  CHECK(r.updates() == 3);
  r.clear_changes();
  CHECK(fam.changes.empty());
  r.set(a, 2);  // same value
  CHECK(fam.changes.empty());
  r.clear(b);
  CHECK(fam.changes == std::vector<int>{1});
  r.clear(b);  // already absent
  CHECK(r.updates() == 4);
}
