// PoolEffects (core/drive/pool_effects.hpp): provisioning delays and spot reclaims played from the seed, the same for
// every driver; a release cancels what is pending.
#include <catch2/catch.hpp>

#include "core/drive/pool_effects.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using namespace tt::testing;

namespace {

class Quiet final : public Executor {
 public:
  void execute(const Action&, Seconds) override {}
  void inject(const FaultChange&, const FaultSpec&, const FaultTarget&, Seconds) override {}
  std::optional<Event> next_event() override { return std::nullopt; }
};

Scenario spot(std::uint64_t seed) {
  Scenario s = scenario(rail_cluster(2, 2), {QueueSpec{"q", 16}}, {});
  s.seed = seed;
  PoolSpec p;
  p.name = "spot";
  p.kind = PoolKind::Spot;
  p.nodes = {0, 1};
  p.max = 2;
  p.provision_delay.shape = RepairDistribution::Shape::Lognormal;
  p.provision_delay.scale = Seconds(180);
  p.provision_delay.sigma = 0.5;
  p.reclaim_mean = Seconds(3600);
  p.reclaim_notice = Seconds(120);
  s.pools = {p};
  return s;
}

// Provisions node 0 at t=0 and plays it to its reclaim: (provisioned at, notice at, reclaimed at).
std::tuple<Seconds, Seconds, Seconds> play(const Scenario& s) {
  Quiet inner;
  PoolEffects pe(s, inner);
  pe.execute(ProvisionNode{0, 0}, Seconds(0));
  std::vector<Seconds> at;
  while (auto t = pe.next_observation()) {
    pe.observe(*t);
    while (auto e = pe.next_event()) {
      at.push_back(*t);
      if (const auto* n = std::get_if<NodeReclaimNotice>(&*e)) CHECK(n->at == *t + Seconds(120));
      CHECK(e->index() == std::vector<std::size_t>{Event(NodeProvisioned{}).index(),
                                                   Event(NodeReclaimNotice{}).index(),
                                                   Event(NodeReclaimed{}).index()}[at.size() - 1]);
    }
  }
  REQUIRE(at.size() == 3);
  return {at[0], at[1], at[2]};
}

}  // namespace

TEST_CASE("pool effects: provisioning and reclaims are drawn from the seed", "[unit][drive]") {
  const auto a = play(spot(7));
  CHECK(play(spot(7)) == a);  // same seed, same times
  CHECK(play(spot(8)) != a);
  const auto [ready, notice, gone] = a;
  CHECK(ready > Seconds(0));
  CHECK(notice >= ready);
  CHECK(gone == notice + Seconds(120));
}

TEST_CASE("pool effects: a release cancels the pending provisioning and reclaim", "[unit][drive]") {
  const Scenario s = spot(3);
  Quiet inner;
  PoolEffects pe(s, inner);
  pe.execute(ProvisionNode{1, 0}, Seconds(10));
  REQUIRE(pe.next_observation());
  CHECK(*pe.next_observation() == Seconds(10) + pe.last_delay());
  pe.execute(ReleaseNode{1, 0}, Seconds(20));
  CHECK_FALSE(pe.next_observation());
  // Without pools nothing is pending, ever.
  Scenario plain = s;
  plain.pools.clear();
  PoolEffects none(plain, inner);
  none.execute(Kill{}, Seconds(0));
  CHECK_FALSE(none.next_observation());
}
