#include "core/sched/scheduler.hpp"

#include <catch2/catch.hpp>
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

TEST_CASE("scheduler: priority, then order; without backfill a capacity-blocked job holds back later jobs",
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
