// Two sites under one scheduler: jobs stay in one site unless they may span; a relaunch in the other site moves the
// checkpoint over the inter-site link first, counted in the job's record.
#include <catch2/catch.hpp>
#include <set>

#include "core/control/controller.hpp"
#include "core/cost/billing.hpp"
#include "core/topo/sites.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::job;
using tt::testing::rail_cluster;
using tt::testing::scenario;

namespace {

Topology hybrid(int private_nodes, int cloud_nodes) {
  std::vector<SiteFabric> sites = {{"priv", rail_cluster(private_nodes), ""}, {"cloud", rail_cluster(cloud_nodes), ""}};
  return join_sites("hybrid", sites, InterSiteLink{BytesPerSecond(1.25e9), Seconds(0.03)});
}

std::vector<Launch> launches(const std::vector<Action>& actions) {
  std::vector<Launch> out;
  for (const auto& a : actions)
    if (auto* l = std::get_if<Launch>(&a)) out.push_back(*l);
  return out;
}

std::set<int> sites_of(const Topology& t, const std::vector<int>& gpus) {
  std::set<int> s;
  for (int g : gpus) s.insert(t.nodes()[g / t.gpus_per_node()].site);
  return s;
}

}  // namespace

TEST_CASE("sites: a job stays in one site, waits for one with reason site, spans only when allowed",
          "[unit][control][sites]") {
  JobSpec in_priv = job("priv-8", "q", 8, 9);
  JobSpec in_cloud = job("cloud-8", "q", 8, 8);
  in_cloud.site = "cloud";
  JobSpec wide = job("wide-16", "q", 16, 7);
  for (bool span : {false, true}) {
    DYNAMIC_SECTION("span_sites " << span) {
      wide.span_sites = span;
      Scenario s = scenario(hybrid(2, 2), {{"q", 64}}, {in_priv, in_cloud, wide});
      Controller c(s);
      const auto l = launches(c.handle(Timer{}, Seconds(0)));
      REQUIRE(l.size() >= 2);
      CHECK(l[0].job == 0);
      CHECK(sites_of(s.topology, l[0].gpus) == std::set<int>{0});
      CHECK(l[1].job == 1);
      CHECK(sites_of(s.topology, l[1].gpus) == std::set<int>{1});
      // One whole node free in each site: only a job that may span sites takes both.
      if (span) {
        REQUIRE(l.size() == 3);
        CHECK(sites_of(s.topology, l[2].gpus) == std::set<int>{0, 1});
      } else {
        CHECK(l.size() == 2);
        bool site_reason = false;
        for (const auto& d : c.record().decisions)
          if (d.kind == "pending" && d.job == "wide-16")
            site_reason = d.reason.find("within one site") != std::string::npos;
        CHECK(site_reason);
      }
    }
  }
}

TEST_CASE("sites: overflow off keeps every job in the first site and leaves the other unbilled",
          "[unit][control][sites]") {
  Scenario s = scenario(hybrid(1, 2), {{"q", 64}}, {job("a", "q", 8), job("b", "q", 8)});
  s.scheduler.overflow = false;
  Controller c(s);
  const auto l = launches(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 1);  // b waits for the private node rather than overflowing
  CHECK(sites_of(s.topology, l[0].gpus) == std::set<int>{0});
  s.cost.enabled = true;
  s.cost.gpu = {{"priv", PriceKind::Reserved, 2.0}, {"cloud", PriceKind::OnDemand, 6.0}};
  const cost::CostInput in = cost::cost_input(c.record(), s);
  REQUIRE(in.capacity.size() == 1);
  CHECK(in.capacity[0].node == "priv.n0");
}

TEST_CASE("sites: a relaunch in the other site moves the checkpoint over the link first", "[unit][control][sites]") {
  Scenario s = scenario(hybrid(1, 1), {{"q", 64}}, {job("train", "q", 8)});
  Controller c(s);
  auto l = launches(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 1);
  CHECK(sites_of(s.topology, l[0].gpus) == std::set<int>{0});
  CHECK_FALSE(l[0].move);
  c.handle(JobProgress{0, 1, 100, Seconds(1)}, Seconds(200));
  c.handle(CheckpointDone{0, 1, 100, Seconds(5), Seconds(5)}, Seconds(205));
  c.handle(NodeDown{0}, Seconds(300));
  std::vector<Launch> relaunched;
  for (int i = 0; i < 20 && relaunched.empty(); ++i) {
    auto next = c.next_deadline();
    REQUIRE(next);
    relaunched = launches(c.handle(Timer{}, *next));
  }
  REQUIRE(relaunched.size() == 1);
  const Launch& r = relaunched[0];
  CHECK(sites_of(s.topology, r.gpus) == std::set<int>{1});
  CHECK(r.start_iteration == 100);
  REQUIRE(r.move);
  const JobRecord& jr = c.record().jobs[0];
  CHECK(r.move->from_site == 0);
  CHECK(r.move->to_site == 1);
  CHECK(r.move->bytes.value == jr.checkpoint_bytes.value);
  CHECK(jr.checkpoint_bytes.value > 0);
  CHECK(r.move->predicted.value == Approx(jr.checkpoint_bytes.value / 1.25e9 + 0.03));
  CHECK(r.startup_with_move().value == Approx(r.startup.value + r.move->predicted.value));
  CHECK(jr.checkpoint_moves == 1);
  CHECK(jr.checkpoint_moved_bytes.value == jr.checkpoint_bytes.value);
  CHECK(jr.checkpoint_move_time.value == Approx(r.move->predicted.value));
  CHECK(jr.site == "cloud");
}
