#include "real/driver.hpp"

#include "core/io/input_error.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <set>
#include <stdexcept>

#include "real/checkpoint.hpp"
#include "real/launcher.hpp"
#include "real/metrics.hpp"
#include "real/nccl_provider.hpp"
#include "real/protocol.hpp"
#include "real/sys.hpp"
#include "real/training.hpp"
#include "real/worker.hpp"

namespace tt::real {
namespace fs = std::filesystem;

namespace {

constexpr int kKeepCheckpoints = 3;
constexpr double kNever = std::numeric_limits<double>::infinity();

struct Rank {
  int rank = 0;
  int gpu = 0;
  int node = 0;
  pid_t pid = -1;
  Fd report;
  Fd pidfd;
  std::string pending;    // bytes of a message not yet complete
  double last_heard = 0;  // real seconds since start
  bool done = false;
  bool exited = false;
  bool hello = false;   // it has said Hello: its speed signal handler is installed
  double speed = 1.0;   // the device speed the worker was last told (a straggler's is below 1)
  fs::path log;
};

struct Attempt {
  int job = 0;
  int attempt = 0;
  int world = 0;
  std::int64_t iterations = 0;
  std::int64_t progress = 0;
  fs::path job_dir;
  std::vector<Rank> ranks;
  std::map<std::int64_t, std::pair<int, double>> checkpoints;  // iteration -> (ranks written, slowest write)
  int done = 0;
  bool killed = false;    // by a Kill action or at the end of the run
  bool reported = false;  // the Controller has been told it stalled (or its node is down)
  bool finished() const {
    return std::all_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.exited; });
  }
};

enum class FaultAction { Crash, Repair, Hang, LinkDown, LinkUp, Slow, Unslow, CorruptCheckpoint };

struct Scheduled {
  Seconds at;
  FaultAction action;
  int target;  // node, link, GPU or job index
  std::string name;
  double fraction = 1.0;  // Slow: the speed left to the GPU
};

