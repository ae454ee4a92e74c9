#include "core/plan/comm_layout.hpp"

#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "tests/core/plan/comm_fixture.hpp"

using namespace tt;

namespace {

// (node, rail, direction) -> rings whose inter-node edges leave (out) or enter (in) a node on that rail.
std::map<std::tuple<int, int, char>, int> nic_use(const std::vector<std::vector<int>>& rings) {
  std::map<std::tuple<int, int, char>, int> use;
  for (const auto& ring : rings)
    for (std::size_t i = 0; i < ring.size(); ++i) {
      int a = ring[i], b = ring[(i + 1) % ring.size()];
      if (a / 8 == b / 8) continue;
      ++use[{a / 8, a % 8, 'o'}];
      ++use[{b / 8, b % 8, 'i'}];
    }
  return use;
}

}  // namespace

TEST_CASE("rings are rail-aligned and every NIC carries one ring each way", "[unit][plan]") {
  for (int nodes : {2, 3, 4, 5, 16}) {
    INFO(nodes << " nodes of 8 GPUs");
    GroupLayout l = layout_of(testing::first_gpus(nodes * 8), 8);
    CHECK(l.uniform);
    auto rings = ring_channels(l);
    REQUIRE(rings.size() == 8);
    for (const auto& ring : rings) {
      CHECK(ring.size() == static_cast<std::size_t>(nodes * 8));
      CHECK(std::set<int>(ring.begin(), ring.end()).size() == ring.size());  // a ring visits every GPU once
      CHECK(rail_aligned(ring, 8));
    }
    if (nodes % 2 == 0) {  // an odd count ends each ring on a third rail, so one NIC carries two
      auto use = nic_use(rings);
      CHECK(use.size() == static_cast<std::size_t>(nodes * 8 * 2));
      for (const auto& [key, count] : use) CHECK(count == 1);
    }
  }
}

TEST_CASE("a data-parallel group of one GPU per node stays on its rail", "[unit][plan]") {
  auto rings = ring_channels(layout_of({3, 11, 19, 27}, 8));
  REQUIRE(rings.size() == 1);
  CHECK(rings[0] == std::vector<int>{3, 11, 19, 27});
  CHECK(rail_aligned(rings[0], 8));
  // Two GPUs per node on rails 1 and 5: two channels, alternating rails, still aligned.
  auto two = ring_channels(layout_of({1, 5, 9, 13, 17, 21, 25, 29}, 8));
  REQUIRE(two.size() == 2);
  for (const auto& ring : two) CHECK(rail_aligned(ring, 8));
  // Mixed rails across nodes cannot be aligned: one ring, node after node.
  GroupLayout mixed = layout_of({0, 9}, 8);
  CHECK_FALSE(mixed.uniform);
  auto one = ring_channels(mixed);
  REQUIRE(one.size() == 1);
  CHECK_FALSE(rail_aligned(one[0], 8));
  CHECK(ring_channels(layout_of(testing::first_gpus(8), 8)) == std::vector<std::vector<int>>{testing::first_gpus(8)});
}

TEST_CASE("double binary trees: every node but the root has a parent, inner nodes of one are leaves of the other",
          "[unit][plan]") {
  const int nodes = 16;
  auto trees = tree_channels(layout_of(testing::first_gpus(nodes * 8), 8));
  REQUIRE(trees.size() == 16);  // 8 channels (one head rail each) x 2 trees
  for (std::size_t t = 0; t < trees.size(); ++t) {
    const TreeChannel& tree = trees[t];
    REQUIRE(tree.parent.size() == nodes);
    CHECK(std::count(tree.parent.begin(), tree.parent.end(), -1) == 1);
    for (const auto& chain : tree.chains) CHECK(chain[0] % 8 == static_cast<int>(t / 2));  // heads on the rail
  }
  std::set<int> inner_a, inner_b;
  for (int i = 0; i < nodes; ++i) {
    if (trees[0].parent[i] >= 0) inner_a.insert(trees[0].parent[i]);
    if (trees[1].parent[i] >= 0) inner_b.insert(trees[1].parent[i]);
  }
  for (int v : inner_a) CHECK(inner_b.count(v) == 0);
  CHECK(std::find(trees[0].parent.begin(), trees[0].parent.end(), -1) - trees[0].parent.begin() == 0);
  CHECK(std::find(trees[1].parent.begin(), trees[1].parent.end(), -1) - trees[1].parent.begin() == nodes - 1);
}

TEST_CASE("rings cross the spine layer only between leaf groups: twice per channel for two groups", "[unit][plan]") {
  Topology topo = testing::h100_nodes(16, "H100-SXM", 8);  // two leaf groups of 8 nodes behind the spines
  REQUIRE(topo.groups() == 2);
  auto rings = ring_channels(layout_of(testing::first_gpus(128), 8));
  for (const auto& ring : rings) {
    int through_spine = 0;
    for (std::size_t i = 0; i < ring.size(); ++i) {
      Path p = topo.path(topo.gpu_vertex(ring[i] / 8, ring[i] % 8),
                         topo.gpu_vertex(ring[(i + 1) % ring.size()] / 8, ring[(i + 1) % ring.size()] % 8));
      if (p.size() > 2) {
        CHECK(p.size() == 4);  // NIC, leaf -> spine, spine -> leaf, NIC: never a detour through another GPU
        ++through_spine;
      }
    }
    CHECK(through_spine == 2);
  }
}
