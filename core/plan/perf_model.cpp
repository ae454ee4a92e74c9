#include "core/plan/perf_model.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

namespace tt {

RankCoord rank_coord(const Parallelism& p, int rank) {
  return RankCoord{rank % p.tp, (rank / p.tp) % p.dp, rank / (p.tp * p.dp)};
}

int rank_of(const Parallelism& p, RankCoord c) { return c.tp + p.tp * (c.dp + p.dp * c.pp); }

Seconds comm_group_time(const CommGroup& g) {
  require_planned(g);
  return g.predicted;
}

IterationPlan plan_iteration(const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                             const PerfConstants& k) {
  return plan_iteration(job, topo, gpus, k, CommPlanner(topo, comm_constants(topo.gpu(), k.comm)));
}

IterationPlan plan_iteration(const JobSpec& job, const Topology& topo, const std::vector<int>& gpus,
                             const PerfConstants& k, const CommPlanner& planner) {
  assert(&planner.topology() == &topo);
  const Parallelism& par = job.parallel;
  assert(static_cast<int>(gpus.size()) == par.world());
  IterationPlan plan;

  // Compute: training FLOPs of the iteration's tokens spread over all GPUs at an achieved fraction of peak, stretched
  // by the 1F1B pipeline bubble (pp - 1) / m with m micro-batches per data-parallel replica. When pp does not divide
  // the layers the heaviest stage sets the pace (core/model/model_spec.hpp: pipeline_stage_layers).
  const double tokens = static_cast<double>(job.global_batch) * job.seq_len;
  const double micro_batches = static_cast<double>(job.global_batch) / par.dp;
  const double heaviest = heaviest_stage_share(job.model.layers, par.pp);
  const Flops flops(job.model.train_flops_per_token(job.seq_len) * tokens / par.world() * heaviest);
  const double bubble = 1.0 + (par.pp - 1) / micro_batches;
  plan.compute = flops / (topo.gpu().dense_bf16 * k.compute_efficiency) * bubble;

  // The planner leaves a group without phases when nothing it may use can run it: comm settings such as
  // comm.algorithms ["nvls"] for a group across nodes.
  auto plan_group = [&](Collective c, std::vector<int> members, Bytes size, int calls) {
    CommGroup g = planner.plan(c, std::move(members), size, calls);
    if (g.phases.empty() && !moves_nothing(g))
      throw std::invalid_argument("job " + job.name +
                                  ": the comm settings (comm.algorithms, comm.protocols) leave no way to run " +
                                  describe(g));
    return g;
  };

  const double params = job.model.parameters();
  const double layers_per_stage = static_cast<double>(job.model.layers) / par.pp * heaviest;  // the heaviest stage's
  const double activation = static_cast<double>(job.seq_len) * job.model.hidden * k.activation_bytes;

  // Tensor parallel: two all-reduces forward and two backward per layer and micro-batch (Megatron-LM).
  if (par.tp > 1) {
    CommStep step{"tp", {}};
    for (int pp = 0; pp < par.pp; ++pp)
      for (int dp = 0; dp < par.dp; ++dp) {
        std::vector<int> members;
        for (int tp = 0; tp < par.tp; ++tp) members.push_back(gpus[rank_of(par, {tp, dp, pp})]);
        const int calls = static_cast<int>(4 * layers_per_stage * micro_batches);
        step.groups.push_back(plan_group(Collective::AllReduce, std::move(members), Bytes(activation), calls));
      }
    plan.steps.push_back(std::move(step));
  }
  // Pipeline parallel: activations forward and gradients backward across each stage boundary, per micro-batch,
  // scattered across the tensor-parallel ranks.
  if (par.pp > 1) {
    CommStep step{"pp", {}};
    for (int pp = 0; pp + 1 < par.pp; ++pp)
      for (int dp = 0; dp < par.dp; ++dp)
        for (int tp = 0; tp < par.tp; ++tp) {
          const int calls = static_cast<int>(2 * micro_batches);
          step.groups.push_back(plan_group(Collective::SendRecv,
                                           {gpus[rank_of(par, {tp, dp, pp})], gpus[rank_of(par, {tp, dp, pp + 1})]},
                                           Bytes(activation / par.tp), calls));
        }
    plan.steps.push_back(std::move(step));
  }
  // Data parallel: one all-reduce of the gradients of each rank's model shard (bucketed, counted as one call).
  if (par.dp > 1) {
    CommStep step{"dp", {}};
    for (int pp = 0; pp < par.pp; ++pp)
      for (int tp = 0; tp < par.tp; ++tp) {
        std::vector<int> members;
        for (int dp = 0; dp < par.dp; ++dp) members.push_back(gpus[rank_of(par, {tp, dp, pp})]);
        step.groups.push_back(plan_group(Collective::AllReduce, std::move(members),
                                         Bytes(params / (par.tp * par.pp) * heaviest * k.grad_bytes_per_param), 1));
      }
    plan.steps.push_back(std::move(step));
  }

  for (int pp = 0; pp < par.pp; ++pp)
    for (int tp = 0; tp < par.tp; ++tp) plan.checkpoint_writers.push_back(gpus[rank_of(par, {tp, 0, pp})]);
  plan.checkpoint_bytes_per_writer = Bytes(params * heaviest * k.checkpoint_bytes_per_param / (par.tp * par.pp));

  plan.predicted_iteration = plan.compute;
  for (const auto& step : plan.steps) {
    Seconds slowest(0);
    for (const auto& g : step.groups) slowest = std::max(slowest, comm_group_time(g));
    plan.predicted_iteration += slowest;
  }
  return plan;
}

}  // namespace tt
