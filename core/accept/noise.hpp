// The noise model behind every acceptance threshold: a healthy measurement is the expected value times a log-normal
// factor, exp(sigma x Z) with Z standard normal. A threshold then implies a false-failure rate (the chance that a
// healthy cluster fails the item), and a target rate implies a threshold. Pure functions.
#pragma once

#include <string>

namespace tt::accept {

struct Noise {
  double sigma = 0;    // of the natural log of measured / expected; > 0
  std::string source;  // where sigma comes from, in words
};

double normal_cdf(double z);
double normal_quantile(double p);  // p in (0, 1)

// A figure that must stay at or above the threshold (bandwidth): threshold = expected x exp(-z(rate) x sigma).
double lower_threshold(double expected, double sigma, double false_failure);
// P(healthy measurement < threshold).
double false_failure_below(double expected, double threshold, double sigma);
// A figure that must stay at or below the threshold (a time): threshold = expected x exp(z(rate) x sigma).
double upper_threshold(double expected, double sigma, double false_failure);
double false_failure_above(double expected, double threshold, double sigma);

// The log-normal sigma that gives a mean absolute relative error `mape` (E|X - 1| ~ sigma x sqrt(2 / pi) for small
// sigma): turns a calibration's error table into a noise model.
double sigma_from_mape(double mape);

// The chance that at least one of independent items fails: 1 - prod(1 - p).
double any_fails(const double* rates, int n);

}  // namespace tt::accept
