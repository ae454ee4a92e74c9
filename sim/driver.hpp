// sim::run: drives a Controller with a SimGrid model of the scenario's cluster until every job is done or the horizon
// is reached, then finishes the record. SimGrid allows one engine per process: call run() at most once per process
// (tests that need several simulations run each in a child process, see sim/isolated.hpp).
// Errors: an invalid platform throws std::invalid_argument; anything that goes wrong inside the simulation (a
// controller exception, an unexpected SimGrid error) stops it and is rethrown as std::runtime_error naming the actor.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/control/controller.hpp"
#include "core/model/control_plane.hpp"
#include "core/model/scenario.hpp"

namespace tt::sim {

struct RunStats {
  double wall_seconds = 0;
  long long simgrid_activities = 0;  // execs and comms started
  long long controller_events = 0;   // events handed to Controller::handle (Timer included)
  long long fast_forwards = 0;       // fast-forward segments (steady-state jumps) taken by jobs
  long long cluster_changes = 0;     // nominal load changes, route-moving faults and repairs, stragglers (world.hpp)
  long long measurements = 0;        // paces measured by explicit iterations
  long long remeasurements = 0;      // ... of them by an attempt that had measured before (its pace may have changed)
  long long pace_reuses = 0;         // paces of lone jobs reused from an identical signature instead
  long long shared_pace_reuses = 0;  // paces of jobs crossing shared links with room on each (World::shared_paces)
  long long step_reuses = 0;         // steps crossing no shared link timed from an identical signature instead
  long long drift_link_checks = 0;   // shared links the drift rule looked at (World::drifted)
  long long peak_flows = 0;          // most jobs' flows in flight at once
  long long routes = 0;              // host pairs whose route was looked up (Platform::routes_kept)
  long long route_index_bytes = 0;   // ... and the bytes of the index that finds them
  // Pinned SimGrid settings and driver options for RunRecord::driver_info (deterministic: no wall-clock figures).
  std::map<std::string, std::string> driver_info;
};

// What a progress display needs, reported from the controller's actor while the simulation runs.
struct Progress {
  Seconds now;      // simulated time
  Seconds horizon;  // the run stops here at the latest
  long long controller_events = 0;
  double wall_seconds = 0;  // since run() started
};

struct RunOptions {
  // Called with the run's progress at most once per `progress_interval_s` of wall time (checked as controller events
  // arrive); empty: never. It runs inside the simulation: it must not touch the Controller.
  std::function<void(const Progress&)> on_progress;
  double progress_interval_s = 0.1;
  // Every event handed to the Controller, with its time (for observed.jsonl); empty: none.
  std::function<void(Seconds, const Event&)> on_event;
  // The scenario's control-plane outages (core/io/control_plane_reader.hpp), played by the drive loop.
  std::vector<ControlPlaneOutage> control_plane_outages;
};

RunStats run(const Scenario& scenario, Controller& controller, const RunOptions& options = {});

}  // namespace tt::sim
