// Preemption policy (Kueue's classical preemption, pkg/scheduler/preemption): which running jobs a waiting job may
// preempt, in which order, and under which borrowing rule. Candidates: in the job's own queue, lower priorities
// (within_queue: LowerPriority) or also equal priorities queued after the job (LowerOrNewerEqualPriority); in the
// cohort, jobs of queues that borrow (reclaim_within_cohort: LowerPriority or Any). A job is eligible to preempt only
// if it alone fits within its queue's nominal quota, unless borrow_within_cohort is on. The scheduler searches the
// candidates in before() order for a minimal set (scheduler.cpp, try_preempt); this object holds no state.
#pragma once

#include <cstdint>
#include <optional>
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
  Seconds lost;                 // work since its last checkpoint (read only by VictimOrder::LeastWorkLost)
};

class PreemptionPolicy {
 public:
  PreemptionPolicy(const std::vector<QueueSpec>& queues, VictimOrder order) : queues_(queues), order_(order) {}
  const char* name() const { return order_ == VictimOrder::Kueue ? "kueue" : "kueue-least-work-lost"; }

  bool preempts_within(int queue) const { return queues_[queue].within_queue != WithinQueuePreemption::Never; }
  bool newer_equal_within(int queue) const {
    return queues_[queue].within_queue == WithinQueuePreemption::LowerOrNewerEqualPriority;
  }
  bool reclaims(int queue) const { return queues_[queue].reclaim != ReclaimPreemption::Never; }
  bool has_borrow_threshold(int queue) const { return queues_[queue].borrow_within_cohort; }  // borrow_threshold()
  ReclaimPreemption reclaim_mode(int queue) const { return queues_[queue].reclaim; }
  // Kueue's flavor assigner: a job may trigger preemption only if it alone fits within the nominal quota, or, with
  // borrow_within_cohort, within what the queue may ever use (max_usable; the reader already guarantees that).
  bool eligible(int queue, int gpus, const CohortQuota& quota) const {
    return gpus <= quota.nominal(queue) || queues_[queue].borrow_within_cohort;
  }
  // A job of the queue (priority, queued at `queued`) may preempt a running job of the same queue (priority,
  // queued at `victim_queued`).
  bool within_candidate(int queue, int priority, Seconds queued, int victim_priority, Seconds victim_queued) const;
  // ... a running job of another queue of its cohort that borrows now.
  bool reclaim_candidate(int queue, int priority, int victim_priority) const;
  // borrow_within_cohort: victims from other queues below this priority let the job borrow; nullopt when off.
  // Kueue's canBorrowWithinCohort: the job's priority, or max_priority_threshold + 1 when that is lower.
  std::optional<int> borrow_threshold(int queue, int priority) const;
  // Strict weak order, victims to try first first, as Kueue's candidatesOrdering: those of other (borrowing) queues,
  // then lower priority, then (LeastWorkLost only) less work since the last checkpoint, then the most recently
  // admitted; the job index last. Kueue's keys are ones both drivers agree on; checkpoint times are not.
  bool before(const VictimCandidate& a, const VictimCandidate& b) const {  // inline: sorts call it millions of times
    if (a.reclaim != b.reclaim) return a.reclaim;
    if (a.priority != b.priority) return a.priority < b.priority;
    if (order_ == VictimOrder::LeastWorkLost && a.lost != b.lost) return a.lost < b.lost;
    if (a.admission != b.admission) return a.admission > b.admission;
    return a.job < b.job;
  }

 private:
  std::vector<QueueSpec> queues_;
  VictimOrder order_;
};

}  // namespace tt
