// World: what the driver's actors share inside one simulation (SimGrid actors are cooperative: no data races, and
// no s4u Mutex may be held by an actor that can be killed, so only the controller actor ever locks one).
// Jobs and faults post events with post(); the controller actor waits for them on `events_cv` with a deadline.
// cluster_changed() counts a change (a job started or ended, a fault or a repair) and wakes the fast-forwarding jobs it
// may slow down or speed up, each waiting on its own semaphore (a ConditionVariable needs a Mutex, which a killed
// waiter would leave locked): after a fault or repair every job (routes may move); after a job's change only the jobs
// whose iteration flows share a cable with it (a contention change further away is second order: not re-measured).
#pragma once

#include <cstdint>
#include <deque>
#include <exception>
#include <map>
#include <memory>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <string>
#include <utility>
#include <vector>

#include "core/control/events.hpp"
#include "core/model/scenario.hpp"
#include "sim/activities.hpp"
#include "sim/platform.hpp"

namespace tt::sim {

struct JobRun;

struct World {
  const Scenario& scenario;
  Platform& platform;
  simgrid::s4u::MutexPtr mutex = simgrid::s4u::Mutex::create();  // held by the controller actor only
  simgrid::s4u::ConditionVariablePtr events_cv = simgrid::s4u::ConditionVariable::create();
  std::deque<Event> events;
  std::uint64_t epoch = 0;                                // bumped by cluster_changed()
  std::map<std::pair<int, int>, std::unique_ptr<JobRun>> runs;  // by (job, attempt); kept until the end
  simgrid::s4u::ActorPtr faults;                          // the fault injector, if any
  std::exception_ptr error;                               // set by an actor that hit a bug; stops the run
  std::string error_actor;
  std::vector<double> gpu_speed;                          // by global GPU: fraction of peak left (stragglers)
  long long fast_forwards = 0;
  long long load_flows = 0;
  FlowCensus flows;  // the jobs' collective and checkpoint flows in flight (RunStats)

  World(const Scenario& s, Platform& p);
  ~World();

  void post(Event e) {
    events.push_back(std::move(e));
    events_cv->notify_all();
  }
  // `footprint`: the cables of the job that changed (JobRun::cables); nullptr: wake every job.
  void cluster_changed(const std::vector<int>* footprint = nullptr);
  std::vector<std::uint32_t> cable_mark;  // scratch for cluster_changed(): cables of the change, by stamp
  std::uint32_t mark_stamp = 0;
  void fail(std::string actor, std::exception_ptr e) {
    if (!error) {
      error = std::move(e);
      error_actor = std::move(actor);
    }
    events_cv->notify_all();
  }
};

}  // namespace tt::sim
