#include "core/sched/scheduler.hpp"

#include <algorithm>
#include <cassert>
#include <functional>

#include "core/sched/scheduler_pass.hpp"

namespace tt {

Scheduler::Scheduler(const std::vector<QueueSpec>& queues, const SchedulerOptions& options, std::vector<SchedJob> jobs)
    : quota_(queues),
      preemption_(queues, options.victim_order),
      options_(options),
      scratch_(std::make_unique<Scratch>()) {
  if (options.ordering == QueueOrdering::FairShare)
    ordering_ = std::make_unique<FairShareOrdering>(options.fair_share_half_life);
  else
    ordering_ = std::make_unique<PriorityFifoOrdering>();
  if (options.placement == PlacementKind::Spread)
    placement_ = std::make_unique<SpreadPlacement>();
  else
    placement_ = std::make_unique<PackPlacement>();
  const int nq = static_cast<int>(queues.size());
  for (const auto& q : queues) {
    nominal_.push_back(q.gpu_quota);
    strict_.push_back(q.strategy == QueueingStrategy::StrictFifo);
  }
  cohort_queues_.resize(nq);
  for (int q = 0; q < nq; ++q)
    for (int r = 0; r < nq; ++r)
      if (r == q || (quota_.in_cohort(q) && quota_.cohort_of(r) == quota_.cohort_of(q))) cohort_queues_[q].push_back(r);
  jobs_.resize(jobs.size());
  quiet_.assign(jobs.size(), 0);
  runtime_.assign(jobs.size(), Seconds(0));
  figures_at_.assign(jobs.size(), kExamined);
  started_in_pass_.assign(jobs.size(), 0);
  victims_of_.resize(jobs.size());
  searched_.assign(jobs.size(), 0);
  borrow_stamp_.assign(queues.size(), 0);
  for (std::size_t j = 0; j < jobs.size(); ++j) jobs_[j].spec = jobs[j];
  pending_.resize(nq);
  running_in_.resize(nq);
  running_gpus_.resize(nq);
  usage_ = quota_.empty_usage();
  decayed_.assign(nq, 0.0);
}

Scheduler::~Scheduler() = default;

void Scheduler::advance_usage(Seconds now) {
  if (auto* fs = dynamic_cast<const FairShareOrdering*>(ordering_.get()); fs && now > usage_at_)
    for (std::size_t q = 0; q < decayed_.size(); ++q)
      decayed_[q] = fs->decayed(decayed_[q], usage_.used[q], now - usage_at_);
  usage_at_ = std::max(usage_at_, now);
}

void Scheduler::enqueue(int job, Seconds now, Seconds runtime, bool at_head) {
  Job& x = jobs_[job];
  assert(x.state != State::Pending && x.state != State::Running);
  advance_usage(now);
  x.state = State::Pending;
  x.order = at_head ? next_head_order_++ : next_order_++;
  x.enqueued = now;
  runtime_[static_cast<std::size_t>(job)] = runtime;
  figures_at_[static_cast<std::size_t>(job)] = kExamined;
  x.reason = PendingReason{};
  x.reason_since = now;
  x.reported_kinds = 0;
  set_quiet(job);
  searched_[static_cast<std::size_t>(job)] = 0;
  if (in_pass_) {
    pass_enqueued_.push_back(key(job));
  } else {
    auto& list = pending_[x.spec.queue];
    const Key k = key(job);
    list.insert(std::lower_bound(list.begin(), list.end(), k), k);
    pending_all_.insert(std::lower_bound(pending_all_.begin(), pending_all_.end(), k), k);
  }
  ++pending_count_;
  const auto& t = x.spec.topology;
  if (t.max_leaf_groups > 0 && t.required && t.max_wait) relax_.insert({now + *t.max_wait, job});
  dirty_ = true;
}

void Scheduler::charge(int queue, int gpus) { quota_.charge(usage_, queue, gpus); }

void Scheduler::finished(int job, Seconds now) {
  Job& x = jobs_[job];
  if (x.state != State::Running) return;
  advance_usage(now);
  charge(x.spec.queue, -x.spec.gpus);
  by_end_.erase({x.est_end, job});
  ++ends_version_;
  ++content_version_;
  add_running(job, -1);
  x.gpus.clear();
  x.state = State::Idle;
  stopped_running(job);
  dirty_ = true;
  freed_stamp_ = ++stamp_;
}

void Scheduler::checkpointed(int job, Seconds now) {
  Job& x = jobs_[job];
  if (x.state != State::Running) return;
  x.last_checkpoint = now;
  running_in_[x.spec.queue][x.spec.priority].jobs[x.run_slot].last_checkpoint = now;
}

void Scheduler::set_estimated_end(int job, Seconds end) {
  Job& x = jobs_[job];
  if (x.state != State::Running || x.est_end == end) return;
  by_end_.erase({x.est_end, job});
  x.est_end = end;
  by_end_.insert({end, job});
  ++ends_version_;
}

void Scheduler::set_remaining(int job, Seconds runtime) {
  if (jobs_[job].state == State::Pending) runtime_[static_cast<std::size_t>(job)] = runtime;
}

bool Scheduler::would_borrow(int job) const {
  const Job& x = jobs_[job];
  if (x.skip_pass == pass_) return false;
  const int q = x.spec.queue;
  // Kueue's flavor assigner: a job that fits borrows when it takes the queue past its nominal quota; one that must
  // preempt borrows when it alone exceeds the nominal quota (then only borrow_within_cohort lets it preempt).
  if (quota_.fits(usage_, q, x.spec.gpus)) return usage_.used[q] + x.spec.gpus > nominal_[q];
  return x.spec.gpus > nominal_[q];
}

std::optional<Seconds> Scheduler::next_deadline() const {
  if (relax_.empty()) return std::nullopt;
  return relax_.begin()->first;
}

ScheduleResult Scheduler::schedule(Seconds now, ClusterState& cluster) {
  advance_usage(now);
  while (!relax_.empty() && relax_.begin()->first <= now) {
    unpark(relax_.begin()->second, now);
    relax_.erase(relax_.begin());
    dirty_ = true;
  }
  if (!dirty_) return {};
  sync_holders(cluster);
  if (cluster.changes() != cluster_changes_) {  // GPUs released or nodes changed since
    freed_stamp_ = ++stamp_;
    ++content_version_;
  }
  dirty_ = false;
  ++pass_;
  reservation_.reset();
  figures_.clear();

  Pass p;
  p.now = now;
  p.cluster = &cluster;
  const int nq = static_cast<int>(pending_.size());
  p.strict_blocked.assign(nq, -1);
  p.preempt_failed.resize(nq);
  p.facts.resize(nq);
  for (int q = 0; q < nq; ++q) {
    Pass::QueueFacts& f = p.facts[static_cast<std::size_t>(q)];
    f.strict = strict_[q] != 0;
    f.searches = preemption_.preempts_within(q) || preemption_.reclaims(q);
    f.threshold = preemption_.has_borrow_threshold(q);
    f.nominal = nominal_[q];
    f.eligible_max = f.threshold ? INT_MAX : quota_.nominal(q);
  }

  // Merge the queues: priority, then the ordering policy's queue score, then FIFO.
  std::vector<double> score(nq);
  for (int q = 0; q < nq; ++q) score[q] = ordering_->queue_score(q, decayed_, nominal_);
  struct Head {
    const Key* it;  // the queue's job at `index`; its queue is it->queue
    std::size_t index;
  };
  auto later = [&](const Head& a, const Head& b) {  // heap: the earliest on top
    if (a.it->neg_priority != b.it->neg_priority) return a.it->neg_priority > b.it->neg_priority;
    if (score[a.it->queue] != score[b.it->queue]) return score[a.it->queue] > score[b.it->queue];
    if (a.it->order != b.it->order) return a.it->order > b.it->order;
    return a.it->job > b.it->job;
  };
  // Kueue's order within a pass (its scheduler's entryOrdering): jobs that fit within their queue's nominal quota
  // before jobs that would borrow, then the order above. A queue keeps its own order: from its first job that would
  // borrow, the rest of the queue waits for the second round. Each round is one merge over the queues.
  std::vector<std::size_t> borrowers(nq);
  for (int q = 0; q < nq; ++q) borrowers[q] = pending_[q].size();
  std::vector<Head> heap;
  auto merge = [&](bool borrowing_round) {
    heap.clear();
    for (int q = 0; q < nq; ++q) {
      const std::size_t first = borrowing_round ? borrowers[q] : 0;
      if (first < pending_[q].size()) heap.push_back({&pending_[q][first], first});
    }
    std::make_heap(heap.begin(), heap.end(), later);
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      Head h = heap.back();
      heap.pop_back();
      const int q = h.it->queue;
      if (pass_over(*h.it, !borrowing_round, p)) {
        // Nothing to do for it, nor for the jobs of its queue after it that are as quiet and come before any other
        // queue's next job (one examined between could lower the usage with a preemption).
        ++passed_over_;
        const auto& list = pending_[q];
        Head next{nullptr, h.index + 1};
        for (; next.index < list.size(); ++next.index) {
          next.it = &list[next.index];
          if ((!heap.empty() && later(next, heap.front())) || !pass_over(*next.it, !borrowing_round, p))
            break;
          ++passed_over_;
        }
        if (next.index < list.size()) {
          heap.push_back(next);
          std::push_heap(heap.begin(), heap.end(), later);
        }
        continue;
      }
      const int job = h.it->job;
      if (!borrowing_round && would_borrow(job)) {
        borrowers[q] = h.index;  // the rest of the queue waits for the second round
        continue;
      }
      examine(job, p);
      if (++h.index < pending_[q].size()) {
        h.it = &pending_[q][h.index];
        heap.push_back(h);
        std::push_heap(heap.begin(), heap.end(), later);
      }
    }
  };
  // Queues that score alike merge in Key order, pending_all_'s: the same visits, in the same order, without the heap.
  // A queue's jobs from its first that would borrow on (borrowers[q] above) are those from cut[q] on.
  std::vector<const Key*> cut(nq, nullptr);
  auto walk = [&](bool borrowing_round) {
    int open = 0;  // queues whose first round may still visit a job
    for (int q = 0; q < nq; ++q) open += !pending_[q].empty();
    for (const Key& k : pending_all_) {
      const int q = k.queue;
      if (borrowing_round ? !cut[q] || k < *cut[q] : cut[q] != nullptr) continue;
      if (pass_over(k, !borrowing_round, p)) {
        ++passed_over_;
        continue;
      }
      if (!borrowing_round && would_borrow(k.job)) {
        cut[q] = &k;  // the rest of the queue waits for the second round
        if (--open == 0) return;
        continue;
      }
      examine(k.job, p);
    }
  };
  const bool alike = std::all_of(score.begin(), score.end(), [&](double x) { return x == score.front(); });
  in_pass_ = true;
  pass_started_in_.assign(nq, 0);
  if (alike) {
    walk(false);
    walk(true);
  } else {
    merge(false);
    merge(true);
  }
  in_pass_ = false;
  settle_pending();
  set_shadow(false, p);
  cluster_changes_ = cluster.changes();
  return std::move(p.result);
}

