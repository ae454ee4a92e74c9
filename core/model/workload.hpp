// Synthetic workloads: a scenario's "workload" section (Poisson arrivals, optionally by hour of day; weighted mixes of
// job sizes, model presets, queues and priority classes; iterations or durations from distributions) expanded into
// JobSpecs. Expansion is a pure function of the spec, the cluster and the seed, drawn with tt::Random only.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/model/random.hpp"
#include "core/model/scenario.hpp"

namespace tt {

struct Distribution {
  enum class Shape { Fixed, Exponential, Lognormal, Uniform };
  Shape shape = Shape::Fixed;
  double a = 0;  // Fixed: the value; Exponential: the mean; Lognormal: the median; Uniform: the low end
  double b = 0;  // Lognormal: sigma of the log; Uniform: the high end
  double sample(Random& rng) const;
  double mean() const;
};

struct WorkloadModel {
  ModelSpec model;
  double weight = 1;
  int min_gpus = 1;  // the preset is drawn only for job sizes in [min_gpus, max_gpus]
  int max_gpus = INT_MAX;
};

struct WorkloadSpec {
  double rate_per_hour = 0;         // mean arrivals per hour (before the time-of-day multiplier)
  std::vector<double> time_of_day;  // empty, or 24 multipliers of the rate by hour of the simulated day
  Seconds start;                    // arrivals in [start, until)
  Seconds until;
  std::optional<int> max_jobs;                // stop after this many arrivals
  std::vector<std::pair<int, double>> sizes;  // (GPUs, weight)
  std::vector<WorkloadModel> models;
  std::optional<Distribution> iterations;  // exactly one of iterations or duration
  std::optional<Distribution> duration;    // seconds of training at the compute-only rate (see workload.cpp)
  std::vector<std::pair<std::string, double>> queues;            // (queue name, weight)
  std::vector<std::pair<std::string, double>> priority_classes;  // (class name, weight); empty: priority 0
  int seq_len = 4096;
  int micro_batches = 0;  // sequences per data-parallel replica per iteration; 0: max(8, 4 x pp)
  std::optional<Seconds> checkpoint_interval;
  bool checkpoint_async = false;
  std::string prefix = "w";  // job names: prefix-00001, ...
};

// The largest tensor-parallel degree a node allows, then the fewest pipeline stages with which weights, gradients and
// a distributed optimizer fit in 60% of a GPU's memory; nullopt when no shape fits.
std::optional<Parallelism> choose_parallelism(int gpus, const ModelSpec& model, int gpus_per_node, Bytes gpu_memory);

// What expansion needs of the rest of the scenario: the cluster, and how many GPUs each queue can ever hold.
struct WorkloadContext {
  const Topology& topology;
  std::vector<QueueSpec> queues;
  std::vector<int> queue_capacity;  // by index in queues
  std::vector<PriorityClass> classes;
  double compute_efficiency = 0.45;
};

// The arrivals, each a valid JobSpec. The spec must have been validated (core/io): every size has a model with a
// valid shape and a queue that can hold it; otherwise std::invalid_argument.
std::vector<JobSpec> expand_workload(const WorkloadSpec& spec, const WorkloadContext& ctx, std::uint64_t seed);

}  // namespace tt
