#include "core/model/pools.hpp"

#include <algorithm>
#include <numeric>
#include <tuple>

namespace tt {

const char* to_string(PoolKind k) {
  switch (k) {
    case PoolKind::Fixed: return "fixed";
    case PoolKind::Elastic: return "elastic";
    case PoolKind::Spot: return "spot";
  }
  return "?";
}

const char* to_string(PriceKind k) {
  switch (k) {
    case PriceKind::OnDemand: return "on_demand";
    case PriceKind::Reserved: return "reserved";
    case PriceKind::Spot: return "spot";
  }
  return "?";
}

const std::vector<std::string>& price_kind_names() {
  static const std::vector<std::string> names = {"on_demand", "reserved", "spot"};
  return names;
}

std::vector<int> pool_tiers(const std::vector<PoolSpec>& pools) {
  std::vector<int> order(pools.size());
  std::iota(order.begin(), order.end(), 0);
  auto key = [&](int p) { return std::make_tuple(pools[p].kind != PoolKind::Fixed, pools[p].price_per_gpu_hour, p); };
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return key(a) < key(b); });
  std::vector<int> tier(pools.size());
  for (std::size_t r = 0; r < order.size(); ++r) tier[order[r]] = static_cast<int>(r);
  return tier;
}

}  // namespace tt
