// The "attention" compute step: the layout of the parameters is [q | k | v | rest]; one iteration runs the CPU
// attention kernels forward and backward (one thread, so the result does not depend on scheduling) with a per-rank
// synthetic upstream gradient dO, giving dq, dk, dv (plus decay); the rest of the parameters get the closed-form
// gradient of real/training.hpp.
#include <stdexcept>

#include "kernels/attention.hpp"
#include "real/training.hpp"

namespace tt::real {

namespace {

class AttentionStep : public ComputeStep {
 public:
  explicit AttentionStep(const Workload& w) {
    shape_.batch = 1;
    shape_.heads = w.heads;
    shape_.seq = w.seq;
    shape_.head_dim = w.head_dim;
    shape_.causal = true;
    const auto e = static_cast<std::size_t>(shape_.elements());
    o_.resize(e);
    d_o_.resize(e);
    lse_.resize(static_cast<std::size_t>(shape_.rows()));
  }
  const char* name() const override { return "attention"; }

  void gradients(const TrainState& s, std::vector<float>& grad) override {
    const std::size_t e = o_.size();
    if (s.params.size() < 3 * e) throw std::invalid_argument("attention step: fewer parameters than q, k and v");
    grad.resize(s.params.size());
    const float* q = s.params.data();
    const float* k = q + e;
    const float* v = k + e;
    const std::uint64_t stream = (static_cast<std::uint64_t>(s.rank) << 40) ^ static_cast<std::uint64_t>(s.iteration);
    for (std::size_t j = 0; j < e; ++j) d_o_[j] = hash_uniform(s.seed, stream ^ (1ull << 63), j);
    kernels::attention_forward_cpu(shape_, q, k, v, o_.data(), lse_.data(), 1);
    kernels::attention_backward_cpu(shape_, q, k, v, o_.data(), lse_.data(), d_o_.data(), grad.data(), grad.data() + e,
                                    grad.data() + 2 * e, 1);
    add_decay(s, static_cast<std::int64_t>(3 * e), grad);
    closed_form_gradients(s, static_cast<std::int64_t>(3 * e), static_cast<std::int64_t>(s.params.size()), grad);
  }

 private:
  kernels::AttentionShape shape_;
  std::vector<float> o_, d_o_, lse_;
};

}  // namespace

std::unique_ptr<ComputeStep> make_attention_step(const Workload& w) { return std::make_unique<AttentionStep>(w); }

}  // namespace tt::real
