#include "core/rollout/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <boost/math/distributions/beta.hpp>
#include <boost/math/distributions/normal.hpp>

namespace tt::rollout {

RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b) {
  RankTest r;
  r.n = static_cast<int>(a.size());
  r.m = static_cast<int>(b.size());
  if (a.empty() || b.empty()) return r;
  std::vector<std::pair<double, int>> all;  // value, 0 for a / 1 for b
  for (double x : a) all.emplace_back(x, 0);
  for (double x : b) all.emplace_back(x, 1);
  std::sort(all.begin(), all.end());
  const double n = r.n, m = r.m, total = n + m;
  double rank_sum_a = 0, tie_term = 0;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    const double mid_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2.0;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    for (std::size_t k = i; k < j; ++k)
      if (all[k].second == 0) rank_sum_a += mid_rank;
    i = j;
  }
  r.u = rank_sum_a - n * (n + 1) / 2.0;
  const double mean = n * m / 2.0;
  const double var = n * m / 12.0 * ((total + 1) - tie_term / (total * (total - 1)));
  if (var <= 0) return r;
  const double d = r.u - mean;
  r.z = (d > 0 ? d - 0.5 : std::min(0.0, d + 0.5)) / std::sqrt(var);
  r.p_greater = boost::math::cdf(boost::math::complement(boost::math::normal(), r.z));
  return r;
}

Interval clopper_pearson(int k, int n, double confidence) {
  const double alpha = 1 - confidence;
  Interval iv;
  if (k > 0) iv.lo = boost::math::quantile(boost::math::beta_distribution<>(k, n - k + 1), alpha / 2);
  if (k < n) iv.hi = boost::math::quantile(boost::math::beta_distribution<>(k + 1, n - k), 1 - alpha / 2);
  return iv;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t h = v.size() / 2;
  return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
}

}  // namespace tt::rollout
