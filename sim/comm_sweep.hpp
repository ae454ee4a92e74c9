// Measures a collective sweep (core/plan/comm_sweep.hpp) in SimGrid: every size is one step of one engine, run in a
// forked child (sim/isolated.hpp) so the caller may measure several sweeps. Fills each row's measured time (the
// planned transfers as flows, plus the planned latency). Returns the number of sizes that could not be measured: all
// of them, with the reason in `error`, when the simulation fails.
#pragma once

#include <string>

#include "core/plan/comm_sweep.hpp"
#include "core/topo/topology.hpp"

namespace tt::sim {

int measure_sweep(const Topology& topology, Sweep& sweep, std::string* error = nullptr);

}  // namespace tt::sim
