// What the forward and backward kernels share: the CTA shape, shared-memory padding, 16-bit conversions, tile loads and
// the causal mask, and the host helpers of their launchers. Included by attention_cuda_forward.cu and
// attention_cuda_backward.cu only.
//
// Why wmma: its fragments are stored to and loaded from shared memory in a documented row- or column-major layout, so
// every element's place is visible in the kernels' files and the per-row softmax runs through the same functions as the
// CPU kernel (kernels/tile_math.hpp). The price is speed: the FlashAttention-3 design (TMA loads, WGMMA from a
// warpgroup, softmax overlapped with the products, accumulators in registers) is what reaches ~600 TFLOP/s on Hopper;
// these kernels do not attempt it (docs/cuda.md).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>

#include <cmath>
#include <cstddef>

#include "kernels/attention.hpp"
#include "kernels/cuda_check.cuh"

namespace tt::kernels::cuda_detail {

namespace wmma = nvcuda::wmma;

constexpr int kThreads = 128;  // 4 warps per CTA
constexpr int kWarps = kThreads / 32;
constexpr int kPad16 = 8;  // 16-bit tiles: each row padded by 16 bytes (spreads banks; ldm stays a multiple of 8)
constexpr int kPad32 = 4;  // fp32 tiles: each row padded by 16 bytes

template <typename T>
__device__ inline float to_float(T x);
template <>
__device__ inline float to_float(__nv_bfloat16 x) {
  return __bfloat162float(x);
}
template <>
__device__ inline float to_float(__half x) {
  return __half2float(x);
}
template <typename T>
__device__ inline T from_float(float x);
template <>
__device__ inline __nv_bfloat16 from_float(float x) {
  return __float2bfloat16_rn(x);
}
template <>
__device__ inline __half from_float(float x) {
  return __float2half_rn(x);
}

constexpr std::size_t align128(std::size_t bytes) { return (bytes + 127) / 128 * 128; }

// Copies rows [row0, row0 + rows) of a [seq][D] tensor (16-bit) into a shared tile with leading dimension ld, 16 bytes
// per thread and step; rows at or past `valid` are zero-filled (padding never reaches an output, but it must be
// finite: 0 x NaN would be NaN).
template <typename T, int D>
__device__ inline void load_rows(T* dst, int ld, const T* src, int row0, int rows, int valid) {
  constexpr int kVec = 8;
  constexpr int kPerRow = D / kVec;
  for (int idx = threadIdx.x; idx < rows * kPerRow; idx += kThreads) {
    const int r = idx / kPerRow;
    const int c = (idx % kPerRow) * kVec;
    int4 value = make_int4(0, 0, 0, 0);
    if (r < valid) value = *reinterpret_cast<const int4*>(src + static_cast<std::size_t>(row0 + r) * D + c);
    *reinterpret_cast<int4*>(dst + r * ld + c) = value;
  }
}

// Keys kept for query row i against the key tile starting at k0 with bc real rows: all of them, or under a causal
// mask the prefix j <= i (the CPU kernel's Geometry::valid).
__device__ inline int valid_keys(bool causal, int i, int k0, int bc) {
  return causal ? min(max(i - k0 + 1, 0), bc) : bc;
}

template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  TT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

inline float softmax_scale(const AttentionShape& s) { return 1.0f / std::sqrt(static_cast<float>(s.head_dim)); }

}  // namespace tt::kernels::cuda_detail