void Scheduler::settle_pending() {
  // A listed job that is not Pending any more started in this pass (only start() takes a job out of Pending, and a
  // pass starts with every listed job Pending): the flag, a byte per job, spares reading every listed job's record.
  auto started = [&](const Key& k) {
    return started_in_pass_[static_cast<std::size_t>(k.job)] && jobs_[k.job].state != State::Pending;
  };
  bool any = false;
  for (std::size_t q = 0; q < pending_.size(); ++q)
    if (pass_started_in_[q]) {
      std::erase_if(pending_[q], started);
      any = true;
    }
  if (any) std::erase_if(pending_all_, started);
  for (int job : pass_started_) started_in_pass_[static_cast<std::size_t>(job)] = 0;
  pass_started_.clear();
  if (pass_enqueued_.empty()) return;
  std::sort(pass_enqueued_.begin(), pass_enqueued_.end());
  for (const Key& k : pass_enqueued_) {
    auto& list = pending_[k.queue];
    list.insert(std::lower_bound(list.begin(), list.end(), k), k);
    pending_all_.insert(std::lower_bound(pending_all_.begin(), pending_all_.end(), k), k);
  }
  pass_enqueued_.clear();
}

void Scheduler::set_shadow(bool on, Pass& p) {
  if (on == p.shadow_on) return;
  if (on) {
    p.shadow.clear();
    for (int gpu : reservation_->gpus)
      if (p.cluster->gpu_free(gpu)) p.shadow.push_back(gpu);
    p.cluster->allocate(p.shadow);
  } else {
    p.cluster->release(p.shadow);
  }
  p.shadow_on = on;
}

