// Every CUDA runtime call of the kernels' host code goes through TT_CUDA: a failure throws CudaError naming the host,
// the source file and line, the call and CUDA's message. Host code of the kernels/*.cu files only.
#pragma once

#include <cuda_runtime.h>
#include <unistd.h>

#include <string>

#include "kernels/attention_cuda.hpp"

namespace tt::kernels::cuda_detail {

inline std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

[[noreturn]] inline void cuda_fail(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(host_name() + ": " + file + ":" + std::to_string(line) + ": " + call + ": " + cudaGetErrorName(e) +
                  " (" + cudaGetErrorString(e) + ")");
}

}  // namespace tt::kernels::cuda_detail

#define TT_CUDA(call)                                                                                        \
  do {                                                                                                       \
    const cudaError_t tt_status_ = (call);                                                                   \
    if (tt_status_ != cudaSuccess) ::tt::kernels::cuda_detail::cuda_fail(tt_status_, #call, __FILE__, __LINE__); \
  } while (0)
// After a launch: the launch's own error now, a fault inside the kernel at the next synchronisation.
#define TT_CUDA_LAUNCHED(what) TT_CUDA(cudaPeekAtLastError())
