#include "sim/world.hpp"

#include <algorithm>

#include "sim/job.hpp"

namespace tt::sim {

World::World(const Scenario& s, Platform& p)
    : scenario(s), platform(p), gpu_speed(static_cast<std::size_t>(s.topology.total_gpus()), 1.0) {}
World::~World() = default;

void World::cluster_changed(const std::vector<int>* footprint) {
  ++epoch;
  if (!footprint) {
    for (auto& [key, run] : runs) {
      run->dirty = true;
      if (run->wake) run->wake->release();
    }
    return;
  }
  if (cable_mark.size() < platform.topology().edges().size()) cable_mark.assign(platform.topology().edges().size(), 0);
  ++mark_stamp;
  for (int c : *footprint) cable_mark[c] = mark_stamp;
  for (auto& [key, run] : runs) {
    const auto& c = run->cables;
    if (!std::any_of(c.begin(), c.end(), [&](int cable) { return cable_mark[cable] == mark_stamp; })) continue;
    run->dirty = true;
    if (run->wake) run->wake->release();
  }
}

}  // namespace tt::sim
