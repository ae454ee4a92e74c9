// FlashAttention-2-style forward and backward kernels (one CTA per (batch x head, tile), tiles through shared memory,
// tensor-core products through nvcuda::wmma, fp32 accumulation) and the host side of kernels/attention_cuda.hpp.
//
// Why wmma: its fragments are stored to and loaded from shared memory in a documented row- or column-major layout, so
// every element's place is visible in this file and the per-row softmax runs through the same functions as the CPU
// kernel (kernels/tile_math.hpp). The price is speed: the FlashAttention-3 design (TMA loads, WGMMA from a warpgroup,
// softmax overlapped with the products, accumulators in registers) is what reaches ~600 TFLOP/s on Hopper; this
// kernel does not attempt it (docs/cuda.md).
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <mma.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/attention_cuda.hpp"
#include "kernels/tile_math.hpp"

namespace tt::kernels {
namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "unknown-host";
  return buf;
}

[[noreturn]] void cuda_fail(cudaError_t e, const char* call, const char* file, int line) {
  throw CudaError(host_name() + ": " + file + ":" + std::to_string(line) + ": " + call + ": " + cudaGetErrorName(e) +
                  " (" + cudaGetErrorString(e) + ")");
}

#define TT_CUDA(call)                                                                \
  do {                                                                               \
    const cudaError_t tt_status_ = (call);                                           \
    if (tt_status_ != cudaSuccess) cuda_fail(tt_status_, #call, __FILE__, __LINE__); \
  } while (0)
// After a launch: the launch's own error now, a fault inside the kernel at the next synchronisation.
#define TT_CUDA_LAUNCHED(what) TT_CUDA(cudaPeekAtLastError())

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

// ---------------------------------------------------------------------------------------------------------------
// Forward. CTA (x = query tile, y = batch x head). Shared memory: Q [BR][D], K and V [BC][D] (16-bit), S [BR][BC]
// (fp32, overwritten by the probabilities), P [BR][BC] (16-bit copy for the tensor cores), O [BR][D] (fp32
// accumulator), running max m and sum l per row.
template <typename T, int D, int BR, int BC>
struct ForwardLayout {
  static constexpr int ld16 = D + kPad16;
  static constexpr int lds = BC + kPad32;
  static constexpr int ldp = BC + kPad16;
  static constexpr int ldo = D + kPad32;
  static constexpr std::size_t q_at = 0;
  static constexpr std::size_t k_at = q_at + align128(sizeof(T) * BR * ld16);
  static constexpr std::size_t v_at = k_at + align128(sizeof(T) * BC * ld16);
  static constexpr std::size_t s_at = v_at + align128(sizeof(T) * BC * ld16);
  static constexpr std::size_t p_at = s_at + align128(sizeof(float) * BR * lds);
  static constexpr std::size_t o_at = p_at + align128(sizeof(T) * BR * ldp);
  static constexpr std::size_t m_at = o_at + align128(sizeof(float) * BR * ldo);
  static constexpr std::size_t l_at = m_at + align128(sizeof(float) * BR);
  static constexpr std::size_t bytes = l_at + align128(sizeof(float) * BR);
  static_assert(BR % 16 == 0 && BC % 16 == 0 && D % 16 == 0, "wmma tiles are 16 x 16 x 16");
};

template <typename T, int D, int BR, int BC>
__global__ void __launch_bounds__(kThreads)
    flash_forward(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ o,
                  float* __restrict__ lse, int n, bool causal, float scale) {
  using L = ForwardLayout<T, D, BR, BC>;
  extern __shared__ __align__(128) unsigned char smem[];
  T* sq = reinterpret_cast<T*>(smem + L::q_at);
  T* sk = reinterpret_cast<T*>(smem + L::k_at);
  T* sv = reinterpret_cast<T*>(smem + L::v_at);
  float* ss = reinterpret_cast<float*>(smem + L::s_at);
  T* sp = reinterpret_cast<T*>(smem + L::p_at);
  float* so = reinterpret_cast<float*>(smem + L::o_at);
  float* sm = reinterpret_cast<float*>(smem + L::m_at);
  float* sl = reinterpret_cast<float*>(smem + L::l_at);

  const int warp = threadIdx.x / 32;
  const int slice = blockIdx.y;
  const int q0 = blockIdx.x * BR;
  const std::size_t base = static_cast<std::size_t>(slice) * n * D;
  const T* qs = q + base;
  const T* ks = k + base;
  const T* vs = v + base;

  load_rows<T, D>(sq, L::ld16, qs, q0, BR, min(BR, n - q0));
  for (int idx = threadIdx.x; idx < BR * L::ldo; idx += kThreads) so[idx] = 0.0f;
  for (int r = threadIdx.x; r < BR; r += kThreads) {
    sm[r] = neg_inf<float>();
    sl[r] = 0.0f;
  }

  const int k_end = causal ? min(n, q0 + BR) : n;
  for (int k0 = 0; k0 < k_end; k0 += BC) {
    const int bc = min(BC, n - k0);
    __syncthreads();  // the previous tile's readers of K, V and P are done
    load_rows<T, D>(sk, L::ld16, ks, k0, BC, bc);
    load_rows<T, D>(sv, L::ld16, vs, k0, BC, bc);
    __syncthreads();

    // S = Q K^T. K is [BC][D] row-major, so K^T read column-major with ldm ld16 is the [D][BC] operand.
    for (int f = warp; f < (BR / 16) * (BC / 16); f += kWarps) {
      const int fr = f / (BC / 16);
      const int fc = f % (BC / 16);
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int kk = 0; kk < D; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
        wmma::load_matrix_sync(a, sq + fr * 16 * L::ld16 + kk, L::ld16);
        wmma::load_matrix_sync(b, sk + fc * 16 * L::ld16 + kk, L::ld16);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(ss + fr * 16 * L::lds + fc * 16, acc, L::lds, wmma::mem_row_major);
    }
    __syncthreads();

    // The online softmax of each row, by the shared tile math; the row's accumulator is rescaled by alpha.
    for (int r = threadIdx.x; r < BR; r += kThreads) {
      float* s_row = ss + r * L::lds;
      float m = sm[r];
      float l = sl[r];
      const float alpha = online_softmax_row(s_row, BC, valid_keys(causal, q0 + r, k0, bc), scale, m, l);
      sm[r] = m;
      sl[r] = l;
      if (alpha != 1.0f) scale_row(so + r * L::ldo, D, alpha);
      for (int j = 0; j < BC; ++j) sp[r * L::ldp + j] = from_float<T>(s_row[j]);
    }
    __syncthreads();

    // O += P V: P [BR][BC] and V [BC][D], both row-major; the accumulator tile goes through shared memory.
    for (int f = warp; f < (BR / 16) * (D / 16); f += kWarps) {
      const int fr = f / (D / 16);
      const int fc = f % (D / 16);
      float* o_tile = so + fr * 16 * L::ldo + fc * 16;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, o_tile, L::ldo, wmma::mem_row_major);
      for (int kk = 0; kk < BC; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, sp + fr * 16 * L::ldp + kk, L::ldp);
        wmma::load_matrix_sync(b, sv + kk * L::ld16 + fc * 16, L::ld16);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(o_tile, acc, L::ldo, wmma::mem_row_major);
    }
  }
  __syncthreads();

  const int rows = min(BR, n - q0);
  for (int r = threadIdx.x; r < BR; r += kThreads) {
    const float row_lse = finalize_row(so + r * L::ldo, D, sm[r], sl[r]);
    if (r < rows) lse[static_cast<std::size_t>(slice) * n + q0 + r] = row_lse;
  }
  __syncthreads();
  T* os = o + base;
  for (int idx = threadIdx.x; idx < rows * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    os[static_cast<std::size_t>(q0 + r) * D + c] = from_float<T>(so[r * L::ldo + c]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Backward, in three launches: D = rowsum(dO * O) per row; then one CTA per (key tile, batch x head) that walks the
// query tiles, recomputes P from the saved lse, accumulates dK and dV in shared memory and adds its share of dQ into
// an fp32 buffer with atomics; then dQ is rounded to the input precision.

template <typename T, int D>
__global__ void __launch_bounds__(kThreads)
    row_dots(const T* __restrict__ o, const T* __restrict__ d_o, float* __restrict__ d_rows, long long rows) {
  const long long row = (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (row >= rows) return;
  float sum = 0.0f;
  for (int c = lane; c < D; c += 32) sum = tile_fma(to_float(o[row * D + c]), to_float(d_o[row * D + c]), sum);
  for (int width = 16; width > 0; width /= 2) sum += __shfl_xor_sync(0xffffffffu, sum, width);
  if (lane == 0) d_rows[row] = sum;
}

template <typename T>
__global__ void round_to(const float* __restrict__ x, T* __restrict__ y, long long count) {
  for (long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<long long>(gridDim.x) * blockDim.x)
    y[i] = from_float<T>(x[i]);
}

// Shared memory: K, V [BK][D] and Q, dO [BQ][D] (16-bit); S then P, and dP then dS, [BQ][BK] (fp32) with 16-bit
// copies of P and dS; dK, dV [BK][D] (fp32 accumulators); a 16 x 16 fp32 scratch per warp for dQ; lse and D per row.
template <typename T, int D, int BQ, int BK>
struct BackwardLayout {
  static constexpr int ld16 = D + kPad16;
  static constexpr int lds = BK + kPad32;
  static constexpr int ldp = BK + kPad16;
  static constexpr int ldacc = D + kPad32;
  static constexpr std::size_t k_at = 0;
  static constexpr std::size_t v_at = k_at + align128(sizeof(T) * BK * ld16);
  static constexpr std::size_t q_at = v_at + align128(sizeof(T) * BK * ld16);
  static constexpr std::size_t do_at = q_at + align128(sizeof(T) * BQ * ld16);
  static constexpr std::size_t s_at = do_at + align128(sizeof(T) * BQ * ld16);
  static constexpr std::size_t dp_at = s_at + align128(sizeof(float) * BQ * lds);
  static constexpr std::size_t p16_at = dp_at + align128(sizeof(float) * BQ * lds);
  static constexpr std::size_t ds16_at = p16_at + align128(sizeof(T) * BQ * ldp);
  static constexpr std::size_t dk_at = ds16_at + align128(sizeof(T) * BQ * ldp);
  static constexpr std::size_t dv_at = dk_at + align128(sizeof(float) * BK * ldacc);
  static constexpr std::size_t scratch_at = dv_at + align128(sizeof(float) * BK * ldacc);
  static constexpr std::size_t lse_at = scratch_at + align128(sizeof(float) * kWarps * 256);
  static constexpr std::size_t drow_at = lse_at + align128(sizeof(float) * BQ);
  static constexpr std::size_t bytes = drow_at + align128(sizeof(float) * BQ);
  static_assert(BQ % 16 == 0 && BK % 16 == 0 && D % 16 == 0 && BK % BQ == 0, "tiles");
};

template <typename T, int D, int BQ, int BK>
__global__ void __launch_bounds__(kThreads)
    flash_backward(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, const T* __restrict__ d_o,
                   const float* __restrict__ lse, const float* __restrict__ d_rows, float* __restrict__ dq_acc,
                   T* __restrict__ dk, T* __restrict__ dv, int n, bool causal, float scale) {
  using L = BackwardLayout<T, D, BQ, BK>;
  extern __shared__ __align__(128) unsigned char smem[];
  T* sk = reinterpret_cast<T*>(smem + L::k_at);
  T* sv = reinterpret_cast<T*>(smem + L::v_at);
  T* sq = reinterpret_cast<T*>(smem + L::q_at);
  T* sdo = reinterpret_cast<T*>(smem + L::do_at);
  float* ss = reinterpret_cast<float*>(smem + L::s_at);
  float* sdp = reinterpret_cast<float*>(smem + L::dp_at);
  T* sp16 = reinterpret_cast<T*>(smem + L::p16_at);
  T* sds16 = reinterpret_cast<T*>(smem + L::ds16_at);
  float* sdk = reinterpret_cast<float*>(smem + L::dk_at);
  float* sdv = reinterpret_cast<float*>(smem + L::dv_at);
  float* scratch = reinterpret_cast<float*>(smem + L::scratch_at) + (threadIdx.x / 32) * 256;
  float* slse = reinterpret_cast<float*>(smem + L::lse_at);
  float* sdrow = reinterpret_cast<float*>(smem + L::drow_at);

  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int slice = blockIdx.y;
  const int k0 = blockIdx.x * BK;
  const int bc = min(BK, n - k0);
  const std::size_t base = static_cast<std::size_t>(slice) * n * D;
  const std::size_t row_base = static_cast<std::size_t>(slice) * n;

  load_rows<T, D>(sk, L::ld16, k + base, k0, BK, bc);
  load_rows<T, D>(sv, L::ld16, v + base, k0, BK, bc);
  for (int idx = threadIdx.x; idx < BK * L::ldacc; idx += kThreads) {
    sdk[idx] = 0.0f;
    sdv[idx] = 0.0f;
  }

  // Causal: query rows before k0 see none of these keys (k0 is a multiple of BQ, so this is a tile boundary).
  for (int q0 = causal ? k0 : 0; q0 < n; q0 += BQ) {
    const int br = min(BQ, n - q0);
    __syncthreads();  // the previous query tile's readers are done
    load_rows<T, D>(sq, L::ld16, q + base, q0, BQ, br);
    load_rows<T, D>(sdo, L::ld16, d_o + base, q0, BQ, br);
    for (int r = threadIdx.x; r < BQ; r += kThreads) {
      // A padding row gets lse = +inf, so its recomputed probabilities are exactly 0.
      slse[r] = r < br ? lse[row_base + q0 + r] : INFINITY;
      sdrow[r] = r < br ? d_rows[row_base + q0 + r] : 0.0f;
    }
    __syncthreads();

    // S = Q K^T and dP = dO V^T, both [BQ][BK].
    for (int f = warp; f < 2 * (BQ / 16) * (BK / 16); f += kWarps) {
      const bool is_dp = f >= (BQ / 16) * (BK / 16);
      const int g = is_dp ? f - (BQ / 16) * (BK / 16) : f;
      const int fr = g / (BK / 16);
      const int fc = g % (BK / 16);
      const T* left = is_dp ? sdo : sq;
      const T* right = is_dp ? sv : sk;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int kk = 0; kk < D; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::col_major> b;
        wmma::load_matrix_sync(a, left + fr * 16 * L::ld16 + kk, L::ld16);
        wmma::load_matrix_sync(b, right + fc * 16 * L::ld16 + kk, L::ld16);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync((is_dp ? sdp : ss) + fr * 16 * L::lds + fc * 16, acc, L::lds, wmma::mem_row_major);
    }
    __syncthreads();

    // P = exp(scale S - lse) and dS = P (dP - D) scale, by the shared tile math; 16-bit copies for the products.
    for (int r = threadIdx.x; r < BQ; r += kThreads) {
      float* p_row = ss + r * L::lds;
      float* ds_row = sdp + r * L::lds;
      recompute_probs_row(p_row, BK, valid_keys(causal, q0 + r, k0, bc), scale, slse[r]);
      softmax_grad_row(ds_row, p_row, BK, sdrow[r], scale);
      for (int j = 0; j < BK; ++j) {
        sp16[r * L::ldp + j] = from_float<T>(p_row[j]);
        sds16[r * L::ldp + j] = from_float<T>(ds_row[j]);
      }
    }
    __syncthreads();

    // dV += P^T dO and dK += dS^T Q, [BK][D]: P^T is P [BQ][BK] read column-major (element (m, kk) at kk * ldp + m).
    for (int f = warp; f < 2 * (BK / 16) * (D / 16); f += kWarps) {
      const bool is_dk = f >= (BK / 16) * (D / 16);
      const int g = is_dk ? f - (BK / 16) * (D / 16) : f;
      const int fr = g / (D / 16);
      const int fc = g % (D / 16);
      const T* left = is_dk ? sds16 : sp16;
      const T* right = is_dk ? sq : sdo;
      float* acc_tile = (is_dk ? sdk : sdv) + fr * 16 * L::ldacc + fc * 16;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::load_matrix_sync(acc, acc_tile, L::ldacc, wmma::mem_row_major);
      for (int kk = 0; kk < BQ; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::col_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, left + kk * L::ldp + fr * 16, L::ldp);
        wmma::load_matrix_sync(b, right + kk * L::ld16 + fc * 16, L::ld16);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(acc_tile, acc, L::ldacc, wmma::mem_row_major);
    }

    // dQ[q0..] += dS K: [BQ][BK] x [BK][D]; each 16 x 16 result goes through the warp's scratch into fp32 atomics.
    for (int f = warp; f < (BQ / 16) * (D / 16); f += kWarps) {
      const int fr = f / (D / 16);
      const int fc = f % (D / 16);
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
      wmma::fill_fragment(acc, 0.0f);
      for (int kk = 0; kk < BK; kk += 16) {
        wmma::fragment<wmma::matrix_a, 16, 16, 16, T, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, T, wmma::row_major> b;
        wmma::load_matrix_sync(a, sds16 + fr * 16 * L::ldp + kk, L::ldp);
        wmma::load_matrix_sync(b, sk + kk * L::ld16 + fc * 16, L::ld16);
        wmma::mma_sync(acc, a, b, acc);
      }
      wmma::store_matrix_sync(scratch, acc, 16, wmma::mem_row_major);
      __syncwarp();
      for (int e = lane; e < 256; e += 32) {
        const int r = fr * 16 + e / 16;
        if (r < br) atomicAdd(dq_acc + base + static_cast<std::size_t>(q0 + r) * D + fc * 16 + e % 16, scratch[e]);
      }
      __syncwarp();
    }
  }
  __syncthreads();

  for (int idx = threadIdx.x; idx < bc * D; idx += kThreads) {
    const int r = idx / D;
    const int c = idx % D;
    const std::size_t at = base + static_cast<std::size_t>(k0 + r) * D + c;
    dk[at] = from_float<T>(sdk[r * L::ldacc + c]);
    dv[at] = from_float<T>(sdv[r * L::ldacc + c]);
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Launchers: tile sizes per head dimension. Forward: 64 x 64 tiles (D 256: 64 x 32, to fit Ampere's 163 KiB of shared
// memory per CTA); backward: 32 query rows against 64 keys.

template <typename Kernel>
void allow_shared(Kernel kernel, std::size_t bytes) {
  TT_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
}

float softmax_scale(const AttentionShape& s) { return 1.0f / std::sqrt(static_cast<float>(s.head_dim)); }

template <typename T, int D, int BR, int BC>
void launch_forward(const AttentionShape& s, const void* q, const void* k, const void* v, void* o, float* lse,
                    cudaStream_t stream) {
  using L = ForwardLayout<T, D, BR, BC>;
  auto kernel = flash_forward<T, D, BR, BC>;
  allow_shared(kernel, L::bytes);
  const dim3 grid((s.seq + BR - 1) / BR, s.batch * s.heads);
  kernel<<<grid, kThreads, L::bytes, stream>>>(static_cast<const T*>(q), static_cast<const T*>(k),
                                               static_cast<const T*>(v), static_cast<T*>(o), lse, s.seq, s.causal,
                                               softmax_scale(s));
  TT_CUDA_LAUNCHED("flash_forward");
}

template <typename T>
void forward_for(const AttentionShape& s, const void* q, const void* k, const void* v, void* o, float* lse,
                 cudaStream_t stream) {
  switch (s.head_dim) {
    case 64:
      return launch_forward<T, 64, 64, 64>(s, q, k, v, o, lse, stream);
    case 128:
      return launch_forward<T, 128, 64, 64>(s, q, k, v, o, lse, stream);
    case 256:
      return launch_forward<T, 256, 64, 32>(s, q, k, v, o, lse, stream);
    default:
      throw std::invalid_argument("CUDA attention forward: head_dim " + std::to_string(s.head_dim));
  }
}

struct BackwardArgs {
  const void *q, *k, *v, *o, *d_o;
  const float* lse;
  float* d_rows;
  float* dq_acc;
  void *dq, *dk, *dv;
};

template <typename T, int D>
void launch_backward(const AttentionShape& s, const BackwardArgs& a, cudaStream_t stream) {
  constexpr int kBQ = 32;
  constexpr int kBK = 64;
  using L = BackwardLayout<T, D, kBQ, kBK>;
  const long long rows = s.rows();
  const long long elements = s.elements();
  row_dots<T, D><<<static_cast<unsigned>((rows * 32 + kThreads - 1) / kThreads), kThreads, 0, stream>>>(
      static_cast<const T*>(a.o), static_cast<const T*>(a.d_o), a.d_rows, rows);
  TT_CUDA_LAUNCHED("row_dots");
  TT_CUDA(cudaMemsetAsync(a.dq_acc, 0, sizeof(float) * elements, stream));
  auto kernel = flash_backward<T, D, kBQ, kBK>;
  allow_shared(kernel, L::bytes);
  const dim3 grid((s.seq + kBK - 1) / kBK, s.batch * s.heads);
  kernel<<<grid, kThreads, L::bytes, stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v), static_cast<const T*>(a.d_o),
      a.lse, a.d_rows, a.dq_acc, static_cast<T*>(a.dk), static_cast<T*>(a.dv), s.seq, s.causal, softmax_scale(s));
  TT_CUDA_LAUNCHED("flash_backward");
  const long long blocks = std::min<long long>((elements + 255) / 256, 65535);
  round_to<T><<<static_cast<unsigned>(blocks), 256, 0, stream>>>(a.dq_acc, static_cast<T*>(a.dq), elements);
  TT_CUDA_LAUNCHED("round_to");
}

template <typename T>
void backward_for(const AttentionShape& s, const BackwardArgs& a, cudaStream_t stream) {
  switch (s.head_dim) {
    case 64:
      return launch_backward<T, 64>(s, a, stream);
    case 128:
      return launch_backward<T, 128>(s, a, stream);
    default:
      throw std::invalid_argument("CUDA attention backward: head_dim " + std::to_string(s.head_dim));
  }
}

}  // namespace

// ---------------------------------------------------------------------------------------------------------------
// Host API.

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
    if (precision_ == Precision::bf16)
      forward_for<__nv_bfloat16>(shape_, b_->q, b_->k, b_->v, b_->o, b_->lse, b_->stream);
    else
      forward_for<__half>(shape_, b_->q, b_->k, b_->v, b_->o, b_->lse, b_->stream);
  });
}

double CudaAttention::backward() {
  if (!cuda_backward_supports(shape_))
    throw std::invalid_argument("CUDA attention backward: head_dim must be 64 or 128");
  const BackwardArgs a{b_->q, b_->k, b_->v, b_->o, b_->d_o, b_->lse, b_->d_rows, b_->dq_acc, b_->dq, b_->dk, b_->dv};
  return timed(b_->start, b_->stop, b_->stream, [&] {
    if (precision_ == Precision::bf16)
      backward_for<__nv_bfloat16>(shape_, a, b_->stream);
    else
      backward_for<__half>(shape_, a, b_->stream);
  });
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
