// Each scheduling policy alone, on hand-made state.
#include <catch2/catch.hpp>
#include <algorithm>
#include <cmath>
#include <functional>
#include <set>

#include "core/model/random.hpp"
#include "core/sched/backfill.hpp"
#include "core/sched/freed_nodes.hpp"
#include "core/sched/node_holders.hpp"
#include "core/sched/ordering.hpp"
#include "core/sched/preemption.hpp"
#include "core/sched/quota.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;

namespace {
QueueSpec in_cohort(const std::string &name, int quota, std::optional<int> borrow = {}, std::optional<int> lend = {}) {
  QueueSpec q{name, quota};
  q.cohort = "c";
  q.borrowing_limit = borrow;
  q.lending_limit = lend;
  return q;
}
// A cluster of 24 nodes (4 per leaf group) that a test fills with random jobs, and what it needs to.
struct RandomFill {
  const PackPlacement pack;
  const SpreadPlacement spread;
  ClusterState state{testing::rail_cluster(24, 4)};
  Random rng;
  std::vector<std::vector<int>> held;
  explicit RandomFill(std::uint64_t seed) : rng(seed) {}
};
}  // namespace

TEST_CASE("cohort quota: borrowing, borrowing and lending limits, guarantees", "[unit][sched]") {
  CohortQuota quota({in_cohort("a", 10, 4), in_cohort("b", 10, {}, 6), {"solo", 8}});
  CHECK(std::string(quota.name()) == "kueue-cohorts");
  QuotaUsage u = quota.empty_usage();
  CHECK(quota.guaranteed(0) == 0);
  CHECK(quota.guaranteed(1) == 4);   // b lends at most 6 of its 10
  CHECK(quota.max_usable(0) == 14);  // 10 + borrowing limit 4
  CHECK(quota.max_usable(1) == 20);
  CHECK(quota.max_usable(2) == 8);
  CHECK(quota.fits(u, 0, 14));
  CHECK_FALSE(quota.fits(u, 0, 15));  // borrowing limit
  quota.charge(u, 0, 14);
  CHECK(quota.borrowed(u, 0) == 4);
  CHECK(quota.fits(u, 1, 6));  // b's 10 minus the 4 a borrowed
  CHECK_FALSE(quota.fits(u, 1, 7));
  quota.charge(u, 0, -14);
  quota.charge(u, 1, 4);  // b uses its guaranteed part: a can still borrow b's 6
  CHECK(quota.fits(u, 0, 14));
  CHECK(quota.fits(u, 2, 8));
  CHECK_FALSE(quota.fits(u, 2, 9));  // no cohort: its quota only
  PendingReason why = quota.why_not(u, 2, 9);
  CHECK(why.kind == WaitKind::Quota);
  CHECK_THAT(describe(why, {}, {"a", "b", "solo"}),
             Catch::Contains("quota of queue solo exhausted: 0 of 8 GPUs in use, 9 needed"));
}

TEST_CASE("fair share: usage decays with the half-life and is normalized by quota", "[unit][sched]") {
  FairShareOrdering fs(Seconds(100));
  CHECK(std::string(fs.name()) == "fair-share");
  CHECK(fs.decayed(64, 0, Seconds(100)) == Approx(32));
  CHECK(fs.decayed(64, 0, Seconds(200)) == Approx(16));
  // Holding r GPUs for a very long time converges to r h / ln 2.
  CHECK(fs.decayed(0, 8, Seconds(1e6)) == Approx(8 * 100 / std::log(2.0)));
  // Piecewise equals whole.
  CHECK(fs.decayed(fs.decayed(5, 3, Seconds(40)), 3, Seconds(60)) == Approx(fs.decayed(5, 3, Seconds(100))));
  CHECK(fs.queue_score(0, {100, 100}, {10, 50}) > fs.queue_score(1, {100, 100}, {10, 50}));
  CHECK(PriorityFifoOrdering().queue_score(0, {100}, {1}) == 0);
}

