// The backward flash attention kernels and their launcher (kernels/attention_cuda_launch.cuh), in three launches:
// D = rowsum(dO * O) per row; then one CTA per (key tile, batch x head) that walks the query tiles, recomputes P from
// the saved lse, accumulates dK and dV in shared memory and adds its share of dQ into an fp32 buffer with atomics;
// then dQ is rounded to the input precision.
#include <algorithm>
#include <stdexcept>
#include <string>

#include "kernels/attention_cuda_device.cuh"
#include "kernels/attention_cuda_launch.cuh"
#include "kernels/tile_math.hpp"

namespace tt::kernels::cuda_detail {
namespace {

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

// Tiles: 32 query rows against 64 keys.
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

void launch_flash_backward(const AttentionShape& s, Precision p, const BackwardArgs& a, cudaStream_t stream) {
  if (p == Precision::bf16)
    backward_for<__nv_bfloat16>(s, a, stream);
  else
    backward_for<__half>(s, a, stream);
}

}  // namespace tt::kernels::cuda_detail
