// PerfModel: the closed-form cost of one training iteration of a placed job, and the IterationPlan a driver executes.
// Ranks map to GPUs in Megatron order (tensor fastest, then data, then pipeline); micro-batch size 1. Every constant
// comes from PerfConstants (overridable in the scenario); the formulas are documented in perf_model.cpp.
#pragma once

#include <vector>

#include "core/model/scenario.hpp"
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

// `gpus` are global GPU indices in rank order (job.gpus of them).
IterationPlan plan_iteration(const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                             const PerfConstants& k);

// Uncontended time of one communication group: a ring all-reduce takes 2(n-1)/n x S / B + 2(n-1) x calls x alpha with
// B the narrowest link and alpha the largest path latency along the ring; a send takes S / B + calls x alpha.
Seconds comm_group_time(const CommGroup& g, const Topology& topo);

// The global GPU index of a GPU vertex and back.
VertexId gpu_vertex(const Topology& topo, int global_gpu);

}  // namespace tt
