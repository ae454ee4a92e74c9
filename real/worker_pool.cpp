#include "real/worker_pool.hpp"

#include <poll.h>
#include <signal.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <limits>

#include "real/checkpoint.hpp"
#include "real/driver.hpp"
#include "real/launcher.hpp"
#include "real/nccl_provider.hpp"
#include "real/protocol.hpp"
#include "real/training.hpp"
#include "real/worker.hpp"

extern char** environ;

namespace tt::real {
namespace fs = std::filesystem;

namespace {

constexpr double kNever = std::numeric_limits<double>::infinity();

}  // namespace

// A job's directory and everything in it, to its workers' uid (what the driver prepared: stores, restored state).
static void give_tree(const fs::path& dir, unsigned uid) {
  if (::lchown(dir.c_str(), uid, uid) != 0) throw_errno("chown " + dir.string() + " to uid " + std::to_string(uid));
  for (const auto& e : fs::recursive_directory_iterator(dir))
    if (::lchown(e.path().c_str(), uid, uid) != 0)
      throw_errno("chown " + e.path().string() + " to uid " + std::to_string(uid));
}

bool Attempt::finished() const {
  return std::all_of(ranks.begin(), ranks.end(), [](const Rank& r) { return r.exited; });
}

struct WorkerPool::Watch {
  Attempt* attempt;
  std::size_t rank;
  bool is_pidfd;
};

WorkerPool::WorkerPool(const Scenario& sc, const Options& opt, double t0)
    : sc_(sc), opt_(opt), gpn_(sc.topology.gpus_per_node()), t0_(t0) {
  gpu_speed_.assign(static_cast<std::size_t>(sc.topology.total_gpus()), 1.0);
  timer_ = Fd(::timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK));
  if (!timer_) throw_errno("timerfd_create CLOCK_MONOTONIC");
  secrets_ = resolve_secrets(sc, opt.secrets);
  if (!opt.secrets.empty())
    for (char** e = environ; *e; ++e) parent_env_.emplace_back(*e);
}

WorkerPool::~WorkerPool() {
  for (auto& a : attempts_) kill_attempt(*a, /*noexcept_=*/true);
}

double WorkerPool::real_now() const { return monotonic_seconds() - t0_; }

void WorkerPool::say(const std::string& line) const {
  if (log) log(line);
}

const std::string& WorkerPool::node_name(int node) const { return sc_.topology.nodes()[node].name; }

std::string WorkerPool::who(const Attempt& a, const Rank& r) const {
  return sc_.jobs[a.job].name + " attempt " + std::to_string(a.attempt) + " rank " + std::to_string(r.rank) +
         " (pid " + std::to_string(r.pid) + ", " + node_name(r.node) + ")";
}

std::optional<Event> WorkerPool::next_event() {
  if (events_.empty()) return std::nullopt;
  Event e = std::move(events_.front());
  events_.pop_front();
  return e;
}