TEST_CASE(
    "EASY backfill: the reservation is at the earliest end that frees "
    "enough GPUs, state is unchanged",
    "[unit][sched]") {
  ClusterState state(testing::rail_cluster(4));
  std::vector<int> a, b, c;
  for (int i = 0; i < 8; ++i) a.push_back(i), b.push_back(8 + i), c.push_back(16 + i);
  state.allocate(a), state.allocate(b), state.allocate(c);
  std::vector<RunningEnd> ends = {{Seconds(50), &a}, {Seconds(80), &b}, {Seconds(300), &c}};
  std::size_t i = 0;
  auto next = [&](RunningEnd &e) { return i < ends.size() ? (e = ends[i++], true) : false; };
  EasyBackfill easy;
  PackPlacement pack;
  auto r = easy.reserve(7, {24}, Seconds(10), next, state,
                        pack);  // 1 node free: needs two more
  REQUIRE(r);
  CHECK(r->job == 7);
  CHECK(r->start == Seconds(80));
  CHECK(r->gpus.size() == 24);
  CHECK(state.total_free_gpus() == 8);
  CHECK(easy.may_use_reserved(Seconds(80), *r));
  CHECK_FALSE(easy.may_use_reserved(Seconds(81), *r));
  i = 0;
  CHECK_FALSE(easy.reserve(7, {48}, Seconds(10), next, state,
                           pack));  // more than the cluster
  CHECK(state.total_free_gpus() == 8);
}

TEST_CASE("preemption policy: candidates, eligibility, borrow threshold and victim order", "[unit][sched]") {
  QueueSpec a = in_cohort("a", 16);
  a.within_queue = WithinQueuePreemption::LowerPriority;
  a.reclaim = ReclaimPreemption::LowerPriority;
  QueueSpec b = in_cohort("b", 16);
  b.within_queue = WithinQueuePreemption::LowerOrNewerEqualPriority;
  b.reclaim = ReclaimPreemption::Any;
  b.borrow_within_cohort = true;
  b.max_priority_threshold = 3;
  std::vector<QueueSpec> qs = {a, b, {"solo", 16}};
  PreemptionPolicy policy(qs, VictimOrder::Kueue);
  CohortQuota quota(qs);
  CHECK(std::string(policy.name()) == "kueue");
  CHECK(policy.within_candidate(0, 5, Seconds(0), 4, Seconds(9)));
  CHECK_FALSE(policy.within_candidate(0, 5, Seconds(0), 5, Seconds(9)));  // LowerPriority: equal never
  CHECK(policy.within_candidate(1, 5, Seconds(0), 5, Seconds(9)));        // newer equal
  CHECK_FALSE(policy.within_candidate(1, 5, Seconds(9), 5, Seconds(9)));  // queued at the same time: not newer
  CHECK_FALSE(policy.within_candidate(2, 5, Seconds(0), 0, Seconds(9)));  // Never
  CHECK(policy.reclaim_candidate(0, 5, 4));
  CHECK_FALSE(policy.reclaim_candidate(0, 5, 5));
  CHECK(policy.reclaim_candidate(1, 5, 9));  // Any
  CHECK_FALSE(policy.reclaim_candidate(2, 5, 0));
  CHECK(policy.eligible(0, 16, quota));
  CHECK_FALSE(policy.eligible(0, 17, quota));  // borrows even alone: no preemption without borrow_within_cohort
  CHECK(policy.eligible(1, 24, quota));
  CHECK_FALSE(policy.borrow_threshold(0, 5));
  CHECK(policy.borrow_threshold(1, 5) == 4);  // max_priority_threshold 3 + 1
  CHECK(policy.borrow_threshold(1, 2) == 2);  // the job's own priority when lower
  // Order (Kueue's candidatesOrdering): from another (borrowing) queue, then lower priority, then the most recently
  // admitted, then the job index; never progress or checkpoint times.
  VictimCandidate borrowed{5, 1, 3, 8, 1, true, Seconds(0)}, low{6, 0, 0, 8, 2, false, Seconds(0)},
      later{7, 0, 0, 8, 3, false, Seconds(500)}, earlier{8, 0, 0, 8, 1, false, Seconds(1)},
      twin{9, 0, 0, 8, 1, false, Seconds(1)};
  CHECK(policy.before(borrowed, low));
  CHECK_FALSE(policy.before(low, borrowed));
  CHECK(policy.before(low, VictimCandidate{10, 0, 1, 8, 9, false, Seconds(0)}));
  CHECK(policy.before(later, earlier));
  CHECK(policy.before(earlier, twin));
  CHECK_FALSE(policy.before(twin, earlier));
  PreemptionPolicy lwl(qs, VictimOrder::LeastWorkLost);
  CHECK(std::string(lwl.name()) == "kueue-least-work-lost");
  CHECK(lwl.before(earlier, later));     // 1 s lost beats 500 s
  CHECK(lwl.before(borrowed, earlier));  // still borrowers first
}

