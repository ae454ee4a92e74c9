// Portable seeded randomness: splitmix64 and distributions by inverse transform, so a seed gives the same draws on
// every standard library (std:: distributions do not). A Random is a value; copy it to fork a stream.
#pragma once

#include <cstdint>

namespace tt {

class Random {
 public:
  explicit Random(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();                       // splitmix64
  double uniform();                           // [0, 1)
  double uniform(double lo, double hi);       // [lo, hi)
  int uniform_int(int lo, int hi);            // [lo, hi], hi - lo < 2^31
  double exponential(double mean);            // inverse transform
  double normal(double mean, double stddev);  // inverse of the normal CDF (Acklam's rational approximation)

 private:
  std::uint64_t state_;
};

}  // namespace tt