std::string fmt(double v, const char* f = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

class Loop {
 public:
  Loop(const Scenario& sc, Controller& ctl, const Options& opt, RunStats& stats)
      : sc_(sc), ctl_(ctl), opt_(opt), stats_(stats), gpn_(sc.topology.gpus_per_node()) {
    if (!sc.stochastic.rates.empty())
      throw InputError(sc.source_file, "/stochastic",
                       "no stochastic faults: the real driver injects only scripted faults (run stochastic drills in "
                       "simulation)");
    for (std::size_t i = 0; i < sc.faults.size(); ++i) {
      const FaultSpec& f = sc.faults[i];
      switch (f.kind) {
        case FaultKind::NodeCrash: {
          int node = sc.topology.find_node(f.target);
          faults_.push_back({f.at, FaultAction::Crash, node, f.target});
          faults_.push_back({f.at + f.repair, FaultAction::Repair, node, f.target});
          break;
        }
        case FaultKind::LinkDown: {
          int link = sc.topology.find_link(f.target);
          faults_.push_back({f.at, FaultAction::LinkDown, link, f.target});
          faults_.push_back({f.at + f.repair, FaultAction::LinkUp, link, f.target});
          break;
        }
        case FaultKind::Hang:
          faults_.push_back({f.at, FaultAction::Hang, sc.topology.find_node(f.target), f.target});
          break;
        case FaultKind::Straggler: {
          const int v = sc.topology.find_vertex(f.target);
          const auto& g = sc.topology.graph()[v];
          const int gpu = g.node * gpn_ + g.local;
          faults_.push_back({f.at, FaultAction::Slow, gpu, f.target, f.fraction});
          faults_.push_back({f.at + f.repair, FaultAction::Unslow, gpu, f.target});
          break;
        }
        case FaultKind::CheckpointCorrupt:
          for (std::size_t j = 0; j < sc.jobs.size(); ++j)
            if (sc.jobs[j].name == f.target)
              faults_.push_back({f.at, FaultAction::CorruptCheckpoint, static_cast<int>(j), f.target});
          break;
        default:  // the simulator runs every kind; real processes on one machine can fake only these
          throw InputError(sc.source_file, "/faults/" + std::to_string(i) + "/kind",
                           std::string("a fault kind the real driver can inject (node_crash, link_down, hang, "
                                       "straggler, checkpoint_corrupt), found ") +
                               to_string(f.kind));
      }
    }
    std::stable_sort(faults_.begin(), faults_.end(),
                     [](const Scheduled& a, const Scheduled& b) { return a.at < b.at; });
    gpu_speed_.assign(static_cast<std::size_t>(sc.topology.total_gpus()), 1.0);
    timer_ = Fd(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
    if (!timer_) throw_errno("timerfd_create CLOCK_MONOTONIC");
    make_private_dirs(opt.run_dir);
    if (opt.metrics_port >= 0) {
      ctl_.set_live_metrics(true);
      metrics_ = std::make_unique<MetricsServer>(opt.metrics_port);
      stats_.metrics_port = metrics_->port();
      publish_metrics();
      if (opt.on_metrics_ready) opt.on_metrics_ready(metrics_->port());
    }
    t0_ = monotonic_seconds();
  }

  ~Loop() {
    for (auto& a : attempts_) kill_attempt(*a, /*noexcept_=*/true);
  }

  void run() {
    const Seconds horizon = sc_.sim.horizon;
    for (;;) {
      Seconds t = now();
      while (next_fault_ < faults_.size() && faults_[next_fault_].at <= t) apply(faults_[next_fault_++]);
      for (int guard = 0; guard < 1000; ++guard) {
        auto d = ctl_.next_deadline();
        if (!d || *d > now()) break;
        feed(Timer{});
      }
      watchdog();
      reap_finished_attempts();
      if (ctl_.done()) break;
      t = now();
      if (t >= horizon) {
        log("horizon " + format_seconds(horizon) + " reached");
        break;
      }
      double wake = to_real(horizon);
      if (auto d = ctl_.next_deadline()) wake = std::min(wake, to_real(*d));
      if (next_fault_ < faults_.size()) wake = std::min(wake, to_real(faults_[next_fault_].at));
      bool live = false;
      for (auto& a : attempts_)
        for (auto& r : a->ranks)
          if (!r.exited) {
            live = true;
            if (!a->reported && r.report) wake = std::min(wake, r.last_heard + opt_.heartbeat_timeout);
          }
      if (!live && !ctl_.next_deadline() && next_fault_ >= faults_.size()) {
        log("nothing left to happen: no worker runs, no timer or fault is pending");
        break;
      }
      wait(wake);
    }
    end_all();
    Seconds end = std::min(now(), horizon);
    ctl_.finish(end);
    publish_metrics();
  }

 private:
  // --- time -------------------------------------------------------------------------------------------------------
  double real_now() const { return monotonic_seconds() - t0_; }
  Seconds now() {
    last_now_ = std::max(last_now_, Seconds(real_now() * opt_.time_scale));
    return last_now_;
  }
  double to_real(Seconds s) const { return s.value / opt_.time_scale; }

  void log(const std::string& line) {
    if (!opt_.log) return;
    std::string stamped(1, '[');  // built step by step: GCC 12 warns falsely (-Wrestrict) on "[" + std::string&&
    stamped += format_seconds(last_now_);
    stamped += "] ";
    stamped += line;
    opt_.log(stamped);
  }

  void feed(const Event& e) {
    std::vector<Action> actions = ctl_.handle(e, now());
    ++stats_.controller_events;
    for (auto& a : actions) std::visit([&](auto& x) { execute(x); }, a);
    publish_metrics();
  }

  // --- waiting ----------------------------------------------------------------------------------------------------
  void arm_timer(double real_deadline) {
    itimerspec its{};
    if (real_deadline != kNever) {
      double abs = std::max(t0_ + real_deadline, 1e-9);
      its.it_value.tv_sec = static_cast<time_t>(std::floor(abs));
      its.it_value.tv_nsec = static_cast<long>((abs - std::floor(abs)) * 1e9);
      if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
    }
    if (::timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &its, nullptr) != 0) throw_errno("timerfd_settime");
  }

  struct Watch {
    Attempt* attempt;
    std::size_t rank;
    bool is_pidfd;
  };

  void wait(double real_deadline) {
    arm_timer(real_deadline);
    std::vector<pollfd> fds{{timer_.get(), POLLIN, 0}};
    std::vector<Watch> watches{{nullptr, 0, false}};
    for (auto& a : attempts_)
      for (std::size_t i = 0; i < a->ranks.size(); ++i) {
        Rank& r = a->ranks[i];
        if (r.report) {
          fds.push_back({r.report.get(), POLLIN, 0});
          watches.push_back({a.get(), i, false});
        }
        if (r.pidfd) {
          fds.push_back({r.pidfd.get(), POLLIN, 0});
          watches.push_back({a.get(), i, true});
        }
      }
    int n;
    while ((n = ::poll(fds.data(), fds.size(), -1)) < 0) {
      if (errno != EINTR) throw_errno("poll over " + std::to_string(fds.size()) + " worker descriptors");
    }
    if (fds[0].revents & POLLIN) {
      std::uint64_t expirations;
      if (::read(timer_.get(), &expirations, sizeof expirations) < 0 && errno != EAGAIN) throw_errno("read timerfd");
    }
    // Reports first, exits second: a worker's last messages (Done) must be seen before its exit.
    for (int pass = 0; pass < 2; ++pass)
      for (std::size_t k = 1; k < fds.size(); ++k) {
        if (!fds[k].revents || watches[k].is_pidfd != (pass == 1)) continue;
        Attempt& a = *watches[k].attempt;
        Rank& r = a.ranks[watches[k].rank];
        if (pass == 0) {
          drain(a, r);
        } else if (!r.exited) {
          on_exit(a, r);
        }
      }
  }

  // --- worker messages --------------------------------------------------------------------------------------------
  void drain(Attempt& a, Rank& r) {
    if (!r.report) return;
    char buf[4096];
    for (;;) {
      ssize_t got = ::read(r.report.get(), buf, sizeof buf);
      if (got < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN) return;
        throw_errno("read report pipe of " + who(a, r));
      }
      if (got == 0) {  // the worker closed it: it is exiting
        r.report.reset();
        return;
      }
      r.pending.append(buf, static_cast<std::size_t>(got));
      while (r.pending.size() >= sizeof(WireMsg)) {
        WireMsg m;
        std::memcpy(&m, r.pending.data(), sizeof m);
        r.pending.erase(0, sizeof m);
        on_message(a, r, m);
        if (!r.report) return;  // the message led to this attempt being killed
      }
    }
  }

  void on_message(Attempt& a, Rank& r, const WireMsg& m) {
    if (a.killed) return;
    if (m.magic != kMsgMagic) {
      log(who(a, r) + ": malformed report message; stopping the rank");
      send_signal(r.pid, SIGKILL, who(a, r));
      return;
    }
    r.last_heard = real_now();
    switch (m.kind) {
      case MsgKind::Hello:
        log(who(a, r) + " ready (resumes after iteration " + std::to_string(m.iteration) + ")");
        r.hello = true;
        tell_speed(a, r);
        break;
      case MsgKind::Heartbeat:
        break;
      case MsgKind::Progress:
        a.progress = std::max(a.progress, m.iteration);
        feed(JobProgress{a.job, a.attempt, m.iteration, Seconds(m.seconds * opt_.time_scale)});
        break;
      case MsgKind::Checkpoint: {
        auto& [count, slowest] = a.checkpoints[m.iteration];
        ++count;
        slowest = std::max(slowest, m.seconds);
        if (count < a.world) break;
        const double write = slowest;
        a.checkpoints.erase(m.iteration);
        if (!checkpoint_complete(a.job_dir, m.iteration, a.world)) {
          log(job_name(a) + ": every rank reported the checkpoint after iteration " + std::to_string(m.iteration) +
              " but a manifest is missing; it does not count");
          break;
        }
        prune_checkpoints(a.job_dir, a.world, kKeepCheckpoints);
        if (m.iteration < a.iterations)
          feed(CheckpointDone{a.job, a.attempt, m.iteration, Seconds(write * opt_.time_scale),
                              Seconds(write * opt_.time_scale)});  // synchronous: the write blocks training
        break;
      }
      case MsgKind::Done:
        if (r.done) break;
        r.done = true;
        if (++a.done == a.world) {
          log(job_name(a) + " attempt " + std::to_string(a.attempt) + ": all " + std::to_string(a.world) +
              " ranks done; final state CRC-32C of rank " + std::to_string(m.rank) + " " + fmt(m.value, "%.0f"));
          feed(JobCompleted{a.job, a.attempt});
        }
        break;
      case MsgKind::Error:
        log(who(a, r) + " reported an error; see " + r.log.string());
        break;
      default:
        log(who(a, r) + ": unknown report message kind " + std::to_string(static_cast<int>(m.kind)));
    }
  }

  void on_exit(Attempt& a, Rank& r) {
    drain(a, r);
    int status = reap(r.pid, who(a, r));
    r.exited = true;
    r.pidfd.reset();
    r.report.reset();
    if (a.killed) return;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.done) return;
    const std::string cause =
        "rank " + std::to_string(r.rank) + " on " + node_name(r.node) + " " + describe_wait_status(status);
    log(who(a, r) + " " + describe_wait_status(status) + "; log: " + r.log.string());
    stall(a, cause);
  }

  void stall(Attempt& a, const std::string& cause, const std::string& kind = "") {
    if (a.reported) return;
    a.reported = true;
    feed(JobStalled{a.job, a.attempt, a.progress, cause, kind});
  }

  void watchdog() {
    const double t = real_now();
    for (std::size_t i = 0; i < attempts_.size(); ++i) {
      Attempt& a = *attempts_[i];
      if (a.killed || a.reported) continue;
      for (auto& r : a.ranks) {
        if (r.exited || t - r.last_heard <= opt_.heartbeat_timeout) continue;
        drain(a, r);  // what it sent while this loop was busy elsewhere counts
        if (a.killed || a.reported) break;
        if (r.exited || !r.report || t - r.last_heard <= opt_.heartbeat_timeout) continue;  // no pipe: it is exiting
        const std::string cause = "rank " + std::to_string(r.rank) + " on " + node_name(r.node) +
                                  " sent no heartbeat for " + fmt(t - r.last_heard) + " s real (hung)";
        log(who(a, r) + ": " + cause);
        // A hang this driver injected is reported as one (as the simulator does); any other silence has no known kind.
        stall(a, cause, hung_nodes_.count(r.node) ? "hang" : "");
        break;
      }
    }
  }

  // --- faults -----------------------------------------------------------------------------------------------------
  void apply(const Scheduled& f) {
    switch (f.action) {
      case FaultAction::Crash: {
        log("fault: node " + f.name + " crashes; SIGKILL of its workers");
        for (auto& a : attempts_) {
          bool hit = false;
          for (auto& r : a->ranks)
            if (r.node == f.target && !r.exited) {
              kill_rank(*a, r);
              hit = true;
            }
          if (hit) a->reported = true;  // NodeDown stalls the job
        }
        feed(NodeDown{f.target, "node_crash"});  // the fault kind, as the simulator reports it
        break;
      }
      case FaultAction::Repair:
        log("fault: node " + f.name + " repaired");
        feed(NodeUp{f.target});
        break;
      case FaultAction::Hang:
        log("fault: node " + f.name + " hangs; SIGSTOP of its workers");
        for (auto& a : attempts_)
          for (auto& r : a->ranks)
            if (r.node == f.target && !r.exited) send_signal(r.pid, SIGSTOP, who(*a, r));
        hung_nodes_.insert(f.target);
        break;
      case FaultAction::LinkDown:
        log("fault: link " + f.name + " down (reported; the loopback network is unchanged)");
        feed(LinkDown{f.target});
        break;
      case FaultAction::LinkUp:
        log("fault: link " + f.name + " repaired");
        feed(LinkUp{f.target});
        break;
      case FaultAction::Slow:
      case FaultAction::Unslow:
        gpu_speed_[f.target] = f.action == FaultAction::Slow ? f.fraction : 1.0;
        log("fault: GPU " + f.name + (f.action == FaultAction::Slow ? " straggles at " + fmt(f.fraction) + " of its speed"
                                                                     : " back to full speed"));
        for (auto& a : attempts_)
          for (auto& r : a->ranks)
            if (r.gpu == f.target) tell_speed(*a, r);
        break;
      case FaultAction::CorruptCheckpoint:
        corrupt_newest_checkpoint(f.target);
        feed(CheckpointCorrupted{f.target});
        break;
    }
  }

  // A straggler: the worker stretches each iteration to its duration over the speed left (real/worker.hpp). A worker
  // learns its speed at launch and, when it changes, from a queued real-time signal, once its handler is installed.
  void tell_speed(Attempt& a, Rank& r) {
    const double speed = gpu_speed_[r.gpu];
    if (!r.hello || r.exited || a.killed || speed == r.speed) return;
    send_speed(r.pid, speed, who(a, r));
    r.speed = speed;
  }

  // Silent corruption on storage: one byte flipped in the middle of rank 0's state file of the newest checkpoint the
  // Controller counts. Its checksum in the manifest no longer matches, so a restore refuses it.
  void corrupt_newest_checkpoint(int job) {
    const std::int64_t iteration = ctl_.record().jobs[job].last_checkpoint;
    const fs::path dir = opt_.run_dir / job_dir_name(sc_, job);
    if (iteration <= 0 || !checkpoint_complete(dir, iteration, sc_.jobs[job].gpus)) {
      log("fault: " + sc_.jobs[job].name + " has no completed checkpoint to corrupt");
      return;
    }
    const fs::path file = checkpoint_path(dir, iteration) / state_file_name(0);
    flip_byte_in_middle(file);
    log("fault: flipped one byte in the middle of " + file.string() + " (checkpoint after iteration " +
        std::to_string(iteration) + " of " + sc_.jobs[job].name + ")");
  }

  // --- actions ----------------------------------------------------------------------------------------------------
  void execute(const Launch& l) {
    const JobSpec& spec = sc_.jobs[l.job];
    auto a = std::make_unique<Attempt>();
    a->job = l.job;
    a->attempt = l.attempt;
    a->world = static_cast<int>(l.gpus.size());
    a->iterations = l.iterations;
    a->job_dir = opt_.run_dir / job_dir_name(sc_, l.job);
    make_private_dirs(a->job_dir);
    if (opt_.before_launch) opt_.before_launch(a->job_dir, l);

    RestorePoint rp = choose_restore(a->job_dir, a->world, l.start_iteration);
    for (const auto& why : rp.refused) log(spec.name + ": " + why);
    if (rp.iteration != l.start_iteration)
      log(spec.name + ": resumes after iteration " + std::to_string(rp.iteration) + " (the newest whole checkpoint), " +
          "not " + std::to_string(l.start_iteration));
    remove_checkpoints_after(a->job_dir, rp.iteration);
    a->progress = rp.iteration;

    const fs::path attempt_dir = a->job_dir / ("attempt-" + std::to_string(l.attempt));
    std::error_code ec;
    fs::remove_all(attempt_dir, ec);  // a leftover of an earlier run in the same directory
    if (ec) throw SysError("remove " + attempt_dir.string(), ec.value());
    make_private_dirs(attempt_dir / "gloo-store");
    prepare_provider(opt_.provider, attempt_dir, sc_, l);

    WorkerConfig c;
    c.job_dir = a->job_dir.string();
    c.attempt_dir = attempt_dir.string();
    c.job_name = spec.name;
    c.job = l.job;
    c.attempt = l.attempt;
    c.world = a->world;
    c.start_iteration = rp.iteration;
    c.iterations = l.iterations;
    c.checkpoint_every = l.checkpoint_every;
    c.seed = job_seed(sc_.seed, l.job);
    c.workload = workload_for(spec, l.plan);
    c.compute = opt_.compute;
    c.startup_seconds = to_real(l.startup);
    c.pace_seconds = to_real(l.plan.predicted_iteration);
    c.speed = 1.0;
    c.heartbeat_seconds = opt_.heartbeat_interval;
    c.provider = opt_.provider;
    log("launch " + spec.name + " attempt " + std::to_string(l.attempt) + " on " + std::to_string(a->world) +
        " devices from iteration " + std::to_string(rp.iteration) + ": " + std::to_string(c.workload.params) +
        " params, attention " + std::to_string(c.workload.heads) + "x" + std::to_string(c.workload.seq) + "x" +
        std::to_string(c.workload.head_dim) + ", pace " + fmt(c.pace_seconds) + " s, startup " +
        fmt(c.startup_seconds) + " s real");

    Attempt& at = *a;
    attempts_.push_back(std::move(a));
    for (int rank = 0; rank < at.world; ++rank) {
      c.rank = rank;
      c.device = opt_.provider == "nccl" ? l.gpus[rank] : -1;  // cuda:N backs global GPU g with CUDA device g
      Rank r;
      r.rank = rank;
      r.gpu = l.gpus[rank];
      r.node = r.gpu / gpn_;
      r.log = attempt_dir / ("rank-" + std::to_string(rank) + ".log");
      c.speed = r.speed = gpu_speed_[r.gpu];
      std::vector<std::string> argv = opt_.worker_command;
      for (auto& arg : worker_arguments(c)) argv.push_back(std::move(arg));
      Process p = spawn_process(argv, r.log);
      r.pid = p.pid;
      r.report = std::move(p.report);
      r.pidfd = std::move(p.pidfd);
      r.last_heard = real_now();
      at.ranks.push_back(std::move(r));
      ++stats_.workers_started;
    }
  }

  void execute(const Kill& k) {
    int running = 0;
    for (auto& a : attempts_)
      if (a->job == k.job && a->attempt == k.attempt && !a->killed) {
        for (const auto& r : a->ranks) running += !r.exited;
        kill_attempt(*a, false);
      }
    log("kill " + sc_.jobs[k.job].name + " attempt " + std::to_string(k.attempt) + " (" + std::to_string(running) +
        " workers still running): " + k.reason);
  }

  void execute(const Cordon& c) { log("cordon " + node_name(c.node) + ": " + c.reason); }
  void execute(const Uncordon& u) { log("uncordon " + node_name(u.node)); }
  void execute(const FireAlert& a) { log("alert " + a.name + " (" + a.severity + ") firing: " + a.summary); }
  void execute(const ResolveAlert& a) { log("alert " + a.name + " resolved"); }

  void kill_rank(Attempt& a, Rank& r) {
    kill_and_reap(r.pid, who(a, r));
    r.exited = true;
    r.report.reset();
    r.pidfd.reset();
  }

  void kill_attempt(Attempt& a, bool noexcept_) {
    a.killed = true;
    for (auto& r : a.ranks) {
      if (r.exited) continue;
      if (noexcept_) {
        ::kill(r.pid, SIGKILL);
        int status;
        while (::waitpid(r.pid, &status, 0) < 0 && errno == EINTR) {
        }
        r.exited = true;
      } else {
        kill_rank(a, r);
      }
    }
  }

  void end_all() {
    for (auto& a : attempts_) kill_attempt(*a, false);
    attempts_.clear();
  }

  void reap_finished_attempts() {
    std::erase_if(attempts_, [](const std::unique_ptr<Attempt>& a) { return a->finished(); });
  }

  // --- names and metrics ------------------------------------------------------------------------------------------
  const std::string& node_name(int node) const { return sc_.topology.nodes()[node].name; }
  std::string job_name(const Attempt& a) const { return sc_.jobs[a.job].name; }
  std::string who(const Attempt& a, const Rank& r) const {
    return job_name(a) + " attempt " + std::to_string(a.attempt) + " rank " + std::to_string(r.rank) + " (pid " +
           std::to_string(r.pid) + ", " + node_name(r.node) + ")";
  }

  void publish_metrics() {
    if (!metrics_) return;
    int live = 0;
    for (auto& a : attempts_)
      for (auto& r : a->ranks) live += !r.exited;
    metrics_->publish(prometheus_text(ctl_.record(), last_now_, live));
  }

  const Scenario& sc_;
  Controller& ctl_;
  const Options& opt_;
  RunStats& stats_;
  const int gpn_;
  double t0_ = 0;
  Seconds last_now_;
  Fd timer_;
  std::vector<Scheduled> faults_;
  std::size_t next_fault_ = 0;
  std::vector<double> gpu_speed_;  // 1 but for a straggling GPU
  std::set<int> hung_nodes_;       // nodes whose workers this driver stopped (a hang fault)
  std::vector<std::unique_ptr<Attempt>> attempts_;
  std::unique_ptr<MetricsServer> metrics_;
};

}  // namespace

