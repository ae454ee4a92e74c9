// Preemption policy (Kueue semantics): which running jobs a waiting job may preempt, and in which order.
// Within its queue: lower-priority jobs (within_queue: LowerPriority). Reclaim: a queue that would stay within its
// nominal quota takes back GPUs from queues of its cohort that borrow (use more than their nominal quota; reclaim:
// LowerPriority or Any), never taking a queue below its guarantee (gpu_quota - lending_limit). Victims are ordered as
// Kueue orders them (before()).
#pragma once

#include <cstdint>
#include <vector>

#include "core/model/scenario.hpp"
#include "core/sched/quota.hpp"

namespace tt {

struct VictimCandidate {
  int job = -1;
  int queue = -1;
  int priority = 0;
  int gpus = 0;
  std::uint64_t admission = 0;  // the scheduler's admission counter when it last started: later is larger
  bool reclaim = false;         // from another queue of the cohort
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
  // Strict weak order, victims to try first first, in Kueue's order: those a reclaim takes from a borrowing queue,
  // then lower priority, then the most recently admitted; the job index last. Every key is one both drivers agree
  // on (no progress or checkpoint time: those differ between a simulated and a real run of the same scenario).
  bool before(const VictimCandidate& a, const VictimCandidate& b) const;

 private:
  std::vector<QueueSpec> queues_;
};

}  // namespace tt
