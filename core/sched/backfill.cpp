#include "core/sched/backfill.hpp"

namespace tt {

std::optional<Reservation> EasyBackfill::reserve(int job, const PlacementRequest& request, Seconds now,
                                                 const std::function<bool(RunningEnd&)>& next_end, ClusterState& state,
                                                 const PlacementPolicy& placement) const {
  std::optional<Reservation> found;
  std::vector<const std::vector<int>*> released;
  RunningEnd cur, ahead;
  bool have_ahead = next_end(ahead);
  while (have_ahead) {
    cur = ahead;
    state.release(*cur.gpus);
    released.push_back(cur.gpus);
    have_ahead = next_end(ahead);
    if (have_ahead && ahead.end == cur.end) continue;  // jobs ending together free their GPUs together
    auto placed = placement.place(state, request);
    if (!placed.gpus.empty()) {
      found = Reservation{job, std::max(now, cur.end), std::move(placed.gpus)};
      break;
    }
  }
  for (const auto* gpus : released) state.allocate(*gpus);
  return found;
}

}  // namespace tt
