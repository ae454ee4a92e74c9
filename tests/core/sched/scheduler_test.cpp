#include "core/sched/scheduler.hpp"

#include <catch2/catch.hpp>
#include <optional>
#include <set>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;

TEST_CASE("pack placement: a sub-node job goes to the fullest node that fits", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(3));
  state.allocate({0, 1, 2, 3, 4, 5});  // node 0: 2 free
  state.allocate({8, 9, 10, 11});      // node 1: 4 free
  PackPlacement pack;
  auto placed = pack.place(state, {3});
  REQUIRE(placed.gpus == std::vector<int>{12, 13, 14});  // node 1 (4 free) beats node 2 (8 free)
  placed = pack.place(state, {2});
  CHECK(placed.gpus == std::vector<int>{6, 7});
}

TEST_CASE("pack placement: fragmentation is named when enough GPUs are free but not on one node", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(2));
  state.allocate({0, 1, 2, 3, 4});
  state.allocate({8, 9, 10, 11, 12});
  auto placed = PackPlacement().place(state, {4});
  CHECK(placed.gpus.empty());
  CHECK_THAT(describe(placed.why, {}, {}), Catch::Contains("fragmentation: 6 GPUs free"));
  CHECK_THAT(describe(placed.why, {}, {}), Catch::Contains("at most 3 on any one node"));
}

TEST_CASE("pack placement: whole nodes from one group when one suffices, else from the fewest groups",
          "[unit][sched]") {
  ClusterState state(testing::rail_cluster(6, 2));  // groups {n0,n1} {n2,n3} {n4,n5}
  state.allocate({0});                              // group 0 has one whole node left
  PackPlacement pack;
  auto two = pack.place(state, {16});
  REQUIRE(two.gpus.size() == 16);
  CHECK(state.group_of(two.gpus.front() / 8) == state.group_of(two.gpus.back() / 8));
  auto four = pack.place(state, {32});
  REQUIRE(four.gpus.size() == 32);
  std::set<int> groups;
  for (int gpu : four.gpus) groups.insert(state.group_of(gpu / 8));
  CHECK(groups == std::set<int>{1, 2});
  auto six = pack.place(state, {48});
  CHECK(six.gpus.empty());
  CHECK_THAT(describe(six.why, {}, {}), Catch::Contains("5 whole nodes free"));
}

TEST_CASE("cluster state: a down node offers nothing and counts no whole node", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(2));
  CHECK(state.whole_free_nodes_in_group(0) == 2);
  state.set_up(1, false);
  CHECK(state.free_gpus(1) == 0);
  CHECK(state.whole_free_nodes_in_group(0) == 1);
  CHECK(state.up_gpus() == 8);
  state.set_up(1, true);
  CHECK(state.whole_free_nodes_in_group(0) == 2);
}

TEST_CASE("scheduler: priority, then order, without backfill a capacity-blocked job holds back later jobs",
          "[unit][sched]") {
  ClusterState state(testing::rail_cluster(2));
  std::vector<QueueSpec> queues = {{"q", 64}};
  Scheduler sched(queues, SchedulerOptions{}, {{0, 0, 8}, {0, 1, 16}, {0, 0, 8}});
  for (int j = 0; j < 3; ++j) sched.enqueue(j, Seconds(0), Seconds(100));
  state.allocate({0});
  auto result = sched.schedule(Seconds(0), state);
  // Job 1 (priority 1) needs two whole nodes and only one is whole: it waits, and jobs 0 and 2 wait behind it.
  CHECK(result.starts.empty());
  REQUIRE(result.waits.size() == 3);
  CHECK(result.waits[0].job == 1);
  CHECK(result.waits[0].reason.kind == WaitKind::Capacity);
  CHECK(result.waits[1].reason.kind == WaitKind::Behind);
  CHECK_THAT(describe(result.waits[1].reason, {"a", "b", "c"}, {"q"}), Catch::Contains("behind b (priority 1)"));
}

