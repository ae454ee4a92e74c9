#include "core/sched/preemption.hpp"

#include <algorithm>

namespace tt {

bool PreemptionPolicy::within_candidate(int queue, int priority, Seconds queued, int victim_priority,
                                        Seconds victim_queued) const {
  switch (queues_[queue].within_queue) {
    case WithinQueuePreemption::Never:
      return false;
    case WithinQueuePreemption::LowerPriority:
      return victim_priority < priority;
    case WithinQueuePreemption::LowerOrNewerEqualPriority:
      return victim_priority < priority || (victim_priority == priority && queued < victim_queued);
  }
  return false;
}

bool PreemptionPolicy::reclaim_candidate(int queue, int priority, int victim_priority) const {
  switch (queues_[queue].reclaim) {
    case ReclaimPreemption::Never:
      return false;
    case ReclaimPreemption::LowerPriority:
      return victim_priority < priority;
    case ReclaimPreemption::Any:
      return true;
  }
  return false;
}

std::optional<int> PreemptionPolicy::borrow_threshold(int queue, int priority) const {
  const QueueSpec& q = queues_[queue];
  if (!q.borrow_within_cohort) return std::nullopt;
  if (q.max_priority_threshold && *q.max_priority_threshold < priority) return *q.max_priority_threshold + 1;
  return priority;
}

}  // namespace tt
