#include "real/driver.hpp"

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>

#include "core/drive/drive_loop.hpp"
#include "core/drive/pool_effects.hpp"
#include "core/drive/preflight_effects.hpp"
#include "core/io/input_error.hpp"
#include "real/driver_release.hpp"
#include "real/durable.hpp"
#include "real/driver_pools.hpp"
#include "real/metrics.hpp"
#include "real/sys.hpp"
#include "real/training.hpp"
#include "real/worker.hpp"
#include "real/worker_pool.hpp"

namespace tt::real {

// Faults real processes on one machine can play; the simulator plays every kind.
void check_real_scenario(const Scenario& sc) {
  if (!sc.stochastic.rates.empty())
    throw InputError(sc.source_file, "/stochastic",
                     "no stochastic faults: the real driver injects only scripted faults (run stochastic drills in "
                     "simulation)");
  for (std::size_t i = 0; i < sc.faults.size(); ++i) {
    switch (sc.faults[i].kind) {
      case FaultKind::NodeCrash:
      case FaultKind::LinkDown:
      case FaultKind::Hang:
      case FaultKind::Straggler:
      case FaultKind::CheckpointCorrupt: break;
      default:
        throw InputError(sc.source_file, "/faults/" + std::to_string(i) + "/kind",
                         std::string("a fault kind the real driver can inject (node_crash, link_down, hang, "
                                     "straggler, checkpoint_corrupt), found ") +
                             to_string(sc.faults[i].kind));
    }
  }
  // A node failing preflight that is placed on anyway costs a hang at communicator setup, which workers on one
  // machine (one NCCL) cannot play; gated, such nodes are only cordoned, which the real driver runs like any cordon.
  if (!sc.preflight.gate && !preflight::blocked_nodes(sc.topology, sc.preflight).empty())
    throw InputError(sc.source_file, "/preflight/gate",
                     "true: the real driver cannot play what nodes failing preflight do when placed on anyway (run "
                     "the ungated drill in simulation)");
  // Small socket buffers cap a node's network in the twin (a bandwidth factor on its NIC cables): workers on one
  // machine have no NIC cable to throttle.
  if (!preflight::socket_limits(sc.topology, sc.preflight).empty())
    throw InputError(sc.source_file, "/preflight/transport",
                     "\"rdma\", or no node whose socket buffers cap its network: the real driver cannot throttle a "
                     "node's NIC (run the socket-buffer drill in simulation)");
  // Workers write checkpoints synchronously; an async checkpoint would need a writer beside training.
  for (std::size_t j = 0; j < sc.jobs.size(); ++j)
    if (sc.jobs[j].checkpoint_async)
      throw InputError(sc.source_file, "/jobs/" + std::to_string(j) + "/checkpoint/async",
                       "false: the real driver writes checkpoints synchronously (run async checkpoints in simulation)");
  // A checkpoint outside the cadence needs every rank to stop at the same iteration on the driver's word; workers
  // hear one thing from the driver (a speed signal, real/protocol.hpp), so they checkpoint at their cadence only.
  for (std::size_t p = 0; p < sc.pools.size(); ++p)
    if (sc.pools[p].checkpoint_on_notice)
      throw InputError(sc.source_file, "/pools/" + std::to_string(p) + "/reclaim/checkpoint_on_notice",
                       "false: the real driver's workers checkpoint only at their cadence (run on-demand checkpoints "
                       "at a reclaim notice in simulation)");
}

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

// With a uid per job, each job's workers must reach their own directory: the run directory becomes 0711 (search, no
// listing) and every folder above it must let others search it; its job directories stay 0700, each its job's own.
void open_for_job_uids(const std::filesystem::path& run_dir) {
  if (::chmod(run_dir.c_str(), 0711) != 0) throw_errno("chmod 0711 " + run_dir.string());
  const std::filesystem::path abs = std::filesystem::absolute(run_dir).lexically_normal();
  for (std::filesystem::path p = abs.parent_path(); !p.empty(); p = p.parent_path()) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) throw_errno("stat " + p.string());
    if (!(st.st_mode & S_IXOTH))
      throw std::invalid_argument("a uid per job needs every folder above the run directory searchable by others; " +
                                  p.string() + " is not (chmod o+x, or another --out)");
    if (p == p.root_path()) break;
  }
}

