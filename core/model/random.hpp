// Rng: the one source of randomness. splitmix64 (Steele, Lea, Flood 2014) and distributions by inverse transform, so
// a seed gives the same draws on every compiler and standard library (std:: distributions differ between them).
// Streams: Rng(seed, stream) gives independent sequences for independent uses of one scenario seed.
#pragma once

#include <cstdint>

namespace tt {

class Rng {
 public:
  explicit Rng(std::uint64_t seed, std::uint64_t stream = 0);
  std::uint64_t next_u64();
  double uniform();                         // in [0, 1), 53 random bits
  std::uint64_t below(std::uint64_t n);     // in [0, n), n > 0 (unbiased, rejection)
  double exponential(double rate);          // mean 1/rate, rate > 0
  double normal(double mean, double sigma);
  double lognormal(double median, double sigma);  // exp(N(ln median, sigma))

 private:
  std::uint64_t state_;
};

// The standard normal quantile function (Acklam's rational approximation, refined by one Halley step: |error| < 1e-15
// in double precision). p in (0, 1).
double normal_quantile(double p);

}  // namespace tt
