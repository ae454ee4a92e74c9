// Kueue's classical preemption and admission order, case by case. Each test takes its queues, admitted workloads and
// incoming workload from a named case of Kueue's own tests (kubernetes-sigs/kueue, pkg/scheduler/preemption/
// preemption_test.go TestPreemption, and pkg/scheduler/scheduler_test.go TestEntryOrdering) or from Kueue's
// documentation (site/content/en/docs/concepts/cluster_queue.md, preemption.md), and expects Kueue's answer.
// Kueue's cases count CPUs; here one CPU is one 8-GPU node, on a cluster larger than any cohort, so that quota alone
// decides, as in those cases.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "core/sched/scheduler.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;

namespace {

constexpr int kNode = 8;

struct Cq {
  std::string name;
  int nominal;  // CPUs of the Kueue case = nodes here
  std::string cohort = "";
  std::optional<int> borrowing_limit = {};
  std::optional<int> lending_limit = {};
  WithinQueuePreemption within = WithinQueuePreemption::Never;
  ReclaimPreemption reclaim = ReclaimPreemption::Never;
  bool borrow_within_cohort = false;
  std::optional<int> max_priority_threshold = {};
};

QueueSpec spec(const Cq& c) {
  QueueSpec q{c.name, c.nominal * kNode};
  q.cohort = c.cohort;
  if (c.borrowing_limit) q.borrowing_limit = *c.borrowing_limit * kNode;
  if (c.lending_limit) q.lending_limit = *c.lending_limit * kNode;
  q.within_queue = c.within;
  q.reclaim = c.reclaim;
  q.borrow_within_cohort = c.borrow_within_cohort;
  q.max_priority_threshold = c.max_priority_threshold;
  return q;
}

struct Wl {
  std::string name;
  std::string queue;
  int priority;
  int cpus;
};

// Runs the Kueue case: `admitted` start one after another (one pass each, a second apart, in the order given: the
// last is the most recently admitted); then `incoming` is queued and one pass runs.
class Case {
 public:
  Case(const std::vector<Cq>& queues, std::vector<Wl> workloads, SchedulerOptions options = {})
      : state_(testing::rail_cluster(64)), wls_(std::move(workloads)), sched_(make(queues, wls_, options)) {}

  void admit(const std::vector<std::string>& names) {
    for (const auto& n : names) {
      sched_.enqueue(index(n), Seconds(now_), Seconds(1e6));
      sched_.schedule(Seconds(now_), state_);
      REQUIRE(sched_.is_running(index(n)));
      now_ += 1;
    }
  }
  // Queues the job (at `queued_at`, default now) and runs a pass; returns the jobs it preempted.
  std::set<std::string> incoming(const std::string& name, std::optional<double> queued_at = {}) {
    now_ += 10;
    sched_.enqueue(index(name), Seconds(queued_at.value_or(now_)), Seconds(100));
    last_ = sched_.schedule(Seconds(now_), state_);
    std::set<std::string> out;
    for (const auto& p : last_.preemptions) out.insert(wls_[p.victim].name);
    return out;
  }
  bool running(const std::string& name) const { return sched_.is_running(index(name)); }
  const Scheduler& sched() const { return sched_; }
  const ScheduleResult& last() const { return last_; }
  std::vector<std::string> started() const {
    std::vector<std::string> out;
    for (const auto& s : last_.starts) out.push_back(wls_[s.job].name);
    return out;
  }
  int index(const std::string& name) const {
    for (std::size_t i = 0; i < wls_.size(); ++i)
      if (wls_[i].name == name) return static_cast<int>(i);
    FAIL("no workload " << name);
    return -1;
  }
  void run_pass(double at) {
    now_ = at;
    last_ = sched_.schedule(Seconds(now_), state_);
  }
  void enqueue(const std::string& name) { sched_.enqueue(index(name), Seconds(now_), Seconds(100)); }
  void checkpointed(const std::string& name, double at) { sched_.checkpointed(index(name), Seconds(at)); }

