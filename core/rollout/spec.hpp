// A canary rollout as plain values (docs/rollout.md): the releases' effects in the model, the plan (steps of a node
// pool, an observation window, the canary and its baseline, the analysis and its tests, what a failed analysis does
// and what rolling back costs) and the run-to-run noise that gives a judgment its meaning. Produced and validated by
// core/io/rollout_reader.cpp; run by the Controller (core/control/controller_rollout.cpp); the effects are played by
// core/drive/release_effects.hpp. A scenario without a "rollout" section has enabled() false and nothing changes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/units.hpp"

namespace tt::rollout {

// What running a release does to a node, relative to the matrix's current release (all neutral by default).
struct ReleaseEffects {
  std::string release;
  double compute_speed = 1.0;         // multiplier on the node's GPU speed (0.95: 5% slower compute)
  double comm_speed = 1.0;            // multiplier on the bandwidth of the node's NIC cables
  double hang_per_collective = 0.0;   // probability that one collective call of a job on the node never completes
  double failure_rate = 0.0;          // extra GPU failures per node per day on this release (seeded, Poisson)
  Seconds failure_repair = Seconds(7200);  // how long such a failed GPU keeps its node out
  std::vector<std::string> shares_jobs_with;  // releases a job may mix with this one; empty: only itself
};

enum class Metric { IterationTime, CollectiveBandwidth, Failures, AlertsFiring, CheckpointTime };
inline constexpr Metric kMetrics[] = {Metric::IterationTime, Metric::CollectiveBandwidth, Metric::Failures,
                                      Metric::AlertsFiring, Metric::CheckpointTime};
const char* to_string(Metric m);       // "iteration_time", ...
const char* unit_of(Metric m);         // "s", "B/s", "count", ...
bool higher_is_worse(Metric m);        // iteration and checkpoint time, failures, alerts: true; bandwidth: false
bool is_count(Metric m);               // failures, alerts: one total per side, not a sample per interval

enum class Test { Threshold, MannWhitney };
const char* to_string(Test t);  // "threshold", "mann_whitney"

// One analysis metric. Threshold: the canary fails when its median (counts: its total) is worse than the baseline's by
// more than `max_ratio` (relative, for samples) or `max_extra` (absolute, for counts). MannWhitney: the canary fails
// when a one-sided rank test rejects "the canary is not worse" at `confidence` (Kayenta's judge, one-sided).
struct AnalysisMetric {
  Metric metric = Metric::IterationTime;
  Test test = Test::Threshold;
  double max_ratio = 0.0;   // Threshold on samples: 0.03 = at most 3% worse
  double max_extra = 0.0;   // Threshold on counts
  double confidence = 0.98; // MannWhitney
};

struct Step {
  int nodes = 0;            // cumulative nodes of the pool on the new release after this step (resolved from
                            // "nodes" or "fraction", rounded up)
};

enum class OnFailure { Rollback, Pause };

struct Canary {
  std::string copy_of;      // the scenario job it is a scaled-down copy of
  int gpus = 0;             // its size (tp x pp kept, dp scaled); whole nodes
  int job = -1;             // index of the canary copy in Scenario::jobs (appended by the reader)
  int baseline_job = -1;    // index of the baseline copy, run on nodes of the current release at the same time
};

struct Plan {
  std::string release;                 // the release rolled out (a release of the preflight matrix)
  std::string from;                    // the release it replaces (the matrix's current release)
  Seconds start;                       // when the rollout starts
  std::vector<int> pool;               // topology node indices, in upgrade order
  std::vector<Step> steps;             // increasing; the last may cover the whole pool
  Seconds window;                      // observation window of each step
  Seconds interval;                    // one analysis sample per job this often
  Canary canary;
  std::vector<AnalysisMetric> metrics;
  OnFailure on_failure = OnFailure::Rollback;
  Seconds drain;                       // a drained node is out this long before it is reimaged (jobs stop, files sync)
  Seconds reimage;                     // time to reimage a node to another release (upgrade and rollback alike)
};

// Run-to-run noise, drawn from the scenario's seed (core/drive/release_effects.hpp plays it). A node's speed is
// base x (1 + jitter) where base ~ N(1, node_sd) per node (fixed for the run), drifts by N(0, drift_sd) per interval
// (a random walk) and jitter ~ N(0, jitter_sd) is drawn afresh every interval. All zero: no noise (the default).
struct Noise {
  double node_sd = 0.0;
  double drift_sd = 0.0;
  double jitter_sd = 0.0;
  Seconds interval = Seconds(300);
  bool enabled() const { return node_sd > 0 || drift_sd > 0 || jitter_sd > 0; }
};

struct Rollout {
  std::optional<Plan> plan;              // unset: the scenario has no rollout
  std::vector<ReleaseEffects> effects;   // by release name; a release not listed has no effect
  Noise noise;
  bool enabled() const { return plan.has_value(); }
  const ReleaseEffects* effects_of(const std::string& release) const;
  // Whether a job may run across nodes of releases a and b.
  bool may_share(const std::string& a, const std::string& b) const;
};

}  // namespace tt::rollout
