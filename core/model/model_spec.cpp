#include "core/model/model_spec.hpp"

#include <cassert>

namespace tt {

double ModelSpec::parameters() const {
  double h = hidden;
  double head_dim = h / heads;
  double kv_dim = head_dim * kv_heads;
  double attention = h * h /*q*/ + 2 * h * kv_dim /*k,v*/ + h * h /*o*/;
  double mlp = (gated_mlp ? 3.0 : 2.0) * h * ffn_hidden;
  double norms = 2 * h;
  double embeddings = static_cast<double>(vocab) * h * (tied_embeddings ? 1 : 2);
  return layers * (attention + mlp + norms) + embeddings + h;
}

double ModelSpec::train_flops_per_token(int seq_len) const {
  return 6.0 * parameters() + 12.0 * layers * static_cast<double>(seq_len) * hidden;
}

namespace {
// Dimensions from the Llama 3 paper (Dubey et al. 2024, table 3) and GPT-3 (Brown et al. 2020, table 2.1).
const std::vector<ModelSpec>& presets() {
  static const std::vector<ModelSpec> p = {
      {"llama3-8b", 32, 4096, 32, 8, 14336, 128256, true, false},
      {"llama3-70b", 80, 8192, 64, 8, 28672, 128256, true, false},
      {"llama3-405b", 126, 16384, 128, 8, 53248, 128256, true, false},
      {"gpt3-175b", 96, 12288, 96, 96, 49152, 50257, false, true},
  };
  return p;
}
}  // namespace

std::vector<int> pipeline_stage_layers(int layers, int pp) {
  assert(pp >= 1 && pp <= layers);
  const int heavy = (layers + pp - 1) / pp;
  std::vector<int> stages(static_cast<std::size_t>(pp), heavy);
  int excess = heavy * pp - layers;  // < pp
  for (int k = 0; excess > 0; ++k) {  // first, last, second, second to last, ...
    const int stage = k % 2 == 0 ? k / 2 : pp - 1 - k / 2;
    --stages[static_cast<std::size_t>(stage)];
    --excess;
  }
  return stages;
}

double heaviest_stage_share(int layers, int pp) {
  return static_cast<double>((layers + pp - 1) / pp) * pp / layers;
}

std::optional<ModelSpec> find_model_preset(std::string_view name) {
  for (const auto& m : presets())
    if (m.name == name) return m;
  return std::nullopt;
}

std::vector<std::string> model_preset_names() {
  std::vector<std::string> names;
  for (const auto& m : presets()) names.push_back(m.name);
  return names;
}

}  // namespace tt