std::string job_dir_name(const Scenario& scenario, int job) {
  std::string name = "job" + std::to_string(job) + "-";
  for (char ch : scenario.jobs[job].name)
    name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.') ? ch : '_';
  return name;
}

RunStats run(const Scenario& scenario, Controller& controller, const Options& options) {
  if (options.devices != scenario.topology.total_gpus())
    throw std::invalid_argument("--devices " + std::string(options.provider == "nccl" ? "cuda:" : "cpu:") +
                                std::to_string(options.devices) + " does not match the " +
                                std::to_string(scenario.topology.total_gpus()) + " GPUs of topology " +
                                scenario.topology.name() + " (one CPU device backs each GPU)");
  if (!(options.time_scale > 0) || !std::isfinite(options.time_scale))
    throw std::invalid_argument("the time scale must be a positive number, found " + fmt(options.time_scale));
  if (options.worker_command.empty() || ::access(options.worker_command.front().c_str(), X_OK) != 0)
    throw std::invalid_argument(
        "no executable worker command (" +
        (options.worker_command.empty() ? std::string("empty") : options.worker_command.front()) + ")");
  make_compute_step(options.compute, Workload{1, 16, 8, 3 * 16 * 8});  // rejects an unknown or unbuilt one now

  RunStats stats;
  rusage before{};
  if (::getrusage(RUSAGE_SELF, &before) != 0) throw_errno("getrusage RUSAGE_SELF");
  const double cpu_before =
      (before.ru_utime.tv_sec + before.ru_stime.tv_sec) + (before.ru_utime.tv_usec + before.ru_stime.tv_usec) * 1e-6;
  const double start = monotonic_seconds();
  {
    Loop loop(scenario, controller, options, stats);
    loop.run();
  }
  stats.wall_seconds = monotonic_seconds() - start;
  rusage self{};
  if (::getrusage(RUSAGE_SELF, &self) != 0) throw_errno("getrusage RUSAGE_SELF");
  stats.driver_cpu_seconds = (self.ru_utime.tv_sec + self.ru_stime.tv_sec) +
                             (self.ru_utime.tv_usec + self.ru_stime.tv_usec) * 1e-6 - cpu_before;
  stats.driver_info = {
      {"devices", (options.provider == "nccl" ? "cuda:" : "cpu:") + std::to_string(options.devices)},
      {"time_scale", fmt(options.time_scale, "%g")},
      {"compute", options.compute},
      {"collective",
       options.provider == "nccl" ? "nccl all-reduce, one CUDA device per GPU" : "gloo ring all-reduce, tcp 127.0.0.1"},
      {"gradient_scale",
       fmt(kGradScale, "%g") + " of the planned dp bytes, at most " + std::to_string(kGradCapBytes) + " bytes"},
      {"heartbeat_timeout", fmt(options.heartbeat_timeout, "%g") + " s real"},
  };
  return stats;
}

}  // namespace tt::real
