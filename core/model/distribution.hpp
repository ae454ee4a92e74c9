// A duration drawn from a distribution (a repair time, a provisioning delay); drawn by draw_repair()
// (core/fault/stochastic.hpp) from the scenario's seed.
#pragma once

#include "core/model/units.hpp"

namespace tt {

struct RepairDistribution {
  enum class Shape { Fixed, Exponential, Lognormal } shape = Shape::Fixed;
  Seconds scale = Seconds(3600);  // Fixed: the value; Exponential: the mean; Lognormal: the median
  double sigma = 1.0;             // Lognormal only
};

}  // namespace tt
