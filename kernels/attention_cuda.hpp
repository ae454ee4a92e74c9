// Flash attention on a CUDA GPU (kernels/attention_cuda*.cu), callable from plain C++: no CUDA type appears here.
// Inputs and outputs are 16-bit (bf16 or fp16, as raw bits) and laid out like kernels/attention.hpp's tensors; the
// kernels accumulate in fp32 and save the fp32 log-sum-exp for the backward pass. Every CUDA call is checked: a
// failure throws CudaError naming the host, the source file and line, and CUDA's message.
#pragma once

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/attention.hpp"

namespace tt::kernels {

enum class Precision { bf16, fp16 };
const char* precision_name(Precision p);

class CudaError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// False, without throwing, when this binary was built without CUDA, no driver is loaded or no device is visible.
bool cuda_device_present();
int cuda_device_count();  // 0 in those cases
// "NVIDIA H200 (sm_90, 132 SMs)" of the current device, or why there is none.
std::string cuda_device_description();
bool cuda_built();  // whether this binary holds the CUDA kernels at all

// The shapes the kernels take: head_dim 64 or 128 (and 256 forward only), any batch, heads and seq >= 1.
bool cuda_forward_supports(const AttentionShape& s);
bool cuda_backward_supports(const AttentionShape& s);

// Device buffers for one shape and precision, on the current device. Not copyable; frees on destruction.
class CudaAttention {
 public:
  CudaAttention(const AttentionShape& s, Precision p);  // throws std::invalid_argument for an unsupported shape
  ~CudaAttention();
  CudaAttention(const CudaAttention&) = delete;
  CudaAttention& operator=(const CudaAttention&) = delete;

  const AttentionShape& shape() const { return shape_; }
  // Host -> device; each vector holds shape().elements() raw 16-bit values.
  void upload(const std::vector<std::uint16_t>& q, const std::vector<std::uint16_t>& k,
              const std::vector<std::uint16_t>& v, const std::vector<std::uint16_t>& d_o);
  // Fills every output (o, lse, dq, dk, dv) with NaN so that an element a kernel does not write shows up.
  void poison_outputs();
  // Each returns the device time of the call in milliseconds (CUDA events), after it completed.
  double forward();
  double backward();  // needs forward() first (reads o and lse)
  // Device -> host.
  std::vector<std::uint16_t> o() const;
  std::vector<float> lse() const;
  std::vector<std::uint16_t> dq() const;
  std::vector<std::uint16_t> dk() const;
  std::vector<std::uint16_t> dv() const;

 private:
  struct Buffers;
  AttentionShape shape_;
  Precision precision_;
  std::unique_ptr<Buffers> b_;
};

}  // namespace tt::kernels
