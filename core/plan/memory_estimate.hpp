// Memory per GPU of a training job under its tensor/pipeline/data parallelism, beside the iteration perf model.
// Model states (Rajbhandari et al. 2020, ZeRO, section 3.1): mixed-precision Adam keeps 16 bytes per parameter
// (bf16 weights 2 + bf16 gradients 2 + fp32 master weights, momentum and variance 12), not sharded over data
// parallelism (no ZeRO); each GPU holds params / (tp x pp). Activations (Korthikanti et al. 2022, "Reducing
// Activation Recomputation in Large Transformer Models", section 4): 34 x s x b x h / tp bytes per layer and
// micro-batch with sequence parallelism and selective recomputation (flash attention keeps no s x s scores); the
// first 1F1B pipeline stage holds pp micro-batches of layers / pp layers, i.e. all layers' worth of one micro-batch.
// The micro-batch is one sequence, as in core/plan/perf_model.
#pragma once

#include "core/model/scenario.hpp"
#include "core/model/units.hpp"

namespace tt {

struct GpuMemoryEstimate {
  Bytes weights;
  Bytes gradients;
  Bytes optimizer;
  Bytes activations;
  Bytes total() const { return weights + gradients + optimizer + activations; }
};

GpuMemoryEstimate estimate_gpu_memory(const JobSpec& job, const PerfConstants& perf);

}  // namespace tt
