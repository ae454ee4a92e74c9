// PerfModel: the closed-form cost of one training iteration of a placed job, and the IterationPlan a driver executes.
// Ranks map to GPUs in Megatron order (tensor fastest, then data, then pipeline); micro-batch size 1. Every constant
// comes from PerfConstants (overridable in the scenario); the formulas are documented in perf_model.cpp. Each
// parallel group's communication is planned by the CommPlanner (algorithm, protocol, transfers, predicted time).
#pragma once

#include <vector>

#include "core/model/scenario.hpp"
#include "core/plan/comm_planner.hpp"
#include "core/plan/iteration_plan.hpp"
#include "core/topo/topology.hpp"

namespace tt {

struct RankCoord {
  int tp = 0;
  int dp = 0;
  int pp = 0;
};
RankCoord rank_coord(const Parallelism& p, int rank);
int rank_of(const Parallelism& p, RankCoord c);

// `gpus` are global GPU indices in rank order (job.gpus of them). Throws std::invalid_argument naming the job when
// the comm settings leave no algorithm and protocol that can run one of its groups on these GPUs (comm.algorithms
// ["nvls"] for a group across nodes: NCCL would fail the call too).
IterationPlan plan_iteration(const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                             const PerfConstants& k);
// The same with a caller's CommPlanner over `topo` and comm_constants(topo.gpu(), k.comm), whose route cache then
// serves plan after plan (the Controller keeps one).
IterationPlan plan_iteration(const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                             const PerfConstants& k, const CommPlanner& planner);

// Uncontended time of one communication group: the CommPlanner's prediction (zero for a group that moves nothing).
// Throws std::logic_error for a group the planner did not plan (require_planned()).
Seconds comm_group_time(const CommGroup& g);

}  // namespace tt