// try_preempt skips a search its quota bound shows hopeless, but never one that would park an exempt job: the parked
// job's exemption end is when the scheduler looks again (next_deadline), and a skipped search would have lost it.
TEST_CASE("scheduler: a hopeless preemption search still parks the exempt jobs it meets", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(3));
  QueueSpec q{"q", 16};
  q.within_queue = WithinQueuePreemption::LowerPriority;
  SchedulerOptions options;
  options.preemption_exempt_time = Seconds(600);
  // 0: low (priority 0), 1: high (priority 9), both 8 GPUs; 2: 16 GPUs at priority 5, over the quota even with low gone.
  Scheduler sched({q}, options, {{0, 0, 8}, {0, 9, 8}, {0, 5, 16}});
  sched.enqueue(0, Seconds(0), Seconds(1e5));
  sched.enqueue(1, Seconds(0), Seconds(1e5));
  auto started = sched.schedule(Seconds(0), state);
  REQUIRE(started.starts.size() == 2);
  CHECK_FALSE(sched.next_deadline());
  sched.enqueue(2, Seconds(60), Seconds(100));
  auto at60 = sched.schedule(Seconds(60), state);
  CHECK(at60.preemptions.empty());
  REQUIRE(at60.waits.size() == 1);
  CHECK(at60.waits[0].reason.kind == WaitKind::Quota);
  // Its search met low, exempt until 600 s, and parked it: the scheduler looks again then.
  REQUIRE(sched.next_deadline());
  CHECK(sched.next_deadline()->value == Approx(600));
  // At 600 s low may be preempted, but taking it leaves the job over its quota: the bound skips the search.
  auto at600 = sched.schedule(Seconds(600), state);
  CHECK(at600.preemptions.empty());
  CHECK(at600.starts.empty());
  CHECK(sched.is_pending(2));
  CHECK(sched.reason(2).kind == WaitKind::Quota);
  CHECK(sched.reason(2).a == 16);  // the queue's usage, read when asked
  // Once high ends, the quota fits with low taken: low is preempted.
  state.release(sched.gpus(1));
  sched.finished(1, Seconds(700));
  auto at700 = sched.schedule(Seconds(700), state);
  REQUIRE(at700.preemptions.size() == 1);
  CHECK(at700.preemptions[0].victim == 0);
  REQUIRE(at700.starts.size() == 1);
  CHECK(at700.starts[0].job == 2);
}

TEST_CASE("scheduler: a job preempted by one that stopped, ran again and ended is not passed over", "[unit][sched]") {
  // A pass passes over a job that waits for the running job that preempted it; once that job stops running, the
  // waiting one must be examined again, also after its preemptor ran again and stopped a second time (its list of
  // victims was dropped as it first stopped, and the waiting job stayed passed over: 7 reason changes of 508,000
  // went missing at 50,000 jobs).
  ClusterState state(testing::rail_cluster(4));
  QueueSpec qa{"a", 8};
  qa.cohort = "c";
  qa.within_queue = WithinQueuePreemption::LowerPriority;
  QueueSpec qb{"b", 16};
  qb.cohort = "c";
  qb.reclaim = ReclaimPreemption::Any;
  enum { V, F, G, A, B };
  Scheduler sched({qa, qb}, SchedulerOptions{}, {{0, 1, 8}, {0, 5, 8}, {1, 0, 8}, {0, 5, 8}, {1, 0, 8}});
  for (int j : {V, F, G}) sched.enqueue(j, Seconds(0), Seconds(1e5));
  REQUIRE(sched.schedule(Seconds(0), state).starts.size() == 3);  // queue a borrows 8 of b's 16
  sched.enqueue(A, Seconds(10), Seconds(1e5));
  auto at10 = sched.schedule(Seconds(10), state);
  REQUIRE(at10.preemptions.size() == 1);
  CHECK(at10.preemptions[0].victim == V);  // A, above V in queue a, takes its place
  CHECK(sched.reason(V).kind == WaitKind::Preempted);
  CHECK(sched.audit(Seconds(10), state) == "");
  sched.enqueue(B, Seconds(20), Seconds(1e5));
  auto at20 = sched.schedule(Seconds(20), state);  // b reclaims from a: A, the latest admitted
  REQUIRE(at20.preemptions.size() == 1);
  CHECK(at20.preemptions[0].victim == A);
  CHECK(sched.audit(Seconds(20), state) == "");
  state.release(sched.gpus(G));
  sched.finished(G, Seconds(30));
  auto at30 = sched.schedule(Seconds(30), state);  // A runs again; V waits for it again
  REQUIRE(at30.starts.size() == 1);
  CHECK(at30.starts[0].job == A);
  CHECK(sched.reason(V).kind == WaitKind::Preempted);
  CHECK(sched.reason(V).job == A);
  CHECK(sched.audit(Seconds(30), state) == "");
  state.release(sched.gpus(A));
  sched.finished(A, Seconds(40));
  CHECK(sched.audit(Seconds(40), state) == "");  // V is no longer one to pass over
  auto at40 = sched.schedule(Seconds(40), state);
  REQUIRE(at40.starts.size() == 1);
  CHECK(at40.starts[0].job == V);
}