// The real driver as the drive loop's clock and executor. Scenario time = real time since the start x time_scale.
class RealBackend final : public tt::Clock, public Executor {
 public:
  RealBackend(const Scenario& sc, Controller& ctl, const Options& opt, RunStats& stats)
      : sc_(sc),
        ctl_(ctl),
        opt_(opt),
        stats_(stats),
        t0_(opt.durable ? opt.durable->t0() : monotonic_seconds()),
        pool_(sc, opt, t0_),
        slots_(sc) {
    pool_.log = [this](const std::string& line) { log(line); };
    slots_.log = pool_.log;
    make_private_dirs(opt.run_dir);
    if (opt.job_uid_base >= 0) open_for_job_uids(opt.run_dir);
    if (opt.metrics_port >= 0) {
      ctl_.set_live_metrics(true);
      metrics_ = std::make_unique<MetricsServer>(opt.metrics_port);
      stats_.metrics_port = metrics_->port();
      publish_metrics();
      if (opt.on_metrics_ready) opt.on_metrics_ready(metrics_->port());
    }
    if (opt.durable) opt.durable->relaunch(pool_, events_, &stats_.workers_started, now(), [this](auto& l) { log(l); });
  }

  Seconds now() override {
    last_now_ = std::max(last_now_, Seconds(pool_.real_now() * opt_.time_scale));
    return last_now_;
  }
  void wait_until(std::optional<Seconds> deadline) override {
    double wake = deadline ? deadline->value / opt_.time_scale : kNever;
    wake = std::min(wake, pool_.next_silence_check());
    pool_.wait(wake);
  }

  void execute(const Action& a, Seconds) override { std::visit([&](const auto& x) { run(x); }, a); }
  void inject(const FaultChange& c, const FaultSpec& f, const FaultTarget& t, Seconds) override {
    switch (f.kind) {
      case FaultKind::NodeCrash:
        if (c.starts) {
          log("fault: node " + f.target + " crashes; SIGKILL of its workers");
          pool_.crash_node(t.node);
          events_.push_back(NodeDown{t.node, FaultKind::NodeCrash});
        } else {
          log("fault: node " + f.target + " repaired");
          events_.push_back(NodeUp{t.node});
        }
        break;
      case FaultKind::Hang:
        log("fault: node " + f.target + " hangs; SIGSTOP of its workers");
        pool_.stop_node(t.node);
        break;
      case FaultKind::LinkDown:
        log("fault: link " + f.target + (c.starts ? " down (reported; the loopback network is unchanged)" : " repaired"));
        for (int cable : t.cables) events_.push_back(c.starts ? Event(LinkDown{cable}) : Event(LinkUp{cable}));
        break;
      case FaultKind::Straggler:
        log("fault: GPU " + f.target +
            (c.starts ? " straggles at " + format_number(f.fraction) + " of its speed" : std::string(" back to full speed")));
        for (int gpu : t.gpus) pool_.set_gpu_speed(gpu, c.starts ? f.fraction : 1.0);
        break;
      case FaultKind::CheckpointCorrupt:
        if (!pool_.corrupt_checkpoint(t.job, ctl_.record().jobs[t.job].last_checkpoint))
          log("fault: " + f.target + " has no completed checkpoint to corrupt");
        events_.push_back(CheckpointCorrupted{t.job});
        break;
      default:  // refused by check_real_scenario()
        break;
    }
    if (opt_.durable) opt_.durable->fault(c, last_now_, events_);
  }
  std::optional<Event> next_event() override {
    if (!events_.empty()) {
      Event e = std::move(events_.front());
      events_.pop_front();
      return e;
    }
    while (auto e = pool_.next_event())
      if (!opt_.durable || !opt_.durable->drop(*e)) return e;
    return std::nullopt;
  }
  void observe(Seconds) override { pool_.observe(); }
  std::optional<Seconds> next_observation() const override {
    const double t = pool_.next_silence_check();
    if (t == kNever) return std::nullopt;
    return Seconds(t * opt_.time_scale);
  }
  bool busy() const override { return pool_.any_running(); }
  void handled(const Event& e, const std::vector<Action>& actions, Seconds) override {
    if (opt_.durable) opt_.durable->actions(actions);
    slots_.seen(e);
    ++stats_.controller_events;
    publish_metrics();
  }

