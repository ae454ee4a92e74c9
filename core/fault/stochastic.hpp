// Stochastic faults: each FaultRate is a Poisson process over the kind's components (exponential gaps at
// components / mtbf, a component picked uniformly, a repair time from its distribution). Every draw comes from the
// scenario seed through tt::Random (core/model/random.hpp), one stream per rate, so a seed gives the same faults everywhere and adding a rate leaves
// the others' draws unchanged.
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/random.hpp"
#include "core/model/scenario.hpp"
#include "core/topo/topology.hpp"

namespace tt {

Seconds draw_repair(const RepairDistribution& d, Random& rng);
// An independent stream of one seed (splitmix64 of seed and stream), for one use of the scenario seed.
Random stream(std::uint64_t seed, std::uint64_t index);
// Faults in [0, until), sorted by time (ties keep rate order). Rates whose kind has no candidate draw nothing.
std::vector<FaultSpec> draw_faults(const std::vector<FaultRate>& rates, const Topology& topo, std::uint64_t seed,
                                   Seconds until);
// The scenario's scripted faults followed by its stochastic ones up to its `until` (or the sim horizon), by time.
std::vector<FaultSpec> scenario_faults(const Scenario& s);
// Expected failures per second that stop a job holding `nodes` whole nodes (its GPUs, NICs and nodes), from the
// stochastic rates; for Young/Daly advice when a job saw no failure. Link and switch faults are left out.
double expected_job_failure_rate(const Scenario& s, int gpus);

}  // namespace tt
