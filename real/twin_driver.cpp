#include "real/twin_driver.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <set>
#include <stdexcept>

#include "core/drive/drive_loop.hpp"
#include "core/drive/pool_effects.hpp"
#include "core/drive/preflight_effects.hpp"
#include "core/io/input_error.hpp"
#include "real/sys.hpp"
#include "real/training.hpp"

namespace tt::real {

RunLaunch twin_launch(const Scenario& scenario, const Launch& l, const std::string& compute, double time_scale) {
  const JobSpec& spec = scenario.jobs.at(static_cast<std::size_t>(l.job));
  const Workload w = workload_for(spec, l.plan);
  RunLaunch r;
  r.job = l.job;
  r.name = spec.name;
  r.attempt = l.attempt;
  r.world = static_cast<int>(l.gpus.size());
  r.compute = compute;
  r.heads = w.heads;
  r.seq = w.seq;
  r.head_dim = w.head_dim;
  r.params = w.params;
  r.allreduce_bytes = static_cast<double>(w.params * static_cast<std::int64_t>(sizeof(float)));
  r.checkpoint_bytes = static_cast<double>(encoded_state_bytes(w.params));
  r.pace_seconds = l.plan.predicted_iteration.value / time_scale;
  return r;
}

namespace {

// Virtual time in scenario seconds; an attempt's next step is due at `due`.
class TwinBackend final : public tt::Clock, public Executor {
 public:
  TwinBackend(const Scenario& sc, const Options& opt, const CpuTwin& twin, RunStats& stats)
      : sc_(sc), opt_(opt), twin_(twin), stats_(stats), speed_(static_cast<std::size_t>(sc.topology.total_gpus()), 1.0) {}

  Seconds now() override { return now_; }
  // The drive loop's wake already counts next_observation() (and is never empty: the horizon at the latest).
  void wait_until(std::optional<Seconds> deadline) override {
    if (deadline && *deadline > now_) now_ = *deadline;
  }

  void execute(const Action& a, Seconds now) override {
    if (const auto* l = std::get_if<Launch>(&a)) return launch(*l, now);
    if (const auto* k = std::get_if<Kill>(&a)) {
      attempts_.erase(std::remove_if(attempts_.begin(), attempts_.end(),
                                     [&](const Attempt& x) { return x.job == k->job && x.attempt == k->attempt; }),
                      attempts_.end());
      log("kill " + sc_.jobs[k->job].name + " attempt " + std::to_string(k->attempt) + ": " + k->reason);
    }
    if (std::holds_alternative<CheckpointNow>(a))  // refused before the run starts (check_real_scenario)
      throw std::logic_error("twin driver: an on-demand checkpoint was asked for");
  }

  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds) override {
    switch (f.kind) {
      case FaultKind::NodeCrash:
        if (c.starts) {
          log("fault: node " + f.target + " crashes; its attempts stop");
          const int gpn = sc_.topology.gpus_per_node();
          attempts_.erase(std::remove_if(attempts_.begin(), attempts_.end(),
                                         [&](const Attempt& x) {
                                           return std::any_of(x.gpus.begin(), x.gpus.end(),
                                                              [&](int g) { return g / gpn == t.node; });
                                         }),
                          attempts_.end());
          events_.push_back(NodeDown{t.node, FaultKind::NodeCrash});
        } else {
          events_.push_back(NodeUp{t.node});
        }
        break;
      case FaultKind::LinkDown:
        for (int cable : t.cables) events_.push_back(c.starts ? Event(LinkDown{cable}) : Event(LinkUp{cable}));
        break;
      case FaultKind::Straggler:  // from the next iteration on, as a worker reads its speed at each iteration's end
        for (int gpu : t.gpus) speed_.at(static_cast<std::size_t>(gpu)) = c.starts ? f.fraction : 1.0;
        break;
      default:  // refused by check_twin_scenario()
        throw std::logic_error(std::string("twin driver: a ") + to_string(f.kind) + " fault was injected");
    }
  }

  std::optional<Event> next_event() override {
    if (events_.empty()) return std::nullopt;
    Event e = std::move(events_.front());
    events_.pop_front();
    return e;
  }