TEST_CASE("cluster state: GPUs of a node that went down can be released and given back", "[unit][sched]") {
  // Backfill and preemption release a running job's GPUs to try a placement, then allocate them again; a node may be
  // down under that job until its failure is detected.
  ClusterState state(testing::rail_cluster(2));
  const std::vector<int> job = {0, 1, 2, 3};
  state.allocate(job);
  state.set_up(0, false);
  const int free_before = state.total_free_gpus();
  state.release(job);
  CHECK(state.free_gpus(0) == 0);
  CHECK_FALSE(state.gpu_free(0));
  state.allocate(job);
  CHECK(state.free_gpus(0) == 0);
  CHECK(state.total_free_gpus() == free_before);
  CHECK(state.nodes_with_free(0) == 1);
  state.release(job);
  state.set_up(0, true);
  CHECK(state.free_gpus(0) == state.gpus_per_node());
  CHECK(state.total_free_gpus() == 2 * state.gpus_per_node());
}

TEST_CASE("spread placement: the emptiest node, whole nodes one group at a time", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(6, 2));
  state.allocate({0});
  SpreadPlacement spread;
  CHECK(std::string(spread.name()) == "spread");
  auto one = spread.place(state, {4});
  REQUIRE(one.gpus.size() == 4);
  CHECK(one.gpus.front() / 8 == 1);  // n1 is wholly free; n0 is not
  auto three = spread.place(state, {24});
  std::set<int> groups;
  for (int g : three.gpus) groups.insert(state.group_of(g / 8));
  CHECK(groups.size() == 3);
  auto capped = spread.place(state, {24, 2});
  groups.clear();
  for (int g : capped.gpus) groups.insert(state.group_of(g / 8));
  CHECK(groups.size() == 2);
  auto too_narrow = PackPlacement().place(state, {48, 1});
  CHECK(too_narrow.gpus.empty());
}

TEST_CASE("cluster state indexes agree with a full scan under random allocations", "[unit][sched]") {
  ClusterState state(testing::rail_cluster(20, 4));
  Random rng(42);
  std::vector<std::vector<int>> held;
  for (int step = 0; step < 2000; ++step) {
    if (!held.empty() && rng.uniform() < 0.45) {
      std::size_t k = static_cast<std::size_t>(rng.uniform_int(0, static_cast<int>(held.size()) - 1));
      state.release(held[k]);
      held.erase(held.begin() + static_cast<std::ptrdiff_t>(k));
    } else if (rng.uniform() < 0.05) {
      int node = rng.uniform_int(0, 19);
      state.set_up(node, !state.schedulable(node));
    } else {
      int gpus = std::vector<int>{1, 2, 4, 8, 16, 24}[rng.uniform_int(0, 5)];
      auto placed = PackPlacement().place(state, {gpus});
      if (!placed.gpus.empty()) {
        state.allocate(placed.gpus);
        held.push_back(placed.gpus);
      }
    }
    int free = 0, whole = 0, any = 0, most = 0;
    std::vector<int> per_group(state.groups(), 0), count(9, 0);
    for (int n = 0; n < state.nodes(); ++n) {
      int f = 0;
      for (int l = 0; l < 8; ++l) f += state.gpu_free(n * 8 + l);
      REQUIRE(f == state.free_gpus(n));
      free += f, any += f > 0, most = std::max(most, f), ++count[f];
      if (f == 8) ++whole, ++per_group[state.group_of(n)];
    }
    REQUIRE(free == state.total_free_gpus());
    REQUIRE(whole == state.whole_free_nodes());
    REQUIRE(any == state.nodes_with_any_free());
    REQUIRE(most == state.max_free_on_a_node());
    for (int c = 0; c <= 8; ++c) REQUIRE(count[c] == state.nodes_with_free(c));
    for (int g = 0; g < state.groups(); ++g) REQUIRE(per_group[g] == state.whole_free_nodes_in_group(g));
    int prev = 1 << 30;
    state.for_each_group_most_whole_first([&](int g, int w) {
      REQUIRE(w == per_group[g]);
      REQUIRE(w <= prev);
      prev = w;
      return true;
    });
  }
}

