#include "sim/driver.hpp"

#include <chrono>
#include <cmath>
#include <mutex>
#include <sstream>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "sim/faults.hpp"
#include "sim/job.hpp"
#include "sim/session.hpp"
#include "sim/telemetry_probe.hpp"
#include "sim/world.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

double now() { return sg4::Engine::get_clock(); }

using Clock = std::chrono::steady_clock;

// Calls RunOptions::on_progress when at least progress_interval_s of wall time went by since the last call.
class ProgressReporter {
 public:
  ProgressReporter(const RunOptions& o, Seconds horizon, Clock::time_point start)
      : o_(o), horizon_(horizon), start_(start), next_(start + interval()) {}

  void tick(long long events) {
    if (!o_.on_progress) return;
    const Clock::time_point t = Clock::now();
    if (t < next_) return;
    next_ = t + interval();
    o_.on_progress(Progress{Seconds(now()), horizon_, events, std::chrono::duration<double>(t - start_).count()});
  }

 private:
  const RunOptions& o_;
  Seconds horizon_;
  Clock::time_point start_;
  Clock::time_point next_;

  Clock::duration interval() const {
    return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(o_.progress_interval_s));
  }
};

// The controller's home: waits for events (or its next deadline), hands them to the Controller and carries out the
// actions it returns. Stops when the controller is done, at the horizon, or when an actor hit a bug.
class ControllerActor {
 public:
  ControllerActor(World& w, Controller& c, RunStats& stats, bool& finished, ProgressReporter& progress)
      : w_(w), c_(c), stats_(stats), finished_(finished), progress_(progress) {}

  void operator()() {
    try {
      loop();
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      w_.fail("controller", std::current_exception());
    }
    // Jobs stop by themselves once their activities are cancelled (kill_job); the fault injector only sleeps.
    for (auto& [key, run] : w_.runs) kill_job(w_, *run);
    if (w_.faults) w_.faults->kill();
    if (!w_.error) c_.finish(Seconds(now()));
    finished_ = true;
  }

 private:
  World& w_;
  Controller& c_;
  RunStats& stats_;
  bool& finished_;
  ProgressReporter& progress_;

  void loop() {
    const double horizon = w_.scenario.sim.horizon.value;
    std::unique_lock lock(*w_.mutex);
    double timer_time = -1;
    long long timers_at_once = 0;
    const TelemetryProbe probe(w_.platform);
    for (;;) {
      if (w_.error) return;
      if (!w_.events.empty()) {
        Event e = std::move(w_.events.front());
        w_.events.pop_front();
        deliver(e);
        continue;
      }
      if (c_.done()) return;
      const double t = now();
      if (t >= horizon) return;
      const std::optional<Seconds> deadline = c_.next_deadline();
      if (deadline && deadline->value <= t) {
        timers_at_once = t == timer_time ? timers_at_once + 1 : 0;
        timer_time = t;
        if (timers_at_once > 100000)
          throw std::runtime_error("the controller keeps asking for a timer at t=" + std::to_string(t) + " s");
        if (c_.network_sample_due(Seconds(t))) deliver(probe.sample(w_.ff_node_rate));
        deliver(Timer{});
        continue;
      }
      w_.events_cv->wait_until(lock, deadline ? std::min(deadline->value, horizon) : horizon);
    }
  }

  void deliver(const Event& e) {
    ++stats_.controller_events;
    progress_.tick(stats_.controller_events);
    for (Action& a : c_.handle(e, Seconds(now()))) {
      if (auto* launch = std::get_if<Launch>(&a)) {
        start_job(w_, std::move(*launch));
      } else if (auto* kill = std::get_if<Kill>(&a)) {
        auto it = w_.runs.find({kill->job, kill->attempt});
        if (it != w_.runs.end()) kill_job(w_, *it->second);
      }
      // Cordon and Uncordon concern placement, which the controller owns: nothing to do in the platform.
    }
  }
};

std::string describe(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& ex) {
    return ex.what();
  } catch (...) {
    return "an exception that is not a std::exception";
  }
}

}  // namespace

RunStats run(const Scenario& scenario, Controller& controller, const RunOptions& options) {
  const auto wall_start = Clock::now();
  if (!(scenario.sim.horizon.value > 0) || !std::isfinite(scenario.sim.horizon.value))
    throw std::invalid_argument("sim: the horizon must be a positive, finite duration");
  RunStats stats;
  Session session(scenario.topology);
  stats.driver_info = session.settings();
  stats.driver_info["fast_forward"] = scenario.sim.fast_forward ? "on" : "off";
  stats.driver_info["measure_iterations"] = std::to_string(scenario.sim.measure_iterations);
  {
    std::ostringstream threshold;
    threshold << scenario.sim.remeasure_threshold;
    stats.driver_info["remeasure_threshold"] = threshold.str();
  }

  World world(scenario, session.platform());
  start_faults(world);
  bool finished = false;
  ProgressReporter progress(options, scenario.sim.horizon, wall_start);
  sg4::Actor::create("controller", session.platform().mgmt(),
                     ControllerActor(world, controller, stats, finished, progress));
  session.run();

  if (world.error) throw std::runtime_error("sim: " + world.error_actor + ": " + describe(world.error));
  if (!finished)
    throw std::runtime_error("sim: the simulation stopped at t=" + std::to_string(now()) +
                             " s before the controller finished (every actor was blocked)");
  for (const auto& [key, run] : world.runs) stats.simgrid_activities += run->inflight.started;
  stats.fast_forwards = world.fast_forwards;
  stats.measurements = world.measurements;
  stats.remeasurements = world.remeasurements;
  stats.pace_reuses = world.pace_reuses;
  stats.step_reuses = world.step_reuses;
  stats.cluster_changes = static_cast<long long>(world.epoch);
  stats.peak_flows = world.flows.peak;
  controller.set_driver("sim", stats.driver_info);
  stats.wall_seconds = std::chrono::duration<double>(Clock::now() - wall_start).count();
  return stats;
}

}  // namespace tt::sim
