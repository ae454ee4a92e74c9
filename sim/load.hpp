// The network load a fast-forwarding job keeps on the fabric (job.hpp): one flow per GPU pair of its rings, capped
// at the pair's average rate over an iteration, so that jobs measuring meanwhile still see the contention.
// Direct host-to-host comms ignore Comm::set_rate in SimGrid 3.32, so capped flows go through mailboxes between a
// sender actor on each source GPU and a receiver actor on each destination GPU (detached sends end up on a list
// SimGrid 3.32 scans at each ending comm). Both park until stop() rather than wait on their flows (load.cpp says why),
// so every load must be stopped, or its helpers stay parked. Flows are sized to last the duration given (job.cpp: the
// rest of the job at its pace); stop() cancels what is left and wakes the helpers; those that had not started return.
#pragma once

#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Mailbox.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string>
#include <vector>

namespace tt::sim {

struct LoadEdge {  // a GPU pair of the job and the bytes it carries per iteration
  simgrid::s4u::Host* from;
  simgrid::s4u::Host* to;
  double bytes_per_iteration;
};

class FastForwardLoad {
 public:
  // Starts the flows for `duration` seconds of iterations of `iteration` seconds, edge k's through mailboxes[k]
  // (unique to the job attempt: stop() leaves nothing in them, so later loads of the attempt may use them again).
  FastForwardLoad(const std::vector<simgrid::s4u::Mailbox*>& mailboxes, const std::vector<LoadEdge>& edges,
                  double iteration, double duration);
  ~FastForwardLoad();
  FastForwardLoad(const FastForwardLoad&) = delete;
  FastForwardLoad& operator=(const FastForwardLoad&) = delete;
  void stop();  // call from an actor; idempotent

  struct State {
    std::vector<simgrid::s4u::CommPtr> comms;  // the flows of the helpers parked so far
    simgrid::s4u::SemaphorePtr wake = simgrid::s4u::Semaphore::create(0);  // parked helpers wait on it
    int parked = 0;
    bool stopped = false;
  };

 private:
  std::shared_ptr<State> state_;
};

}  // namespace tt::sim
