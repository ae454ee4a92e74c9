// Waiting on many SimGrid activities at once, and what an actor keeps so that another can stop it: cancel_all()
// cancels the batch it waits on and marks it cancelled, so that its current and later waits throw Cancelled.
// Call from inside an actor. SimGrid failures (HostFailureException, NetworkFailureException) propagate to the caller.
#pragma once

#include <algorithm>
#include <functional>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tt::sim {

// Host-to-host flows in flight across one simulation (RunStats::peak_flows).
struct FlowCensus {
  long long in_flight = 0;
  long long peak = 0;
  void started(long long n) {
    in_flight += n;
    peak = std::max(peak, in_flight);
  }
  void ended(long long n) { in_flight -= n; }
};

struct InFlight {
  std::vector<simgrid::s4u::ActivityPtr> waiting;  // what its owner and its helper actors wait on
  int helpers = 0;                                 // helper actors of its owner running (collective.cpp)
  long long started = 0;                           // activities its owner started (RunStats)
  bool cancelled = false;                          // set by cancel_all(): no more waiting
  FlowCensus* census = nullptr;                    // counts the flows its owner starts and ends, if set
};

struct Cancelled {};  // thrown by wait_all() once cancel_all() was called on its InFlight

// Waits until every activity of `batch` is done and returns each one's finish time (simulated seconds, in batch
// order). When one fails, cancels the others and rethrows its exception. The batch joins `inflight.waiting` (whoever
// owns it clears that when nothing is in flight); with `count`, its census, if any, counts the batch's activities as
// ended (the caller counted them as started).
std::vector<double> wait_all(const std::vector<simgrid::s4u::ActivityPtr>& batch, InFlight& inflight,
                             bool count = true);

// Stops the owner of `inflight`: cancels what it and its helpers wait on; their waits throw Cancelled from now on.
void cancel_all(InFlight& inflight);

// Runs `task` in a helper actor on `host`: an idle one of that host's, or a new one. Helpers are kept per host and reused
// (creating an actor maps and unmaps its stack: most of the time when each batch of flows started its own); a helper
// runs one task at a time and waits on its semaphore when idle. They are daemons (they end with the simulation), and
// one killed with its host (a crash) leaves the pool; the task unwinds as after Actor::kill().
void run_helper(simgrid::s4u::Host* host, std::function<void()> task);

// The stack of the actors a run starts by the thousand (helpers, one job actor per attempt), instead of SimGrid's
// default 8 MiB: an 8 MiB stack is an allocation of its own that the allocator maps, and the kernel zeroes its pages
// and tears down its page tables, at every actor's start and end (bench_fleet --scale 2 spent 2.4 s of 18 s in the
// kernel; 1.3 s of 14 s with these stacks). Their deepest calls (a step's flows, a collective, an exception unwinding
// them) take a small part of it: every test passes with all actors, the controller's included, at 128 KiB
// (docs/reliability.md). The controller's and the collectives' actors keep the default, and so does every actor of a
// sanitized build (one system thread per actor, whose instrumented frames are larger).
inline constexpr unsigned kSmallActorStack = 512 * 1024;  // bytes
template <class F>
simgrid::s4u::ActorPtr start_small_actor(const std::string& name, simgrid::s4u::Host* host, F code) {
#ifdef TRAINTWIN_SANITIZED
  return simgrid::s4u::Actor::create(name, host, std::move(code));
#else
  return simgrid::s4u::Actor::init(name, host)->set_stacksize(kSmallActorStack)->start(std::move(code));
#endif
}

// Cancels an activity that is not over yet. Cancelling one that is over (finished, failed or cancelled) calls into a
// kernel activity SimGrid 3.32 may already have released: the segfault of the 4,096-GPU month, 23 simulated days in.
void cancel_unless_over(simgrid::s4u::Activity& a);

}  // namespace tt::sim
