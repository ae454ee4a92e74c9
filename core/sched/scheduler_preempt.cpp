// The Scheduler's preemption search (Kueue's preemption: candidates, minimal victim sets, the paths of GetTargets), and
// the bounds and memo that let a pass skip searches whose outcome is already known. The pass is in scheduler.cpp.
#include <algorithm>
#include <cassert>
#include <functional>

#include "core/sched/scheduler.hpp"
#include "core/sched/scheduler_pass.hpp"

namespace tt {

long long Scheduler::preemptible_gpus(int q, int prio) const {
  auto held_below = [&](int r, int bound) {  // GPUs held by the queue's jobs of priority < bound
    long long sum = 0;
    for (const auto& [pr, gp] : running_gpus_[r]) {
      if (pr >= bound) break;
      sum += gp;
    }
    return sum;
  };
  long long avail = 0;
  if (preemption_.preempts_within(q)) avail += held_below(q, preemption_.newer_equal_within(q) ? prio + 1 : prio);
  // Other queues' jobs are taken only while the queue is under its nominal quota, or with borrow_within_cohort.
  if (preemption_.reclaims(q) && (usage_.used[q] < nominal_[q] || preemption_.has_borrow_threshold(q)))
    for (int r : cohort_queues_[q]) {
      if (r == q || !quota_.borrowing(usage_, r)) continue;
      avail += preemption_.reclaim_mode(q) == ReclaimPreemption::Any ? usage_.used[r] : held_below(r, prio);
    }
  return avail;
}

template <class Candidate>
void Scheduler::park_fresh(RunningList& list, const Candidate& candidate, Seconds now) {
  const Seconds exempt = options_.preemption_exempt_time;
  bool grown_now = false;
  for (std::size_t i = list.settled; i < list.active;) {
    const Running& y = list.jobs[i];
    // Compared as the deadline is (start + exempt > now), not as now - start < exempt: in floating point both can
    // hold with start + exempt == now, and a deadline that is already due made the controller loop on Timer.
    if (y.start + exempt <= now) {  // never exempt again
      // A candidate from now on, which a failed search that met it as it started did not take: stamped as it joins.
      swap_running(list, i++, list.settled++);
      list.grown = stamp_ + 1;
      grown_now = true;
    } else if (y.start == now || !candidate(y)) {  // started at this instant (never killed before it ran): fresh
      ++i;
    } else {  // exempt: look again once it may be preempted (listed once per start), parked until then
      relax_.insert({y.start + exempt, y.job});
      list.active_gpus -= y.gpus;
      hold(jobs_[y.job], list.bit, kOtherLists);
      swap_running(list, i, --list.active);  // the job swapped in is read next, at i
    }
  }
  if (grown_now) ++stamp_;
}

// The search below (try_preempt) on quota and GPU counts alone, before it gathers a candidate: along each path it may
// take, every job it could gather taken at once (the active jobs of the priorities its rules take: a superset of its
// candidates). Quota fits only more as usage falls, so where this says no, each of its searches stops at its first
// check ("possible" in minimal()), and the search is skipped with the same outcome; most searches in a busy queue
// ended there, after reading every candidate. What the search would do besides, park the exempt jobs it meets, is
// done first, reading the fresh jobs of the lists it reads (every exempt active job is fresh: RunningList).
bool Scheduler::search_may_succeed(const Job& x, Pass& p) {
  const int q = x.spec.queue;
  const int prio = x.spec.priority;
  const int g = x.spec.gpus;
  const bool threshold = preemption_.has_borrow_threshold(q);
  const bool under_nominal = usage_.used[q] < nominal_[q];
  const bool equal_too = preemption_.newer_equal_within(q);
  std::vector<long long>& in = scratch_->bound_in;
  in.assign(usage_.used.size(), 0);
  long long own = 0, reclaim = 0;
  std::uint64_t own_lists = 0, all_lists = 0;  // the lists' bits (all ones: a list past the 63rd, not indexed)
  std::uint64_t help = freed_stamp_;  // the latest stamp the search reads
  for (int r : cohort_queues_[q]) {
    if (r == q ? !preemption_.preempts_within(q) : !preemption_.reclaims(q) || !quota_.borrowing(usage_, r)) continue;
    if (r != q) help = std::max(help, borrow_stamp_[r]);
    for (auto& [vp, list] : running_in_[r]) {
      if (r == q ? vp > prio || (vp == prio && !equal_too) : !preemption_.reclaim_candidate(q, prio, vp)) {
        if (r == q || vp > prio) break;  // by priority, as the search stops
        continue;
      }
      if (list.active == 0) continue;
      if (list.settled < list.active) {
        if (r == q)
          park_fresh(
              list, [&](const Running& y) { return preemption_.within_candidate(q, prio, x.enqueued, vp, y.enqueued); },
              p.now);
        else
          park_fresh(list, [](const Running&) { return true; }, p.now);
      }
      help = std::max(help, list.grown);
      const std::uint64_t bit = list.bit == kOtherLists ? ~std::uint64_t{0} : std::uint64_t{1} << list.bit;
      all_lists |= bit;
      if (r == q) own_lists |= bit;
      in[r] += list.active_gpus;
      (r == q ? own : reclaim) += list.active_gpus;
    }
  }
  // Its last full search failed, and nothing that could help it has happened since.
  if (!p.shadow_on && searched_[static_cast<std::size_t>(&x - jobs_.data())] > help) return false;
  const long long free = p.cluster->total_free_gpus();
  // Whether the job fits with these GPUs freed: what minimal() checks first; and, for a job of whole nodes, whether
  // enough nodes would be wholly free (within the leaf groups a required topology constraint allows), counting every
  // node no job outside these lists holds GPUs on (NodeHolders: up or not, none held back): what room_after() checks
  // with every victim taken, and placement needs (a bound on it: the search frees no more than all of them).
  const int gpn = p.cluster->gpus_per_node();
  const auto& topo = x.spec.topology;
  const int max_groups = topo.required && !(topo.max_wait && p.now >= x.enqueued + *topo.max_wait)
                             ? topo.max_leaf_groups : 0;
  auto possible = [&](bool with_reclaim, bool borrow) {
    if (free + own + (with_reclaim ? reclaim : 0) < g) return false;
    const std::uint64_t lists = with_reclaim ? all_lists : own_lists;
    if (g > gpn && lists != ~std::uint64_t{0} && holders_.nodes_within(lists, max_groups) < g / gpn) return false;
    auto apply = [&](int sign) {
      for (int r : cohort_queues_[q])
        if (in[r] != 0 && (r == q || with_reclaim)) charge(r, static_cast<int>(sign * in[r]));
    };
    apply(-1);
    const bool fits = quota_.fits(usage_, q, g) && (borrow || usage_.used[q] + g <= nominal_[q]);
    apply(+1);
    return fits;
  };
  // The paths of try_preempt's end: own candidates only; one search over all with a borrow threshold (which may drop
  // some reclaim candidates: a bound need not); else reclaim without borrowing while under the nominal quota, then own.
  const bool may = reclaim == 0 ? possible(false, true)
                   : threshold    ? possible(true, true)
                                  : (under_nominal && possible(true, false)) || possible(false, true);
  // The search would have failed: remembered as try_preempt does (failed_search).
  if (!may && !p.shadow_on && options_.victim_order == VictimOrder::Kueue)
    searched_[static_cast<std::size_t>(&x - jobs_.data())] = stamp_ + 1;
  return may;
}

bool Scheduler::try_preempt(int job, Pass& p) {
  Job& x = jobs_[job];
  const int q = x.spec.queue;
  const int prio = x.spec.priority;
  const int g = x.spec.gpus;
  if (!preemption_.preempts_within(q) && !preemption_.reclaims(q)) return false;
  if (!preemption_.eligible(q, g, quota_)) return false;
  const bool threshold = preemption_.has_borrow_threshold(q);
  if (p.preempt_failed[q].covers(prio, g, x.enqueued, threshold)) return false;
  auto failed = [&] {
    p.preempt_failed[q].add(prio, g, x.enqueued);
    return false;
  };
  const long long avail = preemptible_gpus(q, prio);
  if (avail == 0 || p.cluster->total_free_gpus() + avail < g) return failed();
  if (!search_may_succeed(x, p)) return failed();

  // Kueue's findCandidates: lower (or newer equal) priorities of the queue; jobs of the cohort's borrowing queues.
  // Candidates are gathered in no particular order: the search sorts them (before() is a total order).
  ++searches_;
  Scratch& sc = *scratch_;
  std::vector<VictimCandidate>& cands = sc.cands;
  cands.clear();
  for (int r : cohort_queues_[q]) {
    if (r == q ? !preemption_.preempts_within(q) : !preemption_.reclaims(q) || !quota_.borrowing(usage_, r)) continue;
    const bool equal_too = r == q && preemption_.newer_equal_within(q);
    bool past = false;
    for (auto it = running_in_[r].begin(); it != running_in_[r].end() && !past; ++it) {
      const int vp = it->first;
      const RunningList& list = it->second;
      // The active jobs only: the exempt ones among them were parked as search_may_succeed read them, just before.
      for (std::size_t i = 0; i < list.active; ++i) {
        const Running& y = list.jobs[i];
        if (r == q ? !preemption_.within_candidate(q, prio, x.enqueued, vp, y.enqueued)
                   : !preemption_.reclaim_candidate(q, prio, vp)) {
          // By priority: no job of this or a later priority is a candidate either (at such a priority the rules do
          // not read the jobs' queueing times, so the order within it does not matter).
          if ((past = vp > prio || (vp == prio && !equal_too))) break;
          continue;
        }
        if (y.start == p.now) continue;  // started at this instant: never killed before it ran
        assert(y.start + options_.preemption_exempt_time <= p.now && "an exempt job left active");
        cands.push_back({y.job, r, vp, y.gpus, y.admission, r != q, p.now - y.last_checkpoint});
      }
    }
  }
  // A failed search is remembered where it reads nothing that moves without a stamp: not beside a backfill
  // shadow (GPUs held back for this pass only), not in an order that reads the time (LeastWorkLost).
  auto failed_search = [&] {
    if (!p.shadow_on && options_.victim_order == VictimOrder::Kueue)
      searched_[static_cast<std::size_t>(job)] = stamp_ + 1;
    return failed();
  };
  if (cands.empty()) return failed_search();
  // before() is a total order, so a list sorted on its own (own, below) has the order it would have within cands.
  auto sort_victims = [&](std::vector<VictimCandidate>& list) {
    std::sort(list.begin(), list.end(),
              [&](const VictimCandidate& a, const VictimCandidate& b) { return preemption_.before(a, b); });
  };

  auto take = [&](const VictimCandidate& v) {
    p.cluster->release(jobs_[v.job].gpus);
    charge(v.queue, -v.gpus);
  };
  auto restore = [&](const VictimCandidate& v) {
    p.cluster->allocate(jobs_[v.job].gpus);
    charge(v.queue, v.gpus);
  };
  // Whether a node would have the job's GPUs free, or enough nodes would be wholly free (within as many leaf groups
  // as a required topology constraint allows), were these victims' GPUs released: placement needs it (FreedNodes).
  const auto& topo = x.spec.topology;
  const int max_groups = topo.required && !(topo.max_wait && p.now >= x.enqueued + *topo.max_wait)
                             ? topo.max_leaf_groups : 0;
  auto room_after = [&](const std::vector<VictimCandidate>& taken) {
    sc.freed.reset(*p.cluster);
    for (const auto& v : taken) sc.freed.add(jobs_[v.job].per_node);
    return sc.freed.may_place(g, max_groups);
  };
  std::vector<VictimCandidate> victims;
  // Kueue's minimalPreemptions: take candidates in order (from another queue only while it still borrows) until the
  // job fits, within its nominal quota unless borrowing is allowed; then give back, last taken first, every victim
  // the job turns out not to need (the last one taken is needed). With a borrow threshold, taking a victim of another
  // queue at or above it forbids borrowing.
  // Charges are path-independent (CohortQuota::charge), so what a set of victims frees is charged per queue.
  std::vector<long long>& freed_in = sc.freed_in;
  auto charge_freed = [&](int sign) {
    for (std::size_t r = 0; r < freed_in.size(); ++r)
      if (freed_in[r] != 0) charge(static_cast<int>(r), static_cast<int>(sign * freed_in[r]));
  };
  auto minimal = [&](std::vector<VictimCandidate>& list, bool allow_borrowing, std::optional<int> threshold) {
    victims.clear();
    auto quota_fits_if = [&](bool borrow) {
      return quota_.fits(usage_, q, g) && (borrow || usage_.used[q] + g <= nominal_[q]);
    };
    auto quota_fits = [&] { return quota_fits_if(allow_borrowing); };
    auto fits = [&] { return quota_fits() && !place(x, p).gpus.empty(); };
    // Cheap bound first, on quota alone (the search removes at most every candidate): no GPU moves if it fails.
    freed_in.assign(usage_.used.size(), 0);
    long long freed = 0;
    for (const auto& c : list) freed_in[c.queue] += c.gpus, freed += c.gpus;
    charge_freed(-1);
    const bool possible = quota_fits() && p.cluster->total_free_gpus() + freed >= g;
    charge_freed(+1);
    if (!possible) return false;
    // Without reclaim candidates or a borrow threshold, nothing below but the take loop depends on the order (each
    // check takes every candidate): sorted only if it gets there, as most searches stop at room_after().
    const bool order_free =
        !threshold && std::none_of(list.begin(), list.end(), [](const VictimCandidate& c) { return c.reclaim; });
    if (!order_free) sort_victims(list);
    // The search below on quota and GPU counts alone, as it takes and skips candidates: if after none of the sets it
    // would take both the quota fits and enough GPUs are free, the job fits after none, and no GPU moves.
    {
      freed_in.assign(usage_.used.size(), 0);
      bool borrow = allow_borrowing, may_fit = false;
      long long free_after = p.cluster->total_free_gpus();
      for (const auto& c : list) {
        if (c.reclaim && !quota_.borrowing(usage_, c.queue)) continue;
        if (c.reclaim && threshold && c.priority >= *threshold) borrow = false;
        charge(c.queue, -c.gpus);
        freed_in[c.queue] += c.gpus;
        free_after += c.gpus;
        if ((may_fit = free_after >= g && quota_fits_if(borrow))) break;
      }
      charge_freed(+1);
      if (!may_fit) return false;
    }
    // Without a borrow threshold, whether the job fits only grows with each victim taken (the quota's usage falls,
    // and a placement that fits still fits with more GPUs free: placement.hpp), so if placement's need for room
    // (room_after) fails once every candidate the search would take is taken, it fits after no prefix either: no GPU
    // moves. Where it holds, the loop below finds the first prefix that fits, freeing only those (almost every search
    // that gets there succeeds: releasing every candidate to place once first cost more than the loop).
    if (!threshold) {
      for (const auto& c : list) {
        if (c.reclaim && !quota_.borrowing(usage_, c.queue)) continue;
        charge(c.queue, -c.gpus);
        victims.push_back(c);
      }
      const bool room = room_after(victims);
      for (const auto& v : victims) charge(v.queue, v.gpus);
      victims.clear();
      if (!room) return false;
    }
    if (order_free) sort_victims(list);
    bool ok = false;
    for (const auto& c : list) {
      if (c.reclaim && !quota_.borrowing(usage_, c.queue)) continue;
      if (c.reclaim && threshold && c.priority >= *threshold) allow_borrowing = false;
      take(c);
      victims.push_back(c);
      if ((ok = fits())) break;
    }
    if (!ok) {
      for (const auto& v : victims) restore(v);
      victims.clear();
      return false;
    }
    for (std::size_t i = victims.size() - 1; i-- > 0;) {
      restore(victims[i]);
      if (fits())
        victims.erase(victims.begin() + static_cast<std::ptrdiff_t>(i));
      else
        take(victims[i]);
    }
    return true;
  };
  // Kueue's GetTargets: with only the queue's own candidates, preempt and borrow; with borrow_within_cohort, one
  // search over all (other queues' jobs only below the threshold when the queue is at or above its nominal quota);
  // otherwise reclaim without borrowing while the queue is under its nominal quota, and last the queue's own jobs,
  // borrowing.
  std::vector<VictimCandidate> own;
  for (const auto& c : cands)
    if (!c.reclaim) own.push_back(c);
  const bool under_nominal = usage_.used[q] < nominal_[q];
  bool ok = false;
  if (own.size() == cands.size()) {
    ok = minimal(cands, true, std::nullopt);
  } else if (auto threshold = preemption_.borrow_threshold(q, prio)) {
    if (!under_nominal)
      std::erase_if(cands, [&](const VictimCandidate& c) { return c.reclaim && c.priority >= *threshold; });
    ok = minimal(cands, true, threshold);
  } else {
    ok = (under_nominal && minimal(cands, false, std::nullopt)) || minimal(own, true, std::nullopt);
  }
  if (!ok) return failed_search();
  for (const auto& v : victims) {
    Job& y = jobs_[v.job];
    by_end_.erase({y.est_end, v.job});
    ++ends_version_;
    add_running(v.job, -1);
    Seconds remaining = std::max(Seconds(0), y.est_end - p.now) + (p.now - y.last_checkpoint);
    p.result.preemptions.push_back({v.job, job, std::move(y.gpus)});
    y.gpus.clear();
    y.state = State::Idle;
    stopped_running(v.job);
    enqueue(v.job, p.now, remaining, /*at_head=*/true);  // examined from the next pass on
    y.skip_pass = pass_;
    y.preempted_by = job;
    PendingReason why;
    why.kind = WaitKind::Preempted;
    why.job = job;
    victims_of_[static_cast<std::size_t>(job)].push_back(v.job);
    if (set_reason(y, why, p.now)) p.result.waits.push_back({v.job, why});
  }
  ++content_version_;
  freed_stamp_ = ++stamp_;
  PlacementOutcome placed = place(x, p);
  assert(!placed.gpus.empty());
  start(job, std::move(placed.gpus), p);
  for (const auto& v : victims) set_quiet(v.job);  // waits for a running job
  return true;
}

}  // namespace tt
