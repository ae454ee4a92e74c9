// The mean of a figure over a point's seeds and its confidence interval: Student's t interval on the sample mean,
// mean +- t(1 - (1 - c) / 2, n - 1) x s / sqrt(n), with s the sample standard deviation (n - 1 in the denominator)
// and t's quantile from Boost.Math. It assumes the seeds' values are independent draws of a roughly normal figure; with
// one value there is no interval (low and high are the mean, `n` says 1).
#pragma once

#include <optional>
#include <vector>

namespace tt::sweep {

struct Interval {
  int n = 0;  // values (seeds with a measured figure)
  double mean = 0;
  double sd = 0;  // sample standard deviation; 0 when n < 2
  double low = 0, high = 0;
  bool has_interval() const { return n >= 2; }
};

// nullopt when `values` is empty. `confidence` in (0, 1).
std::optional<Interval> mean_interval(const std::vector<double>& values, double confidence);

}  // namespace tt::sweep