TEST_CASE("scheduler: a reservation is reused while nothing it read changed, and made again once a job ends",
          "[unit][sched]") {
  ClusterState state(testing::rail_cluster(4));  // 32 GPUs
  SchedulerOptions options;
  options.backfill = true;
  enum { R1, R2, J, S, T };
  Scheduler sched({{"q", 64}}, options, {{0, 0, 8}, {0, 0, 16}, {0, 0, 32}, {0, 0, 8}, {0, 0, 8}});
  sched.enqueue(R1, Seconds(0), Seconds(100));
  sched.enqueue(R2, Seconds(0), Seconds(300));
  REQUIRE(sched.schedule(Seconds(0), state).starts.size() == 2);  // 8 GPUs left
  sched.enqueue(J, Seconds(10), Seconds(500));
  sched.enqueue(S, Seconds(10), Seconds(1000));  // would outlive J's reservation: kept off its GPUs
  CHECK(sched.schedule(Seconds(10), state).starts.empty());
  CHECK(sched.reason(S).kind == WaitKind::Reservation);
  CHECK(sched.reason(S).until.value == Approx(300));  // R1 and R2 end: the whole cluster
  CHECK(sched.audit(Seconds(10), state) == "");
  sched.enqueue(T, Seconds(20), Seconds(1000));  // nothing J's reservation reads: the same one
  CHECK(sched.schedule(Seconds(20), state).starts.empty());
  CHECK(sched.reason(T).kind == WaitKind::Reservation);
  CHECK(sched.reason(T).until.value == Approx(300));
  CHECK(sched.audit(Seconds(20), state) == "");
  state.release(sched.gpus(R2));  // ends early: with R1's end, J fits at 100
  sched.finished(R2, Seconds(50));
  CHECK(sched.audit(Seconds(50), state) == "");
  CHECK(sched.schedule(Seconds(50), state).starts.empty());
  CHECK(sched.reason(S).kind == WaitKind::Reservation);
  CHECK(sched.reason(S).until.value == Approx(100));
  CHECK(sched.audit(Seconds(50), state) == "");
}

TEST_CASE("scheduler: a job still asking more GPUs than are free is passed over, with the reason examine would give",
          "[unit][sched]") {
  ClusterState state(testing::rail_cluster(4));  // 32 GPUs
  SchedulerOptions options;
  options.backfill = true;
  enum { R1, R2, R3, J, C, S };
  Scheduler sched({{"q", 64}}, options, {{0, 0, 8}, {0, 0, 8}, {0, 0, 8}, {0, 0, 32}, {0, 0, 24}, {0, 0, 16}});
  sched.enqueue(R1, Seconds(0), Seconds(100));
  sched.enqueue(R2, Seconds(0), Seconds(200));
  sched.enqueue(R3, Seconds(0), Seconds(300));
  REQUIRE(sched.schedule(Seconds(0), state).starts.size() == 3);  // 8 GPUs left
  sched.enqueue(J, Seconds(10), Seconds(500));   // holds the reservation (at 300)
  sched.enqueue(C, Seconds(10), Seconds(150));   // 24 GPUs: more than are free; ends before the reservation
  sched.enqueue(S, Seconds(10), Seconds(1000));  // 16 GPUs: would outlive the reservation
  CHECK(sched.schedule(Seconds(10), state).starts.empty());
  CHECK(sched.examinations() == 3 + 3);
  CHECK(sched.reason(C).kind == WaitKind::Capacity);
  CHECK(sched.reason(C).b == 1);  // whole nodes free
  CHECK(sched.reason(C).d == 8);
  CHECK(sched.reason(S).kind == WaitKind::Capacity);
  state.release(sched.gpus(R1));  // 16 free: S now waits behind the reservation, C still for capacity
  sched.finished(R1, Seconds(100));
  CHECK(sched.schedule(Seconds(100), state).starts.empty());
  CHECK(sched.examinations() == 6 + 1);  // J; C passed over, S given its new reason on the counts alone
  CHECK(sched.reason_changes() == 1);
  CHECK(sched.reason(C).kind == WaitKind::Capacity);
  CHECK(sched.reason(C).b == 2);  // its figures as an examination would give them
  CHECK(sched.reason(C).d == 16);
  CHECK(sched.reason(S).kind == WaitKind::Reservation);
  CHECK(sched.reason(S).until.value == Approx(300));
  CHECK(sched.audit(Seconds(100), state) == "");
  sched.set_estimated_end(R3, Seconds(250));  // the reservation moves: S is passed over with its new time
  state.release(sched.gpus(R2));
  sched.finished(R2, Seconds(150));
  CHECK(sched.schedule(Seconds(150), state).starts.empty());
  CHECK(sched.examinations() == 7 + 1);  // J; S passed over, C given its new reason on the counts alone
  CHECK(sched.reason_changes() == 2);
  CHECK(sched.reason(C).kind == WaitKind::Reservation);  // 24 free with the reserved GPUs; would now end after 250
  CHECK(sched.reason(S).kind == WaitKind::Reservation);
  CHECK(sched.reason(S).until.value == Approx(250));
  CHECK(sched.audit(Seconds(150), state) == "");
}