TEST_CASE("placement is monotone: a request that places still places once more GPUs are free", "[unit][sched]") {
  // The scheduler's preemption search gives up when placement's need for room fails with every victim it could take
  // taken, and takes victims until the job fits (scheduler_preempt.cpp): sound only if freeing GPUs never turns a
  // placement that fits into one that does not.
  RandomFill f(7);
  std::vector<PlacementRequest> requests;
  for (int gpus : {1, 3, 8, 16, 40, 64, 96})
    for (int groups : {0, 1, 2}) {
      requests.push_back({gpus, groups});
      PlacementRequest site{gpus, groups};
      site.first_node = 8, site.end_node = 20, site.first_group = 2, site.end_group = 5;  // one site
      requests.push_back(site);
    }
  int checked = 0, turned = 0;
  for (int step = 0; step < 3000; ++step) {
    if (f.held.empty() || f.rng.uniform() < 0.55) {
      auto placed = f.pack.place(f.state, {std::vector<int>{1, 2, 4, 8, 16, 32}[f.rng.uniform_int(0, 5)]});
      if (!placed.gpus.empty()) f.state.allocate(placed.gpus), f.held.push_back(placed.gpus);
      if (f.rng.uniform() < 0.03) {
        int node = f.rng.uniform_int(0, 23);
        f.state.set_up(node, !f.state.schedulable(node));
      }
      continue;
    }
    std::vector<bool> before;
    for (const auto& r : requests) {
      before.push_back(!f.pack.place(f.state, r).gpus.empty());
      before.push_back(!f.spread.place(f.state, r).gpus.empty());
    }
    // Free one or two jobs at once, their GPUs interleaved (runs on one node need not be contiguous).
    std::vector<int> freed;
    for (int k = f.rng.uniform_int(1, 2); k > 0 && !f.held.empty(); --k) {
      std::size_t i = static_cast<std::size_t>(f.rng.uniform_int(0, static_cast<int>(f.held.size()) - 1));
      freed.insert(freed.end(), f.held[i].begin(), f.held[i].end());
      f.held.erase(f.held.begin() + static_cast<std::ptrdiff_t>(i));
    }
    for (std::size_t i = freed.size(); i > 1; --i)
      std::swap(freed[i - 1], freed[static_cast<std::size_t>(f.rng.uniform_int(0, static_cast<int>(i) - 1))]);
    f.state.release(freed);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const bool pack_now = !f.pack.place(f.state, requests[i]).gpus.empty();
      const bool spread_now = !f.spread.place(f.state, requests[i]).gpus.empty();
      if (before[2 * i]) REQUIRE(pack_now);
      if (before[2 * i + 1]) REQUIRE(spread_now);
      checked += before[2 * i] + before[2 * i + 1];
      turned += (!before[2 * i] && pack_now) + (!before[2 * i + 1] && spread_now);
    }
  }
  CHECK(checked > 1000);  // the property was exercised, both ways
  CHECK(turned > 50);
}

