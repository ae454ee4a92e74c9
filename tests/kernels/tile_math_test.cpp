#include "kernels/tile_math.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <vector>

#include "tests/kernels/random_tensor.hpp"

using namespace tt::kernels;

TEST_CASE("tile_exp is within a few ulp of exp and exact at the ends", "[unit][kernels]") {
  double worst = 0.0;
  for (float x = -87.0f; x <= 80.0f; x += 0.0137f) {
    const double want = std::exp(static_cast<double>(x));
    worst = std::max(worst, std::abs(tile_exp(x) - want) / want);
  }
  INFO("worst relative error " << worst);
  CHECK(worst < 4 * 0x1.0p-24);
  CHECK(tile_exp(0.0f) == 1.0f);
  CHECK(tile_exp(-90.0f) == 0.0f);
  CHECK(tile_exp(neg_inf<float>()) == 0.0f);
}

TEST_CASE("online softmax over tiles equals a two-pass softmax of the whole row", "[unit][kernels]") {
  // One query row of n scores against n values of width d, visited in tiles of `width` keys (the last one partial);
  // `valid` keys in all (a causal row), so trailing tiles are partly or wholly masked. sigma 8 makes the running max
  // move between tiles.
  const int n = 203;
  const int d = 3;
  const float scale = 0.5f;
  tt::kernels::test::SplitMix64 rng(42);
  std::vector<float> scores(n), values(n * d);
  for (float& x : scores) x = static_cast<float>(8.0 * rng.normal());
  for (float& x : values) x = static_cast<float>(rng.normal());

  for (const int valid : {n, 150, 1}) {
    for (const int width : {64, 16, 7}) {
      double max = -INFINITY;
      for (int j = 0; j < valid; ++j) max = std::max(max, double{scale} * scores[j]);
      double sum = 0.0;
      std::vector<double> want(d, 0.0);
      for (int j = 0; j < valid; ++j) {
        const double p = std::exp(double{scale} * scores[j] - max);
        sum += p;
        for (int c = 0; c < d; ++c) want[c] += p * values[j * d + c];
      }
      for (double& x : want) x /= sum;
      const double want_lse = max + std::log(sum);

      float m = neg_inf<float>();
      float l = 0.0f;
      std::vector<float> acc(d, 0.0f);
      for (int j0 = 0; j0 < n; j0 += width) {
        const int cols = std::min(width, n - j0);
        std::vector<float> tile(scores.begin() + j0, scores.begin() + j0 + cols);
        const float alpha = online_softmax_row(tile.data(), cols, std::clamp(valid - j0, 0, cols), scale, m, l);
        scale_row(acc.data(), d, alpha);
        for (int j = 0; j < cols; ++j) {
          if (j0 + j >= valid) CHECK(tile[j] == 0.0f);
          for (int c = 0; c < d; ++c) acc[c] += tile[j] * values[(j0 + j) * d + c];
        }
      }
      const float lse = finalize_row(acc.data(), d, m, l);
      INFO("valid " << valid << " tile width " << width);
      CHECK(m == Approx(max).epsilon(1e-6));
      CHECK(lse == Approx(want_lse).epsilon(1e-6));
      for (int c = 0; c < d; ++c) CHECK(acc[c] == Approx(want[c]).epsilon(1e-5).margin(1e-6));
    }
  }
}

TEST_CASE("a row with no valid key so far leaves the running state untouched", "[unit][kernels]") {
  std::vector<float> tile{3.0f, 1.0f};
  float m = neg_inf<float>();
  float l = 0.0f;
  CHECK(online_softmax_row(tile.data(), 2, 0, 1.0f, m, l) == 1.0f);
  CHECK(m == neg_inf<float>());
  CHECK(l == 0.0f);
  CHECK(tile == std::vector<float>{0.0f, 0.0f});
  std::vector<float> acc{5.0f};
  CHECK(finalize_row(acc.data(), 1, m, l) == neg_inf<float>());
  CHECK(acc[0] == 0.0f);
}

TEST_CASE("backward tile pieces: probabilities from lse, and dS rows that sum to zero", "[unit][kernels]") {
  const int n = 37;
  const float scale = 0.25f;
  tt::kernels::test::SplitMix64 rng(9);
  std::vector<float> scores(n), d_p(n);
  for (float& x : scores) x = static_cast<float>(4.0 * rng.normal());
  for (float& x : d_p) x = static_cast<float>(rng.normal());

  std::vector<float> p = scores;
  float m = neg_inf<float>();
  float l = 0.0f;
  online_softmax_row(p.data(), n, n, scale, m, l);
  std::vector<float> unused(1, 0.0f);
  const float lse = finalize_row(unused.data(), 1, m, l);

  p = scores;
  recompute_probs_row(p.data(), n, n, scale, lse);
  double total = 0.0;
  for (int j = 0; j < n; ++j) {
    CHECK(p[j] == Approx(std::exp(double{scale} * scores[j] - lse)).epsilon(1e-5));
    total += p[j];
  }
  CHECK(total == Approx(1.0).epsilon(1e-6));

  // D = sum_j P dP (which rowsum(dO * O) equals) makes each dS row sum to zero: softmax is shift-invariant.
  const float d_row = row_dot(p.data(), d_p.data(), n);
  std::vector<float> d_s = d_p;
  softmax_grad_row(d_s.data(), p.data(), n, d_row, scale);
  double ds_sum = 0.0, ds_abs = 0.0;
  for (int j = 0; j < n; ++j) {
    CHECK(d_s[j] == Approx(p[j] * (d_p[j] - d_row) * scale).epsilon(1e-6));
    ds_sum += d_s[j];
    ds_abs += std::abs(d_s[j]);
  }
  CHECK(std::abs(ds_sum) < 1e-6 * ds_abs);
}
