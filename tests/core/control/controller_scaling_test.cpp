// Scaling as a Controller policy (core/control/controller_scaling.cpp), driven by hand-written events, no backend:
// scale up for pending demand that fits a pool (and not for demand that does not), scale down after the idle timeout
// but never below min, placement preferring fixed capacity, and a reclaim notice that waits for a checkpoint within
// the notice or stops the job at once.
#include <catch2/catch.hpp>

#include "core/control/controller.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using namespace tt::testing;

namespace {

// n3 fixed; n0..n2 an elastic (or spot) pool of `max` slots from n0 (lower-numbered than the fixed node, so that
// preferring fixed capacity is not the placement's lowest-index tie-break).
Scenario pooled(std::vector<JobSpec> jobs, int min, int max, PoolKind kind = PoolKind::Elastic) {
  Scenario s = scenario(rail_cluster(4, 4), {QueueSpec{"q", 64}}, std::move(jobs));
  PoolSpec own;
  own.name = "own";
  own.kind = PoolKind::Fixed;
  own.nodes = {3};
  own.min = own.max = 1;
  own.price_kind = PriceKind::Reserved;
  PoolSpec cloud;
  cloud.name = "cloud";
  cloud.kind = kind;
  cloud.nodes = {0, 1, 2};
  cloud.min = min;
  cloud.max = max;
  cloud.provision_delay.scale = Seconds(300);
  cloud.idle_timeout = Seconds(600);
  if (kind == PoolKind::Spot) cloud.reclaim_mean = Seconds(3600);
  cloud.price_per_gpu_hour = 3;
  s.pools = {own, cloud};
  return s;
}

struct Rig {
  Scenario sc;
  Controller c;
  std::vector<Action> seen;
  explicit Rig(Scenario s) : sc(std::move(s)), c(sc) {}
  std::vector<Action> at(double t, const Event& e) {
    auto a = c.handle(e, Seconds(t));
    seen.insert(seen.end(), a.begin(), a.end());
    return a;
  }
};

template <class A>
std::vector<A> only(const std::vector<Action>& actions) {
  std::vector<A> out;
  for (const auto& a : actions)
    if (const auto* x = std::get_if<A>(&a)) out.push_back(*x);
  return out;
}

}  // namespace

TEST_CASE("scaling: pending demand that fits the pool provisions nodes, the job starts on them", "[unit][control]") {
  Rig r(pooled({job("small", "q", 8), job("big", "q", 16)}, 0, 3));
  REQUIRE(r.c.next_deadline() == Seconds(0));
  auto a = r.at(0, Timer{});
  auto launches = only<Launch>(a);
  REQUIRE(launches.size() == 1);  // small on the fixed node n3
  CHECK(launches[0].gpus.front() / 8 == 3);
  auto provisions = only<ProvisionNode>(a);
  REQUIRE(provisions.size() == 2);  // big needs two whole nodes, none free
  CHECK(provisions[0].node == 0);
  CHECK(provisions[1].node == 1);
  CHECK(provisions[0].pool == 1);
  CHECK(r.c.pending_reason(1) != "");
  // Nothing more is asked for while those two come.
  CHECK(only<ProvisionNode>(r.at(60, Timer{})).empty());
  CHECK(only<Launch>(r.at(300, NodeProvisioned{0})).empty());
  launches = only<Launch>(r.at(310, NodeProvisioned{1}));
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].job == 1);
  CHECK(launches[0].gpus.front() / 8 == 0);
  const auto& pools = r.c.record().pools;
  REQUIRE(pools.size() == 2);
  CHECK(pools[1].provisions == 2);
  CHECK(pools[1].provision_waits == std::vector<Seconds>{Seconds(300), Seconds(310)});
}