TEST_CASE("freed nodes: where a placement succeeds once jobs are released, may_place said yes", "[unit][sched]") {
  // EASY backfill and the preemption search ask FreedNodes before they release GPUs to try a placement: a "no" must
  // never hide a placement that succeeds (and the question is worth asking: it says no often).
  RandomFill f(11);
  FreedNodes freed;
  int yes = 0, no = 0;
  for (int step = 0; step < 1500; ++step) {
    if (f.held.size() < 6 || f.rng.uniform() < 0.5) {
      auto placed = f.pack.place(f.state, {std::vector<int>{1, 2, 3, 4, 8, 16, 24}[f.rng.uniform_int(0, 6)]});
      if (!placed.gpus.empty()) f.state.allocate(placed.gpus), f.held.push_back(placed.gpus);
      if (f.rng.uniform() < 0.03) {
        int node = f.rng.uniform_int(0, 23);
        f.state.set_up(node, !f.state.schedulable(node));
      }
      if (f.rng.uniform() < 0.2 && !f.held.empty()) {
        std::size_t i = static_cast<std::size_t>(f.rng.uniform_int(0, static_cast<int>(f.held.size()) - 1));
        f.state.release(f.held[i]);
        f.held.erase(f.held.begin() + static_cast<std::ptrdiff_t>(i));
      }
      continue;
    }
    // Some jobs, as a search or a reservation would free them (GPU lists or per node), then released for real.
    freed.reset(f.state);
    std::vector<const std::vector<int>*> taken;
    for (const auto& h : f.held)
      if (f.rng.uniform() < 0.3) {
        taken.push_back(&h);
        if (f.rng.uniform() < 0.5) {
          freed.add(h);
        } else {
          std::vector<std::pair<int, int>> per_node;
          for (int g : h)
            if (per_node.empty() || per_node.back().first != g / 8)
              per_node.push_back({g / 8, 1});
            else
              ++per_node.back().second;
          freed.add(per_node);
        }
      }
    std::vector<bool> may;
    const std::vector<PlacementRequest> requests{{2}, {5}, {8}, {16}, {32}, {32, 1}, {64, 2}, {96}, {96, 3}};
    for (const auto& r : requests) may.push_back(freed.may_place(r.gpus, r.max_groups));
    for (const auto* h : taken) f.state.release(*h);
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const bool placed =
          !f.pack.place(f.state, requests[i]).gpus.empty() || !f.spread.place(f.state, requests[i]).gpus.empty();
      INFO("step " << step << ", request " << i);
      if (placed) REQUIRE(may[i]);
      yes += may[i], no += !may[i];
    }
    for (const auto* h : taken) f.state.allocate(*h);
  }
  CHECK(yes > 200);
  CHECK(no > 200);
}

TEST_CASE("node holders: nodes held only by a set of lists, per group, kept as jobs come and go", "[unit][sched]") {
  const int nodes = 40, per_group = 8;
  std::vector<int> group_of(nodes);
  for (int n = 0; n < nodes; ++n) group_of[static_cast<std::size_t>(n)] = n / per_group;
  NodeHolders holders;
  holders.set_groups(group_of);
  Random rng(5);
  struct Held {
    std::vector<std::pair<int, int>> per_node;
    int bit;
  };
  std::vector<Held> jobs;
  auto recount = [&](std::uint64_t lists, int max_groups) {
    std::vector<std::uint64_t> bits(nodes, 0);
    for (const auto& j : jobs)
      for (const auto& [node, n] : j.per_node) bits[static_cast<std::size_t>(node)] |= std::uint64_t{1} << j.bit;
    std::vector<int> in(nodes / per_group, 0);
    for (int n = 0; n < nodes; ++n) in[static_cast<std::size_t>(n / per_group)] += (bits[n] & ~lists) == 0;
    std::sort(in.begin(), in.end(), std::greater<>());
    long long sum = 0;
    for (int g = 0; g < static_cast<int>(in.size()) && (max_groups <= 0 || g < max_groups); ++g) sum += in[g];
    return sum;
  };
  const std::vector<std::uint64_t> sets{0, 1, 3, 6, 0xF, std::uint64_t{1} << 9 | 1};
  for (int step = 0; step < 3000; ++step) {
    if (jobs.empty() || rng.uniform() < 0.55) {
      Held h{{}, rng.uniform() < 0.1 ? NodeHolders::kOther : rng.uniform_int(0, 9)};
      const int first = rng.uniform_int(0, nodes - 1);
      for (int k = 0, count = rng.uniform_int(1, 3); k < count && first + k < nodes; ++k)
        h.per_node.push_back({first + k, rng.uniform_int(1, 4)});
      holders.move(h.per_node, -1, h.bit);
      jobs.push_back(h);
    } else {
      std::size_t i = static_cast<std::size_t>(rng.uniform_int(0, static_cast<int>(jobs.size()) - 1));
      if (rng.uniform() < 0.3) {  // to another list (parked, or back among the candidates)
        const int to = rng.uniform() < 0.5 ? NodeHolders::kOther : rng.uniform_int(0, 9);
        holders.move(jobs[i].per_node, jobs[i].bit, to);
        jobs[i].bit = to;
      } else {
        holders.move(jobs[i].per_node, jobs[i].bit, -1);
        jobs.erase(jobs.begin() + static_cast<std::ptrdiff_t>(i));
      }
    }
    const std::uint64_t lists = sets[static_cast<std::size_t>(rng.uniform_int(0, 5))];
    const int m = rng.uniform_int(0, 3);
    INFO("step " << step);
    REQUIRE(holders.nodes_within(lists, m) == recount(lists, m));
  }
  CHECK(holders.audit() == "");
}