// --- launching and killing ------------------------------------------------------------------------------------------
void WorkerPool::launch(const Launch& l, int* workers_started) {
  const JobSpec& spec = sc_.jobs[l.job];
  auto a = std::make_unique<Attempt>();
  a->job = l.job;
  a->attempt = l.attempt;
  a->world = static_cast<int>(l.gpus.size());
  a->iterations = l.iterations;
  a->keep = l.checkpoint_keep;
  a->launched_at = real_now();
  a->job_dir = opt_.run_dir / job_dir_name(sc_, l.job);
  make_private_dirs(a->job_dir);
  if (opt_.before_launch) opt_.before_launch(a->job_dir, l);

  // The Controller chose the checkpoint; storage may refuse it (a checksum fails): the newest older one that
  // verifies is used instead, and the Controller hears of it.
  RestorePoint rp = choose_restore(a->job_dir, a->world, l.start_iteration);
  for (const auto& why : rp.refused) say(spec.name + ": " + why);
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
  c.startup_seconds = l.startup_with_move().value / opt_.time_scale;
  c.pace_seconds = l.plan.predicted_iteration.value / opt_.time_scale;
  c.speed = 1.0;
  c.heartbeat_seconds = opt_.heartbeat_interval;
  c.provider = opt_.provider;
  say("launch " + spec.name + " attempt " + std::to_string(l.attempt) + " on " + std::to_string(a->world) +
      " devices from iteration " + std::to_string(rp.iteration) + ": " + std::to_string(c.workload.params) +
      " params, attention " + std::to_string(c.workload.heads) + "x" + std::to_string(c.workload.seq) + "x" +
      std::to_string(c.workload.head_dim) + ", pace " + format_number(c.pace_seconds) + " s, startup " +
      format_number(c.startup_seconds) + " s real");
  if (rp.iteration != l.start_iteration) events_.push_back(RestoredFrom{l.job, l.attempt, rp.iteration});

  SpawnAs as;
  if (!opt_.secrets.empty()) as.env = worker_environment(parent_env_, opt_.secrets, secrets_[l.job]);
  if (opt_.job_uid_base >= 0) {
    as.uid = static_cast<unsigned>(opt_.job_uid_base + l.job);
    give_tree(a->job_dir, *as.uid);
  }
  if (!measurements_) measurements_.emplace(opt_.run_dir);
  measurements_->launch(c, opt_.provider, opt_.time_scale);
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
    if (configure_worker) configure_worker(l, r.node, c);
    std::vector<std::string> argv = opt_.worker_command;
    for (auto& arg : worker_arguments(c)) argv.push_back(std::move(arg));
    Process p = spawn_process(argv, r.log, as);
    r.pid = p.pid;
    r.report = std::move(p.report);
    r.pidfd = std::move(p.pidfd);
    r.last_heard = real_now();
    at.ranks.push_back(std::move(r));
    if (workers_started) ++*workers_started;
  }
}

void WorkerPool::kill(int job, int attempt) {
  for (auto& a : attempts_)
    if (a->job == job && a->attempt == attempt && !a->killed) kill_attempt(*a, false);
}

void WorkerPool::kill_all() {
  for (auto& a : attempts_) kill_attempt(*a, false);
  attempts_.clear();
}

void WorkerPool::kill_rank(Attempt& a, Rank& r) {
  kill_and_reap(r.pid, who(a, r));
  r.exited = true;
  r.report.reset();
  r.pidfd.reset();
}

