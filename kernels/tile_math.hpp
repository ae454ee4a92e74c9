// Per-row tile math of FlashAttention-style attention, shared by the CPU kernel and a CUDA kernel: the online softmax
// of the forward pass (running max m and running sum l per query row, rescaling, final normalisation and lse) and the
// backward pass's pieces (D = rowsum(dO * O), P = exp(scale * S - lse), dS = P * (dP - D)). Pure functions over plain
// arrays and scalars; the caller owns every buffer. Masking is a count: in a row of n scores only the first `valid`
// are kept (causal masking inside a tile is a prefix), the rest count as -inf and yield probability 0.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TT_HOST_DEVICE __host__ __device__
#else
#define TT_HOST_DEVICE
#endif

namespace tt::kernels {

template <typename T>
TT_HOST_DEVICE constexpr T neg_inf() {
  return -static_cast<T>(INFINITY);
}

// a * b + c, fused where the hardware has it. Written out rather than left to the compiler's contraction (the kernels
// build with -ffp-contract=off) so that every compiled copy of a loop rounds alike.
TT_HOST_DEVICE inline float tile_fma(float a, float b, float c) {
#if defined(__CUDA_ARCH__) || defined(__FMA__)
  return fmaf(a, b, c);
#else
  return a * b + c;
#endif
}
TT_HOST_DEVICE inline double tile_fma(double a, double b, double c) { return a * b + c; }

// exp for float without a library call, so that a loop over a row vectorises on the host (glibc's expf does not
// without -ffast-math, which would also drop the -inf masking). Cephes' polynomial: relative error ~2 ulp; exactly 0
// below -87.3 and at -inf, exactly 1 at 0. On the device it is the hardware exponential.
TT_HOST_DEVICE inline float tile_exp(float x) {
#if defined(__CUDA_ARCH__)
  return __expf(x);
#else
  const float xc = x < -88.0f ? -88.0f : (x > 88.0f ? 88.0f : x);
  const float t = xc * 1.44269504088896341f;
  const float n = (t + 12582912.0f) - 12582912.0f;  // round to nearest: 1.5 * 2^23 pushes the fraction out
  const float f = tile_fma(n, 2.12194440e-4f, tile_fma(n, -0.693359375f, xc));  // x - n ln 2, ln 2 split in two
  float y = 1.9875691500e-4f;
  y = tile_fma(y, f, 1.3981999507e-3f);
  y = tile_fma(y, f, 8.3334519073e-3f);
  y = tile_fma(y, f, 4.1665795894e-2f);
  y = tile_fma(y, f, 1.6666665459e-1f);
  y = tile_fma(y, f, 5.0000001201e-1f);
  y = tile_fma(y, f * f, f + 1.0f);
  const std::int32_t bits = (static_cast<std::int32_t>(n) + 127) << 23;
  float two_n;
  std::memcpy(&two_n, &bits, sizeof two_n);
  return x < -87.3f ? 0.0f : y * two_n;
#endif
}

TT_HOST_DEVICE inline double tile_exp(double x) { return exp(x); }
TT_HOST_DEVICE inline float tile_log(float x) { return logf(x); }
TT_HOST_DEVICE inline double tile_log(double x) { return log(x); }

// Reductions in kReduceLanes interleaved partial sums: a fixed order (bitwise reproducible) that still vectorises,
// which a single running sum cannot without -ffast-math.
inline constexpr int kReduceLanes = 16;

template <typename T>
TT_HOST_DEVICE inline T row_max(const T* x, int n) {
  T lane[kReduceLanes];
  for (int u = 0; u < kReduceLanes; ++u) lane[u] = neg_inf<T>();
  int j = 0;
  for (; j + kReduceLanes <= n; j += kReduceLanes)
    for (int u = 0; u < kReduceLanes; ++u) lane[u] = x[j + u] > lane[u] ? x[j + u] : lane[u];
  for (int u = 0; j + u < n; ++u) lane[u] = x[j + u] > lane[u] ? x[j + u] : lane[u];
  T result = lane[0];
  for (int u = 1; u < kReduceLanes; ++u) result = lane[u] > result ? lane[u] : result;
  return result;
}

template <typename T>
TT_HOST_DEVICE inline T row_sum(const T* x, int n) {
  T lane[kReduceLanes] = {};
  int j = 0;
  for (; j + kReduceLanes <= n; j += kReduceLanes)
    for (int u = 0; u < kReduceLanes; ++u) lane[u] += x[j + u];
  for (int u = 0; j + u < n; ++u) lane[u] += x[j + u];
  for (int width = kReduceLanes / 2; width > 0; width /= 2)
    for (int u = 0; u < width; ++u) lane[u] += lane[u + width];
  return lane[0];
}

// Backward: D = rowsum(dO * O) of one row, the softmax's correction term.
template <typename T>
TT_HOST_DEVICE inline T row_dot(const T* a, const T* b, int d) {
  T lane[kReduceLanes] = {};
  int k = 0;
  for (; k + kReduceLanes <= d; k += kReduceLanes)
    for (int u = 0; u < kReduceLanes; ++u) lane[u] = tile_fma(a[k + u], b[k + u], lane[u]);
  for (int u = 0; k + u < d; ++u) lane[u] = tile_fma(a[k + u], b[k + u], lane[u]);
  for (int width = kReduceLanes / 2; width > 0; width /= 2)
    for (int u = 0; u < width; ++u) lane[u] += lane[u + width];
  return lane[0];
}

// Forward, one query row against one key tile. s: the n raw scores q.k of the row, overwritten with the unnormalised
// probabilities p = exp(scale * s - m_new) (0 past `valid`). m, l: the row's running max (in scaled units) and running
// sum, updated. Returns alpha = exp(m_old - m_new), the factor by which the caller rescales the row's accumulator
// before adding p . V. A row with nothing valid so far keeps m = -inf, l = 0 and gets alpha = 1, p = 0.
template <typename T>
TT_HOST_DEVICE inline T online_softmax_row(T* s, int n, int valid, T scale, T& m, T& l) {
  const T tile_max = row_max(s, valid) * scale;
  const T m_new = tile_max > m ? tile_max : m;
  if (m_new == neg_inf<T>()) {
    for (int j = 0; j < n; ++j) s[j] = T(0);
    return T(1);
  }
  for (int j = 0; j < valid; ++j) s[j] = tile_exp(tile_fma(s[j], scale, -m_new));
  for (int j = valid; j < n; ++j) s[j] = T(0);
  const T alpha = tile_exp(m - m_new);
  l = l * alpha + row_sum(s, valid);
  m = m_new;
  return alpha;
}

template <typename T>
TT_HOST_DEVICE inline void scale_row(T* acc, int d, T factor) {
  for (int k = 0; k < d; ++k) acc[k] *= factor;
}

// Forward epilogue: o = acc / l in place, and the row's lse = m + log(l) for the backward pass. A row that saw no
// valid key (l = 0) gets o = 0 and lse = -inf.
template <typename T>
TT_HOST_DEVICE inline T finalize_row(T* acc, int d, T m, T l) {
  if (l == T(0)) {
    for (int k = 0; k < d; ++k) acc[k] = T(0);
    return neg_inf<T>();
  }
  scale_row(acc, d, T(1) / l);
  return m + tile_log(l);
}

// Backward: the probabilities recomputed from the forward's lse, P = exp(scale * s - lse) in place (0 past `valid`).
template <typename T>
TT_HOST_DEVICE inline void recompute_probs_row(T* s, int n, int valid, T scale, T lse) {
  for (int j = 0; j < valid; ++j) s[j] = tile_exp(tile_fma(s[j], scale, -lse));
  for (int j = valid; j < n; ++j) s[j] = T(0);
}

// Backward: the gradient of the scaled scores, dS = P * (dP - D), times `scale` (the chain rule through the scaling)
// so that dQ = dS . K and dK = dS^T . Q need no further factor. dp is overwritten.
template <typename T>
TT_HOST_DEVICE inline void softmax_grad_row(T* dp, const T* p, int n, T d_row, T scale) {
  for (int j = 0; j < n; ++j) dp[j] = p[j] * (dp[j] - d_row) * scale;
}

}  // namespace tt::kernels
