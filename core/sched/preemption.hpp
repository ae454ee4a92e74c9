// Preemption policy (Kueue semantics): which running jobs a waiting job may preempt, and in which order.
// Within its queue: lower-priority jobs (within_queue: LowerPriority). Reclaim: a queue that would stay within its
// nominal quota takes back GPUs from queues of its cohort that borrow (use more than their nominal quota; reclaim:
// LowerPriority or Any), never taking a queue below its guarantee (gpu_quota - lending_limit). Victims are ordered to
// lose the least work: the least GPU-time since their last checkpoint (or start) first, then lower priority, then the
// most recently started.
#pragma once

#include <vector>

#include "core/model/scenario.hpp"
#include "core/sched/quota.hpp"

namespace tt {

struct VictimCandidate {
  int job = -1;
  int queue = -1;
  int priority = 0;
  int gpus = 0;
  Seconds start;
  Seconds last_checkpoint;  // or the start, when none since
  bool reclaim = false;     // from another queue of the cohort
};

class PreemptionPolicy {
 public:
  explicit PreemptionPolicy(const std::vector<QueueSpec>& queues) : queues_(queues) {}
  const char* name() const { return "kueue-preemption"; }

  bool preempts_within(int queue) const { return queues_[queue].within_queue != WithinQueuePreemption::Never; }
  bool reclaims(int queue) const { return queues_[queue].reclaim != ReclaimPreemption::Never; }
  ReclaimPreemption reclaim_mode(int queue) const { return queues_[queue].reclaim; }
  // May a job of (queue, priority, gpus) preempt the candidate, given current usage? Sets candidate.reclaim.
  bool may_preempt(int queue, int priority, int gpus, VictimCandidate& candidate, const CohortQuota& quota,
                   const QuotaUsage& usage) const;
  // The victim's queue still borrows and removing it keeps the queue at or above its guarantee (always true within
  // a queue).
  bool keeps_guarantee(const VictimCandidate& v, const CohortQuota& quota, const QuotaUsage& usage) const;
  // Strict weak order: victims to try first come first.
  bool before(const VictimCandidate& a, const VictimCandidate& b, Seconds now) const;

 private:
  std::vector<QueueSpec> queues_;
};

}  // namespace tt
