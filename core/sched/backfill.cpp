#include "core/sched/backfill.hpp"

namespace tt {

std::optional<Reservation> EasyBackfill::reserve(int job, const PlacementRequest& request, Seconds now,
                                                 const std::vector<RunningEnd>& running, ClusterState& state,
                                                 const PlacementPolicy& placement) const {
  std::optional<Reservation> found;
  std::size_t released = 0;
  for (; released < running.size(); ++released) {
    state.release(*running[released].gpus);
    // Jobs ending at the same time free their GPUs together.
    if (released + 1 < running.size() && running[released + 1].end == running[released].end) continue;
    auto placed = placement.place(state, request);
    if (!placed.gpus.empty()) {
      found = Reservation{job, std::max(now, running[released].end), std::move(placed.gpus)};
      ++released;
      break;
    }
  }
  for (std::size_t i = 0; i < released && i < running.size(); ++i) state.allocate(*running[i].gpus);
  return found;
}

}  // namespace tt