 private:
  static Scheduler make(const std::vector<Cq>& queues, const std::vector<Wl>& wls, const SchedulerOptions& options) {
    std::vector<QueueSpec> qs;
    std::map<std::string, int> by_name;
    for (const auto& c : queues) {
      by_name[c.name] = static_cast<int>(qs.size());
      qs.push_back(spec(c));
    }
    std::vector<SchedJob> jobs;
    for (const auto& w : wls) jobs.push_back({by_name.at(w.queue), w.priority, w.cpus * kNode});
    return Scheduler(qs, options, jobs);
  }

  ClusterState state_;
  std::vector<Wl> wls_;
  Scheduler sched_;
  ScheduleResult last_;
  double now_ = 0;
};

using W = WithinQueuePreemption;
using R = ReclaimPreemption;

// preemption_test.go's defaultClusterQueues: c1 and c2 (6 CPUs each, borrowing limit 6, cohort "cohort").
const Cq c1{"c1", 6, "cohort", 6, {}, W::LowerPriority, R::LowerPriority};
const Cq c2{"c2", 6, "cohort", 6, {}, W::Never, R::Any};
// ... "lend1" and "lend2" (6 CPUs each, lending limits 4 and 2).
const Cq lend1{"lend1", 6, "cohort-lend", {}, 4, W::LowerPriority, R::LowerPriority};
const Cq lend2{"lend2", 6, "cohort-lend", {}, 2, W::LowerPriority, R::LowerPriority};
// ... "preventStarvation" (6 CPUs, withinClusterQueue: LowerOrNewerEqualPriority).
const Cq prevent_starvation{"preventStarvation", 6, "", {}, {}, W::LowerOrNewerEqualPriority, R::Never};
// ... the "with_shared_cq" cohort: borrowWithinCohort {policy: LowerPriority, maxPriorityThreshold: 0}; b_best_effort
// has a nominal quota of 0; "shared" lends 10 CPUs and preempts nothing.
const std::vector<Cq> with_shared_cq = {
    {"a_standard", 1, "with_shared_cq", 12, {}, W::Never, R::LowerPriority, true, 0},
    {"b_standard", 1, "with_shared_cq", 12, {}, W::LowerPriority, R::Any, true, 0},
    {"a_best_effort", 1, "with_shared_cq", 12, {}, W::Never, R::LowerPriority, true, 0},
    {"b_best_effort", 0, "with_shared_cq", 13, {}, W::Never, R::LowerPriority, true, 0},
    {"shared", 10, "with_shared_cq"},
};

}  // namespace

TEST_CASE("kueue victims: borrowers first (TestPreemption \"reclaim quota from borrower\")", "[unit][sched][kueue]") {
  Case k({c1, c2}, {{"c1-low", "c1", -1, 3}, {"c2-mid", "c2", 0, 3}, {"c2-high", "c2", 1, 6}, {"in", "c1", 1, 3}});
  k.admit({"c1-low", "c2-mid", "c2-high"});
  // c1-low (own queue, lower priority) is a candidate too, but c2, which borrows, gives first.
  CHECK(k.incoming("in") == std::set<std::string>{"c2-mid"});
  CHECK(k.running("in"));
  CHECK(k.running("c1-low"));
}

TEST_CASE(
    "kueue reclaim: the queue must end within nominal after its preemptions (TestPreemption \"preempt from "
    "all ClusterQueues in cohort\")",
    "[unit][sched][kueue]") {
  // c1 uses 5 of its 6 CPUs and c2 borrows 1. The job needs 4: only after preempting its own c1-low does c1 stay
  // within nominal, so Kueue preempts c1-low and reclaims c2-low. A reclaim condition checked before the queue's own
  // preemptions (5 + 4 > 6) refuses it.
  Case k({c1, c2}, {{"c1-low", "c1", -1, 3},
                    {"c1-mid", "c1", 0, 2},
                    {"c2-low", "c2", -1, 3},
                    {"c2-mid", "c2", 0, 4},
                    {"in", "c1", 0, 4}});
  k.admit({"c1-low", "c1-mid", "c2-low", "c2-mid"});
  CHECK(k.incoming("in") == std::set<std::string>{"c1-low", "c2-low"});
  CHECK(k.running("in"));
  CHECK(k.sched().usage().used[0] == 6 * kNode);
}

