#include "core/cost/prices.hpp"

namespace tt::cost {

const GpuPrice* Prices::gpu_price(const std::string& site) const {
  for (const auto& p : gpu)
    if (p.site == site) return &p;
  return nullptr;
}

}  // namespace tt::cost
