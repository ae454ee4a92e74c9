#include "sim/world.hpp"

#include "sim/job.hpp"

namespace tt::sim {

World::World(const Scenario& s, Platform& p) : scenario(s), platform(p) {}
World::~World() = default;

void World::cluster_changed() {
  ++epoch;
  for (auto& [key, run] : runs)
    if (run->wake) run->wake->release();
}

}  // namespace tt::sim
