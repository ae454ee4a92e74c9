// The Scheduler's per-pass state and search buffers, shared by the source files that use them (scheduler.cpp: the pass;
// scheduler_preempt.cpp: the preemption search; scheduler_reasons.cpp: a waiting job's reason). Private to core/sched.
#pragma once

#include <climits>
#include <cstdint>
#include <vector>

#include "core/sched/failed_searches.hpp"
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
  std::vector<FailedSearches> preempt_failed;  // core/sched/failed_searches.hpp
  // Per queue, what pass_over() reads of its policies, gathered as the pass starts.
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

// Whether examining this pending job would change nothing but its reason, in a queue that is not StrictFIFO, its
// preemption search ending before it starts (no preemption for its queue, not eligible, the pass's record of failed
// searches, or the search's first bound, as try_preempt reads them), and
// - the quota stops it, and it already waits for quota, or for the running job that preempted it (examine's quiet
//   return); in the first round a job that would borrow ends its queue's round, so one asking more than the nominal
//   quota counts; or
// - it fits the quota (without borrowing in the first round), backfill is on and the pass has made its reservation
//   (so no job is named as blocking, and none is reserved for), and once the backfill shadow is set for it the counts
//   alone rule its placement out (count_shortfall): more GPUs asked than are free (capacity), or no node with as many
//   free as a job of one node asks, or fewer whole nodes free than a larger job needs (fragmentation); examine then
//   names the reservation if the job would outlive it and the reserved GPUs would make up the rest, what placement
//   says otherwise; a job that already waits for that, or for the running job that preempted it, keeps its reason,
//   and one that waits for something else is given it (wait()) without an examination.
// The second sets the backfill shadow for the job as examine would first (where it is on decides which GPUs later
// jobs are placed on); examine sets it the same way if the job is examined after all. reason() gives a job passed
// over the figures examine would have given it. Inline: a pass asks it of every waiting job it passes.
inline bool Scheduler::pass_over(const Key& k, bool first_round, Pass& p) {
  const int q = k.queue;
  const char quiet = quiet_[static_cast<std::size_t>(k.job)];
  if (!quiet || examine_all_) return false;
  const Pass::QueueFacts& f = p.facts[static_cast<std::size_t>(q)];
  if (f.strict) return false;
  auto search_ends = [&] {
    if (!f.searches || k.gpus > f.eligible_max) return true;
    return p.preempt_failed[static_cast<std::size_t>(q)].covers(-k.neg_priority, k.gpus, k.enqueued, f.threshold);
  };
  // Or it would fail at once, on counts: what every job it could take holds, with the free GPUs, is less than it
  // asks (try_preempt's first bound). The pass records the failure as try_preempt does, for the jobs after it.
  auto search_fails = [&](int free) {
    if (search_ends()) return true;
    const int prio = -k.neg_priority;
    const long long avail = preemptible_gpus(q, prio);
    if (avail != 0 && free + avail >= k.gpus) return false;
    p.preempt_failed[static_cast<std::size_t>(q)].add(prio, k.gpus, k.enqueued);
    return true;
  };
  if (!quota_.fits(usage_, q, k.gpus)) {
    if (quiet != kQuotaQuiet && quiet != kPreemptedQuiet) return false;
    if (first_round && k.gpus > f.nominal) return false;
    return search_fails(p.cluster->total_free_gpus());
  }
  if (quiet == kQuotaQuiet || !options_.backfill || !reservation_) return false;
  if (first_round && usage_.used[static_cast<std::size_t>(q)] + k.gpus > f.nominal) return false;
  const bool outlives = !backfill_.may_use_reserved(p.now + runtime_[static_cast<std::size_t>(k.job)], *reservation_);
  set_shadow(outlives, p);
  const ClusterState& c = *p.cluster;
  const int free = c.total_free_gpus();
  const int gpn = c.gpus_per_node();
  // Placement fails on the counts alone (count_shortfall: in any range, so on every site and pool as well).
  if (k.gpus <= free && (k.gpus <= gpn ? c.max_free_on_a_node() >= k.gpus : c.whole_free_nodes() >= k.gpus / gpn))
    return false;
  if (!search_fails(free)) return false;
  const bool reserved = outlives && !p.shadow.empty() && k.gpus <= free + static_cast<int>(p.shadow.size());
  if (quiet == kPreemptedQuiet) return true;  // wait() names the job that preempted it, as it does already
  const char says = reserved ? kReservationQuiet : k.gpus > free ? kCapacityQuiet : kFragmentationQuiet;
  // The figures wait() would write, for reason(): the reservation's are the pass's; the others, the counts now.
  if (figures_.empty() || figures_read_ != c.changes()) {  // GPUs taken or freed since they were last read
    const FreeCounts now = free_counts(c);
    if (figures_.empty() || !(figures_.back() == now)) figures_.push_back(now);
    figures_read_ = c.changes();
  }
  if (quiet != says) {
    // It waits for something else now (the free GPUs crossed its size, or the reservation came or went): the reason
    // examine would give, without its placement attempt and search, which the counts and the record already decide.
    ++reason_changes_;
    figures_at_[static_cast<std::size_t>(k.job)] = kExamined;
    wait(k.job, reserved ? reservation_reason() : count_shortfall(k.gpus, gpn, figures_.back()), p);
    return true;
  }
  figures_at_[static_cast<std::size_t>(k.job)] = static_cast<std::uint32_t>(figures_.size() - 1);
  return true;
}

}  // namespace tt