TEST_CASE(
    "kueue: only the queue's own jobs when no other queue borrows, and then it may borrow (TestPreemption "
    "\"preempting locally and borrowing same resource in cohort\")",
    "[unit][sched][kueue]") {
  Case k({c1, c2}, {{"c1-med", "c1", 0, 4}, {"c1-low", "c1", -1, 4}, {"c2-low-1", "c2", -1, 4}, {"in", "c1", 1, 4}});
  k.admit({"c1-med", "c1-low", "c2-low-1"});
  CHECK(k.incoming("in") == std::set<std::string>{"c1-low"});
  CHECK(k.sched().usage().used[0] == 8 * kNode);  // borrows 2 after preempting
}

TEST_CASE(
    "kueue reclaim LowerPriority never takes an equal priority, Any does (TestPreemption \"do not reclaim "
    "borrowed quota from same priority for withinCohort=ReclaimFromLowerPriority\" and \"reclaim borrowed quota "
    "from same priority for withinCohort=ReclaimFromAny\")",
    "[unit][sched][kueue]") {
  SECTION("LowerPriority") {
    Case k({c1, c2}, {{"c1", "c1", 0, 2}, {"c2-1", "c2", 0, 4}, {"c2-2", "c2", 0, 4}, {"in", "c1", 0, 4}});
    k.admit({"c1", "c2-1", "c2-2"});
    CHECK(k.incoming("in").empty());
    CHECK_FALSE(k.running("in"));
    CHECK(k.sched().reason(k.index("in")).kind == WaitKind::Quota);
  }
  SECTION("Any") {
    Case k({c1, c2}, {{"c1-1", "c1", 0, 4}, {"c1-2", "c1", 1, 4}, {"c2", "c2", 0, 2}, {"in", "c2", 0, 4}});
    k.admit({"c1-1", "c1-2", "c2"});
    CHECK(k.incoming("in") == std::set<std::string>{"c1-1"});
  }
}

TEST_CASE("kueue reclaim from a lender: lending limits (TestPreemption \"reclaim quota from lender\")",
          "[unit][sched][kueue]") {
  Case k({lend1, lend2}, {{"lend1-low", "lend1", -1, 3},
                          {"lend2-mid", "lend2", 0, 3},
                          {"lend2-high", "lend2", 1, 4},
                          {"in", "lend1", 1, 3}});
  k.admit({"lend1-low", "lend2-mid", "lend2-high"});
  CHECK(k.incoming("in") == std::set<std::string>{"lend2-mid"});
}

TEST_CASE(
    "kueue withinClusterQueue LowerOrNewerEqualPriority (TestPreemption \"preempt newer workloads with the "
    "same priority\")",
    "[unit][sched][kueue]") {
  // wl3 and wl2 (priority 1) were queued after the incoming job (Kueue's case creates it 15 s earlier); wl2 was
  // admitted last, so it goes.
  Case k({prevent_starvation}, {{"wl1", "preventStarvation", 2, 2},
                                {"wl3", "preventStarvation", 1, 2},
                                {"wl2", "preventStarvation", 1, 2},
                                {"in", "preventStarvation", 1, 2}});
  k.admit({"wl1", "wl3", "wl2"});
  CHECK(k.incoming("in", /*queued_at=*/-15) == std::set<std::string>{"wl2"});
  SECTION("under LowerPriority the same case preempts nothing") {
    Cq lower = prevent_starvation;
    lower.within = W::LowerPriority;
    Case l({lower}, {{"wl1", "preventStarvation", 2, 2},
                     {"wl3", "preventStarvation", 1, 2},
                     {"wl2", "preventStarvation", 1, 2},
                     {"in", "preventStarvation", 1, 2}});
    l.admit({"wl1", "wl3", "wl2"});
    CHECK(l.incoming("in", -15).empty());
  }
  SECTION("a job queued after them preempts no equal priority") {
    Case l({prevent_starvation}, {{"wl1", "preventStarvation", 2, 2},
                                  {"wl3", "preventStarvation", 1, 2},
                                  {"wl2", "preventStarvation", 1, 2},
                                  {"in", "preventStarvation", 1, 2}});
    l.admit({"wl1", "wl3", "wl2"});
    CHECK(l.incoming("in").empty());
  }
}