// Each allowed site in turn; when none fits the job but the cluster as a whole would, the job waits for a site.
PlacementOutcome Scheduler::place_in_one_site(const Job& x, const PlacementRequest& req,
                                              const ClusterState& cluster) const {
  for (int s = 0; s < static_cast<int>(sites_.size()); ++s) {
    if (x.spec.site >= 0 && s != x.spec.site) continue;
    PlacementRequest in = req;
    in.first_node = sites_[s].first_node;
    in.end_node = sites_[s].end_node;
    in.first_group = sites_[s].first_group;
    in.end_group = sites_[s].end_group;
    PlacementOutcome out = placement_->place(cluster, in);
    if (!out.gpus.empty()) return out;
  }
  PlacementOutcome anywhere = placement_->place(cluster, req);
  if (anywhere.gpus.empty()) return anywhere;
  PlacementOutcome out;
  out.why.kind = WaitKind::Site;
  out.why.a = x.spec.gpus;
  out.why.gpus_per_node = cluster.gpus_per_node();
  return out;
}

void Scheduler::set_node_tiers(std::vector<int> tiers) {
  node_tiers_ = std::move(tiers);
  freed_stamp_ = ++stamp_;
  max_tier_ = node_tiers_.empty() ? 0 : *std::max_element(node_tiers_.begin(), node_tiers_.end());
  dirty_ = true;
}

