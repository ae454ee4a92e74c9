#include "sim/driver.hpp"

#include <chrono>
#include <cmath>
#include <mutex>
#include <sstream>
#include <simgrid/Exception.hpp>
#include <simgrid/s4u.hpp>
#include <stdexcept>

#include "core/drive/drive_loop.hpp"
#include "core/drive/pool_effects.hpp"
#include "core/drive/preflight_effects.hpp"
#include "core/drive/release_effects.hpp"
#include "sim/allocator.hpp"
#include "sim/faults.hpp"
#include "sim/job.hpp"
#include "sim/session.hpp"
#include "sim/telemetry_probe.hpp"
#include "sim/world.hpp"

namespace sg4 = simgrid::s4u;

namespace tt::sim {

namespace {

double now() { return sg4::Engine::get_clock(); }

using WallClock = std::chrono::steady_clock;

// Calls RunOptions::on_progress when at least progress_interval_s of wall time went by since the last call.
class ProgressReporter {
 public:
  ProgressReporter(const RunOptions& o, Seconds horizon, WallClock::time_point start)
      : o_(o), horizon_(horizon), start_(start), next_(start + interval()) {}

  void tick(long long events) {
    if (!o_.on_progress) return;
    const WallClock::time_point t = WallClock::now();
    if (t < next_) return;
    next_ = t + interval();
    o_.on_progress(Progress{Seconds(now()), horizon_, events, std::chrono::duration<double>(t - start_).count()});
  }

 private:
  const RunOptions& o_;
  Seconds horizon_;
  WallClock::time_point start_;
  WallClock::time_point next_;

  WallClock::duration interval() const {
    return std::chrono::duration_cast<WallClock::duration>(std::chrono::duration<double>(o_.progress_interval_s));
  }
};

// The controller's home: the drive loop (core/drive/drive_loop.hpp) over simulated time. Waiting is a wait on the
// events' condition variable with the loop's deadline; jobs and the fault injector post what they observe.
class SimBackend final : public tt::Clock, public Executor {
 public:
  SimBackend(World& w, RunStats& stats, ProgressReporter& progress, std::unique_lock<sg4::Mutex>& lock)
      : w_(w), stats_(stats), progress_(progress), lock_(lock), injector_(w), probe_(w.platform) {}

  Seconds now() override { return Seconds(sg4::Engine::get_clock()); }
  void wait_until(std::optional<Seconds> deadline) override {
    if (!w_.events.empty() || w_.error) return;
    if (deadline) {
      w_.events_cv->wait_until(lock_, deadline->value);
    } else {
      w_.events_cv->wait(lock_);
    }
  }

  void execute(const Action& a, Seconds) override {
    if (const auto* launch = std::get_if<Launch>(&a)) {
      start_job(w_, *launch);
    } else if (const auto* kill = std::get_if<Kill>(&a)) {
      auto it = w_.runs.find({kill->job, kill->attempt});
      if (it != w_.runs.end()) kill_job(w_, *it->second);
    } else if (const auto* ask = std::get_if<CheckpointNow>(&a)) {
      auto it = w_.runs.find({ask->job, ask->attempt});
      if (it != w_.runs.end()) request_checkpoint(*it->second);
    }
    // Cordon and Uncordon concern placement, which the controller owns: nothing to do in the platform.
  }
  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds) override {
    injector_.apply(c, f, t);
  }
  std::optional<Event> next_event() override {
    if (w_.events.empty()) return std::nullopt;
    Event e = std::move(w_.events.front());
    w_.events.pop_front();
    return e;
  }
  bool busy() const override { return true; }  // job actors post until the horizon; SimGrid ends a blocked run
  bool failed() const override { return static_cast<bool>(w_.error); }
  std::optional<NetworkSample> network_sample() override {
    return probe_.sample(w_.ff_node_rate, w_.flows.in_flight > 0);
  }
  void handled(const Event&, const std::vector<Action>&, Seconds) override {
    ++stats_.controller_events;
    progress_.tick(stats_.controller_events);
  }

 private:
  World& w_;
  RunStats& stats_;
  ProgressReporter& progress_;
  std::unique_lock<sg4::Mutex>& lock_;
  FaultInjector injector_;
  TelemetryProbe probe_;
};

class ControllerActor {
 public:
  ControllerActor(World& w, Controller& c, FaultPlayer& faults, RunStats& stats, bool& finished,
                  ProgressReporter& progress, const RunOptions& options)
      : w_(w), c_(c), faults_(faults), stats_(stats), finished_(finished), progress_(progress), options_(options) {}

  void operator()() {
    try {
      std::unique_lock lock(*w_.mutex);
      SimBackend backend(w_, stats_, progress_, lock);
      PreflightEffects effects(w_.scenario, backend);  // a job across NCCL versions hangs at setup
      ReleaseEffects releases(w_.scenario, effects);    // reimages, release effects, noise (docs/rollout.md)
      PoolEffects pools(w_.scenario, releases);         // provisioning delays, spot reclaims (docs/pools.md)
      DriveLoop loop(c_, pools, backend, faults_, w_.scenario.sim.horizon);
      loop.record = options_.on_event;
      loop.set_control_plane_outages(options_.control_plane_outages, w_.scenario.topology.gpus_per_node());
      loop.run();
      if (!options_.control_plane_outages.empty())
        stats_.driver_info["control_plane_outages"] = loop.control_plane_summary();
    } catch (const simgrid::ForcefulKillException&) {
      throw;
    } catch (...) {
      w_.fail("controller", std::current_exception());
    }
    // Jobs stop by themselves once their activities are cancelled (kill_job).
    for (auto& [key, run] : w_.runs) kill_job(w_, *run);
    if (!w_.error) c_.finish(Seconds(now()));
    finished_ = true;
  }

 private:
  World& w_;
  Controller& c_;
  FaultPlayer& faults_;
  RunStats& stats_;
  bool& finished_;
  ProgressReporter& progress_;
  const RunOptions& options_;
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
  struct Release {  // last, after the world and the platform are gone
    ~Release() { release_freed_memory(); }
  } release;
  const auto wall_start = WallClock::now();
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

  FaultPlayer faults(scenario);
  World world(scenario, session.platform());
  bool finished = false;
  ProgressReporter progress(options, scenario.sim.horizon, wall_start);
  sg4::Actor::create("controller", session.platform().mgmt(),
                     ControllerActor(world, controller, faults, stats, finished, progress, options));
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
  stats.shared_pace_reuses = world.shared_pace_reuses;
  stats.step_reuses = world.step_reuses;
  stats.drift_link_checks = world.drift_link_checks;
  stats.cluster_changes = static_cast<long long>(world.epoch);
  stats.peak_flows = world.flows.peak;
  stats.routes = session.platform().routes_kept();
  stats.route_index_bytes = static_cast<long long>(session.platform().route_index_bytes());
  controller.set_driver("sim", stats.driver_info);
  stats.wall_seconds = std::chrono::duration<double>(WallClock::now() - wall_start).count();
  return stats;
}

}  // namespace tt::sim
