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

// Transformer layers per pipeline stage, pp stages (1 <= pp <= layers). Even when pp divides the layers; otherwise
// every stage takes ceil(layers / pp) but the outer ones, which give up one layer each, first and last, then second and
// second to last, ..., until the sum is right: the first stage also holds the embedding and the last the output layer
// and loss (Llama 3 405B: 126 layers on 16 stages as 7 + 14 x 8 + 7, Llama 3 paper, section 3.3.2; Megatron-Core's
// decoder_first/last_pipeline_num_layers). The heaviest stage sets the pipeline's pace.
std::vector<int> pipeline_stage_layers(int layers, int pp);
// The heaviest stage's share over an even split: max(stage layers) x pp / layers (1 when pp divides the layers).
double heaviest_stage_share(int layers, int pp);

std::optional<ModelSpec> find_model_preset(std::string_view name);
std::vector<std::string> model_preset_names();

}  // namespace tt
