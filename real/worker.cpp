#include "real/worker.hpp"

#include <signal.h>

#include <algorithm>
#include <atomic>
#include <charconv>
#include <condition_variable>
#include <cstdio>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <stop_token>
#include <thread>

#include "real/checkpoint.hpp"
#include "real/checksum.hpp"
#include "real/collective.hpp"
#include "real/nccl_provider.hpp"
#include "real/protocol.hpp"
#include "real/sys.hpp"
#include "real/worker_release.hpp"

namespace tt::real {
namespace {

// --- command line -------------------------------------------------------------------------------------------------
struct Flag {
  std::function<std::string(const WorkerConfig&)> get;
  std::function<bool(WorkerConfig&, const std::string&)> set;  // false: malformed
};

template <class T>
bool parse_value(const std::string& s, T& out) {
  if constexpr (std::is_same_v<T, std::string>) {
    out = s;
    return true;
  } else if constexpr (std::is_same_v<T, double>) {
    try {
      std::size_t used = 0;
      out = std::stod(s, &used);
      return used == s.size();
    } catch (const std::exception&) {
      return false;
    }
  } else {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && p == s.data() + s.size();
  }
}

template <class T>
std::string show_value(const T& v) {
  if constexpr (std::is_same_v<T, std::string>) {
    return v;
  } else if constexpr (std::is_same_v<T, double>) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  } else {
    return std::to_string(v);
  }
}

template <class T>
Flag field(T WorkerConfig::*member) {
  return {[member](const WorkerConfig& c) { return show_value(c.*member); },
          [member](WorkerConfig& c, const std::string& s) { return parse_value(s, c.*member); }};
}

template <class T>
Flag workload_field(T Workload::*member) {
  return {[member](const WorkerConfig& c) { return show_value(c.workload.*member); },
          [member](WorkerConfig& c, const std::string& s) { return parse_value(s, c.workload.*member); }};
}

const std::map<std::string, Flag>& flags() {
  static const std::map<std::string, Flag> table = {
      {"--job-dir", field(&WorkerConfig::job_dir)},
      {"--attempt-dir", field(&WorkerConfig::attempt_dir)},
      {"--job-name", field(&WorkerConfig::job_name)},
      {"--job", field(&WorkerConfig::job)},
      {"--attempt", field(&WorkerConfig::attempt)},
      {"--rank", field(&WorkerConfig::rank)},
      {"--world", field(&WorkerConfig::world)},
      {"--start-iteration", field(&WorkerConfig::start_iteration)},
      {"--iterations", field(&WorkerConfig::iterations)},
      {"--checkpoint-every", field(&WorkerConfig::checkpoint_every)},
      {"--seed", field(&WorkerConfig::seed)},
      {"--heads", workload_field(&Workload::heads)},
      {"--seq", workload_field(&Workload::seq)},
      {"--head-dim", workload_field(&Workload::head_dim)},
      {"--params", workload_field(&Workload::params)},
      {"--compute", field(&WorkerConfig::compute)},
      {"--startup", field(&WorkerConfig::startup_seconds)},
      {"--pace", field(&WorkerConfig::pace_seconds)},
      {"--speed", field(&WorkerConfig::speed)},
      {"--heartbeat", field(&WorkerConfig::heartbeat_seconds)},
      {"--gloo-timeout", field(&WorkerConfig::gloo_timeout_seconds)},
      {"--provider", field(&WorkerConfig::provider)},
      {"--device", field(&WorkerConfig::device)},
      {"--report-fd", field(&WorkerConfig::report_fd)},
      {"--release", field(&WorkerConfig::release)},
      {"--release-stretch", field(&WorkerConfig::release_stretch)},
      {"--hang-per-collective", field(&WorkerConfig::hang_per_collective)},
      {"--collectives-per-iteration", field(&WorkerConfig::collectives_per_iteration)},
      {"--hang-rank", field(&WorkerConfig::hang_rank)},
      {"--hang-seed", field(&WorkerConfig::hang_seed)},
  };
  return table;
}

// --- reporting ----------------------------------------------------------------------------------------------------
class Reporter {
 public:
  explicit Reporter(int fd, int rank) : fd_(fd), rank_(rank) {}
  void send(MsgKind kind, std::int64_t iteration = 0, double seconds = 0, std::uint32_t value = 0) const {
    WireMsg m;
    m.kind = kind;
    m.rank = rank_;
    m.iteration = iteration;
    m.seconds = seconds;
    m.value = value;
    write_all(fd_, &m, sizeof m, "report pipe (fd " + std::to_string(fd_) + ")");
  }

 private:
  int fd_;
  int rank_;
};

// Sends a heartbeat every `period` seconds from a thread of its own until destroyed.
class HeartbeatThread {
 public:
  HeartbeatThread(const Reporter& rep, double period)
      : thread_([&rep, period, this](std::stop_token stop) {
          std::unique_lock lock(mu_);
          while (!stop.stop_requested()) {
            try {
              rep.send(MsgKind::Heartbeat);
            } catch (const std::exception& e) {
              std::fprintf(stderr, "heartbeat: %s; heartbeats stop\n", e.what());
              return;
            }
            cv_.wait_for(lock, stop, std::chrono::duration<double>(period), [] { return false; });
          }
        }) {}

 private:
  std::mutex mu_;
  std::condition_variable_any cv_;
  std::jthread thread_;  // last: joined before mu_ and cv_ go
};

// The device's speed share in millionths, set by the driver's speed signal. A lock-free atomic: safe in a handler.
std::atomic<int> g_speed_millionths{1000000};
static_assert(std::atomic<int>::is_always_lock_free);

void on_speed_signal(int, siginfo_t* info, void*) {
  if (info->si_code == SI_QUEUE && info->si_value.sival_int > 0)
    g_speed_millionths.store(info->si_value.sival_int, std::memory_order_relaxed);
}

void install_speed_handler(double initial) {
  g_speed_millionths.store(speed_to_signal_value(initial), std::memory_order_relaxed);
  struct sigaction sa {};
  sa.sa_sigaction = on_speed_signal;
  sa.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(speed_signal(), &sa, nullptr) != 0) throw_errno("sigaction speed signal");
}

