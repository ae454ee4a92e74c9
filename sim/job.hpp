// A job attempt in the simulation: an actor on the management host that drives compute on the job's GPU hosts and
// its collectives' flows over the modeled links (ARCHITECTURE.md), iteration by iteration or, in steady state, by
// fast-forward. It posts JobProgress, CheckpointDone, JobCompleted, or JobStalled when a GPU or link it uses fails
// (its actor then ends; the controller's Kill finds nothing left to stop).
//
// Fast-forward: after `measure_iterations` explicit iterations measured at T each, the job advances to its next
// checkpoint (or its end) in one timed wait. A cluster change (World::cluster_changed) interrupts the wait: the job
// finishes the iteration in flight at T, credits the iterations done, and measures again (or stalls if a resource it
// uses went down). Meanwhile one flow per ring edge, capped at that edge's average rate, keeps its load visible.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string>
#include <vector>

#include "core/control/events.hpp"
#include "sim/activities.hpp"
#include "sim/collective.hpp"
#include "sim/load.hpp"
#include "sim/world.hpp"

namespace tt::sim {

struct JobRun {
  enum class Phase { Starting, Training, Stalled, Completed, Killed };
  Launch launch;
  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;  // in rank order
  std::vector<FlowStep> steps;
  FlowGroup checkpoint;                    // one flow per writer to the storage host
  std::vector<LoadEdge> load_edges;
  Phase phase = Phase::Starting;
  bool checkpointing = false;              // writing a checkpoint now (its routes to storage are in use)
  std::optional<std::string> fault;        // set by strike(): the attempt stalls with this cause
  std::int64_t iterations = 0;             // absolute iterations completed (before the fast-forward in progress)
  double iteration_time = 0;               // latest measured (s)
  double ff_start = -1;                    // the fast-forward in progress: its start (s), -1 when none
  std::int64_t ff_target = 0;              // ... and the iteration it runs to
  InFlight inflight;
  simgrid::s4u::ActorPtr actor;
  simgrid::s4u::SemaphorePtr wake;         // set while fast-forwarding: released by World::cluster_changed()
  std::unique_ptr<FastForwardLoad> load;   // while fast-forwarding
};

// Compiles the launch against the platform and starts its actor on the management host.
JobRun& start_job(World& world, Launch launch);
// Stops the attempt: cancels its activities (its actor then returns) or kills its actor if it sleeps, and stops its
// load flows. A no-op once it completed.
void kill_job(World& world, JobRun& run);
// Iterations completed by now, the fast-forward in progress included.
std::int64_t progress(const JobRun& run);
// Called by the fault injector just before it turns `hosts` and `cables` off: every attempt that uses one of the
// hosts, or is training with a route over one of the cables, stalls now with `cause`, whatever it is doing (a fabric
// link failure breaks the connections that use it; later routes go around it when they can).
void strike(World& world, const std::vector<simgrid::s4u::Host*>& hosts, const std::vector<int>& cables,
            const std::string& cause);

}  // namespace tt::sim