TEST_CASE("scheduler: a return between capacity and the reservation is not reported, and its time counts",
          "[unit][sched]") {
  enum { R1, R2, R3, J, S, T };
  ClusterState state(testing::rail_cluster(4));  // 32 GPUs
  Scheduler sched({{"q", 64}}, SchedulerOptions{.backfill = true},
                  {{0, 0, 8}, {0, 0, 8}, {0, 0, 8}, {0, 0, 32}, {0, 0, 16}, {0, 1, 8}});
  for (int r : {R1, R2, R3}) sched.enqueue(r, Seconds(0), Seconds(100 * (r + 1)));
  REQUIRE(sched.schedule(Seconds(0), state).starts.size() == 3);  // 8 GPUs left
  sched.enqueue(J, Seconds(10), Seconds(500));   // holds the reservation (at 300)
  sched.enqueue(S, Seconds(10), Seconds(1000));  // 16 GPUs: would outlive the reservation
  auto reported = [](const ScheduleResult& r, int job) -> std::optional<WaitKind> {
    for (const auto& w : r.waits)
      if (w.job == job) return w.reason.kind;
    return std::nullopt;
  };
  CHECK(reported(sched.schedule(Seconds(10), state), S) == WaitKind::Capacity);
  state.release(sched.gpus(R1));
  sched.finished(R1, Seconds(100));
  CHECK(reported(sched.schedule(Seconds(100), state), S) == WaitKind::Reservation);  // 16 free with the reserved
  sched.enqueue(T, Seconds(110), Seconds(50));  // above J and S: takes 8 of the 16 free GPUs
  auto at110 = sched.schedule(Seconds(110), state);
  REQUIRE(at110.starts.size() == 1);
  CHECK(sched.reason(S).kind == WaitKind::Capacity);  // back to capacity: said at 10, not reported again
  CHECK_FALSE(reported(at110, S));
  state.release(sched.gpus(T));
  sched.finished(T, Seconds(160));
  auto at160 = sched.schedule(Seconds(160), state);
  CHECK(sched.reason(S).kind == WaitKind::Reservation);  // and back behind the reservation: said at 100
  CHECK_FALSE(reported(at160, S));
  // Every change counts in the time by kind: capacity 10-100 and 110-160, the reservation 100-110 and 160-200.
  const Scheduler::WaitTimes t = sched.wait_times(S, Seconds(200));
  CHECK(t.by_kind[static_cast<std::size_t>(WaitKind::Capacity)].value == Approx(140));
  CHECK(t.by_kind[static_cast<std::size_t>(WaitKind::Reservation)].value == Approx(50));
  CHECK(t.kinds == ((1u << static_cast<unsigned>(WaitKind::Capacity)) |
                    (1u << static_cast<unsigned>(WaitKind::Reservation))));
  CHECK(sched.audit(Seconds(160), state) == "");
}

