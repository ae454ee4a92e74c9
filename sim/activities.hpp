// Waiting on many SimGrid activities at once, and what an actor keeps so that another can stop it: cancel_all()
// cancels the batch it waits on and marks it cancelled, so that its current and later waits throw Cancelled.
// Call from inside an actor. SimGrid failures (HostFailureException, NetworkFailureException) propagate to the caller.
#pragma once

#include <simgrid/s4u/Activity.hpp>
#include <vector>

namespace tt::sim {

struct InFlight {
  std::vector<simgrid::s4u::ActivityPtr> waiting;  // the batch its owner is waiting on
  long long started = 0;                           // activities its owner started (RunStats)
  bool cancelled = false;                          // set by cancel_all(): no more waiting
};

struct Cancelled {};  // thrown by wait_all() once cancel_all() was called on its InFlight

// Waits until every activity of `batch` is done and returns each one's finish time (simulated seconds, in batch
// order). When one fails, cancels the others and rethrows its exception. `inflight` holds the batch meanwhile.
std::vector<double> wait_all(const std::vector<simgrid::s4u::ActivityPtr>& batch, InFlight& inflight);

// Stops the owner of `inflight`: cancels what it waits on; its waits throw Cancelled from now on.
void cancel_all(InFlight& inflight);

// Cancels an activity that is not over yet. Cancelling one that is over (finished, failed or cancelled) calls into a
// kernel activity SimGrid 3.32 may already have released: the segfault of the 4,096-GPU month, 23 simulated days in.
void cancel_unless_over(simgrid::s4u::Activity& a);

}  // namespace tt::sim
