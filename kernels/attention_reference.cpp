#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "kernels/attention.hpp"

// The oracle: every step spelled out in fp64 with full N x N matrices, sharing no code with the tiled kernels.

namespace tt::kernels {

namespace {

double dot(const double* a, const double* b, int d) {
  double sum = 0.0;
  for (int k = 0; k < d; ++k) sum += a[k] * b[k];
  return sum;
}

bool masked(const AttentionShape& s, int i, int j) { return s.causal && j > i; }

// Row-wise softmax of the scaled, masked scores of one (batch, head): p[i][j], and lse[i].
void softmax_probs(const AttentionShape& s, const double* q, const double* k, std::vector<double>& p, double* lse) {
  const int n = s.seq;
  const int d = s.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  for (int i = 0; i < n; ++i) {
    double* row = &p[static_cast<std::size_t>(i) * n];
    double max = -std::numeric_limits<double>::infinity();
    for (int j = 0; j < n; ++j) {
      row[j] = masked(s, i, j) ? -std::numeric_limits<double>::infinity()
                               : scale * dot(q + std::ptrdiff_t{i} * d, k + std::ptrdiff_t{j} * d, d);
      max = std::max(max, row[j]);
    }
    double sum = 0.0;
    for (int j = 0; j < n; ++j) sum += std::exp(row[j] - max);
    for (int j = 0; j < n; ++j) row[j] = std::exp(row[j] - max) / sum;
    if (lse) lse[i] = max + std::log(sum);
  }
}

}  // namespace

double AttentionShape::forward_flops() const {
  const double full = 4.0 * batch * heads * double(seq) * seq * head_dim;
  return causal ? full / 2 : full;
}

void attention_forward_reference(const AttentionShape& s, const double* q, const double* k, const double* v, double* o,
                                 double* lse) {
  const int n = s.seq;
  const int d = s.head_dim;
  const std::ptrdiff_t slice = std::ptrdiff_t{n} * d;
  std::vector<double> p(static_cast<std::size_t>(n) * n);
  for (int bh = 0; bh < s.batch * s.heads; ++bh) {
    const std::ptrdiff_t at = bh * slice;
    softmax_probs(s, q + at, k + at, p, lse + std::ptrdiff_t{bh} * n);
    for (int i = 0; i < n; ++i) {
      double* out = o + at + std::ptrdiff_t{i} * d;
      std::fill(out, out + d, 0.0);
      for (int j = 0; j < n; ++j) {
        const double pij = p[static_cast<std::size_t>(i) * n + j];
        for (int c = 0; c < d; ++c) out[c] += pij * v[at + std::ptrdiff_t{j} * d + c];
      }
    }
  }
}

// dS[i][j] = P[i][j] (dP[i][j] - sum_k P[i][k] dP[i][k]): the softmax Jacobian applied directly, rather than through
// rowsum(dO * O) as the tiled kernel does, so `o` is not needed here.
void attention_backward_reference(const AttentionShape& s, const double* q, const double* k, const double* v,
                                  const double* o, const double* d_o, double* dq, double* dk, double* dv) {
  const int n = s.seq;
  const int d = s.head_dim;
  const double scale = 1.0 / std::sqrt(static_cast<double>(d));
  const std::ptrdiff_t slice = std::ptrdiff_t{n} * d;
  std::vector<double> p(static_cast<std::size_t>(n) * n);
  std::vector<double> dp_i(n);
  for (int bh = 0; bh < s.batch * s.heads; ++bh) {
    const std::ptrdiff_t at = bh * slice;
    softmax_probs(s, q + at, k + at, p, nullptr);
    std::fill(dq + at, dq + at + slice, 0.0);
    std::fill(dk + at, dk + at + slice, 0.0);
    std::fill(dv + at, dv + at + slice, 0.0);
    for (int i = 0; i < n; ++i) {
      const double* d_o_i = d_o + at + std::ptrdiff_t{i} * d;
      double* p_i = &p[static_cast<std::size_t>(i) * n];
      double correction = 0.0;
      for (int j = 0; j < n; ++j) {
        dp_i[j] = dot(d_o_i, v + at + std::ptrdiff_t{j} * d, d);
        correction += p_i[j] * dp_i[j];
        for (int c = 0; c < d; ++c) dv[at + std::ptrdiff_t{j} * d + c] += p_i[j] * d_o_i[c];
      }
      for (int j = 0; j < n; ++j) {
        const double ds = p_i[j] * (dp_i[j] - correction) * scale;
        for (int c = 0; c < d; ++c) {
          dq[at + std::ptrdiff_t{i} * d + c] += ds * k[at + std::ptrdiff_t{j} * d + c];
          dk[at + std::ptrdiff_t{j} * d + c] += ds * q[at + std::ptrdiff_t{i} * d + c];
        }
      }
    }
  }
}

}  // namespace tt::kernels
