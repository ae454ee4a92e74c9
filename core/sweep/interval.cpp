#include "core/sweep/interval.hpp"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace tt::sweep {

std::optional<Interval> mean_interval(const std::vector<double>& values, double confidence) {
  if (values.empty()) return std::nullopt;
  Interval r;
  r.n = static_cast<int>(values.size());
  double sum = 0;
  for (double v : values) sum += v;
  r.mean = sum / r.n;
  r.low = r.high = r.mean;
  if (r.n < 2) return r;
  double ss = 0;
  for (double v : values) ss += (v - r.mean) * (v - r.mean);
  r.sd = std::sqrt(ss / (r.n - 1));
  const boost::math::students_t dist(r.n - 1);
  const double t = boost::math::quantile(dist, 1 - (1 - confidence) / 2);
  const double half = t * r.sd / std::sqrt(static_cast<double>(r.n));
  r.low = r.mean - half;
  r.high = r.mean + half;
  return r;
}

}  // namespace tt::sweep