TEST_CASE("scaling: demand that fits no pool provisions nothing", "[unit][control]") {
  // 24 GPUs: three nodes; n3 is busy and the pool may hold only one.
  Rig r(pooled({job("small", "q", 8), job("huge", "q", 24)}, 0, 1));
  auto a = r.at(0, Timer{});
  CHECK(only<ProvisionNode>(a).empty());
  CHECK(r.c.pending_reason(1) != "");
  for (const auto& d : r.c.record().decisions) CHECK(d.kind != "scale_up");
}

TEST_CASE("scaling: idle nodes are released after the idle timeout, never below min", "[unit][control]") {
  Rig r(pooled({job("small", "q", 8), job("big", "q", 16)}, 1, 3));
  auto a = r.at(0, Timer{});
  // min 1 first, then one more for big (the one coming counts).
  auto provisions = only<ProvisionNode>(a);
  REQUIRE(provisions.size() == 2);
  r.at(300, NodeProvisioned{provisions[0].node});
  auto launches = only<Launch>(r.at(300, NodeProvisioned{provisions[1].node}));
  REQUIRE(launches.size() == 1);
  CHECK(launches[0].job == 1);
  r.at(1000, JobCompleted{1, launches[0].attempt});
  // Idle since 1000: released at the timeout, one node only (the other stays for min 1), never again.
  std::vector<std::pair<Seconds, ReleaseNode>> released;
  while (auto d = r.c.next_deadline()) {
    if (*d > Seconds(20000)) break;
    for (const auto& x : only<ReleaseNode>(r.at(d->value, Timer{}))) released.emplace_back(*d, x);
  }
  REQUIRE(released.size() == 1);
  CHECK(released[0].first == Seconds(1600));
  CHECK(released[0].second.pool == 1);
  const auto& rec = r.c.record();
  CHECK(rec.pools[1].releases == 1);
  REQUIRE(rec.capacity.size() == 1);  // the released node's interval; the other is still in service
  CHECK(rec.capacity[0].pool == "cloud");
  CHECK(rec.capacity[0].start == Seconds(0));
  CHECK(rec.capacity[0].end == Seconds(1600));
  CHECK(rec.capacity[0].gpus == 8);
}

TEST_CASE("scaling: placement prefers fixed nodes over provisioned pool nodes", "[unit][control]") {
  Rig r(pooled({job("later", "q", 8, 0, 100)}, 1, 3));
  auto provisions = only<ProvisionNode>(r.at(0, Timer{}));
  REQUIRE(provisions.size() == 1);  // min 1
  r.at(50, NodeProvisioned{provisions[0].node});
  auto launches = only<Launch>(r.at(100, Timer{}));
  REQUIRE(launches.size() == 1);
  CHECK(provisions[0].node == 0);
  CHECK(launches[0].gpus.front() / 8 == 3);  // n3 (fixed), though the pool node n0 is free and lower-numbered
}

TEST_CASE("scaling: a reclaim notice waits for a checkpoint within the notice, else stops the job", "[unit][control]") {
  for (bool in_time : {true, false}) {
    INFO((in_time ? "checkpoint within the notice" : "no checkpoint in time"));
    Rig r(pooled({job("small", "q", 8), job("big", "q", 16)}, 0, 3, PoolKind::Spot));
    REQUIRE(only<ProvisionNode>(r.at(0, Timer{})).size() == 2);
    r.at(100, NodeProvisioned{0});
    auto launches = only<Launch>(r.at(100, NodeProvisioned{1}));
    REQUIRE(launches.size() == 1);
    const int attempt = launches[0].attempt;
    // checkpoint_every 100: at 97 iterations of 1 s the next checkpoint is ~3 s away; at 10 of 10 s, 900 s away.
    r.at(508, JobProgress{1, attempt, in_time ? 97 : 10, Seconds(in_time ? 1.0 : 10.0)});
    auto a = r.at(510, NodeReclaimNotice{0, Seconds(630)});
    if (in_time) {
      CHECK(only<Kill>(a).empty());
      a = r.at(516, CheckpointDone{1, attempt, 100, Seconds(1), Seconds(1)});
    }
    auto kills = only<Kill>(a);
    REQUIRE(kills.size() == 1);
    CHECK(kills[0].job == 1);
    CHECK(r.c.pending_reason(1) != "");  // requeued
    const auto& pool = r.c.record().pools[1];
    CHECK(pool.jobs_requeued == 1);
    CHECK(pool.checkpoints_in_notice == (in_time ? 1 : 0));
    CHECK(r.c.record().jobs[1].iterations_done == (in_time ? 100 : 0));
    // The requeued job needs two nodes: n1 is free, the noticed n0 takes no work, so a replacement is asked for.
    auto provisions = only<ProvisionNode>(a);
    REQUIRE(provisions.size() == 1);
    CHECK(provisions[0].node == 2);
    // The node goes; its interval closes; nothing more is needed.
    a = r.at(630, NodeReclaimed{0});
    CHECK(only<ProvisionNode>(a).empty());
    CHECK(r.c.record().pools[1].reclaims == 1);
    bool closed = false;
    for (const auto& c : r.c.record().capacity) closed |= c.node == "n0" && c.end == Seconds(630);
    CHECK(closed);
  }
}

