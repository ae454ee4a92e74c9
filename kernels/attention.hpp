// Scaled dot-product attention on the CPU: an fp64 reference (forward and backward, the numerics oracle) and a tiled
// fp32 kernel with online softmax (forward and backward, multi-threaded) whose per-tile math lives in
// kernels/tile_math.hpp so a CUDA kernel can share it. Tensors are dense row-major [batch][heads][seq][head_dim];
// the caller owns every buffer. softmax scale = 1 / sqrt(head_dim); causal masks key j > query i.
#pragma once

#include <cstdint>

namespace tt::kernels {

struct AttentionShape {
  int batch = 1;
  int heads = 1;
  int seq = 128;      // queries and keys have the same length
  int head_dim = 64;
  bool causal = false;

  std::int64_t elements() const { return std::int64_t{batch} * heads * seq * head_dim; }
  std::int64_t rows() const { return std::int64_t{batch} * heads * seq; }
  // FlashAttention's FLOP count: forward 4 x batch x seq^2 x heads x head_dim, halved when causal; backward 2.5x.
  double forward_flops() const;
  double backward_flops() const { return 2.5 * forward_flops(); }
};

// o: output; lse: log-sum-exp of each query row's scaled scores ([batch][heads][seq]), kept for the backward pass.
void attention_forward_reference(const AttentionShape& s, const double* q, const double* k, const double* v,
                                 double* o, double* lse);
// The reference backward applies the softmax Jacobian directly and does not read o.
void attention_backward_reference(const AttentionShape& s, const double* q, const double* k, const double* v,
                                  const double* o, const double* d_o, double* dq, double* dk, double* dv);

// threads <= 0: as many as the hardware has.
void attention_forward_cpu(const AttentionShape& s, const float* q, const float* k, const float* v, float* o,
                           float* lse, int threads = 0);
void attention_backward_cpu(const AttentionShape& s, const float* q, const float* k, const float* v, const float* o,
                            const float* lse, const float* d_o, float* dq, float* dk, float* dv, int threads = 0);

}  // namespace tt::kernels
