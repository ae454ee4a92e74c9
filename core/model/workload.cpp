#include "core/model/workload.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace tt {

double Distribution::sample(Random& rng) const {
  switch (shape) {
    case Shape::Fixed:
      return a;
    case Shape::Exponential:
      return rng.exponential(a);
    case Shape::Lognormal:
      return a * std::exp(rng.normal(0, b));
    case Shape::Uniform:
      return rng.uniform(a, b);
  }
  return a;
}

double Distribution::mean() const {
  switch (shape) {
    case Shape::Fixed:
    case Shape::Exponential:
      return a;
    case Shape::Lognormal:
      return a * std::exp(b * b / 2);
    case Shape::Uniform:
      return (a + b) / 2;
  }
  return a;
}

std::optional<Parallelism> choose_parallelism(int gpus, const ModelSpec& model, int gpus_per_node, Bytes gpu_memory) {
  if (gpus < 1 || gpus_per_node < 1) return std::nullopt;
  if (gpus > gpus_per_node && gpus % gpus_per_node != 0) return std::nullopt;
  Parallelism p;
  const int node_share = std::min(gpus, gpus_per_node);
  for (int tp = node_share; tp >= 1; --tp)
    if (node_share % tp == 0 && gpus_per_node % tp == 0 && model.heads % tp == 0) {
      p.tp = tp;
      break;
    }
  const int rest = gpus / p.tp;
  // bf16 weights and gradients split over tp x pp; fp32 master weights and Adam moments also over dp (ZeRO-1).
  const double budget = 0.6 * gpu_memory.value;
  for (int pp = 1; pp <= rest; ++pp) {
    if (rest % pp != 0 || model.layers % pp != 0) continue;
    const int dp = rest / pp;
    const double per_gpu = model.parameters() / (p.tp * pp) * (4.0 + 12.0 / dp);
    if (per_gpu <= budget) {
      p.pp = pp;
      p.dp = dp;
      return p;
    }
  }
  return std::nullopt;
}

namespace {

template <class T>
const T* weighted(Random& rng, const std::vector<const T*>& items, double (*weight)(const T&)) {
  double total = 0;
  for (const T* t : items) total += weight(*t);
  double x = rng.uniform() * total;
  for (const T* t : items) {
    x -= weight(*t);
    if (x < 0) return t;
  }
  return items.back();
}

double hour_multiplier(const WorkloadSpec& s, double t) {
  if (s.time_of_day.empty()) return 1;
  const auto hour = static_cast<std::size_t>(std::fmod(t, 86400.0) / 3600.0);
  return s.time_of_day[std::min<std::size_t>(hour, 23)];
}

}  // namespace

std::vector<JobSpec> expand_workload(const WorkloadSpec& s, const WorkloadContext& ctx, std::uint64_t seed) {
  std::vector<JobSpec> out;
  if (!(s.rate_per_hour > 0)) return out;
  Random rng(seed ^ 0x776f726b6c6f6164ULL);  // "workload": a stream apart from the fault draws of the same seed
  const double peak = s.time_of_day.empty() ? 1.0 : *std::max_element(s.time_of_day.begin(), s.time_of_day.end());
  if (!(peak > 0)) return out;
  const double mean_gap = 3600.0 / (s.rate_per_hour * peak);
  const int per_node = ctx.topology.gpus_per_node();
  const Bytes memory = ctx.topology.gpu().memory;
  const double gpu_peak = ctx.topology.gpu().dense_bf16.value;
  std::vector<const std::pair<int, double>*> sizes;
  for (const auto& sz : s.sizes) sizes.push_back(&sz);
  auto second = [](const std::pair<int, double>& p) { return p.second; };
  auto second_s = [](const std::pair<std::string, double>& p) { return p.second; };
  auto model_weight = [](const WorkloadModel& m) { return m.weight; };
  double t = s.start.value;
  for (;;) {
    if (s.max_jobs && static_cast<int>(out.size()) >= *s.max_jobs) break;
    t += rng.exponential(mean_gap);
    if (t >= s.until.value) break;
    if (rng.uniform() * peak >= hour_multiplier(s, t)) continue;  // thinning: the hour's share of the peak rate
    const int gpus = weighted<std::pair<int, double>>(rng, sizes, second)->first;

    std::vector<const WorkloadModel*> models;
    for (const auto& m : s.models)
      if (gpus >= m.min_gpus && gpus <= m.max_gpus && choose_parallelism(gpus, m.model, per_node, memory))
        models.push_back(&m);
    std::vector<const std::pair<std::string, double>*> queues;
    for (std::size_t q = 0; q < s.queues.size(); ++q) {
      auto it = std::find_if(ctx.queues.begin(), ctx.queues.end(),
                             [&](const QueueSpec& qs) { return qs.name == s.queues[q].first; });
      if (it != ctx.queues.end() && ctx.queue_capacity[it - ctx.queues.begin()] >= gpus) queues.push_back(&s.queues[q]);
    }
    if (models.empty() || queues.empty())
      throw std::invalid_argument("workload: no model or queue for jobs of " + std::to_string(gpus) + " GPUs");

    JobSpec j;
    char name[32];
    std::snprintf(name, sizeof name, "-%05zu", out.size() + 1);
    j.name = s.prefix + name;
    j.submit = Seconds(t);
    j.gpus = gpus;
    const WorkloadModel* m = weighted<WorkloadModel>(rng, models, model_weight);
    j.model = m->model;
    j.parallel = *choose_parallelism(gpus, j.model, per_node, memory);
    j.queue = weighted<std::pair<std::string, double>>(rng, queues, second_s)->first;
    if (!s.priority_classes.empty()) {
      std::vector<const std::pair<std::string, double>*> classes;
      for (const auto& c : s.priority_classes) classes.push_back(&c);
      j.priority_class = weighted<std::pair<std::string, double>>(rng, classes, second_s)->first;
      for (const auto& c : ctx.classes)
        if (c.name == j.priority_class) j.priority = c.value;
    }
    j.seq_len = s.seq_len;
    j.global_batch = j.parallel.dp * (s.micro_batches > 0 ? s.micro_batches : std::max(8, 4 * j.parallel.pp));
    if (s.iterations) {
      j.iterations = std::max<std::int64_t>(1, std::llround(s.iterations->sample(rng)));
    } else {
      // Training time at the compute-only rate (no communication, no pipeline bubble): the run takes a little longer.
      const double flops = j.model.train_flops_per_token(j.seq_len) * j.seq_len * j.global_batch;
      const double per_iteration = flops / (gpus * gpu_peak * ctx.compute_efficiency);
      j.iterations = std::max<std::int64_t>(1, std::llround(s.duration->sample(rng) / per_iteration));
    }
    j.checkpoint_interval = s.checkpoint_interval;
    j.checkpoint_async = s.checkpoint_async;
    out.push_back(std::move(j));
  }
  return out;
}

}  // namespace tt
