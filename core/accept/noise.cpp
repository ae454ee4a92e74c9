#include "core/accept/noise.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

namespace tt::accept {

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }

double normal_quantile(double p) {
  assert(p > 0 && p < 1);
  double lo = -40, hi = 40;  // normal_cdf is monotone: bisection to double precision
  for (int i = 0; i < 200 && hi - lo > 1e-13; ++i) {
    const double mid = 0.5 * (lo + hi);
    (normal_cdf(mid) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double lower_threshold(double expected, double sigma, double false_failure) {
  return expected * std::exp(normal_quantile(false_failure) * sigma);
}

double false_failure_below(double expected, double threshold, double sigma) {
  if (threshold <= 0) return 0;
  return normal_cdf(std::log(threshold / expected) / sigma);
}

double upper_threshold(double expected, double sigma, double false_failure) {
  return expected * std::exp(-normal_quantile(false_failure) * sigma);
}

double false_failure_above(double expected, double threshold, double sigma) {
  return 1 - normal_cdf(std::log(threshold / expected) / sigma);
}

double sigma_from_mape(double mape) { return mape * std::sqrt(std::numbers::pi / 2); }

double any_fails(const double* rates, int n) {
  double all_pass = 1;
  for (int i = 0; i < n; ++i) all_pass *= 1 - rates[i];
  return 1 - all_pass;
}

}  // namespace tt::accept
