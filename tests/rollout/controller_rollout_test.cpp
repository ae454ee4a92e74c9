// The rollout policy driven by hand-written events, no backend: the first step drains and reimages, the canary and
// baseline copies start on their nodes, samples are judged at the end of the window, and a slower canary is rolled
// back (drain, reimage to the old release) while an equal one is promoted to the next step.
#include <catch2/catch.hpp>
#include <set>

#include "core/control/controller.hpp"
#include "core/io/scenario_reader.hpp"

using namespace tt;

namespace {

struct Rig {
  Scenario sc = read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/rollout-good.json");
  std::unique_ptr<Controller> c;
  std::vector<Action> seen;
  Seconds now;

  Rig() { c = std::make_unique<Controller>(sc); }
  std::vector<Action> at(Seconds t, const Event& e) {
    now = t;
    auto a = c->handle(e, t);
    seen.insert(seen.end(), a.begin(), a.end());
    return a;
  }
  // Timers up to `until` (each deadline in turn), with `before` called first at each.
  void run_until(Seconds until, const std::function<void(Seconds)>& before = {}) {
    while (auto d = c->next_deadline()) {
      if (*d > until) break;
      if (before) before(*d);
      at(*d, Timer{});
    }
  }
  bool decided(const std::string& kind) const {
    for (const auto& d : c->record().decisions)
      if (d.kind == kind) return true;
    return false;
  }
  template <class A>
  std::vector<A> actions() const {
    std::vector<A> out;
    for (const auto& a : seen)
      if (const auto* x = std::get_if<A>(&a)) out.push_back(*x);
    return out;
  }
};

// Runs the first step to its canary launch; returns the canary's and the baseline's launches.
std::pair<Launch, Launch> to_canary(Rig& r) {
  const auto& p = *r.sc.rollout.plan;
  r.at(Seconds(0), Timer{});
  r.run_until(p.start + p.drain);
  auto reimages = r.actions<Reimage>();
  REQUIRE(reimages.size() == 2);
  CHECK(reimages[0].release == "2027.02");
  CHECK(reimages[0].duration == p.reimage);
  std::set<int> nodes;
  for (const auto& x : reimages) nodes.insert(x.node);
  CHECK(nodes == std::set<int>{0, 1});
  CHECK(r.decided("rollout_start"));
  CHECK(r.decided("drain"));  // pretrain-70b was packed onto n0..n7
  r.seen.clear();
  const Seconds done = p.start + p.drain + p.reimage;
  r.at(done, NodeReimaged{0, "2027.02"});
  r.at(done, NodeReimaged{1, "2027.02"});
  std::optional<Launch> canary, baseline;
  for (const auto& l : r.actions<Launch>()) {
    if (l.job == p.canary.job) canary = l;
    if (l.job == p.canary.baseline_job) baseline = l;
  }
  REQUIRE(canary);
  REQUIRE(baseline);
  CHECK(canary->gpus.front() == 0);
  CHECK(canary->gpus.back() == 15);
  CHECK(baseline->gpus.front() == 6 * 8);  // the pool's last two nodes
  return {*canary, *baseline};
}

void observe(Rig& r, const Launch& canary, const Launch& baseline, double canary_slowdown) {
  const auto& p = *r.sc.rollout.plan;
  std::int64_t it = 0;
  int k = 0;
  r.run_until(r.now + p.window, [&](Seconds t) {
    ++it;
    const double wiggle = 0.002 * ((k++ * 7) % 5);  // same for both sides
    r.at(t, JobProgress{canary.job, canary.attempt, it, Seconds(1.0 * canary_slowdown + wiggle)});
    r.at(t, JobProgress{baseline.job, baseline.attempt, it, Seconds(1.0 + wiggle)});
  });
}

}  // namespace

TEST_CASE("rollout: a slower canary fails the rank test and is rolled back", "[unit][rollout]") {
  Rig r;
  auto [canary, baseline] = to_canary(r);
  observe(r, canary, baseline, 1.05);
  REQUIRE(r.decided("rollout_rollback"));
  const auto& ro = *r.c->record().rollout;
  REQUIRE(ro.steps.size() == 1);
  CHECK(ro.steps[0].outcome == "rollback");
  CHECK_FALSE(ro.steps[0].verdicts[0].passed);
  CHECK(ro.steps[0].verdicts[0].canary_samples >= 10);
  CHECK(ro.outcome == "rolled back");
  // The copies are stopped and the upgraded nodes reimaged back after the drain.
  r.seen.clear();
  r.run_until(r.now + r.sc.rollout.plan->drain);
  auto back = r.actions<Reimage>();
  REQUIRE(back.size() == 2);
  CHECK(back[0].release == "2026.11");
  r.at(r.now + r.sc.rollout.plan->reimage, NodeReimaged{back[0].node, "2026.11"});
  r.at(r.now, NodeReimaged{back[1].node, "2026.11"});
  CHECK(r.decided("rollout_rolled_back"));
  CHECK(r.c->record().rollout->rolled_back_at);
}

TEST_CASE("rollout: an equal canary passes and the next step upgrades two more nodes", "[unit][rollout]") {
  Rig r;
  auto [canary, baseline] = to_canary(r);
  r.seen.clear();
  observe(r, canary, baseline, 1.0);
  REQUIRE(r.decided("rollout_promote"));
  CHECK_FALSE(r.decided("rollout_rollback"));
  r.run_until(r.now + r.sc.rollout.plan->drain);
  std::set<int> nodes;
  for (const auto& x : r.actions<Reimage>()) nodes.insert(x.node);
  CHECK(nodes == std::set<int>{2, 3});
  CHECK(r.c->record().rollout->steps.size() == 2);
}

TEST_CASE("rollout: scenarios without one decide exactly as before", "[unit][rollout]") {
  const Scenario sc = read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json");
  CHECK_FALSE(sc.rollout.enabled());
  CHECK_FALSE(sc.rollout.noise.enabled());
  Controller c(sc);
  c.handle(Timer{}, Seconds(0));
  CHECK_FALSE(c.record().rollout);
}
