// EASY backfill: the first job that cannot start gets a reservation at the earliest time enough GPUs free up, from
// the running jobs' estimated ends; a later job may start now only if it ends by then, or if it leaves the reserved
// nodes alone. reserve() works by releasing running jobs' GPUs into the state in end order until the placement policy
// can place the job; the state is given back unchanged. It counts what the jobs would free first (FreedNodes), and
// releases them and asks the policy only where a placement could succeed.
#pragma once

#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "core/model/units.hpp"
#include "core/sched/freed_nodes.hpp"
#include "core/sched/placement.hpp"

namespace tt {

struct Reservation {
  int job = -1;
  Seconds start;
  std::vector<int> gpus;  // where the job would run at `start`
};

struct RunningEnd {
  Seconds end;                   // estimated
  const std::vector<int>* gpus;  // held until then
  const std::vector<std::pair<int, int>>* per_node = nullptr;  // the same GPUs as (node, count), when known
};

class EasyBackfill {
 public:
  const char* name() const { return "easy"; }
  // `next_end` yields the running jobs in order of estimated end (false when there are no more); it is walked only
  // as far as needed. nullopt when the job cannot be placed even once every running job has ended (nodes down, or a
  // topology constraint the cluster cannot meet).
  std::optional<Reservation> reserve(int job, const PlacementRequest& request, Seconds now,
                                     const std::function<bool(RunningEnd&)>& next_end, ClusterState& state,
                                     const PlacementPolicy& placement);
  // May a job that would end at `end` use GPUs the reservation needs?
  bool may_use_reserved(Seconds end, const Reservation& r) const { return end <= r.start; }

 private:
  FreedNodes freed_;
  std::vector<const std::vector<int>*> released_, unreleased_;
};

}  // namespace tt
