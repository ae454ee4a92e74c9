#include "core/cost/prices.hpp"

namespace tt::cost {

const char* to_string(PriceKind k) {
  switch (k) {
    case PriceKind::OnDemand: return "on_demand";
    case PriceKind::Reserved: return "reserved";
    case PriceKind::Spot: return "spot";
  }
  return "?";
}

const GpuPrice* Prices::gpu_price(const std::string& site) const {
  for (const auto& p : gpu)
    if (p.site == site) return &p;
  return nullptr;
}

}  // namespace tt::cost