  // Every step due by `now`, earliest first (ties: the attempt launched first).
  void observe(Seconds now) override {
    for (;;) {
      Attempt* next = nullptr;
      for (Attempt& a : attempts_)
        if (a.due <= now && (!next || a.due < next->due)) next = &a;
      if (!next) return;
      step(*next);
      attempts_.erase(std::remove_if(attempts_.begin(), attempts_.end(), [](const Attempt& a) { return a.finished; }),
                      attempts_.end());
    }
  }
  std::optional<Seconds> next_observation() const override {
    std::optional<Seconds> t;
    for (const Attempt& a : attempts_)
      if (!t || a.due < *t) t = a.due;
    return t;
  }
  bool busy() const override { return !attempts_.empty(); }
  void handled(const Event&, const std::vector<Action>&, Seconds) override { ++stats_.controller_events; }

  // Jobs whose shape lies outside the span of the shapes the twin was fitted to, per phase.
  const std::set<std::string>& extrapolated() const { return extrapolated_; }

 private:
  enum class Stage { Starting, Iterating, Checkpointing };
  struct Attempt {
    int job = 0, attempt = 0;
    std::vector<int> gpus;
    RunLaunch shape;
    std::int64_t progress = 0, target = 0, every = 0;
    Stage stage = Stage::Starting;
    Seconds due;
    Seconds last_iteration;  // the one under way (Iterating) or just reported
    Seconds write;           // the checkpoint under way (Checkpointing)
    bool finished = false;
  };

  // The phase's mean (what a job's total adds up): the twin's median model times the calibration run's mean / median.
  double predict(RunPhase p, const RunLaunch& shape) {
    const PhasePrediction pr = predict_phase(twin_, p, shape);
    if (pr.extrapolated) extrapolated_.insert(shape.name + " (" + to_string(p) + ")");
    return pr.seconds * twin_.model(p).mean_over_median;
  }

  void launch(const Launch& l, Seconds now) {
    Attempt a;
    a.job = l.job;
    a.attempt = l.attempt;
    a.gpus = l.gpus;
    a.shape = twin_launch(sc_, l, opt_.compute, opt_.time_scale);
    a.progress = l.start_iteration;
    a.target = l.iterations;
    a.every = l.checkpoint_every;
    const double startup = std::max(predict(RunPhase::Startup, a.shape), l.startup_with_move().value / opt_.time_scale);
    a.due = now + Seconds(startup * opt_.time_scale);
    log("launch " + sc_.jobs[l.job].name + " attempt " + std::to_string(l.attempt) + " on " +
        std::to_string(a.shape.world) + " devices from iteration " + std::to_string(l.start_iteration) +
        ": predicted startup " + format_number(startup) + " s real");
    stats_.workers_started += a.shape.world;  // the workers a real run would have started
    attempts_.push_back(std::move(a));
  }

  void begin_iteration(Attempt& a) {
    if (a.progress >= a.target) {  // nothing left: the workers say Done at once
      events_.push_back(JobCompleted{a.job, a.attempt});
      a.finished = true;
      return;
    }
    double slowest = 1.0;
    for (int g : a.gpus) slowest = std::min(slowest, speed_[static_cast<std::size_t>(g)]);
    const double work = predict(RunPhase::Compute, a.shape) + predict(RunPhase::AllReduce, a.shape) +
                        predict(RunPhase::Update, a.shape);
    const double real = std::max(a.shape.pace_seconds, work) / slowest;
    a.last_iteration = Seconds(real * opt_.time_scale);
    a.due = a.due + a.last_iteration;
    a.stage = Stage::Iterating;
  }

  void step(Attempt& a) {
    switch (a.stage) {
      case Stage::Starting:
        begin_iteration(a);
        return;
      case Stage::Iterating: {
        ++a.progress;
        events_.push_back(JobProgress{a.job, a.attempt, a.progress, a.last_iteration});
        const bool cadence = a.every > 0 && a.progress % a.every == 0;
        if (cadence || a.progress == a.target) {
          a.write = Seconds(predict(RunPhase::Checkpoint, a.shape) * opt_.time_scale);
          a.due = a.due + a.write;
          a.stage = Stage::Checkpointing;
          return;
        }
        begin_iteration(a);
        return;
      }
      case Stage::Checkpointing: {
        events_.push_back(CheckpointDone{a.job, a.attempt, a.progress, a.write, a.write});
        if (a.progress == a.target) {
          events_.push_back(JobCompleted{a.job, a.attempt});
          a.finished = true;
          return;
        }
        begin_iteration(a);
        return;
      }
    }
  }

