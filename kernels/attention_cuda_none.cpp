// kernels/attention_cuda.hpp in a build without CUDA (TRAINTWIN_CUDA=OFF, or AUTO with no nvcc): no device, and any
// attempt to use one says how to get the kernels.
#include <stdexcept>

#include "kernels/attention_cuda.hpp"

namespace tt::kernels {

namespace {
[[noreturn]] void not_built() {
  throw CudaError("this traintwin was built without CUDA (configure with -DTRAINTWIN_CUDA=ON where nvcc is installed)");
}
}  // namespace

const char* precision_name(Precision p) { return p == Precision::bf16 ? "bf16" : "fp16"; }
bool cuda_built() { return false; }
int cuda_device_count() { return 0; }
bool cuda_device_present() { return false; }
std::string cuda_device_description() { return "no CUDA device (built without CUDA)"; }
bool cuda_forward_supports(const AttentionShape& s) {
  return s.batch >= 1 && s.heads >= 1 && s.seq >= 1 && (s.head_dim == 64 || s.head_dim == 128 || s.head_dim == 256);
}
bool cuda_backward_supports(const AttentionShape& s) {
  return cuda_forward_supports(s) && (s.head_dim == 64 || s.head_dim == 128);
}

struct CudaAttention::Buffers {};
CudaAttention::CudaAttention(const AttentionShape& s, Precision p) : shape_(s), precision_(p) { not_built(); }
CudaAttention::~CudaAttention() = default;
void CudaAttention::upload(const std::vector<std::uint16_t>&, const std::vector<std::uint16_t>&,
                           const std::vector<std::uint16_t>&, const std::vector<std::uint16_t>&) {
  not_built();
}
void CudaAttention::poison_outputs() { not_built(); }
double CudaAttention::forward() { not_built(); }
double CudaAttention::backward() { not_built(); }
std::vector<std::uint16_t> CudaAttention::o() const { not_built(); }
std::vector<float> CudaAttention::lse() const { not_built(); }
std::vector<std::uint16_t> CudaAttention::dq() const { not_built(); }
std::vector<std::uint16_t> CudaAttention::dk() const { not_built(); }
std::vector<std::uint16_t> CudaAttention::dv() const { not_built(); }

}  // namespace tt::kernels
