// RealReleases: the real driver's side of a canary rollout (docs/rollout.md, "For real"), an Executor decorator
// around the real backend, as core/drive/release_effects.hpp is the simulator's. Only when the scenario has a rollout;
// otherwise everything passes through unchanged.
// - Reimage: the node's installed release changes once the action's duration (scenario time) has passed, and
//   NodeReimaged is reported. Every worker started on the node from then on runs with that release's settings
//   (configure(), which WorkerPool::launch calls for each rank): its compute and communication speeds as the worker's
//   release_stretch (the share of the plan's predicted iteration spent computing, over compute_speed, plus the rest
//   over comm_speed: the simulator's model of the same effects), its hang_per_collective as a real hang of one
//   collective call (real/worker_release.hpp). The Controller's drain has stopped the node's workers before.
// - A progress watchdog: a hanging collective leaves every rank alive and heartbeating, so the heartbeat rule never
//   fires. An attempt that reports no iteration for recovery.watchdog_timeout of scenario time (counted from the end
//   of its startup, then from its last progress) is reported stalled with Symptom::NoProgress and since = its last
//   progress; the Controller's watchdog rule declares it, as it declares the simulator's deadlocks.
// - Noise is refused (InputError at /noise): a real run's noise is the machine's own; so is a release's failure_rate
//   (the simulator plays it).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/drive/forwarding_executor.hpp"

namespace tt::real {

struct WorkerConfig;

class RealReleases final : public ForwardingExecutor {
 public:
  RealReleases(const Scenario& scenario, Executor& inner, std::function<void(const std::string&)> log);

  // The release settings of the rank on `node` of launch `l` (its node's release; the job's hanging rank).
  void configure(const Launch& l, int node, WorkerConfig& c) const;

  // Reimages are timed, launches and kills watched; what the Controller hears (progress, ends) moves the watchdog.
  void execute(const Action& action, Seconds now) override;
  void handled(const Event& e, const std::vector<Action>& a, Seconds now) override;
  // Due reimages report NodeReimaged; attempts past the watchdog report JobStalled.
  void observe(Seconds now) override;
  std::optional<Seconds> next_observation() const override;
  std::optional<Event> next_event() override;

  const std::string& release(int node) const { return release_[node]; }
  int watchdog_stalls() const { return watchdog_stalls_; }

 private:
  struct Watched {
    Seconds since;               // end of startup, then the last progress
    std::int64_t iterations = 0; // absolute iterations reported
    bool hangs = false;          // launched with a hanging release on one of its nodes
  };
  void say(Seconds now, const std::string& line) const;

  const Scenario& sc_;
  std::function<void(const std::string&)> log_;
  bool active_ = false;
  std::vector<std::string> release_;                          // installed release by node
  std::set<std::tuple<Seconds, int, std::string>> reimages_;  // (done at, node, release)
  std::map<std::pair<int, int>, Watched> watched_;            // (job, attempt) of running attempts
  std::deque<Event> queued_;
  int watchdog_stalls_ = 0;
};

// The iteration stretch of a worker on a node of release `release` for a job of plan `plan` (1: no effect).
double release_stretch(const Scenario& scenario, const std::string& release, const IterationPlan& plan);

}  // namespace tt::real
