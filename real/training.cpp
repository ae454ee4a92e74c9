#include "real/training.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace tt::real {
namespace {

constexpr char kStateMagic[8] = {'T', 'T', 'S', 'T', 'A', 'T', 'E', '1'};
constexpr float kLearningRate = 0.01f;
constexpr float kDecay = 0.05f;  // the closed-form part of every gradient pulls params towards 0, so they stay bounded

std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

template <class T>
void put(std::string& out, const T& v) {
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <class T>
T take(std::string_view& in) {
  if (in.size() < sizeof(T)) throw std::runtime_error("training state is truncated");
  T v;
  std::memcpy(&v, in.data(), sizeof v);
  in.remove_prefix(sizeof v);
  return v;
}

class SyntheticStep : public ComputeStep {
 public:
  const char* name() const override { return "synthetic"; }
  void gradients(const TrainState& s, std::vector<float>& grad) override {
    grad.resize(s.params.size());
    closed_form_gradients(s, 0, static_cast<std::int64_t>(s.params.size()), grad);
  }
};

}  // namespace

std::unique_ptr<ComputeStep> make_attention_step(const Workload& w);  // real/attention_step.cpp

void closed_form_gradients(const TrainState& s, std::int64_t begin, std::int64_t end, std::vector<float>& grad) {
  const std::uint64_t stream = (static_cast<std::uint64_t>(s.rank) << 40) ^ static_cast<std::uint64_t>(s.iteration);
  for (std::int64_t j = begin; j < end; ++j)
    grad[j] = kDecay * s.params[j] + hash_uniform(s.seed, stream, static_cast<std::uint64_t>(j));
}

void add_decay(const TrainState& s, std::int64_t n, std::vector<float>& grad) {
  for (std::int64_t j = 0; j < n; ++j) grad[j] += kDecay * s.params[j];
}

float hash_uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  std::uint64_t h = splitmix64(splitmix64(seed ^ 0xA24BAED4963EE407ull) ^ splitmix64(stream) ^ counter);
  return static_cast<float>(static_cast<double>(h >> 40) * (2.0 / 16777216.0) - 1.0);
}

Workload workload_for(const JobSpec& job, const IterationPlan& plan) {
  Workload w;
  w.heads = std::clamp(job.model.heads / std::max(1, job.parallel.tp), 1, 4);
  w.head_dim = std::clamp(job.model.hidden / std::max(1, job.model.heads), 8, 32);
  w.seq = std::clamp(job.seq_len, 16, 64);
  double dp_bytes = 0;
  for (const auto& step : plan.steps)
    if (step.label == "dp" && !step.groups.empty()) dp_bytes = step.groups.front().bytes.value;
  const double scaled = std::min(dp_bytes * kGradScale, static_cast<double>(kGradCapBytes));
  w.params = std::max(3 * w.attention_elements(), static_cast<std::int64_t>(scaled / sizeof(float)));
  return w;
}

TrainState initial_state(std::uint64_t seed, int rank, int world, const Workload& w) {
  TrainState s;
  s.seed = seed;
  s.rank = rank;
  s.world = world;
  s.params.resize(static_cast<std::size_t>(w.params));
  // Parameters are replicated: every rank starts from the same values (stream ~0 is never a rank's stream).
  for (std::size_t j = 0; j < s.params.size(); ++j) s.params[j] = 0.5f * hash_uniform(seed, ~0ull, j);
  return s;
}

std::string encode_state(const TrainState& s) {
  std::string out(kStateMagic, sizeof kStateMagic);
  put(out, s.seed);
  put(out, static_cast<std::int32_t>(s.rank));
  put(out, static_cast<std::int32_t>(s.world));
  put(out, s.iteration);
  put(out, static_cast<std::uint64_t>(s.params.size()));
  out.append(reinterpret_cast<const char*>(s.params.data()), s.params.size() * sizeof(float));
  return out;
}

std::int64_t encoded_state_bytes(std::int64_t params) {
  // magic, seed, rank, world, iteration, count, then the floats (encode_state above)
  constexpr std::int64_t header = sizeof kStateMagic + 8 + 4 + 4 + 8 + 8;
  return header + params * static_cast<std::int64_t>(sizeof(float));
}

TrainState decode_state(std::string_view in) {
  if (in.size() < sizeof kStateMagic || std::memcmp(in.data(), kStateMagic, sizeof kStateMagic) != 0)
    throw std::runtime_error("not a traintwin training state");
  in.remove_prefix(sizeof kStateMagic);
  TrainState s;
  s.seed = take<std::uint64_t>(in);
  s.rank = take<std::int32_t>(in);
  s.world = take<std::int32_t>(in);
  s.iteration = take<std::int64_t>(in);
  auto n = take<std::uint64_t>(in);
  if (in.size() != n * sizeof(float))
    throw std::runtime_error("training state holds " + std::to_string(in.size()) + " bytes of parameters, expected " +
                             std::to_string(n * sizeof(float)));
  s.params.resize(n);
  std::memcpy(s.params.data(), in.data(), in.size());
  return s;
}

std::unique_ptr<ComputeStep> make_compute_step(const std::string& name, const Workload& w) {
  if (name == "synthetic") return std::make_unique<SyntheticStep>();
  if (name == "attention") return make_attention_step(w);
  throw std::invalid_argument("unknown compute step \"" + name + "\" (expected attention or synthetic)");
}

std::vector<std::string> compute_step_names() { return {"attention", "synthetic"}; }

void apply_update(TrainState& s, const std::vector<float>& summed) {
  const float scale = kLearningRate / static_cast<float>(s.world);
  for (std::size_t j = 0; j < s.params.size(); ++j) s.params[j] -= scale * summed[j];
  ++s.iteration;
}

std::uint64_t job_seed(std::uint64_t scenario_seed, int job) {
  return splitmix64(scenario_seed ^ splitmix64(0x6A6F62ull + static_cast<std::uint64_t>(job)));
}

}  // namespace tt::real