TEST_CASE(
    "kueue borrowWithinCohort: preempt a lower priority of another queue and borrow (TestPreemption \"use "
    "BorrowWithinCohort, allow preempting a lower-priority workload from another ClusterQueue while borrowing\")",
    "[unit][sched][kueue]") {
  Case k(with_shared_cq, {{"a_best_effort_low", "a_best_effort", -1, 10},
                          {"b_best_effort_low", "b_best_effort", -1, 1},
                          {"in", "a_standard", 0, 10}});
  k.admit({"a_best_effort_low", "b_best_effort_low"});  // b_best_effort has a nominal quota of 0: it only borrows
  CHECK(k.incoming("in") == std::set<std::string>{"a_best_effort_low"});
  CHECK(k.running("b_best_effort_low"));
  SECTION("without borrowWithinCohort a job larger than its nominal quota never preempts") {
    std::vector<Cq> off = with_shared_cq;
    for (auto& c : off) c.borrow_within_cohort = false, c.max_priority_threshold.reset();
    Case l(off, {{"a_best_effort_low", "a_best_effort", -1, 10},
                 {"b_best_effort_low", "b_best_effort", -1, 1},
                 {"in", "a_standard", 0, 10}});
    l.admit({"a_best_effort_low", "b_best_effort_low"});
    CHECK(l.incoming("in").empty());
    CHECK(l.sched().reason(l.index("in")).kind == WaitKind::Quota);
  }
}

TEST_CASE(
    "kueue borrowWithinCohort maxPriorityThreshold: a victim above it forbids borrowing (TestPreemption \"use "
    "BorrowWithinCohort, don't allow preempting a lower-priority workload with priority above "
    "MaxPriorityThreshold, if borrowing is required even after the preemption\" and \"... allow ... if borrowing "
    "is not required after the preemption\")",
    "[unit][sched][kueue]") {
  SECTION("borrowing still needed: nothing") {
    Case k(with_shared_cq, {{"b_standard", "b_standard", 1, 10}, {"in", "a_standard", 2, 10}});
    k.admit({"b_standard"});
    CHECK(k.incoming("in").empty());
  }
  SECTION("within nominal after it: preempted") {
    Case k(with_shared_cq, {{"b_standard", "b_standard", 1, 13}, {"in", "a_standard", 2, 1}});
    k.admit({"b_standard"});
    CHECK(k.incoming("in") == std::set<std::string>{"b_standard"});
  }
}

