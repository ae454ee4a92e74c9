#include "core/plan/collective.hpp"

#include <cassert>

namespace tt {

extern const CollectiveInfo kAllReduce, kReduceScatter, kAllGather, kBroadcast, kReduce, kAllToAll, kSendRecv;

const std::vector<const CollectiveInfo*>& all_collectives() {
  static const std::vector<const CollectiveInfo*> table = {&kAllReduce, &kReduceScatter, &kAllGather, &kBroadcast,
                                                           &kReduce,    &kAllToAll,      &kSendRecv};
  return table;
}

const CollectiveInfo& collective_info(Collective c) {
  for (const CollectiveInfo* info : all_collectives())
    if (info->id == c) return *info;
  assert(false && "every Collective has a table entry");
  return kAllReduce;
}

Bandwidth bandwidth(Collective c, int ranks, Bytes size, Seconds time) {
  if (time.value <= 0) return {};
  BytesPerSecond algbw(size.value / time.value);
  return {algbw, algbw * collective_info(c).bus_factor(ranks)};
}

}  // namespace tt
