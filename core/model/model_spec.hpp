// Transformer model dimensions and presets (llama3-8b/70b/405b, gpt3-175b). Parameter count and training FLOPs
// per token are derived from the dimensions, never stored, so a custom model is as good as a preset.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

struct ModelSpec {
  std::string name;
  int layers = 0;
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;      // grouped-query attention; equal to heads for multi-head attention
  int ffn_hidden = 0;
  int vocab = 0;
  bool gated_mlp = true;  // SwiGLU (three projections) as in Llama; false for GPT's two-projection MLP
  bool tied_embeddings = false;

  double parameters() const;
  // Training FLOPs per token (forward + backward): 6 x parameters + 12 x layers x seq_len x hidden, the attention term
  // as in PaLM (Chowdhery et al. 2022, appendix B).
  double train_flops_per_token(int seq_len) const;
};

std::optional<ModelSpec> find_model_preset(std::string_view name);
std::vector<std::string> model_preset_names();

}  // namespace tt
