// ReleaseEffects: an Executor decorator that plays what a node's release and the run's noise do, on any backend
// (docs/rollout.md). A Reimage action takes its duration and then reports NodeReimaged; from then on the node plays
// its release's effects: compute_speed as its GPUs' speed (a straggler with that fraction), comm_speed as a bandwidth
// factor on its NIC cables, and hang_per_collective as a deadlock of a job launched on it after a number of
// collective calls drawn from the seed (the Controller's watchdog declares it, as it declares any deadlock), and
// failure_rate as GPU failures of the node at that added rate (a Poisson process from the seed, one GPU drawn each
// time, back after failure_repair).
// Noise (rollout::Noise) multiplies every node's speed by a per-node base, a drift and a fresh jitter each interval,
// drawn from the scenario's seed. Neither a rollout nor noise in the scenario: everything passes through unchanged.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

#include "core/drive/forwarding_executor.hpp"
#include "core/model/random.hpp"

namespace tt {

// Collective calls a job's attempt makes before the first that never completes, on a release that hangs each call
// with probability p: geometric, drawn from (seed, job, attempt) alone, so the simulator and the real workers
// (real/worker_release.hpp) hang the same attempt at the same call. p >= 1: 0.
double collective_calls_before_hang(std::uint64_t seed, int job, int attempt, double p);

class ReleaseEffects final : public ForwardingExecutor {
 public:
  ReleaseEffects(const Scenario& scenario, Executor& inner);

  void execute(const Action& action, Seconds now) override;
  std::optional<Event> next_event() override;
  void observe(Seconds now) override;
  std::optional<Seconds> next_observation() const override;
  void handled(const Event& e, const std::vector<Action>& a, Seconds now) override;

  const std::string& release(int node) const { return release_[node]; }
  double speed(int node) const { return speed_[node]; }
  int hangs_played() const { return hangs_played_; }
  int failures_played() const { return failures_played_; }

 private:
  struct PendingHang {
    Seconds at;
    int job, attempt, node;
    auto operator<=>(const PendingHang&) const = default;
  };
  void apply_speed(int node, Seconds now);
  void apply_comm(int node, Seconds now);
  void noise_tick(Seconds now);
  void schedule_failure(int node, Seconds from);
  void gpu_failure(int node, int gpu, bool starts, Seconds now);
  void play_failures(Seconds now);

  const Scenario& sc_;
  bool active_ = false;
  std::vector<std::string> release_;            // by node
  std::vector<double> speed_;                   // applied GPU speed by node (1: none applied yet)
  std::vector<double> comm_;                    // applied NIC bandwidth factor by node
  std::vector<Random> noise_rng_;               // one stream per node
  std::vector<double> base_, drift_, jitter_;   // noise state by node
  std::optional<Seconds> next_tick_;
  std::set<std::tuple<Seconds, int, std::string>> reimages_;  // (done at, node, release)
  std::set<PendingHang> hangs_;
  std::vector<Event> queued_;
  std::size_t next_queued_ = 0;
  int hangs_played_ = 0;
  std::vector<Random> failure_rng_;                          // one stream per node
  std::vector<std::optional<Seconds>> next_failure_;         // by node, while its release adds failures
  std::set<std::tuple<Seconds, int, int>> repairs_;          // (back at, node, GPU)
  int failures_played_ = 0;
};

}  // namespace tt