void WorkerPool::kill_attempt(Attempt& a, bool noexcept_) {
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

int WorkerPool::live_workers() const {
  int live = 0;
  for (const auto& a : attempts_)
    for (const auto& r : a->ranks) live += !r.exited;
  return live;
}

bool WorkerPool::any_running() const { return live_workers() > 0; }

// --- faults -----------------------------------------------------------------------------------------------------------
void WorkerPool::crash_node(int node) {
  for (auto& a : attempts_) {
    bool hit = false;
    for (auto& r : a->ranks)
      if (r.node == node && !r.exited) {
        kill_rank(*a, r);
        hit = true;
      }
    if (hit) a->reported = true;  // the Controller's NodeDown stalls the job
  }
}

void WorkerPool::stop_node(int node) {
  for (auto& a : attempts_)
    for (auto& r : a->ranks)
      if (r.node == node && !r.exited) send_signal(r.pid, SIGSTOP, who(*a, r));
  hung_nodes_.insert(node);
}

// A straggler: the worker stretches each iteration to its duration over the speed left (real/worker.hpp). A worker
// learns its speed at launch and, when it changes, from a queued real-time signal, once its handler is installed.
void WorkerPool::set_gpu_speed(int gpu, double speed) {
  gpu_speed_[gpu] = speed;
  for (auto& a : attempts_)
    for (auto& r : a->ranks)
      if (r.gpu == gpu) tell_speed(*a, r);
}

void WorkerPool::tell_speed(Attempt& a, Rank& r) {
  const double speed = gpu_speed_[r.gpu];
  if (!r.hello || r.exited || a.killed || speed == r.speed) return;
  send_speed(r.pid, speed, who(a, r));
  r.speed = speed;
}

// Silent corruption on storage: one byte flipped in the middle of rank 0's state file. Its checksum in the manifest
// no longer matches, so a restore refuses it.
bool WorkerPool::corrupt_checkpoint(int job, std::int64_t iteration) {
  const fs::path dir = opt_.run_dir / job_dir_name(sc_, job);
  if (iteration <= 0 || !checkpoint_complete(dir, iteration, sc_.jobs[job].gpus)) return false;
  const fs::path file = checkpoint_path(dir, iteration) / state_file_name(0);
  flip_byte_in_middle(file);
  say("fault: flipped one byte in the middle of " + file.string() + " (checkpoint after iteration " +
      std::to_string(iteration) + " of " + sc_.jobs[job].name + ")");
  return true;
}

// --- waiting and reading --------------------------------------------------------------------------------------------
void WorkerPool::wait(double real_deadline) {
  itimerspec its{};
  if (real_deadline != kNever) {
    const double abs = std::max(t0_ + real_deadline, 1e-9);
    its.it_value.tv_sec = static_cast<time_t>(std::floor(abs));
    its.it_value.tv_nsec = static_cast<long>((abs - std::floor(abs)) * 1e9);
    if (its.it_value.tv_sec == 0 && its.it_value.tv_nsec == 0) its.it_value.tv_nsec = 1;
  }
  if (::timerfd_settime(timer_.get(), TFD_TIMER_ABSTIME, &its, nullptr) != 0) throw_errno("timerfd_settime");
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
  while (::poll(fds.data(), fds.size(), -1) < 0) {
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

void WorkerPool::drain(Attempt& a, Rank& r) {
  if (!r.report) return;
  char buf[4096];
  for (;;) {
    const ssize_t got = ::read(r.report.get(), buf, sizeof buf);
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
    }
  }
}

void WorkerPool::on_message(Attempt& a, Rank& r, const WireMsg& m) {
  if (a.killed) return;
  if (m.magic != kMsgMagic) {
    say(who(a, r) + ": malformed report message; stopping the rank");
    send_signal(r.pid, SIGKILL, who(a, r));
    return;
  }
  r.last_heard = real_now();
  switch (m.kind) {
    case MsgKind::Hello:
      say(who(a, r) + " ready (resumes after iteration " + std::to_string(m.iteration) + ")");
      r.hello = true;
      // Every rank is up and its collective connected: what starting the attempt cost (the twin's startup phase,
      // core/calib/cpu_twin.hpp), before the startup the plan asks the workers to wait out.
      if (++a.hellos == a.world)
        measurements_->phase(a.job, a.attempt, 0, m.iteration, "startup", real_now() - a.launched_at);
      tell_speed(a, r);
      break;
    case MsgKind::Heartbeat:
      break;
    case MsgKind::Progress:
      measurements_->phase(a.job, a.attempt, m.rank, m.iteration, "iteration", m.seconds);
      a.progress = std::max(a.progress, m.iteration);
      events_.push_back(JobProgress{a.job, a.attempt, m.iteration, Seconds(m.seconds * opt_.time_scale)});
      break;
    case MsgKind::Checkpoint: {
      measurements_->phase(a.job, a.attempt, m.rank, m.iteration, "checkpoint", m.seconds);
      auto& [count, slowest] = a.checkpoints[m.iteration];
      ++count;
      slowest = std::max(slowest, m.seconds);
      if (count < a.world) break;
      const Seconds write(slowest * opt_.time_scale);
      a.checkpoints.erase(m.iteration);
      if (!checkpoint_complete(a.job_dir, m.iteration, a.world)) {
        say(sc_.jobs[a.job].name + ": every rank reported the checkpoint after iteration " +
            std::to_string(m.iteration) + " but a manifest is missing; it is not reported");
        break;
      }
      if (a.keep > 0) prune_checkpoints(a.job_dir, a.world, a.keep);
      events_.push_back(CheckpointDone{a.job, a.attempt, m.iteration, write, write});  // the write blocks training
      break;
    }
    case MsgKind::Done:
      if (r.done) break;
      r.done = true;
      if (++a.done == a.world) {
        say(sc_.jobs[a.job].name + " attempt " + std::to_string(a.attempt) + ": all " + std::to_string(a.world) +
            " ranks done; final state CRC-32C of rank " + std::to_string(m.rank) + " " + format_number(m.value, "%.0f"));
        events_.push_back(JobCompleted{a.job, a.attempt});
      }
      break;
    case MsgKind::Phase: {
      const char* phase = m.value == static_cast<std::uint32_t>(PhaseId::Compute)     ? "compute"
                          : m.value == static_cast<std::uint32_t>(PhaseId::AllReduce) ? "allreduce"
                          : m.value == static_cast<std::uint32_t>(PhaseId::Update)    ? "update"
                                                                                       : nullptr;
      if (phase) measurements_->phase(a.job, a.attempt, m.rank, m.iteration, phase, m.seconds);
      else say(who(a, r) + ": unknown phase " + std::to_string(m.value) + " in a report message");
      break;
    }
    case MsgKind::Error:
      say(who(a, r) + " reported an error; see " + r.log.string());
      break;
    default:
      say(who(a, r) + ": unknown report message kind " + std::to_string(static_cast<int>(m.kind)));
  }
}

void WorkerPool::on_exit(Attempt& a, Rank& r) {
  drain(a, r);
  const int status = reap(r.pid, who(a, r));
  r.exited = true;
  r.pidfd.reset();
  r.report.reset();
  if (a.killed) return;
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && r.done) return;
  say(who(a, r) + " " + describe_wait_status(status) + "; log: " + r.log.string());
  stall(a, "rank " + std::to_string(r.rank) + " on " + node_name(r.node) + " " + describe_wait_status(status),
        real_now());
}

void WorkerPool::stall(Attempt& a, const std::string& cause, double since) {
  if (a.reported) return;
  a.reported = true;
  std::optional<FaultKind> kind;
  for (const auto& r : a.ranks)
    if (hung_nodes_.count(r.node)) kind = FaultKind::Hang;  // a hang this driver injected is reported as one
  events_.push_back(
      JobStalled{a.job, a.attempt, a.progress, cause, Symptom::Silent, kind, {}, Seconds(since * opt_.time_scale)});
}

void WorkerPool::observe() {
  const double t = real_now();
  for (auto& ap : attempts_) {
    Attempt& a = *ap;
    if (a.killed || a.reported) continue;
    for (auto& r : a.ranks) {
      if (r.exited || t - r.last_heard <= opt_.heartbeat_timeout) continue;
      drain(a, r);  // what it sent while the loop was busy elsewhere counts
      if (a.killed || a.reported) break;
      if (r.exited || !r.report || t - r.last_heard <= opt_.heartbeat_timeout) continue;  // no pipe: it is exiting
      const std::string cause = "rank " + std::to_string(r.rank) + " on " + node_name(r.node) +
                                " sent no heartbeat for " + format_number(t - r.last_heard) + " s real";
      say(who(a, r) + ": " + cause);
      stall(a, cause, r.last_heard);
      break;
    }
  }
  std::erase_if(attempts_, [](const std::unique_ptr<Attempt>& a) { return a->finished(); });
}

double WorkerPool::next_silence_check() const {
  double wake = kNever;
  for (const auto& a : attempts_)
    for (const auto& r : a->ranks)
      if (!r.exited && !a->reported && r.report) wake = std::min(wake, r.last_heard + opt_.heartbeat_timeout);
  return wake;
}

std::string job_dir_name(const Scenario& scenario, int job) {
  std::string name = "job" + std::to_string(job) + "-";
  for (char ch : scenario.jobs[job].name)
    name += (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.') ? ch : '_';
  return name;
}

}  // namespace tt::real
