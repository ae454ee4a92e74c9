// Waiting on many SimGrid activities at once, and what a job keeps so that a Kill can cancel its activities.
// Call from inside an actor. SimGrid failures (HostFailureException, NetworkFailureException) propagate to the caller.
#pragma once

#include <simgrid/s4u/Activity.hpp>
#include <vector>

namespace tt::sim {

struct InFlight {
  std::vector<simgrid::s4u::ActivityPtr> waiting;  // the batch its owner is waiting on
  long long started = 0;                           // activities its owner started (RunStats)
};

// Waits until every activity of `batch` is done and returns each one's finish time (simulated seconds, in batch
// order). When one fails, cancels the others and rethrows its exception. `inflight` holds the batch meanwhile.
std::vector<double> wait_all(const std::vector<simgrid::s4u::ActivityPtr>& batch, InFlight& inflight);

// Cancels what the owner of `inflight` is waiting on (it is being killed).
void cancel_all(InFlight& inflight);

}  // namespace tt::sim
