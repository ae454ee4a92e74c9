#include "sim/world.hpp"

#include "sim/job.hpp"

namespace tt::sim {

World::World(const Scenario& s, Platform& p)
    : scenario(s), platform(p), gpu_speed(static_cast<std::size_t>(s.topology.total_gpus()), 1.0) {}
World::~World() = default;

void World::cluster_changed() {
  ++epoch;
  for (auto& [key, run] : runs)
    if (run->wake) run->wake->release();
}

}  // namespace tt::sim