double current_speed() { return speed_from_signal_value(g_speed_millionths.load(std::memory_order_relaxed)); }

TrainState load_state(const WorkerConfig& c) {
  if (c.start_iteration <= 0) return initial_state(c.seed, c.rank, c.world, c.workload);
  TrainState s = decode_state(read_rank_state(c.job_dir, c.start_iteration, c.rank, c.world));
  if (s.seed != c.seed || s.rank != c.rank || s.world != c.world || s.iteration != c.start_iteration ||
      static_cast<std::int64_t>(s.params.size()) != c.workload.params)
    throw CheckpointError("checkpoint after iteration " + std::to_string(c.start_iteration) + " of rank " +
                          std::to_string(c.rank) + " holds another job's state (seed, rank, world or size differ)");
  return s;
}

}  // namespace

std::vector<std::string> worker_arguments(const WorkerConfig& c) {
  std::vector<std::string> out;
  for (const auto& [name, flag] : flags()) {
    out.push_back(name);
    out.push_back(flag.get(c));
  }
  return out;
}

WorkerConfig parse_worker_arguments(const std::vector<std::string>& args) {
  WorkerConfig c;
  std::map<std::string, bool> seen;
  for (std::size_t i = 0; i < args.size(); i += 2) {
    auto it = flags().find(args[i]);
    if (it == flags().end()) throw std::invalid_argument("worker: unknown argument \"" + args[i] + "\"");
    if (i + 1 >= args.size()) throw std::invalid_argument("worker: " + args[i] + " needs a value");
    if (!it->second.set(c, args[i + 1]))
      throw std::invalid_argument("worker: " + args[i] + ": malformed value \"" + args[i + 1] + "\"");
    seen[args[i]] = true;
  }
  for (const auto& [name, flag] : flags())
    if (!seen.count(name)) throw std::invalid_argument("worker: " + name + " is required");
  if (c.world < 1 || c.rank < 0 || c.rank >= c.world || c.iterations < 1 || c.start_iteration < 0 ||
      c.start_iteration > c.iterations || c.checkpoint_every < 0 || c.workload.params < 1 || !(c.speed > 0) ||
      c.speed > 1 || !release_settings_valid(c))
    throw std::invalid_argument("worker: inconsistent rank, world, iterations or workload");
  return c;
}

int run_worker(const WorkerConfig& c) {
  const double started = monotonic_seconds();
  const Reporter rep(c.report_fd, c.rank);
  try {
    install_speed_handler(c.speed);  // before Hello: the driver signals only workers that said it
    HeartbeatThread heartbeat(rep, c.heartbeat_seconds);
    TrainState state = load_state(c);
    auto compute = make_compute_step(c.compute, c.workload);
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(c.gloo_timeout_seconds * 1000));
    make_private_dirs(std::filesystem::path(c.attempt_dir) / "gloo-store");
    auto comm = connect_provider(c.provider, c.attempt_dir, c.rank, c.world, c.device, timeout);
    rep.send(MsgKind::Hello, state.iteration);
    sleep_until(started + c.startup_seconds);

    std::vector<float> grad;
    announce_release(c);
    const std::int64_t hang_at = hang_iteration(c);  // the release's collective that never completes (-1: none)
    while (state.iteration < c.iterations) {
      const double t0 = monotonic_seconds();
      compute->gradients(state, grad);
      const double t1 = monotonic_seconds();
      if (state.iteration == hang_at) hang_in_collective(c, state.iteration);  // the hanging rank never returns
      comm->sum(grad.data(), grad.size());
      const double t2 = monotonic_seconds();
      apply_update(state, grad);
      const double t3 = monotonic_seconds();
      const std::int64_t done = state.iteration;
      rep.send(MsgKind::Phase, done, t1 - t0, static_cast<std::uint32_t>(PhaseId::Compute));
      rep.send(MsgKind::Phase, done, t2 - t1, static_cast<std::uint32_t>(PhaseId::AllReduce));
      rep.send(MsgKind::Phase, done, t3 - t2, static_cast<std::uint32_t>(PhaseId::Update));
      sleep_until(t0 + std::max(c.pace_seconds, monotonic_seconds() - t0) * c.release_stretch / current_speed());
      if (c.rank == 0) rep.send(MsgKind::Progress, state.iteration, monotonic_seconds() - t0);
      const bool cadence = c.checkpoint_every > 0 && state.iteration % c.checkpoint_every == 0;
      if (cadence || state.iteration == c.iterations) {
        const double w0 = monotonic_seconds();
        write_rank_checkpoint(c.job_dir, state.iteration, c.rank, c.world, encode_state(state));
        rep.send(MsgKind::Checkpoint, state.iteration, monotonic_seconds() - w0);
      }
    }
    rep.send(MsgKind::Done, state.iteration, 0, crc32c(encode_state(state)));
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "worker %s rank %d/%d attempt %d: %s\n", c.job_name.c_str(), c.rank, c.world, c.attempt,
                 e.what());
    try {
      rep.send(MsgKind::Error);
    } catch (const std::exception&) {
      // the driver is gone; the exit code says it all
    }
    return 1;
  }
}

int worker_main(const std::vector<std::string>& args) {
  WorkerConfig c;
  try {
    c = parse_worker_arguments(args);
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }
  return run_worker(c);
}

}  // namespace tt::real