TEST_CASE("scheduler: a job no node has room for is passed over, with the fragmentation figures examine would give",
          "[unit][sched]") {
  ClusterState state(testing::rail_cluster(4));  // 4 nodes of 8 GPUs
  SchedulerOptions options;
  options.backfill = true;
  options.placement = PlacementKind::Spread;  // the emptiest node first: 4 GPUs taken on each node, 2 more on two
  enum { R1, R2, R3, R4, R5, R6, J, F };
  Scheduler sched({{"q", 64}}, options,
                  {{0, 0, 4}, {0, 0, 4}, {0, 0, 4}, {0, 0, 4}, {0, 0, 2}, {0, 0, 2}, {0, 0, 32}, {0, 0, 6}});
  for (int r : {R1, R2, R3, R4}) sched.enqueue(r, Seconds(0), Seconds(1000));
  for (int r : {R5, R6}) sched.enqueue(r, Seconds(0), Seconds(100));
  REQUIRE(sched.schedule(Seconds(0), state).starts.size() == 6);  // 12 GPUs free, at most 4 on a node
  sched.enqueue(J, Seconds(10), Seconds(500));  // all 32: the reservation, at 1000
  sched.enqueue(F, Seconds(10), Seconds(50));   // 6 on one node; would end before the reservation
  CHECK(sched.schedule(Seconds(10), state).starts.empty());
  CHECK(sched.reason(F).kind == WaitKind::Fragmentation);
  CHECK(sched.reason(F).b == 12);
  CHECK(sched.examinations() == 6 + 2);
  state.release(sched.gpus(R5));  // 14 free, still at most 4 on a node
  sched.finished(R5, Seconds(100));
  CHECK(sched.schedule(Seconds(100), state).starts.empty());
  CHECK(sched.examinations() == 8 + 1);  // J; F passed over
  const PendingReason why = sched.reason(F);
  CHECK(why.kind == WaitKind::Fragmentation);
  CHECK(why.b == 14);  // GPUs free in all
  CHECK(why.c == 4);   // on four nodes
  CHECK(why.d == 4);   // at most four on one
  CHECK(sched.audit(Seconds(100), state) == "");
}

TEST_CASE("NVLink domains over 64 GPUs: a node of 72, 130 or 576 GPUs places jobs and keeps its indexes",
          "[unit][sched]") {
  // A node's free GPUs were one 64-bit mask: a 576-GPU node never placed a job, and 72- to 200-GPU nodes gave GPU
  // indices from shifted-out bits (exit 3 in PairIndex).
  for (int per_node : {65, 72, 130, 576}) {
    FabricParams p = testing::fabric(2, 2, 1);
    p.gpus_per_node = per_node;
    ClusterState state(make_rail_optimized(p));
    CHECK(state.total_free_gpus() == 2 * per_node);
    PackPlacement pack;
    auto whole = pack.place(state, {per_node});
    REQUIRE(whole.gpus.size() == static_cast<std::size_t>(per_node));
    CHECK(whole.gpus.front() == 0);
    CHECK(whole.gpus.back() == per_node - 1);
    state.allocate(whole.gpus);
    CHECK(state.whole_free_nodes() == 1);
    auto part = pack.place(state, {per_node - 1});  // on node 1, past bit 64 of its GPUs
    REQUIRE(part.gpus.size() == static_cast<std::size_t>(per_node - 1));
    CHECK(part.gpus.back() == 2 * per_node - 2);
    state.allocate(part.gpus);
    CHECK(state.free_gpus(1) == 1);
    CHECK(state.gpu_free(2 * per_node - 1));
    CHECK_FALSE(state.gpu_free(2 * per_node - 2));
    auto last = pack.place(state, {1});
    CHECK(last.gpus == std::vector<int>{2 * per_node - 1});
    CHECK(pack.place(state, {2}).gpus.empty());
    state.release(whole.gpus);
    CHECK(state.whole_free_nodes() == 1);
    state.set_up(0, false);
    state.set_up(0, true);
    CHECK(state.free_gpus(0) == per_node);
  }
  // The whole reader limit, through the scheduler.
  FabricParams p = testing::fabric(1, 1, 1);
  p.gpus_per_node = 576;
  ClusterState state(make_single_node(p));
  Scheduler sched({{"q", 576}}, SchedulerOptions{}, {{0, 0, 576}, {0, 0, 72}, {0, 0, 504}});
  sched.enqueue(0, Seconds(0), Seconds(100));
  auto first = sched.schedule(Seconds(0), state);
  REQUIRE(first.starts.size() == 1);
  CHECK(first.starts[0].gpus.size() == 576);
  state.release(first.starts[0].gpus);
  sched.finished(0, Seconds(100));
  sched.enqueue(1, Seconds(100), Seconds(100));
  sched.enqueue(2, Seconds(100), Seconds(100));
  auto second = sched.schedule(Seconds(100), state);
  CHECK(second.starts.size() == 2);
  CHECK(state.total_free_gpus() == 0);
}
