#include "core/sched/backfill.hpp"

namespace tt {

std::optional<Reservation> EasyBackfill::reserve(int job, const PlacementRequest& request, Seconds now,
                                                 const std::function<bool(RunningEnd&)>& next_end, ClusterState& state,
                                                 const PlacementPolicy& placement) {
  std::optional<Reservation> found;
  freed_.reset(state);
  released_.clear();    // freed into the state
  unreleased_.clear();  // counted only: released before the next placement is tried
  RunningEnd cur, ahead;
  bool have_ahead = next_end(ahead);
  while (have_ahead) {
    cur = ahead;
    if (cur.per_node != nullptr)
      freed_.add(*cur.per_node);
    else
      freed_.add(*cur.gpus);
    unreleased_.push_back(cur.gpus);
    have_ahead = next_end(ahead);
    if (have_ahead && ahead.end == cur.end) continue;  // jobs ending together free their GPUs together
    if (!freed_.may_place(request.gpus, request.max_groups)) continue;  // no placement could succeed yet
    for (const auto* gpus : unreleased_) state.release(*gpus), released_.push_back(gpus);
    unreleased_.clear();
    freed_.reset(state);  // counted from the state as it is now
    auto placed = placement.place(state, request);
    if (!placed.gpus.empty()) {
      found = Reservation{job, std::max(now, cur.end), std::move(placed.gpus)};
      break;
    }
  }
  for (const auto* gpus : released_) state.allocate(*gpus);
  return found;
}

}  // namespace tt
