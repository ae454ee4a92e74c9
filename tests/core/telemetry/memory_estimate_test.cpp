#include "core/plan/memory_estimate.hpp"

#include <catch2/catch.hpp>

using namespace tt;

TEST_CASE("memory estimate: 16 bytes per parameter over tp x pp, activations 34 s h / tp per layer",
          "[unit][telemetry]") {
  JobSpec j;
  j.model = *find_model_preset("llama3-70b");
  j.parallel = {8, 4, 2};
  j.seq_len = 8192;
  PerfConstants perf;
  GpuMemoryEstimate m = estimate_gpu_memory(j, perf);
  const double params = j.model.parameters() / 32;
  CHECK(m.weights.value == Approx(2 * params));
  CHECK(m.gradients.value == Approx(2 * params));
  CHECK(m.optimizer.value == Approx(12 * params));
  CHECK(m.activations.value == Approx(34.0 * 8192 * 8192 / 8 * 80));
  // 70B on tp 8, pp 4: about 35 GB of model states and 23 GB of activations, inside an 80 GB H100.
  CHECK(m.total().value > 50e9);
  CHECK(m.total().value < 80e9);
  j.parallel = {8, 8, 1};  // more pipeline stages: fewer parameters per GPU, the same activations
  GpuMemoryEstimate deeper = estimate_gpu_memory(j, perf);
  CHECK(deeper.weights.value == Approx(m.weights.value / 2));
  CHECK(deeper.activations.value == Approx(m.activations.value));
}
