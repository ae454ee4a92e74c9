// The host side of kernels/attention_cuda.hpp: device queries, device buffers, timing, and the launches of the
// FlashAttention-2-style kernels in attention_cuda_forward.cu and attention_cuda_backward.cu.
#include <cuda_runtime.h>

#include <memory>
#include <string>

#include "kernels/attention_cuda.hpp"
#include "kernels/attention_cuda_launch.cuh"
#include "kernels/cuda_check.cuh"

namespace tt::kernels {

const char* precision_name(Precision p) { return p == Precision::bf16 ? "bf16" : "fp16"; }

bool cuda_built() { return true; }

int cuda_device_count() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: clear the sticky error and say "none"
    return 0;
  }
  return count;
}

bool cuda_device_present() { return cuda_device_count() > 0; }

std::string cuda_device_description() {
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::string("no CUDA device (") + cudaGetErrorString(e) + ")";
  }
  if (count == 0) return "no CUDA device (the driver sees none)";
  int device = 0;
  TT_CUDA(cudaGetDevice(&device));
  cudaDeviceProp p{};
  TT_CUDA(cudaGetDeviceProperties(&p, device));
  return std::string(p.name) + " (sm_" + std::to_string(p.major) + std::to_string(p.minor) + ", " +
         std::to_string(p.multiProcessorCount) + " SMs, " + std::to_string(p.totalGlobalMem >> 20) + " MiB)";
}

bool cuda_forward_supports(const AttentionShape& s) {
  return s.batch >= 1 && s.heads >= 1 && s.seq >= 1 && (s.head_dim == 64 || s.head_dim == 128 || s.head_dim == 256);
}
bool cuda_backward_supports(const AttentionShape& s) {
  return cuda_forward_supports(s) && (s.head_dim == 64 || s.head_dim == 128);
}

struct CudaAttention::Buffers {
  void *q = nullptr, *k = nullptr, *v = nullptr, *d_o = nullptr, *o = nullptr, *dq = nullptr, *dk = nullptr,
       *dv = nullptr;
  float *lse = nullptr, *d_rows = nullptr, *dq_acc = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaStream_t stream = nullptr;

  ~Buffers() {
    // Destructors must not throw: errors while freeing are ignored (a failed context frees everything anyway).
    for (void* p : {q, k, v, d_o, o, dq, dk, dv}) cudaFree(p);
    for (float* p : {lse, d_rows, dq_acc}) cudaFree(p);
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (stream) cudaStreamDestroy(stream);
  }
};

CudaAttention::CudaAttention(const AttentionShape& s, Precision p) : shape_(s), precision_(p) {
  if (!cuda_forward_supports(s))
    throw std::invalid_argument("CUDA attention: head_dim must be 64, 128 or 256 and every dimension >= 1");
  b_ = std::make_unique<Buffers>();
  const std::size_t bytes16 = sizeof(std::uint16_t) * static_cast<std::size_t>(s.elements());
  for (void** p16 : {&b_->q, &b_->k, &b_->v, &b_->d_o, &b_->o, &b_->dq, &b_->dk, &b_->dv})
    TT_CUDA(cudaMalloc(p16, bytes16));
  TT_CUDA(cudaMalloc(&b_->lse, sizeof(float) * static_cast<std::size_t>(s.rows())));
  TT_CUDA(cudaMalloc(&b_->d_rows, sizeof(float) * static_cast<std::size_t>(s.rows())));
  TT_CUDA(cudaMalloc(&b_->dq_acc, sizeof(float) * static_cast<std::size_t>(s.elements())));
  TT_CUDA(cudaEventCreate(&b_->start));
  TT_CUDA(cudaEventCreate(&b_->stop));
  TT_CUDA(cudaStreamCreateWithFlags(&b_->stream, cudaStreamNonBlocking));
}

CudaAttention::~CudaAttention() = default;

