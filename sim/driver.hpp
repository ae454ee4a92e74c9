// sim::run: drives a Controller with a SimGrid model of the scenario's cluster until every job is done or the horizon
// is reached, then finishes the record. SimGrid allows one engine per process: call run() at most once per process
// (tests that need several simulations run each in a child process, see sim/isolated.hpp).
#pragma once

#include "core/control/controller.hpp"
#include "core/model/scenario.hpp"

namespace tt::sim {

struct RunStats {
  double wall_seconds = 0;
  long long simgrid_activities = 0;  // execs and comms started
};

RunStats run(const Scenario& scenario, Controller& controller);

}  // namespace tt::sim