PlacementOutcome Scheduler::place(const Job& x, Pass& p) const {
  // Preferred tiers alone first: a copy of the cluster with the other tiers' nodes taking no work.
  for (int tier = 0; tier < max_tier_ && !node_tiers_.empty(); ++tier) {
    ClusterState preferred = *p.cluster;
    for (int n = 0; n < preferred.nodes(); ++n)
      if (node_tiers_[n] > tier && preferred.schedulable(n)) preferred.set_up(n, false);
    PlacementOutcome out = place_on(x, p, preferred);
    if (!out.gpus.empty()) return out;
  }
  return place_on(x, p, *p.cluster);
}

PlacementOutcome Scheduler::place_on(const Job& x, const Pass& p, const ClusterState& cluster) const {
  const auto& t = x.spec.topology;
  PlacementRequest req{x.spec.gpus, t.max_leaf_groups};
  if (t.required && t.max_wait && p.now >= x.enqueued + *t.max_wait) req.max_groups = 0;
  const bool one_site = !sites_.empty() && (x.spec.one_site || x.spec.site >= 0);
  auto attempt = [&] { return one_site ? place_in_one_site(x, req, cluster) : placement_->place(cluster, req); };
  PlacementOutcome out = attempt();
  if (out.gpus.empty() && !t.required && req.max_groups > 0) {
    req.max_groups = 0;
    out = attempt();
  }
  if (out.why.kind == WaitKind::Topology && t.required && t.max_wait) out.why.until = x.enqueued + *t.max_wait;
  return out;
}