  void configure_workers(std::function<void(const Launch&, int, WorkerConfig&)> f) {
    pool_.configure_worker = std::move(f);
  }

  void finish(DriveLoop::Stop why) {
    if (why == DriveLoop::Stop::Horizon) log("horizon " + format_seconds(sc_.sim.horizon) + " reached");
    if (why == DriveLoop::Stop::Idle) log("nothing left to happen: no worker runs, no timer or fault is pending");
    pool_.kill_all();
    ctl_.finish(std::min(now(), sc_.sim.horizon));
    publish_metrics();
  }

 private:
  void run(const Launch& l) {
    slots_.check(l);
    pool_.launch(l, &stats_.workers_started);
  }
  void run(const ProvisionNode& p) { slots_.execute(p); }
  void run(const ReleaseNode& r) { slots_.execute(r); }
  void run(const Kill& k) {
    const int before = pool_.live_workers();
    pool_.kill(k.job, k.attempt);
    log("kill " + sc_.jobs[k.job].name + " attempt " + std::to_string(k.attempt) + " (" +
        std::to_string(before - pool_.live_workers()) + " workers still running): " + k.reason);
  }
  void run(const Cordon& c) { log("cordon " + sc_.topology.nodes()[c.node].name + ": " + c.reason); }
  void run(const Uncordon& u) {
    log("uncordon " + sc_.topology.nodes()[u.node].name);
    slots_.execute(u);
  }
  void run(const FireAlert& a) { log("alert " + a.name + " (" + a.severity + ") firing: " + a.summary); }
  void run(const ResolveAlert& a) { log("alert " + a.name + " resolved"); }
  // Refused before the run starts (check_real_scenario: /pools/N/checkpoint_on_notice): never asked for.
  void run(const CheckpointNow& c) {
    throw std::logic_error("real driver: an on-demand checkpoint of " + sc_.jobs[c.job].name + " was asked for");
  }
  void run(const Reimage& r) { log("reimage " + sc_.topology.nodes()[r.node].name + " to " + r.release); }

  void log(const std::string& line) {
    if (!opt_.log) return;
    std::string stamped(1, '[');  // built step by step: GCC 12 warns falsely (-Wrestrict) on "[" + std::string&&
    stamped += format_seconds(last_now_);
    stamped += "] ";
    stamped += line;
    opt_.log(stamped);
  }

  void publish_metrics() {
    if (!metrics_) return;
    metrics_->publish(prometheus_text(ctl_.record(), last_now_, pool_.live_workers()));
    metrics_->publish_health(health_json(ctl_.record(), last_now_, pool_.live_workers(), stats_.workers_started,
                                          metrics_->serving_metrics()));
  }

  const Scenario& sc_;
  Controller& ctl_;
  const Options& opt_;
  RunStats& stats_;
  double t0_;
  Seconds last_now_;
  WorkerPool pool_;
  WorkerSlots slots_;  // node pools: the devices in service (real/driver_pools.hpp)
  std::deque<Event> events_;  // what the driver's own fault changes caused
  std::unique_ptr<MetricsServer> metrics_;
};

}  // namespace

