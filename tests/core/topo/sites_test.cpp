// Two sites joined by one long, thin link: names, site ranges, storage per site, routes across the link.
#include "core/topo/sites.hpp"

#include <catch2/catch.hpp>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;

namespace {

Topology two_sites() {
  std::vector<SiteFabric> sites = {{"priv", testing::rail_cluster(2), ""}, {"cloud", testing::rail_cluster(3), ""}};
  return join_sites("hybrid", sites, InterSiteLink{BytesPerSecond(1.25e9), Seconds(0.02)});
}

}  // namespace

TEST_CASE("sites: every node knows its site, each site its own storage and contiguous nodes", "[unit][topo]") {
  const Topology t = two_sites();
  REQUIRE(t.sites().size() == 2);
  CHECK(t.nodes().size() == 5);
  CHECK(t.generator() == "sites");
  CHECK(t.nodes()[0].name == "priv.n0");
  CHECK(t.nodes()[2].name == "cloud.n0");
  CHECK(t.nodes()[1].site == 0);
  CHECK(t.nodes()[2].site == 1);
  CHECK(t.sites()[0].first_node == 0);
  CHECK(t.sites()[0].end_node == 2);
  CHECK(t.sites()[1].first_node == 2);
  CHECK(t.sites()[1].end_node == 5);
  CHECK(t.sites()[1].first_group == t.sites()[0].end_group);
  CHECK(t.switch_count(VertexKind::Storage) == 2);
  REQUIRE(t.sites()[1].has_storage);
  CHECK(t.graph()[t.sites()[1].storage].name == "cloud.storage");
  CHECK(t.storage() == t.sites()[0].storage);
  REQUIRE(t.inter_site_link() >= 0);
  CHECK(t.link(t.inter_site_link()).name == "priv~cloud");
  CHECK(t.link(t.inter_site_link()).bandwidth.value == 1.25e9);
}

TEST_CASE("sites: a route between sites crosses the inter-site link, within a site it never does", "[unit][topo]") {
  const Topology t = two_sites();
  auto crosses = [&](const Path& p) {
    for (const Hop& h : p)
      if (t.graph()[h.edge].id == t.inter_site_link()) return true;
    return false;
  };
  CHECK(crosses(t.path(t.gpu_vertex(0, 0), t.gpu_vertex(2, 0))));
  CHECK(crosses(t.path(t.sites()[0].storage, t.sites()[1].storage)));
  CHECK_FALSE(crosses(t.path(t.gpu_vertex(0, 0), t.gpu_vertex(1, 3))));
  CHECK_FALSE(crosses(t.path(t.gpu_vertex(2, 0), t.gpu_vertex(4, 0))));
  const Path between = t.path(t.gpu_vertex(0, 0), t.gpu_vertex(2, 0));
  CHECK(t.bottleneck(between).value == 1.25e9);
  CHECK(t.latency(between).value >= 0.02);
}

TEST_CASE("sites: a one-site topology has no sites and one site count", "[unit][topo]") {
  const Topology t = testing::rail_cluster(2);
  CHECK(t.sites().empty());
  CHECK(t.site_count() == 1);
  CHECK(t.inter_site_link() == -1);
}
