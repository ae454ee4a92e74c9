// The launchers of the flash attention kernels, between the host API (attention_cuda.cu) and the kernels
// (attention_cuda_forward.cu, attention_cuda_backward.cu). Pointers are device buffers laid out as in
// kernels/attention.hpp, 16-bit in the given precision; launches are queued on `stream` and checked (CudaError). A
// head_dim the kernels do not take throws std::invalid_argument.
#pragma once

#include <cuda_runtime.h>

#include "kernels/attention_cuda.hpp"

namespace tt::kernels::cuda_detail {

// o and the fp32 log-sum-exp per row (lse) from q, k, v.
void launch_flash_forward(const AttentionShape& s, Precision p, const void* q, const void* k, const void* v, void* o,
                          float* lse, cudaStream_t stream);

struct BackwardArgs {
  const void *q, *k, *v, *o, *d_o;
  const float* lse;  // from the forward pass
  float* d_rows;     // scratch: one float per row
  float* dq_acc;     // scratch: one float per element
  void *dq, *dk, *dv;
};

// dq, dk, dv from the inputs, the forward pass's o and lse, and d_o.
void launch_flash_backward(const AttentionShape& s, Precision p, const BackwardArgs& a, cudaStream_t stream);

}  // namespace tt::kernels::cuda_detail