void Scheduler::examine(int job, Pass& p) {
  Job& x = jobs_[job];
  ++examinations_;
  figures_at_[static_cast<std::size_t>(job)] = kExamined;
  if (x.skip_pass == pass_) return;
  const int q = x.spec.queue;
  const int g = x.spec.gpus;
  if (p.strict_blocked[q] >= 0) {
    PendingReason why;
    why.kind = WaitKind::StrictFifo;
    why.job = p.strict_blocked[q];
    why.queue = q;
    return wait(job, why, p);
  }
  if (!quota_.fits(usage_, q, g)) {
    if (try_preempt(job, p)) return;
    // Still waiting for quota: nothing to report, and its numbers are read from the quota when asked (reason()); or
    // preempted by a job still running, as it says already.
    const char quiet = quiet_[static_cast<std::size_t>(job)];
    if ((quiet == kQuotaQuiet || quiet == kPreemptedQuiet) && !strict_[q]) return;
    return wait(job, quota_.why_not(usage_, q, g), p);
  }
  if (p.blocker >= 0) {
    PendingReason why;
    why.kind = WaitKind::Behind;
    why.job = p.blocker;
    why.a = jobs_[p.blocker].spec.priority;
    return wait(job, why, p);
  }
  const bool outlives =
      reservation_ && !backfill_.may_use_reserved(p.now + runtime_[static_cast<std::size_t>(job)], *reservation_);
  set_shadow(outlives, p);
  PlacementOutcome placed = place(x, p);
  if (!placed.gpus.empty()) return start(job, std::move(placed.gpus), p);
  if (try_preempt(job, p)) return;
  PendingReason why = placed.why;
  if (outlives && !p.shadow.empty() && g <= p.cluster->total_free_gpus() + static_cast<int>(p.shadow.size())) {
    why = reservation_reason();
  } else if (!options_.backfill) {
    p.blocker = job;
  } else if (!reservation_) {
    set_shadow(false, p);
    const auto& t = x.spec.topology;
    PlacementRequest req{g, t.required && !(t.max_wait && p.now >= x.enqueued + *t.max_wait) ? t.max_leaf_groups : 0};
    // The same job on the same cluster with the same running jobs' ends: the same reservation (from now on).
    ReserveMemo memo{p.cluster, job, req.gpus, req.max_groups, content_version_, ends_version_, std::nullopt};
    if (reserve_memo_ && reserve_memo_->same_question(memo)) {
      reservation_ = reserve_memo_->answer;
      if (reservation_) reservation_->start = std::max(reservation_->start, p.now);
    } else {
      reservation_ = backfill_.reserve(job, req, p.now, running_ends(), *p.cluster, *placement_);
      memo.answer = reservation_;
      reserve_memo_ = std::move(memo);
    }
  }
  wait(job, why, p);
}

std::function<bool(RunningEnd&)> Scheduler::running_ends() const {
  return [this, it = by_end_.begin()](RunningEnd& e) mutable {
    if (it == by_end_.end()) return false;
    e = RunningEnd{it->first, &jobs_[it->second].gpus, &jobs_[it->second].per_node};
    ++it;
    return true;
  };
}

void Scheduler::start(int job, std::vector<int> gpus, Pass& p) {
  Job& x = jobs_[job];
  const int q = x.spec.queue;
  p.cluster->allocate(gpus);
  charge(q, x.spec.gpus);
  if (quota_.borrowing(usage_, q)) borrow_stamp_[q] = ++stamp_;  // more of it to reclaim
  pass_started_in_[q] = 1;  // still listed until the pass ends (settle_pending)
  started_in_pass_[static_cast<std::size_t>(job)] = 1;
  pass_started_.push_back(job);
  --pending_count_;
  if (x.spec.topology.max_wait) relax_.erase({x.enqueued + *x.spec.topology.max_wait, job});
  x.state = State::Running;
  x.start = p.now;
  x.admission = ++admissions_;
  x.last_checkpoint = p.now;
  x.est_end = p.now + runtime_[static_cast<std::size_t>(job)];
  x.gpus = gpus;
  x.per_node.clear();
  const int gpn = p.cluster->gpus_per_node();
  for (int gpu : x.gpus)  // placements list a node's GPUs together (were they not, a node would be listed twice)
    if (x.per_node.empty() || x.per_node.back().first != gpu / gpn)
      x.per_node.push_back({gpu / gpn, 1});
    else
      ++x.per_node.back().second;
  set_reason(x, PendingReason{}, p.now);
  x.preempted_by = -1;
  set_quiet(job);
  by_end_.insert({x.est_end, job});
  ++ends_version_;
  ++content_version_;
  add_running(job, +1);
  // Jobs started after the reservation was made end before it or keep off its GPUs; the list of ends is stale.
  p.result.starts.push_back({job, std::move(gpus)});
}

}  // namespace tt
