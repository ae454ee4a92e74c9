// A job attempt in the simulation: an actor on the management host that drives compute on the job's GPU hosts and
// its collectives' flows over the modeled links (ARCHITECTURE.md), iteration by iteration or, in steady state, by
// fast-forward. It posts JobProgress, CheckpointDone, JobCompleted, or JobStalled when a GPU or link it uses fails
// (it then stops and waits for the controller's Kill).
//
// Fast-forward: after `measure_iterations` explicit iterations measured at T each, the job advances to its next
// checkpoint (or its end) in one timed wait. A cluster change (World::cluster_changed) interrupts the wait: the job
// finishes the iteration in flight at T, credits the iterations done, and measures again (or stalls if a resource it
// uses went down). Meanwhile one flow per ring edge, capped at that edge's average rate, keeps its load visible.
#pragma once

#include <cstdint>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string>
#include <vector>

#include "core/control/events.hpp"
#include "sim/activities.hpp"
#include "sim/collective.hpp"
#include "sim/world.hpp"

namespace tt::sim {

struct LoadEdge {  // one pair of GPUs of the job and the bytes it carries per iteration
  simgrid::s4u::Host* from;
  simgrid::s4u::Host* to;
  double bytes_per_iteration;
};

struct JobRun {
  enum class Phase { Starting, Training, Stalled, Completed, Killed };
  Launch launch;
  std::string name;
  std::vector<simgrid::s4u::Host*> hosts;  // in rank order
  std::vector<FlowStep> steps;
  FlowGroup checkpoint;                    // one flow per writer to the storage host
  std::vector<LoadEdge> load_edges;
  Phase phase = Phase::Starting;
  std::int64_t iterations = 0;             // absolute iterations completed
  InFlight inflight;
  simgrid::s4u::ActorPtr actor;
  simgrid::s4u::SemaphorePtr wake;         // set while fast-forwarding: released by World::cluster_changed()
  std::vector<simgrid::s4u::ActorPtr> load;     // actors carrying the fast-forward load flows
  std::vector<simgrid::s4u::CommPtr> load_comms;  // their flows (cancelled before the actors are killed)
};

// Compiles the launch against the platform and starts its actor on the management host.
JobRun& start_job(World& world, Launch launch);
// Kills the attempt's actor, cancels its activities and stops its load flows. A no-op once it completed.
void kill_job(World& world, JobRun& run);
// Cancels the fast-forward load flows and kills the actors carrying them.
void stop_load(JobRun& run);

}  // namespace tt::sim
