#include "core/topo/generators.hpp"

#include <catch2/catch.hpp>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::fabric;

namespace {

int links_of_kind(const Topology& t, LinkKind kind) {
  int n = 0;
  for (EdgeId e : t.edges()) n += t.graph()[e].kind == kind;
  return n;
}

}  // namespace

TEST_CASE("single node: GPUs on one NVSwitch, storage off the NVSwitch", "[unit]") {
  FabricParams p = fabric(1, 1, 0);
  Topology t = make_single_node(p);
  CHECK(t.generator() == "single-node");
  CHECK(t.nodes().size() == 1);
  CHECK(t.total_gpus() == 8);
  CHECK(t.switch_count(VertexKind::NvSwitch) == 1);
  CHECK(t.switch_count(VertexKind::Leaf) == 0);
  CHECK(t.switch_count(VertexKind::Spine) == 0);
  CHECK(boost::num_vertices(t.graph()) == 10);
  CHECK(links_of_kind(t, LinkKind::NvLink) == 8);
  CHECK(links_of_kind(t, LinkKind::Storage) == 1);
  CHECK(t.edges().size() == 9);
  REQUIRE(t.has_storage());
  CHECK(t.find_link("n0/nvswitch~storage") >= 0);
  CHECK(t.storage_bandwidth().value == Approx(200e9));
  for (EdgeId e : t.edges())
    if (t.graph()[e].kind == LinkKind::NvLink) CHECK(t.graph()[e].bandwidth.value == Approx(450e9));
}

TEST_CASE("rail-optimized, two groups: one leaf per (group, rail), every leaf on every spine", "[unit]") {
  Topology t = make_rail_optimized(fabric(16, 8, 8));
  CHECK(t.generator() == "rail-optimized");
  CHECK(t.groups() == 2);
  CHECK(t.total_gpus() == 128);
  CHECK(t.switch_count(VertexKind::Gpu) == 128);
  CHECK(t.switch_count(VertexKind::NvSwitch) == 16);
  CHECK(t.switch_count(VertexKind::Leaf) == 16);
  CHECK(t.switch_count(VertexKind::Spine) == 8);
  CHECK(t.switch_count(VertexKind::Storage) == 1);
  CHECK(links_of_kind(t, LinkKind::NvLink) == 128);
  CHECK(links_of_kind(t, LinkKind::Nic) == 128);
  CHECK(links_of_kind(t, LinkKind::Fabric) == 16 * 8);
  CHECK(links_of_kind(t, LinkKind::Storage) == 8);
  CHECK(t.storage_bandwidth().value == Approx(200e9));
  // Non-blocking: 8 nodes x 400Gb/s per leaf, over 8 spines -> 400Gb/s per uplink.
  int up = t.find_link("leaf-g1-r5~spine2");
  REQUIRE(up >= 0);
  CHECK(t.link(up).bandwidth.value == Approx(50e9));
  CHECK(t.link(up).id == up);
  int nic = t.find_link("n9/gpu5~leaf-g1-r5");
  REQUIRE(nic >= 0);
  CHECK(t.link(nic).kind == LinkKind::Nic);
  CHECK(t.find_link("n9/gpu5~leaf-g0-r5") == -1);
  CHECK(t.find_link("spine7~storage") >= 0);
  CHECK(t.nodes()[9].group == 1);
  CHECK(t.graph()[t.find_vertex("leaf-g1-r5")].group == 1);
}

TEST_CASE("rail-optimized: uneven last group, derived spines, oversubscribed uplinks", "[unit]") {
  FabricParams p = fabric(20, 8, 0, 2.0);
  Topology t = make_rail_optimized(p);
  CHECK(spine_count(p) == 8);  // derived: one per rail plane
  CHECK(t.groups() == 3);
  CHECK(t.switch_count(VertexKind::Leaf) == 24);
  CHECK(t.switch_count(VertexKind::Spine) == 8);
  CHECK(links_of_kind(t, LinkKind::Fabric) == 24 * 8);
  // Full group: 8 x 50GB/s / 2 over 8 spines; last group (4 nodes): half that.
  CHECK(t.link(t.find_link("leaf-g0-r0~spine0")).bandwidth.value == Approx(25e9));
  CHECK(t.link(t.find_link("leaf-g2-r0~spine0")).bandwidth.value == Approx(12.5e9));
  CHECK(t.find_node("n19") == 19);
  CHECK(t.nodes()[19].group == 2);
}

TEST_CASE("rail-optimized, one group: no spines, storage off every leaf", "[unit]") {
  FabricParams p = fabric(4, 32, 0);
  Topology t = make_rail_optimized(p);
  CHECK(spine_count(p) == 0);
  CHECK(t.groups() == 1);
  CHECK(t.switch_count(VertexKind::Leaf) == 8);
  CHECK(t.switch_count(VertexKind::Spine) == 0);
  CHECK(links_of_kind(t, LinkKind::Fabric) == 0);
  CHECK(links_of_kind(t, LinkKind::Storage) == 8);
  CHECK(t.link(t.find_link("leaf-g0-r3~storage")).bandwidth.value == Approx(25e9));
  CHECK(t.storage_bandwidth().value == Approx(200e9));
}

TEST_CASE("leaf-spine: one leaf per rack with all the rack's NICs", "[unit]") {
  Topology t = make_leaf_spine(fabric(32, 4, 4, 2.0));
  CHECK(t.generator() == "leaf-spine");
  CHECK(t.groups() == 8);
  CHECK(t.switch_count(VertexKind::Leaf) == 8);
  CHECK(t.switch_count(VertexKind::Spine) == 4);
  CHECK(links_of_kind(t, LinkKind::Nic) == 256);
  CHECK(links_of_kind(t, LinkKind::Fabric) == 32);
  CHECK(links_of_kind(t, LinkKind::Storage) == 4);
  CHECK(t.find_link("n5/gpu7~leaf-g1") >= 0);
  // 4 nodes x 8 NICs x 50GB/s / 2, over 4 spines.
  CHECK(t.link(t.find_link("leaf-g1~spine3")).bandwidth.value == Approx(200e9));
}

TEST_CASE("no storage target when the storage bandwidth is zero", "[unit]") {
  FabricParams p = fabric(16, 8, 8);
  p.storage_bandwidth = BytesPerSecond(0);
  Topology t = make_rail_optimized(p);
  CHECK_FALSE(t.has_storage());
  CHECK(t.find_vertex("storage") == -1);
  CHECK(t.storage_bandwidth().value == 0);
}
