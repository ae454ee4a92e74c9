// The forward flash attention kernel and its launcher (kernels/attention_cuda_launch.cuh): FlashAttention-2-style, one
// CTA per (query tile, batch x head), K and V tiles through shared memory, tensor-core products through nvcuda::wmma,
// the per-row online softmax by the CPU kernel's tile math (kernels/tile_math.hpp), fp32 accumulation.
#include <stdexcept>
#include <string>

#include "kernels/attention_cuda_device.cuh"
#include "kernels/attention_cuda_launch.cuh"
#include "kernels/tile_math.hpp"

namespace tt::kernels::cuda_detail {
namespace {

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

// Tiles per head dimension: 64 x 64 (D 256: 64 x 32, to fit Ampere's 163 KiB of shared memory per CTA).
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

}  // namespace

void launch_flash_forward(const AttentionShape& s, Precision p, const void* q, const void* k, const void* v, void* o,
                          float* lse, cudaStream_t stream) {
  if (p == Precision::bf16)
    forward_for<__nv_bfloat16>(s, q, k, v, o, lse, stream);
  else
    forward_for<__half>(s, q, k, v, o, lse, stream);
}

}  // namespace tt::kernels::cuda_detail
