// The work of one real training iteration, scaled down from a job's plan so that it runs on one CPU core: gradients
// from a ComputeStep (attention forward and backward on synthetic tensors of the job's shrunken shape), a sum
// all-reduce of the gradient buffer over the job's ranks, and a plain SGD update. Every input is a counter-based hash
// of (seed, rank, iteration, index), so the state after N iterations is a function of the seed and the world size
// alone: a job interrupted and resumed from checkpoints ends bit-identical to one that never was.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/scenario.hpp"
#include "core/plan/iteration_plan.hpp"

namespace tt::real {

// Scaling of the gradient all-reduce: a rank all-reduces its planned data-parallel bytes x kGradScale, at most
// kGradCapBytes, and never less than the attention gradients (3 x heads x seq x head_dim floats).
inline constexpr double kGradScale = 1e-4;
inline constexpr std::int64_t kGradCapBytes = 1 << 20;

struct Workload {
  int heads = 1;
  int seq = 16;
  int head_dim = 8;
  std::int64_t params = 0;  // floats of model state = floats all-reduced per iteration
  std::int64_t attention_elements() const { return std::int64_t{heads} * seq * head_dim; }
};

// heads = model heads / tp, clamped to [1, 4]; head_dim = hidden / heads, clamped to [8, 32]; seq = seq_len clamped
// to [16, 64]; params = max(3 x attention elements, min(planned dp bytes per rank x kGradScale, kGradCapBytes) / 4).
Workload workload_for(const JobSpec& job, const IterationPlan& plan);

struct TrainState {
  std::uint64_t seed = 0;
  int rank = 0;
  int world = 1;
  std::int64_t iteration = 0;  // iterations applied
  std::vector<float> params;
};

TrainState initial_state(std::uint64_t seed, int rank, int world, const Workload& w);
// A self-describing little-endian encoding; decode throws std::runtime_error on anything malformed.
std::string encode_state(const TrainState& s);
TrainState decode_state(std::string_view bytes);
// The size of encode_state() of a state with `params` parameters: one rank's checkpoint file.
std::int64_t encoded_state_bytes(std::int64_t params);

// Deterministic uniform value in [-1, 1) for (seed, stream, counter): splitmix64 of the mixed inputs.
float hash_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter);

// Fills `grad` (same size as the params) with this rank's gradients for the next iteration.
class ComputeStep {
 public:
  virtual ~ComputeStep() = default;
  virtual const char* name() const = 0;
  virtual void gradients(const TrainState& s, std::vector<float>& grad) = 0;
};

// The closed-form part of every gradient, for params [begin, end): decay x param + this rank's noise for the
// iteration (the data a rank sees). Adds to nothing: it overwrites grad[begin, end).
void closed_form_gradients(const TrainState& s, std::int64_t begin, std::int64_t end, std::vector<float>& grad);
// decay x param, added to grad[0, n): keeps parameters bounded over long runs.
void add_decay(const TrainState& s, std::int64_t n, std::vector<float>& grad);

// "synthetic": gradients from a closed form (no kernels); "attention": the CPU attention kernels (kernels/).
// Throws std::invalid_argument for another name.
std::unique_ptr<ComputeStep> make_compute_step(const std::string& name, const Workload& w);
std::vector<std::string> compute_step_names();

// params -= learning rate x summed / world; iteration + 1.
void apply_update(TrainState& s, const std::vector<float>& summed);

// The seed of job `job` of a scenario with seed `scenario_seed` (jobs differ, runs of one scenario agree).
std::uint64_t job_seed(std::uint64_t scenario_seed, int job);

}  // namespace tt::real