RunStats run(const Scenario& scenario, Controller& controller, const Options& options) {
  if (options.devices != scenario.topology.total_gpus())
    throw std::invalid_argument("--devices " + std::string(options.provider == "nccl" ? "cuda:" : "cpu:") +
                                std::to_string(options.devices) + " does not match the " +
                                std::to_string(scenario.topology.total_gpus()) + " GPUs of topology " +
                                scenario.topology.name() + " (one CPU device backs each GPU)");
  if (!(options.time_scale > 0) || !std::isfinite(options.time_scale))
    throw std::invalid_argument("the time scale must be a positive number, found " + format_number(options.time_scale));
  if (options.worker_command.empty() || ::access(options.worker_command.front().c_str(), X_OK) != 0)
    throw std::invalid_argument(
        "no executable worker command (" +
        (options.worker_command.empty() ? std::string("empty") : options.worker_command.front()) + ")");
  make_compute_step(options.compute, Workload{1, 16, 8, 3 * 16 * 8});  // rejects an unknown or unbuilt one now
  if (options.job_uid_base >= 0 && ::geteuid() != 0)
    throw std::invalid_argument("a uid per job (--job-uids) needs the driver to run as root");
  if (options.job_uid_base == 0 || options.job_uid_base > 2'000'000'000 - static_cast<int>(scenario.jobs.size()))
    throw std::invalid_argument("job uids must start above 0 (root) and fit below 2000000000, found " +
                                std::to_string(options.job_uid_base));

  RunStats stats;
  rusage before{};
  if (::getrusage(RUSAGE_SELF, &before) != 0) throw_errno("getrusage RUSAGE_SELF");
  const double cpu_before =
      (before.ru_utime.tv_sec + before.ru_stime.tv_sec) + (before.ru_utime.tv_usec + before.ru_stime.tv_usec) * 1e-6;
  const double start = monotonic_seconds();
  std::string control_plane;
  {
    check_real_scenario(scenario);
    FaultPlayer faults(scenario);
    RealBackend backend(scenario, controller, options, stats);
    PreflightEffects effects(scenario, backend);  // attention fallback: straggling GPUs (no setup hang: check_real_scenario)
    RealReleases releases(scenario, effects, options.log);  // reimages, release settings, progress watchdog
    backend.configure_workers(
        [&releases](const Launch& l, int node, WorkerConfig& c) { releases.configure(l, node, c); });
    PoolEffects pools(scenario, releases);         // provisioning delays, spot reclaims (docs/pools.md)
    DriveLoop loop(controller, pools, backend, faults, scenario.sim.horizon);
    loop.record = options.on_event;
    loop.set_control_plane_outages(options.control_plane_outages, scenario.topology.gpus_per_node());
    if (options.durable) options.durable->attach(loop, faults, options.on_event, options.crash_on_control_plane);
    backend.finish(loop.run());
    control_plane = loop.control_plane_summary();
  }
  stats.wall_seconds = monotonic_seconds() - start;
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) != 0) throw_errno("getrusage RUSAGE_SELF");
  stats.driver_cpu_seconds = (self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                             (self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e-6 - cpu_before;
  stats.driver_info = {
      {"devices", (options.provider == "nccl" ? "cuda:" : "cpu:") + std::to_string(options.devices)},
      {"time_scale", format_number(options.time_scale, "%g")},
      {"compute", options.compute},
      {"collective",
       options.provider == "nccl" ? "nccl all-reduce, one CUDA device per GPU" : "gloo ring all-reduce, tcp 127.0.0.1"},
      {"gradient_scale",
       format_number(kGradScale, "%g") + " of the planned dp bytes, at most " + std::to_string(kGradCapBytes) + " bytes"},
      {"heartbeat_timeout", format_number(options.heartbeat_timeout, "%g") + " s real"},
  };
  if (!options.secrets.empty()) {
    std::string names;
    for (const auto& s : options.secrets) names += (names.empty() ? "" : ", ") + s.name;
    stats.driver_info["secrets"] = names + " (by reference; values only in their jobs' worker environments)";
  }
  if (scenario.rollout.enabled())
    stats.driver_info["releases"] = "workers run their node's release settings (real/driver_release.hpp)";
  if (options.durable)
    for (auto& [key, value] : options.durable->report_info()) stats.driver_info[key] = value;
  if (!control_plane.empty()) stats.driver_info["control_plane_outages"] = control_plane;
  if (options.job_uid_base >= 0)
    stats.driver_info["job_uids"] = "job j's workers run as uid and gid " + std::to_string(options.job_uid_base) + " + j";
  return stats;
}

}  // namespace tt::real
