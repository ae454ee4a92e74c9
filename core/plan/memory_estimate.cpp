#include "core/plan/memory_estimate.hpp"

#include <algorithm>

namespace tt {

GpuMemoryEstimate estimate_gpu_memory(const JobSpec& job, const PerfConstants& perf) {
  const Parallelism& par = job.parallel;
  // The heaviest pipeline stage's shard (pipeline_stage_layers): the GPUs that run out of memory first.
  const double params = job.model.parameters() / (static_cast<double>(par.tp) * par.pp) *
                        heaviest_stage_share(job.model.layers, par.pp);
  GpuMemoryEstimate m;
  m.weights = Bytes(2.0 * params);
  m.gradients = Bytes(perf.grad_bytes_per_param * params);
  // checkpoint_bytes_per_param is weights + optimizer state; the optimizer part is what is left over the weights.
  m.optimizer = Bytes(std::max(0.0, perf.checkpoint_bytes_per_param - 2.0) * params);
  const double per_layer = 34.0 * job.seq_len * static_cast<double>(job.model.hidden) / par.tp;
  m.activations = Bytes(per_layer * job.model.layers * (perf.activation_bytes / 2.0));
  return m;
}

}  // namespace tt