TEST_CASE("scaling: with checkpoint_on_notice a job writes a checkpoint at the notice when the write fits",
          "[unit][control]") {
  double lost[2] = {0, 0};  // GPU-hours lost to the reclaim: too short a notice, then one the write fits in
  for (bool fits : {true, false}) {
    INFO((fits ? "the write fits in the notice" : "the notice is too short for the write"));
    Scenario s = pooled({job("small", "q", 8), job("big", "q", 16)}, 0, 3, PoolKind::Spot);
    s.pools[1].checkpoint_on_notice = true;
    Rig r(std::move(s));
    REQUIRE(only<ProvisionNode>(r.at(0, Timer{})).size() == 2);
    r.at(100, NodeProvisioned{0});
    auto launches = only<Launch>(r.at(100, NodeProvisioned{1}));
    REQUIRE(launches.size() == 1);
    const int attempt = launches[0].attempt;
    // One checkpoint written (20 s), then 10 iterations of 10 s: the cadence checkpoint (every 100) is 900 s away.
    r.at(300, CheckpointDone{1, attempt, 5, Seconds(20), Seconds(20)});
    r.at(508, JobProgress{1, attempt, 10, Seconds(10.0)});
    // Expected at 510 (now) + 10 (the iteration in flight) + 20 (the write, as long as the last) = 540.
    auto a = r.at(510, NodeReclaimNotice{0, Seconds(fits ? 630 : 530)});
    const auto asked = only<CheckpointNow>(a);
    const auto& pool = r.c.record().pools[1];
    if (fits) {
      REQUIRE(asked.size() == 1);
      CHECK(asked[0].job == 1);
      CHECK(asked[0].attempt == attempt);
      CHECK(only<Kill>(a).empty());
      CHECK(pool.checkpoints_on_notice == 1);
      a = r.at(540, CheckpointDone{1, attempt, 11, Seconds(20), Seconds(20)});
    } else {
      CHECK(asked.empty());
      CHECK(pool.checkpoints_on_notice == 0);
    }
    REQUIRE(only<Kill>(a).size() == 1);
    CHECK(pool.jobs_requeued == 1);
    CHECK(pool.checkpoints_in_notice == (fits ? 1 : 0));
    // Resumes from the checkpoint written at the notice (11), else from the one before (5).
    CHECK(r.c.record().jobs[1].iterations_done == (fits ? 11 : 5));
    bool decided = false;
    for (const auto& d : r.c.record().decisions) decided |= d.kind == "reclaim_checkpoint_now";
    CHECK(decided == fits);
    lost[fits] = pool.reclaim_lost_gpu_hours;
  }
  // Both lose the restart; stopped at once, the job also loses its 5 iterations since the checkpoint (16 GPUs x 10 s).
  CHECK(lost[0] - lost[1] == Approx(5 * 10.0 * 16 / 3600));
}
