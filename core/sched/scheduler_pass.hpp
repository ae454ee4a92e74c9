// The Scheduler's per-pass state and search buffers, shared by its two source files (scheduler.cpp: the pass;
// scheduler_preempt.cpp: the preemption search). Private to core/sched.
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include "core/sched/freed_nodes.hpp"
#include "core/sched/scheduler.hpp"

namespace tt {

struct Scheduler::Pass {
  Seconds now;
  ClusterState* cluster;
  ScheduleResult result;
  std::vector<int> strict_blocked;  // per queue: its blocked head when the queue is StrictFIFO
  int blocker = -1;                 // backfill off: the first job blocked by capacity
  std::vector<int> shadow;          // reserved GPUs held back from jobs that would outlive the reservation
  bool shadow_on = false;
  // Per queue: jobs that found no victims, as (priority, gpus, queued at). A job with at least as many GPUs finds none
  // either if it has the same priority and was queued no earlier, or a lower priority and no borrow threshold: its
  // candidates are the same or fewer, met in the same order (a lower priority's are a prefix of each kind), so every
  // search below removes no more than the failed one did, and a larger job fits no sooner. (With borrow_within_cohort
  // the threshold depends on the priority, so only the same priority counts.)
  struct Failed {
    int priority, gpus;
    Seconds queued;
  };
  std::vector<std::vector<Failed>> preempt_failed;
  // Per queue: the fewest GPUs a job of it failed the quota with in this pass, while quota_epoch was `epoch` (a
  // committed preemption lowers usage and moves quota_epoch; starts only raise usage). A job asking at least as many
  // fails the quota as well (CohortQuota::fits falls with the GPUs asked).
  struct Wall {
    int gpus = 0;
    std::uint64_t epoch = ~std::uint64_t{0};
  };
  std::vector<Wall> quota_wall;
  std::uint64_t quota_epoch = 0;
  // Per queue, what quiet_wait() reads of its policies, gathered as the pass starts.
  struct QueueFacts {
    bool strict = false;     // StrictFIFO
    bool searches = false;   // it preempts within the queue or reclaims
    bool threshold = false;  // borrow_within_cohort
    int nominal = 0;
    int eligible_max = 0;    // the most GPUs a job of it may preempt for (PreemptionPolicy::eligible)
  };
  std::vector<QueueFacts> facts;
};

// try_preempt's buffers, kept from one search to the next.
struct Scheduler::Scratch {
  std::vector<VictimCandidate> cands;
  std::vector<long long> freed_in;  // GPUs freed per queue
  FreedNodes freed;  // what a set of victims would free
  std::vector<long long> bound_in;  // search_may_succeed: GPUs per queue
};

// Whether examining this pending job would do nothing: it fails the quota (a job of its queue asking no more GPUs
// failed it in this pass, and usage has not fallen since), its preemption search ends before it starts (no
// preemption for its queue, not eligible, or the pass's record of failed searches, as try_preempt reads it), and it
// already waits for quota, or for the running job that preempted it, in a queue that is not StrictFIFO (examine's
// quiet return). In the first round a job that would borrow ends its queue's round, so one asking more than the
// nominal quota counts. Inline: a pass asks it of every waiting job it passes over.
inline bool Scheduler::quiet_wait(const Key& k, int q, bool first_round, const Pass& p) const {
  if (!quiet_[static_cast<std::size_t>(k.job)]) return false;
  const Pass::QueueFacts& f = p.facts[static_cast<std::size_t>(q)];
  if (f.strict) return false;
  const Pass::Wall& w = p.quota_wall[static_cast<std::size_t>(q)];
  if (w.epoch != p.quota_epoch || k.gpus < w.gpus) return false;
  if (first_round && k.gpus > f.nominal) return false;
  if (!f.searches || k.gpus > f.eligible_max) return true;
  const int prio = -k.neg_priority;
  for (const auto& failed : p.preempt_failed[static_cast<std::size_t>(q)])
    if (failed.gpus <= k.gpus &&
        ((failed.priority == prio && failed.queued <= k.enqueued) || (failed.priority > prio && !f.threshold)))
      return true;
  return false;
}

}  // namespace tt
