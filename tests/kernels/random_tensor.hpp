// Portable random test inputs: splitmix64 -> uniform -> normal (Box-Muller), the same values on every standard
// library (std:: distributions are not). Tensors are drawn in fp64; the kernels under test get them rounded to fp32.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

namespace tt::kernels::test {

class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}

  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // In (0, 1): 53 random bits, offset by half a step so that log() never sees 0.
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }
  double normal() {
    const double radius = std::sqrt(-2.0 * std::log(uniform()));
    return radius * std::cos(6.283185307179586 * uniform());
  }

 private:
  std::uint64_t state_;
};

// count normal draws times sigma, already rounded to fp32 so that the fp64 reference sees the kernel's exact inputs.
inline std::vector<double> normal_tensor(std::int64_t count, std::uint64_t seed, double sigma = 1.0) {
  SplitMix64 rng(seed);
  std::vector<double> x(static_cast<std::size_t>(count));
  for (double& value : x) value = static_cast<float>(sigma * rng.normal());
  return x;
}

inline std::vector<float> to_float(const std::vector<double>& x) { return std::vector<float>(x.begin(), x.end()); }

}  // namespace tt::kernels::test