TEST_CASE(
    "kueue borrowWithinCohort above nominal: other queues only below the threshold (TestPreemption \"use "
    "BorrowWithinCohort, only preempt from CQ if no workloads below threshold and already above nominal\" and "
    "\"use BorrowWithinCohort, preempt from CQ and from other CQs with workloads below threshold\")",
    "[unit][sched][kueue]") {
  SECTION("only the queue's own") {
    Case k(with_shared_cq, {{"a_standard_1", "a_standard", 1, 10},
                            {"a_standard_2", "a_standard", 1, 1},
                            {"b_standard_1", "b_standard", 1, 1},
                            {"b_standard_2", "b_standard", 2, 1},
                            {"in", "b_standard", 3, 1}});
    k.admit({"a_standard_1", "a_standard_2", "b_standard_1", "b_standard_2"});
    CHECK(k.incoming("in") == std::set<std::string>{"b_standard_1"});
  }
  SECTION("own and below the threshold elsewhere") {
    Case k(with_shared_cq, {{"b_standard_high", "b_standard", 2, 10},
                            {"b_standard_mid", "b_standard", 1, 1},
                            {"a_best_effort_low", "a_best_effort", -1, 1},
                            {"a_best_effort_lower", "a_best_effort", -2, 1},
                            {"in", "b_standard", 2, 2}});
    k.admit({"b_standard_high", "b_standard_mid", "a_best_effort_low", "a_best_effort_lower"});
    CHECK(k.incoming("in") == std::set<std::string>{"b_standard_mid", "a_best_effort_lower"});
  }
}

TEST_CASE(
    "kueue admission order: within nominal quota before borrowing (TestEntryOrdering: \"old_borrowing\" goes "
    "after \"old\" and \"new\")",
    "[unit][sched][kueue]") {
  // a (nominal 1 node) and b (nominal 3) share a 4-node cohort. "old_borrowing" (a, 2 nodes: borrows 1) was queued
  // first; "new" (b, 3 nodes) fits within b's nominal quota. Both cannot run: Kueue admits "new" whichever came
  // first; priority then FIFO admitted "old_borrowing".
  const std::vector<Cq> qs = {{"a", 1, "c"}, {"b", 3, "c"}};
  for (bool borrower_first : {true, false}) {
    Case k(qs, {{"old_borrowing", "a", 0, 2}, {"new", "b", 0, 3}});
    if (borrower_first) k.enqueue("old_borrowing");
    k.enqueue("new");
    if (!borrower_first) k.enqueue("old_borrowing");
    k.run_pass(0);
    CHECK(k.started() == std::vector<std::string>{"new"});
    CHECK(k.sched().reason(k.index("old_borrowing")).kind == WaitKind::Quota);
  }
}

TEST_CASE(
    "kueue nominal quota 0: a queue that only borrows pends with a quota reason while the cohort lends nothing "
    "(Kueue docs, cluster_queue.md: a ClusterQueue with nominalQuota 0 borrows all it uses)",
    "[unit][sched][kueue]") {
  const std::vector<Cq> qs = {{"owner", 2, "c"}, {"borrower", 0, "c"}};
  Case k(qs, {{"own", "owner", 0, 2}, {"borrow", "borrower", 0, 1}});
  k.admit({"own"});
  k.incoming("borrow");
  CHECK_FALSE(k.running("borrow"));
  const PendingReason& why = k.sched().reason(k.index("borrow"));
  CHECK(why.kind == WaitKind::Quota);
  CHECK_THAT(describe(why, {"own", "borrow"}, {"owner", "borrower"}),
             Catch::Contains("0 GPUs in use of a nominal 0") && Catch::Contains("0 left in the cohort's pool"));
}

TEST_CASE(
    "victim order least_work_lost: among victims of one kind and priority, the least work since a checkpoint "
    "first",
    "[unit][sched][kueue]") {
  const std::vector<Cq> qs = {{"q", 3, "", {}, {}, W::LowerPriority}};
  for (VictimOrder order : {VictimOrder::Kueue, VictimOrder::LeastWorkLost}) {
    SchedulerOptions o;
    o.victim_order = order;
    Case k(qs, {{"early", "q", 0, 1}, {"late", "q", 0, 1}, {"high", "q", 0, 1}, {"in", "q", 5, 1}}, o);
    k.admit({"early", "late", "high"});
    // The three are peers (priority 0). Kueue: the most recently admitted ("high") goes; least work lost: "early",
    // checkpointed just before, loses least.
    k.checkpointed("early", 12);
    auto victims = k.incoming("in");
    CHECK(victims == std::set<std::string>{order == VictimOrder::Kueue ? "high" : "early"});
  }
}