  void log(const std::string& line) {
    if (opt_.log) opt_.log("[" + format_seconds(now_) + "] " + line);
  }

  const Scenario& sc_;
  const Options& opt_;
  const CpuTwin& twin_;
  RunStats& stats_;
  Seconds now_;
  std::vector<double> speed_;  // by GPU
  std::vector<Attempt> attempts_;
  std::deque<Event> events_;
  std::set<std::string> extrapolated_;
};

void check_twin_scenario(const Scenario& sc, const CpuTwin& twin, const std::string& source) {
  check_real_scenario(sc);
  for (std::size_t i = 0; i < sc.faults.size(); ++i) {
    const FaultKind k = sc.faults[i].kind;
    if (k == FaultKind::Hang || k == FaultKind::CheckpointCorrupt)
      throw InputError(sc.source_file, "/faults/" + std::to_string(i) + "/kind",
                       std::string("a fault kind the twin models (node_crash, link_down, straggler), found ") +
                           to_string(k) + " (run it on real workers)");
  }
  if (sc.rollout.enabled())
    throw InputError(sc.source_file, "/rollout",
                     "no rollout: a release's settings act inside the workers, which the twin does not model (run it "
                     "on real workers)");
  if (!sc.jobs.empty() && twin.checkpoint.shapes.empty())  // a worker writes one after its last iteration
    throw InputError(source, "", "checkpoint writes measured (\"phase\": \"checkpoint\" lines): the scenario's jobs write "
                                 "checkpoints");
  if (twin.startup.shapes.empty())
    throw InputError(source, "",
                     "\"phase\": \"startup\" lines (written by traintwin real since the twin driver; calibrate from a "
                     "new run)");
}

}  // namespace

RunStats run_twin(const Scenario& scenario, Controller& controller, const Options& options, const CpuTwin& twin,
                  const std::string& twin_source) {
  if (options.devices != scenario.topology.total_gpus())
    throw std::invalid_argument("--devices cpu:" + std::to_string(options.devices) + " does not match the " +
                                std::to_string(scenario.topology.total_gpus()) + " GPUs of topology " +
                                scenario.topology.name() + " (one CPU device backs each GPU)");
  if (!(options.time_scale > 0) || !std::isfinite(options.time_scale))
    throw std::invalid_argument("the time scale must be a positive number, found " + format_number(options.time_scale));
  if (options.compute != "attention" && options.compute != "synthetic")
    throw std::invalid_argument("--compute: attention or synthetic, found " + options.compute);
  check_twin_scenario(scenario, twin, twin_source);
  RunStats stats;
  std::string control_plane, extrapolated;
  {
    FaultPlayer faults(scenario);
    TwinBackend backend(scenario, options, twin, stats);
    PreflightEffects effects(scenario, backend);
    PoolEffects pools(scenario, effects);
    DriveLoop loop(controller, pools, backend, faults, scenario.sim.horizon);
    loop.record = options.on_event;
    loop.set_control_plane_outages(options.control_plane_outages, scenario.topology.gpus_per_node());
    const DriveLoop::Stop why = loop.run();
    if (why == DriveLoop::Stop::Horizon && options.log)
      options.log("horizon " + format_seconds(scenario.sim.horizon) + " reached");
    controller.finish(std::min(backend.now(), scenario.sim.horizon));
    control_plane = loop.control_plane_summary();
    for (const auto& e : backend.extrapolated()) extrapolated += (extrapolated.empty() ? "" : ", ") + e;
  }
  stats.driver_info = {
      {"devices", "cpu:" + std::to_string(options.devices)},
      {"time_scale", format_number(options.time_scale, "%g")},
      {"compute", options.compute},
      {"twin", "no workers: each phase at the mean the CPU twin fitted to " + twin_source + " predicts"},
  };
  if (!extrapolated.empty())
    stats.driver_info["twin_extrapolated"] = "shapes outside those the twin was fitted to: " + extrapolated;
  if (!control_plane.empty()) stats.driver_info["control_plane_outages"] = control_plane;
  return stats;
}

}  // namespace tt::real