void CudaAttention::upload(const std::vector<std::uint16_t>& q, const std::vector<std::uint16_t>& k,
                           const std::vector<std::uint16_t>& v, const std::vector<std::uint16_t>& d_o) {
  const auto n = static_cast<std::size_t>(shape_.elements());
  if (q.size() != n || k.size() != n || v.size() != n || d_o.size() != n)
    throw std::invalid_argument("CudaAttention::upload: every tensor must hold shape().elements() values");
  TT_CUDA(cudaMemcpy(b_->q, q.data(), n * 2, cudaMemcpyHostToDevice));
  TT_CUDA(cudaMemcpy(b_->k, k.data(), n * 2, cudaMemcpyHostToDevice));
  TT_CUDA(cudaMemcpy(b_->v, v.data(), n * 2, cudaMemcpyHostToDevice));
  TT_CUDA(cudaMemcpy(b_->d_o, d_o.data(), n * 2, cudaMemcpyHostToDevice));
  // From pageable memory cudaMemcpy may return before the DMA lands, and the kernels run on a non-blocking stream.
  TT_CUDA(cudaDeviceSynchronize());
}

void CudaAttention::poison_outputs() {
  const auto n = static_cast<std::size_t>(shape_.elements());
  for (void* p : {b_->o, b_->dq, b_->dk, b_->dv}) TT_CUDA(cudaMemset(p, 0xff, n * 2));  // all-ones bits: NaN
  TT_CUDA(cudaMemset(b_->lse, 0xff, sizeof(float) * static_cast<std::size_t>(shape_.rows())));
  TT_CUDA(cudaDeviceSynchronize());
}

namespace {
template <typename Launch>
double timed(cudaEvent_t start, cudaEvent_t stop, cudaStream_t stream, const Launch& launch) {
  TT_CUDA(cudaEventRecord(start, stream));
  launch();
  TT_CUDA(cudaEventRecord(stop, stream));
  TT_CUDA(cudaEventSynchronize(stop));
  TT_CUDA(cudaGetLastError());  // a fault inside a kernel surfaces at the synchronisation
  float ms = 0.0f;
  TT_CUDA(cudaEventElapsedTime(&ms, start, stop));
  return ms;
}
}  // namespace

double CudaAttention::forward() {
  return timed(b_->start, b_->stop, b_->stream, [&] {
    cuda_detail::launch_flash_forward(shape_, precision_, b_->q, b_->k, b_->v, b_->o, b_->lse, b_->stream);
  });
}

double CudaAttention::backward() {
  if (!cuda_backward_supports(shape_))
    throw std::invalid_argument("CUDA attention backward: head_dim must be 64 or 128");
  const cuda_detail::BackwardArgs a{b_->q,      b_->k,      b_->v,      b_->o,  b_->d_o, b_->lse,
                                    b_->d_rows, b_->dq_acc, b_->dq,     b_->dk, b_->dv};
  return timed(b_->start, b_->stop, b_->stream,
               [&] { cuda_detail::launch_flash_backward(shape_, precision_, a, b_->stream); });
}

namespace {
template <typename V>
std::vector<V> download(const void* device, std::size_t n) {
  std::vector<V> host(n);
  TT_CUDA(cudaMemcpy(host.data(), device, n * sizeof(V), cudaMemcpyDeviceToHost));
  return host;
}
}  // namespace

std::vector<std::uint16_t> CudaAttention::o() const {
  return download<std::uint16_t>(b_->o, static_cast<std::size_t>(shape_.elements()));
}
std::vector<float> CudaAttention::lse() const {
  return download<float>(b_->lse, static_cast<std::size_t>(shape_.rows()));
}
std::vector<std::uint16_t> CudaAttention::dq() const {
  return download<std::uint16_t>(b_->dq, static_cast<std::size_t>(shape_.elements()));
}
std::vector<std::uint16_t> CudaAttention::dk() const {
  return download<std::uint16_t>(b_->dk, static_cast<std::size_t>(shape_.elements()));
}
std::vector<std::uint16_t> CudaAttention::dv() const {
  return download<std::uint16_t>(b_->dv, static_cast<std::size_t>(shape_.elements()));
}

}  // namespace tt::kernels
