// Scenario-level scheduling outcomes, driven through the Controller by the SyntheticDriver (jobs end at their
// declared run time): borrowing, lending limits, reclaim, priority preemption, backfill, topology constraints.
#include <catch2/catch.hpp>
#include <set>

#include "core/control/controller.hpp"
#include "core/control/synthetic_driver.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::rail_cluster;
using tt::testing::scenario;

namespace {

JobSpec timed(const std::string& name, const std::string& queue, int gpus, double runtime_s, double submit_s = 0,
              int priority = 0) {
  JobSpec j = testing::job(name, queue, gpus, priority, submit_s);
  j.estimated_runtime = Seconds(runtime_s);
  return j;
}

QueueSpec cohort_queue(const std::string& name, int quota, std::optional<int> borrow = {},
                       std::optional<int> lend = {}) {
  QueueSpec q{name, quota};
  q.cohort = "c";
  q.borrowing_limit = borrow;
  q.lending_limit = lend;
  return q;
}

struct Run {
  Scenario sc;
  Controller c;
  SyntheticDriver d;
  explicit Run(Scenario s) : sc(std::move(s)), c(sc), d(sc, c) {}
  const JobRecord& job(const std::string& name) const {
    for (const auto& j : c.record().jobs)
      if (j.name == name) return j;
    FAIL("no job " << name);
    throw;
  }
  int index(const std::string& name) const {
    for (std::size_t i = 0; i < sc.jobs.size(); ++i)
      if (sc.jobs[i].name == name) return static_cast<int>(i);
    return -1;
  }
  // Steps until `t` (events at `t` included).
  void until(double t) {
    while (true) {
      auto dl = c.next_deadline();
      (void)dl;
      if (!d.step()) break;
      if (d.now() >= Seconds(t)) break;
    }
  }
  double start(const std::string& name) const { return job(name).first_start ? job(name).first_start->value : -1; }
};

const Decision* find(const RunRecord& r, const std::string& kind, const std::string& job) {
  for (const auto& d : r.decisions)
    if (d.kind == kind && d.job == job) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("quota: a queue borrows its cohort's idle quota, up to its borrowing limit", "[unit][sched][control]") {
  auto jobs = std::vector<JobSpec>{timed("a1", "a", 8, 100), timed("a2", "a", 8, 100), timed("a3", "a", 8, 100)};
  SECTION("no limit: the third job borrows from b") {
    Run r(scenario(rail_cluster(4), {cohort_queue("a", 16), cohort_queue("b", 16)}, jobs));
    r.d.inject(Timer{}, Seconds(0));
    CHECK(r.c.queue_usage()[0] == 24);
    CHECK(r.c.record().jobs[2].state == JobStatus::Running);
  }
  SECTION("borrowing_limit 0: the third job waits on quota") {
    Run r(scenario(rail_cluster(4), {cohort_queue("a", 16, 0), cohort_queue("b", 16)}, jobs));
    r.d.inject(Timer{}, Seconds(0));
    CHECK(r.c.queue_usage()[0] == 16);
    CHECK_THAT(r.c.pending_reason(2),
               Catch::Contains("quota of queue a exhausted: 16 GPUs in use of a nominal 16 (0 borrowed"));
  }
  SECTION("a queue in no cohort never borrows") {
    Run r(scenario(rail_cluster(4), {{"a", 16}, {"b", 16}}, jobs));
    r.d.inject(Timer{}, Seconds(0));
    CHECK(r.c.queue_usage()[0] == 16);
    CHECK_THAT(r.c.pending_reason(2), Catch::StartsWith("quota of queue a exhausted"));
  }
}

TEST_CASE("quota: a lending limit keeps part of the lender's quota to itself", "[unit][sched][control]") {
  std::vector<JobSpec> jobs;
  for (int i = 0; i < 4; ++i) jobs.push_back(timed("a" + std::to_string(i), "a", 8, 100));
  SECTION("lending_limit 8: a may borrow 8, not 16") {
    Run r(scenario(rail_cluster(4), {cohort_queue("a", 16), cohort_queue("b", 16, {}, 8)}, jobs));
    r.d.inject(Timer{}, Seconds(0));
    CHECK(r.c.queue_usage()[0] == 24);
    CHECK_THAT(r.c.pending_reason(3), Catch::Contains("(8 borrowed; 0 left in the cohort's pool)"));
  }
  SECTION("lending_limit 0: nothing to borrow") {
    Run r(scenario(rail_cluster(4), {cohort_queue("a", 16), cohort_queue("b", 16, {}, 0)}, jobs));
    r.d.inject(Timer{}, Seconds(0));
    CHECK(r.c.queue_usage()[0] == 16);
  }
}

TEST_CASE("reclaim: a queue under its quota takes back what another borrowed, most recently admitted first",
          "[unit][sched][control]") {
  QueueSpec b = cohort_queue("b", 16);
  b.reclaim = ReclaimPreemption::Any;
  Scenario s = scenario(
      rail_cluster(4), {cohort_queue("a", 16), b},
      {timed("a1", "a", 8, 1000), timed("a2", "a", 8, 1000), timed("a3", "a", 8, 1000), timed("b1", "b", 16, 100, 10)});
  Run r(std::move(s));
  r.d.inject(Timer{}, Seconds(0));
  REQUIRE(r.c.queue_usage()[0] == 24);
  r.d.inject(CheckpointDone{1, 1, 100, Seconds(1), Seconds(1)}, Seconds(8));  // a2 checkpointed last: it does not matter
  auto actions = r.d.inject(Timer{}, Seconds(10));
  int kills = 0, launches = 0;
  for (const auto& a : actions) {
    if (auto* k = std::get_if<Kill>(&a)) {
      ++kills;
      CHECK(k->job == 2);  // a1, a2, a3 admitted in that order at 0 s: a3 is the most recent
    }
    if (auto* l = std::get_if<Launch>(&a)) {
      ++launches;
      CHECK(l->job == 3);
    }
  }
  CHECK(kills == 1);
  CHECK(launches == 1);
  CHECK(r.c.queue_usage()[0] == 16);  // a is back at its quota, never below
  CHECK(r.c.queue_usage()[1] == 16);
  const Decision* p = find(r.c.record(), "preempt", "a3");
  REQUIRE(p);
  CHECK_THAT(p->reason, Catch::Contains("by b1"));
  CHECK_THAT(p->reason, Catch::Contains("reclaims"));
  CHECK_THAT(r.c.pending_reason(2), Catch::Equals("preempted by b1"));
  // When b1 ends, a3 runs again (from the start: it never checkpointed).
  r.d.run(Seconds(1e6));
  const JobRecord& a3 = r.job("a3");
  CHECK(a3.state == JobStatus::Completed);
  CHECK(a3.preemptions == 1);
  REQUIRE(a3.segments.size() == 2);
  CHECK(a3.segments[0].outcome == "preempted");
  CHECK(a3.segments[1].start_iteration == 0);
  CHECK(a3.pending_by_reason.count("preempted"));
  CHECK(r.job("a2").preemptions == 0);
}

TEST_CASE("reclaim: a queue that does not borrow is never preempted", "[unit][sched][control]") {
  QueueSpec b = cohort_queue("b", 16);
  b.reclaim = ReclaimPreemption::Any;
  // a holds exactly its quota; the rest of the cluster is held by x, outside the cohort.
  Scenario s = scenario(rail_cluster(4), {cohort_queue("a", 16), b, {"x", 16}},
                        {timed("a1", "a", 16, 1000), timed("x1", "x", 16, 500), timed("b1", "b", 16, 100, 10)});
  Run r(std::move(s));
  r.d.inject(Timer{}, Seconds(0));
  r.d.inject(Timer{}, Seconds(10));
  CHECK(r.c.record().jobs[0].preemptions == 0);
  CHECK_THAT(r.c.pending_reason(2), Catch::Contains("waiting for 2 whole nodes"));
  r.d.run(Seconds(1e6));
  CHECK(r.start("b1") == 500);
}

TEST_CASE("priority preemption within a queue: the higher priority job runs, the victim resumes later",
          "[unit][sched][control]") {
  QueueSpec q{"q", 16};
  q.within_queue = WithinQueuePreemption::LowerPriority;
  Scenario s = scenario(rail_cluster(2), {q},
                        {timed("low1", "q", 8, 1000), timed("low2", "q", 8, 1000), timed("high", "q", 8, 100, 10, 5),
                         timed("peer", "q", 8, 100, 20, 0)});
  Run r(std::move(s));
  r.d.inject(Timer{}, Seconds(0));
  r.d.inject(CheckpointDone{1, 1, 200, Seconds(1), Seconds(1)}, Seconds(9));  // low2, admitted after low1, is the victim
  r.d.inject(Timer{}, Seconds(10));
  REQUIRE(find(r.c.record(), "preempt", "low2"));
  CHECK(r.c.record().jobs[2].state == JobStatus::Running);
  // Equal priority never preempts.
  r.d.inject(Timer{}, Seconds(20));
  CHECK(r.c.record().jobs[0].preemptions == 0);
  CHECK(r.c.record().jobs[3].state == JobStatus::Pending);
  r.d.run(Seconds(1e6));
  CHECK(r.job("low2").segments.back().start_iteration == 200);
  CHECK(r.start("low2") == 0);
  CHECK(r.job("low2").state == JobStatus::Completed);
}

TEST_CASE("preemption exempt time: a job that started recently is not a victim", "[unit][sched][control]") {
  QueueSpec q{"q", 8};
  q.within_queue = WithinQueuePreemption::LowerPriority;
  Scenario s = scenario(rail_cluster(1), {q}, {timed("low", "q", 8, 5000), timed("high", "q", 8, 100, 60, 5)});
  s.scheduler.preemption_exempt_time = Seconds(600);
  Run r(std::move(s));
  r.d.inject(Timer{}, Seconds(0));
  r.d.inject(Timer{}, Seconds(60));  // low started 60 s ago: exempt
  CHECK_FALSE(find(r.c.record(), "preempt", "low"));
  CHECK(r.c.record().jobs[1].state == JobStatus::Pending);
  r.d.inject(Timer{}, Seconds(600));  // now it has run for the exempt time: it can be preempted
  CHECK(find(r.c.record(), "preempt", "low"));
  CHECK(r.c.record().jobs[1].state == JobStatus::Running);
}

// The scheduler parks an exempt job out of the preemption search once a search meets it, and takes it back when its
// exemption ends (core/sched/scheduler.hpp, RunningList): a parked job that ends leaves, a stale end is ignored, and
// the job whose exemption ended is a victim again at that instant.
TEST_CASE("preemption exempt time: exempt jobs met by a search become victims when their exemption ends",
          "[unit][sched][control]") {
  QueueSpec q{"q", 16};
  q.within_queue = WithinQueuePreemption::LowerPriority;
  Scenario s = scenario(rail_cluster(2), {q},
                        {timed("low1", "q", 8, 300), timed("low2", "q", 8, 5000), timed("high", "q", 8, 5000, 60, 5),
                         timed("high2", "q", 8, 5000, 400, 5)});
  s.scheduler.preemption_exempt_time = Seconds(600);
  Run r(std::move(s));
  r.d.run(Seconds(1e6));
  // 60 s: high finds both lows exempt; 300 s: low1 ends and high takes its node; 400 s: high2 finds low2 still
  // exempt (and high of its own priority); 600 s: low2's exemption ends and high2 preempts it.
  CHECK(r.start("high") == 300);
  CHECK(r.start("high2") == 600);
  CHECK(find(r.c.record(), "preempt", "low2"));
  CHECK_FALSE(find(r.c.record(), "preempt", "low1"));
  CHECK(r.job("low1").state == JobStatus::Completed);
  CHECK(r.job("low2").state == JobStatus::Completed);
}

TEST_CASE("backfill: a job that ends before the reservation starts now, one that would delay it waits",
          "[unit][sched][control]") {
  auto make = [](bool backfill) {
    Scenario s = scenario(rail_cluster(4), {{"q", 64}},
                          {timed("A", "q", 24, 100), timed("H", "q", 32, 100, 1), timed("S1", "q", 8, 50, 2),
                           timed("S2", "q", 8, 500, 3)});
    s.scheduler.backfill = backfill;
    return s;
  };
  SECTION("EASY") {
    Run r(make(true));
    r.d.run(Seconds(1e6));
    CHECK(r.start("S1") == 2);    // ends at 52, before H's reservation at 100
    CHECK(r.start("H") == 100);   // never delayed
    CHECK(r.start("S2") == 200);  // would end at 503 on H's GPUs
    const JobRecord& s2 = r.job("S2");
    REQUIRE(s2.pending_by_reason.count("reservation"));
    // 3 -> 52 no GPU is free at all (S1 holds the last node); 52 -> 100 S1's node is H's; then it waits for H.
    CHECK(s2.pending_by_reason.at("capacity").value == Approx(49 + 100));
    CHECK(s2.pending_by_reason.at("reservation").value == Approx(48));
    Seconds sum;
    for (const auto& [k, v] : s2.pending_by_reason) sum += v;
    CHECK(sum.value == Approx(s2.wait.value));
    bool named = false;
    for (const auto& d : r.c.record().decisions)
      named |= d.kind == "pending" && d.job == "S2" &&
               d.reason.find("behind the reservation of H until 100 s") != std::string::npos;
    if (!named)
      for (const auto& d : r.c.record().decisions)
        UNSCOPED_INFO(d.t.value << " " << d.kind << " " << d.job << " " << d.reason);
    CHECK(named);
  }
  SECTION("none: small jobs wait behind the blocked head") {
    Run r(make(false));
    r.d.run(Seconds(1e6));
    CHECK(r.start("S1") == 200);
    CHECK(r.start("H") == 100);
    CHECK(r.job("S1").pending_by_reason.count("behind"));
  }
}

TEST_CASE("pending reasons: jobs waiting for the same reason share one copy of its text", "[unit][sched][control]") {
  // Backfill off: H blocks the queue; S1, S2 and S3 each wait "behind H (priority 0)", the same reason in the same
  // words, and the record holds that text once (Controller::Impl::reason_text).
  Scenario s = scenario(rail_cluster(4), {{"q", 64}},
                        {timed("A", "q", 24, 100), timed("H", "q", 32, 100, 1), timed("S1", "q", 8, 50, 2),
                         timed("S2", "q", 8, 50, 3), timed("S3", "q", 8, 50, 4)});
  s.scheduler.backfill = false;
  Run r(std::move(s));
  r.d.run(Seconds(1e6));
  std::set<const char*> texts;
  int behind = 0;
  for (const auto& d : r.c.record().decisions)
    if (d.kind == "pending" && d.reason.str().starts_with("behind H")) {
      ++behind;
      texts.insert(d.reason.c_str());
      CHECK(d.reason == "behind H (priority 0), which waits for capacity");
    }
  CHECK(behind == 3);
  CHECK(texts.size() == 1);
  // Copies share the text; an empty text holds nothing; equal texts compare equal however they were made.
  SharedText a("words"), b = a, c(std::string("words")), none;
  CHECK(a.c_str() == b.c_str());
  CHECK(a == c);
  CHECK(none.empty());
  CHECK(none.str().empty());
  CHECK(std::string("why: ") + a == "why: words");
}

TEST_CASE("backfill: a long job may start beside the reservation on GPUs it does not need", "[unit][sched][control]") {
  Scenario s = scenario(rail_cluster(4), {{"q", 64}},
                        {timed("A", "q", 16, 100), timed("B", "q", 8, 1000), timed("H", "q", 16, 100, 1),
                         timed("L", "q", 8, 1000, 2), timed("L2", "q", 8, 1000, 3)});
  s.scheduler.backfill = true;
  Run r(std::move(s));
  r.d.run(Seconds(1e6));
  // At t=1 one node is free; H (2 nodes) reserves A's two nodes at 100. L takes the free node, which H does not need.
  CHECK(r.start("L") == 2);
  CHECK(r.start("H") == 100);
  CHECK(r.start("L2") == 200);
}

TEST_CASE("topology: at most N leaf groups, relaxed after max_wait, preferred never waits", "[unit][sched][control]") {
  // Three groups of two nodes. B (spread) holds one node of each group until 1000, so the three free nodes lie in
  // three groups and T (two nodes, one group wanted) cannot have one group before B ends.
  auto run = [](TopologyConstraint t) {
    std::vector<JobSpec> jobs = {timed("B", "q", 24, 1000), timed("T", "q", 16, 100, 1)};
    jobs[1].topology = t;
    Scenario s = scenario(rail_cluster(6, 2), {{"q", 48}}, jobs);
    s.scheduler.placement = PlacementKind::Spread;
    auto r = std::make_unique<Run>(std::move(s));
    r->d.run(Seconds(1e6));
    return r;
  };
  auto groups = [](const Run& r, const std::string& name) {
    std::set<int> g;
    for (const auto& n : r.job(name).segments.front().nodes)
      g.insert(r.sc.topology.nodes()[r.sc.topology.find_node(n)].group);
    return g.size();
  };
  SECTION("required with max_wait: waits, then runs across groups once relaxed") {
    auto r = run({1, true, Seconds(300)});
    CHECK(groups(*r, "B") == 3);
    CHECK(r->start("T") == 301);  // relaxed 300 s after it was submitted
    CHECK(r->job("T").pending_by_reason.at("topology").value == Approx(300));
    CHECK(groups(*r, "T") == 2);
    const Decision* d = find(r->c.record(), "pending", "T");
    REQUIRE(d);
    CHECK_THAT(d->reason, Catch::Contains("in at most 1 leaf group(s)"));
    CHECK_THAT(d->reason, Catch::Contains("relaxed at 5m 01s"));
  }
  SECTION("required without max_wait: waits for a group to free up") {
    auto r = run({1, true, std::nullopt});
    CHECK(r->start("T") == 1000);
    CHECK(groups(*r, "T") == 1);
  }
  SECTION("preferred: runs at once across groups") {
    auto r = run({1, false, std::nullopt});
    CHECK(r->start("T") == 1);
    CHECK(groups(*r, "T") == 2);
  }
  SECTION("two groups allowed: runs at once") {
    auto r = run({2, true, std::nullopt});
    CHECK(r->start("T") == 1);
  }
}

TEST_CASE("StrictFIFO: a blocked head holds back its queue, BestEffortFIFO lets later jobs through",
          "[unit][sched][control]") {
  for (auto strategy : {QueueingStrategy::StrictFifo, QueueingStrategy::BestEffortFifo}) {
    QueueSpec q{"q", 64};
    q.strategy = strategy;
    Scenario s = scenario(rail_cluster(4), {q, {"other", 8}},
                          {timed("A", "q", 16, 100), timed("H", "q", 32, 100, 1), timed("S", "q", 8, 10, 2)});
    s.scheduler.backfill = true;
    Controller c(s);
    c.handle(Timer{}, Seconds(0));
    c.handle(Timer{}, Seconds(1));
    c.handle(Timer{}, Seconds(2));
    if (strategy == QueueingStrategy::StrictFifo) {
      CHECK(c.record().jobs[2].state == JobStatus::Pending);
      CHECK_THAT(c.pending_reason(2), Catch::Contains("blocked head of StrictFIFO queue q"));
    } else {
      CHECK(c.record().jobs[2].state == JobStatus::Running);
    }
  }
}

TEST_CASE("fair share: among equal priorities the queue that used less goes first", "[unit][sched][control]") {
  for (auto ordering : {QueueOrdering::Priority, QueueOrdering::FairShare}) {
    Scenario s = scenario(rail_cluster(1), {{"a", 8}, {"b", 8}},
                          {timed("a1", "a", 8, 1000), timed("a2", "a", 8, 100, 10), timed("b1", "b", 8, 100, 20)});
    s.scheduler.ordering = ordering;
    s.scheduler.fair_share_half_life = Seconds(3600);
    Controller c(s);
    SyntheticDriver d(s, c);
    d.run(Seconds(1e6));
    const auto& jobs = c.record().jobs;
    if (ordering == QueueOrdering::Priority)
      CHECK(jobs[1].first_start->value < jobs[2].first_start->value);
    else
      CHECK(jobs[2].first_start->value < jobs[1].first_start->value);
  }
}
