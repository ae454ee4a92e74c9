// Scheduler: the scheduling mechanism, wired from the policies in this folder (CohortQuota, an OrderingPolicy, a
// PlacementPolicy, EasyBackfill, PreemptionPolicy). It keeps the waiting jobs (per queue, in order), the running jobs
// (by estimated end) and the queues' usage; a pass decides which jobs start where, which running jobs are preempted
// for them, and one reason for every job that still waits, as Kueue's scheduler would (docs/scheduling.md: jobs within
// their queue's nominal quota before jobs that would borrow; Kueue's classical preemption). Deterministic, no I/O,
// gang always.
// The caller owns the ClusterState: schedule() allocates the GPUs of the jobs it starts and releases those of the
// jobs it preempts (they are requeued at the head of their queue); the caller releases the GPUs of jobs that end and
// then calls finished(). A pass runs only when something that can change its outcome happened since the last one.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "core/model/scenario.hpp"
#include "core/sched/backfill.hpp"
#include "core/sched/cluster_state.hpp"
#include "core/sched/node_holders.hpp"
#include "core/sched/ordering.hpp"
#include "core/sched/pending_reason.hpp"
#include "core/sched/placement.hpp"
#include "core/sched/preemption.hpp"
#include "core/sched/quota.hpp"

namespace tt {

struct SchedJob {
  int queue = 0;
  int priority = 0;
  int gpus = 0;
  TopologyConstraint topology{};
  // Multi-site topologies (Scheduler::set_sites): the job's GPUs all lie in one site unless it may span sites;
  // `site` >= 0 pins it to that site.
  bool one_site = false;
  int site = -1;
};

// A site's nodes and leaf groups, contiguous (core/topo/sites.hpp).
struct SiteRange {
  int first_node = 0, end_node = 0;
  int first_group = 0, end_group = 0;
};

struct ScheduleResult {
  struct Start {
    int job;
    std::vector<int> gpus;
  };
  struct Preemption {
    int victim;
    int preemptor;
    std::vector<int> gpus;  // already released
  };
  // A waiting job whose reason changed kind. The numbers of an unchanged kind update silently, and so does a change
  // between capacity, fragmentation and the backfill reservation back to one of them it waited for already since it
  // was queued: a busy fleet's waiting jobs move between those at most passes, as GPUs are taken and freed
  // (Scheduler::set_reason).
  struct Wait {
    int job;
    PendingReason reason;
  };
  std::vector<Start> starts;
  std::vector<Preemption> preemptions;
  std::vector<Wait> waits;
};

class Scheduler {
 public:
  Scheduler(const std::vector<QueueSpec>& queues, const SchedulerOptions& options, std::vector<SchedJob> jobs);
  ~Scheduler();

  // A job starts waiting; `runtime` is its estimated remaining run time. At the head: before every job of its
  // priority in its queue (a job that failed or was preempted).
  void enqueue(int job, Seconds now, Seconds runtime, bool at_head = false);
  void finished(int job, Seconds now);  // a running job ended; its GPUs are already released
  void checkpointed(int job, Seconds now);
  void set_estimated_end(int job, Seconds end);  // a better estimate, e.g. once the job is placed
  void set_remaining(int job, Seconds runtime);  // a waiting job's estimated run time (after a preemption)
  void capacity_changed() { dirty_ = true, freed_stamp_ = ++stamp_; }  // a node went down or came back
  // The topology's sites, in preference order (a one-site job goes to the first site it fits in); none: one site.
  void set_sites(std::vector<SiteRange> sites) { sites_ = std::move(sites); }
  // Node pools: a placement tries the nodes of tier 0 alone, then of tiers 0 and 1, and so on (core/model/pools.hpp
  // orders the tiers); empty (the default): every node alike.
  void set_node_tiers(std::vector<int> tiers);
  ScheduleResult schedule(Seconds now, ClusterState& cluster);
  std::optional<Seconds> next_deadline() const;  // a topology constraint is relaxed then

  // The time a job waited, by the kind of its reason (every change of kind counts, reported or not): summed over its
  // waits, the one it is in counted up to `now`. `kinds` has bit k set for each WaitKind k it waited for.
  struct WaitTimes {
    std::array<Seconds, kWaitKinds> by_kind{};
    std::uint16_t kinds = 0;
  };
  WaitTimes wait_times(int job, Seconds now) const;

  bool is_pending(int job) const { return jobs_[job].state == State::Pending; }
  bool is_running(int job) const { return jobs_[job].state == State::Running; }
  // A Quota reason's numbers are the quota's now; a job the last pass passed over (pass_over) has the figures it would
  // have had, examined.
  PendingReason reason(int job) const;
  const std::vector<int>& gpus(int job) const { return jobs_[job].gpus; }
  Seconds estimated_end(int job) const { return jobs_[job].est_end; }
  int pending_count() const { return pending_count_; }
  const QuotaUsage& usage() const { return usage_; }
  const CohortQuota& quota() const { return quota_; }
  const std::optional<Reservation>& reservation() const { return reservation_; }
  const PlacementPolicy& placement() const { return *placement_; }
  const OrderingPolicy& ordering() const { return *ordering_; }
  std::uint64_t passes() const { return pass_; }
  // Work counters (bench/regress): pending jobs examined by passes, and preemption searches that read candidates.
  std::uint64_t examinations() const { return examinations_; }
  // Waiting jobs a pass gave a new reason without examining them: the counts decided it (pass_over).
  std::uint64_t reason_changes() const { return reason_changes_; }
  // Waiting jobs passes went by without an examination (pass_over; those given a new reason included): a pass reads
  // every waiting job, so this grows with the backlog times the passes.
  std::uint64_t passed_over() const { return passed_over_; }
  std::uint64_t searches() const { return searches_; }
  // What the scheduler keeps to skip work, against a recount from its jobs ("" when they agree; else what differs):
  // which waiting jobs a pass may pass over, the running lists' settled, fresh and parked jobs, where they hold GPUs,
  // and the reservation the next pass would reuse (made again on a copy of `cluster`). For tests: O(jobs + nodes).
  std::string audit(Seconds now, const ClusterState& cluster) const;
  // For tests: examine every waiting job, passing over none: the reference whose decisions, waits and reasons the
  // pass-over rules (pass_over) must reproduce exactly.
  void examine_every_job(bool on) { examine_all_ = on; }

 private:
  enum class State : unsigned char { Idle, Pending, Running };
  // The fields a pass reads for every waiting job first, together, then those of running jobs.
  struct Job {
    SchedJob spec;
    State state = State::Idle;
    int preempted_by = -1;
    std::uint64_t skip_pass = 0;  // preempted in this pass: not examined again in it
    Seconds enqueued;
    PendingReason reason;
    Seconds reason_since;  // when its reason took its kind (set_reason)
    WaitTimes waited;      // over its closed intervals (wait_times)
    std::uint16_t reported_kinds = 0;  // the kinds it waited for since it was queued (bit per WaitKind)
    std::int64_t order = 0;
    Seconds start, est_end, last_checkpoint;
    std::uint64_t admission = 0;  // admissions_ when it last started
    int run_slot = -1;            // running: its index in running_in_[queue][priority]
    std::vector<int> gpus;
    // Running: its GPUs per node, as (node, count) in the order of `gpus` (a preemption search sums them per node).
    std::vector<std::pair<int, int>> per_node;
  };
  // A running job as the preemption search reads it, kept apart from Job so that a search over thousands of running
  // jobs reads them in sequence.
  struct Running {
    int job = -1;
    int gpus = 0;
    Seconds start, enqueued, last_checkpoint;
    std::uint64_t admission = 0;
  };
  // A queue's running jobs of one priority, in three runs: settled, fresh, parked. The settled and fresh ones are
  // active: they may be preemption candidates. The parked ones are exempt from preemption until their exemption end,
  // which is listed in relax_. A search parks an exempt job when it meets it (and lists it, as it did), and schedule()
  // moves it back when relax_ reaches its end, so that searches read only the jobs they may take instead of every
  // exempt one again (same candidates: parked jobs fail the exemption test at every search before their end, and a
  // priority's jobs are candidates or not by priority alike). A job joins the fresh ones as it starts; a search reads
  // the fresh ones before anything else and moves those no longer exempt to the settled ones, which never are (their
  // start is older than the exemption time, or they were parked until its end). So every exempt active job is fresh,
  // and a search that may park one reads only the fresh ones to find it. active_gpus sums the active ones' GPUs.
  struct RunningList {
    std::vector<Running> jobs;
    std::size_t settled = 0, active = 0;  // [0, settled) settled, [settled, active) fresh, [active, size) parked
    long long active_gpus = 0;
    std::uint64_t grown = 0;  // stamp_ when a job last joined the active ones
    int bit = -1;             // its bit in holders_ (kOtherLists past the 63rd list)
  };
  // Ordered by (neg_priority, order, job); gpus and enqueued ride along for the pass's quiet-wait test.
  struct Key {
    int neg_priority;
    int gpus;
    std::int64_t order;
    int job;
    int queue;
    Seconds enqueued;
    bool operator<(const Key& o) const {
      if (neg_priority != o.neg_priority) return neg_priority < o.neg_priority;
      if (order != o.order) return order < o.order;
      return job < o.job;
    }
  };
  struct Pass;
  struct Scratch;

  Key key(int job) const {
    const Job& x = jobs_[job];
    return {-x.spec.priority, x.spec.gpus, x.order, job, x.spec.queue, x.enqueued};
  }
  bool pass_over(const Key& k, bool first_round, Pass& p);  // of k's queue (Key::queue)
  // Gives a waiting job its reason at `now`, closing the interval of the kind it had; true when the change is one to
  // report (ScheduleResult::Wait).
  bool set_reason(Job& x, const PendingReason& why, Seconds now);
  // quiet_'s values: the reasons a job may be passed over for (pass_over), reading only quiet_ and its Key.
  static constexpr char kQuotaQuiet = 1;        // waits for quota
  static constexpr char kCapacityQuiet = 2;     // waits for capacity
  static constexpr char kReservationQuiet = 3;  // waits behind the backfill reservation
  static constexpr char kPreemptedQuiet = 4;    // says it was preempted by a job still running
  static constexpr char kFragmentationQuiet = 5;  // waits for a node, or whole nodes, with room
  char quiet_kind(const Job& x) const {
    if (x.preempted_by >= 0)
      return x.reason.kind == WaitKind::Preempted && jobs_[x.preempted_by].state == State::Running ? kPreemptedQuiet
                                                                                                   : 0;
    switch (x.reason.kind) {
      case WaitKind::Quota:
        return kQuotaQuiet;
      case WaitKind::Capacity:
        return kCapacityQuiet;
      case WaitKind::Reservation:
        return kReservationQuiet;
      case WaitKind::Fragmentation:
        return kFragmentationQuiet;
      default:
        return 0;
    }
  }
  void set_quiet(int job) { quiet_[static_cast<std::size_t>(job)] = quiet_kind(jobs_[job]); }
  PendingReason reservation_reason() const {  // behind this pass's reservation
    PendingReason why;
    why.kind = WaitKind::Reservation;
    why.job = reservation_->job;
    why.until = reservation_->start;
    return why;
  }
  void advance_usage(Seconds now);
  void settle_pending();  // after a pass: started jobs out, preempted ones in
  void examine(int job, Pass& p);
  void start(int job, std::vector<int> gpus, Pass& p);
  bool try_preempt(int job, Pass& p);
  PlacementOutcome place(const Job& x, Pass& p) const;
  PlacementOutcome place_in_one_site(const Job& x, const PlacementRequest& req, const ClusterState& cluster) const;
  PlacementOutcome place_on(const Job& x, const Pass& p, const ClusterState& cluster) const;
  void set_shadow(bool on, Pass& p);
  std::function<bool(RunningEnd&)> running_ends() const;  // the running jobs by estimated end, for EasyBackfill
  void wait(int job, PendingReason why, Pass& p);
  void charge(int queue, int gpus);
  void add_running(int job, int sign);                                  // into or out of the per-queue running indexes
  void swap_running(RunningList& list, std::size_t a, std::size_t b);   // two slots, their jobs' run_slot kept
  void unpark(int job, Seconds now);  // back among the candidates once its exemption ended (relax_ reached it)
  long long preemptible_gpus(int queue, int priority) const;  // an upper bound of what victims could free
  // try_preempt's bound, before it gathers candidates; it parks the exempt jobs the search would meet first.
  bool search_may_succeed(const Job& x, Pass& p);
  // The fresh jobs of a list the search for x reads (candidates by `candidate`): exempt ones parked, those never to
  // be exempt again settled.
  template <class Candidate>
  void park_fresh(RunningList& list, const Candidate& candidate, Seconds now);
  // holders_ (search_may_succeed's bound on wholly freed nodes): a job's GPUs from one list's bit to another.
  static constexpr int kOtherLists = NodeHolders::kOther;
  void hold(const Job& x, int from, int to) {  // list bits; -1: none
    if (holders_.ready()) holders_.move(x.per_node, from, to);
  }
  void sync_holders(const ClusterState& cluster);  // the cluster's groups; every running job held again if they moved
  bool would_borrow(int job) const;  // this pass: it takes its queue past the nominal quota (Kueue's Borrowing)

  CohortQuota quota_;
  PreemptionPolicy preemption_;
  EasyBackfill backfill_;
  std::unique_ptr<OrderingPolicy> ordering_;
  std::unique_ptr<PlacementPolicy> placement_;
  SchedulerOptions options_;
  std::vector<int> nominal_;
  std::vector<char> strict_;                     // per queue: StrictFIFO
  std::vector<std::vector<int>> cohort_queues_;  // per queue: the queues of its cohort (itself when in none)

  std::vector<Job> jobs_;
  // Per job: what it waits for, where a pass may find examining it would change nothing (quiet_kind: Job's reason and
  // preempted_by, kept apart so that a pass can pass over such jobs reading little more than this and their Key).
  std::vector<char> quiet_;
  std::vector<Seconds> runtime_;  // per job: its estimated run time while it waits (apart from Job: pass_over reads it)
  // The free GPUs each job passed over for capacity or fragmentation in the last pass saw, as reason() gives them:
  // figures_at_[job] indexes figures_, which changes only as GPUs are taken or freed in the pass; kExamined where the
  // last pass examined the job (its Job::reason has them).
  std::vector<FreeCounts> figures_;
  std::uint64_t figures_read_ = 0;  // the cluster's changes() as figures_.back() was read
  std::vector<std::uint32_t> figures_at_;
  static constexpr std::uint32_t kExamined = ~std::uint32_t{0};
  std::vector<std::vector<int>> victims_of_;  // per job: the jobs it preempted (quiet_ moves as it stops running)
  void stopped_running(int job);             // its victims' quiet_ recomputed
  // What may let a failed preemption search succeed is stamped (stamp_ counts up): GPUs freed or usage lowered (a
  // job's end, a preemption, a node back, anything the cluster saw between passes, a relaxed topology constraint) in
  // freed_stamp_; a job joining a running list's active ones in the list (RunningList::grown); a borrowing queue
  // growing in borrow_stamp_. searched_[job] is stamp_ + 1 as the job's last full search failed (0: none): while
  // no stamp that search read is later, the same search fails again (try_preempt skips it).
  std::uint64_t stamp_ = 0;
  std::uint64_t freed_stamp_ = 0;
  std::vector<std::uint64_t> borrow_stamp_;
  std::vector<std::uint64_t> searched_;
  NodeHolders holders_;  // where each running list's active jobs hold GPUs (lists by RunningList::bit)
  int next_list_bit_ = 0;
  int cluster_nodes_ = 0;  // the nodes holders_ was set up for
  std::uint64_t cluster_changes_ = 0;  // the cluster's changes() as the last pass ended
  // Per queue, in order. A pass reads them by index, so they hold still while it runs: a job it starts stays listed
  // (not Pending any more) and jobs it preempts are enqueued into pass_enqueued_; both are settled as it ends.
  std::vector<std::vector<Key>> pending_;
  // Every queue's, merged in Key order: the order of a pass when the queues' scores are alike (PriorityFifo, or fair
  // share at equal usage), which then walks it instead of merging the queues' lists through a heap. Kept as pending_.
  std::vector<Key> pending_all_;
  std::vector<Key> pass_enqueued_;
  std::vector<char> pass_started_in_;  // per queue: a job of it started in this pass
  std::vector<char> started_in_pass_;  // per job: it started in this pass (settle_pending)
  std::vector<int> pass_started_;      // ... those jobs
  bool in_pass_ = false;
  std::vector<std::map<int, RunningList>> running_in_;  // per queue: priority -> its running jobs
  std::vector<std::map<int, int>> running_gpus_;                 // per queue: priority -> GPUs held
  std::set<std::pair<Seconds, int>> by_end_;               // running jobs by estimated end
  std::set<std::pair<Seconds, int>> relax_;  // when a pass must rerun: topology relax times, preemption exemptions end
  QuotaUsage usage_;
  std::vector<double> decayed_;  // fair share: decayed GPU-seconds per queue
  Seconds usage_at_;
  std::optional<Reservation> reservation_;
  // EASY backfill's last reservation and what it read: the job and its request, the cluster's GPUs (content_version_
  // moves as this scheduler starts, preempts or ends a job, and when the cluster changed between passes) and the
  // running jobs' estimated ends (ends_version_ moves with by_end_). Asked the same, reserve() answers the same, from
  // a later time (max(start, now)); a pass asks for the same job again in about four passes of ten.
  struct ReserveMemo {
    const ClusterState* cluster;
    int job, gpus, max_groups;
    std::uint64_t content, ends;
    std::optional<Reservation> answer;
    bool same_question(const ReserveMemo& o) const {
      return cluster == o.cluster && job == o.job && gpus == o.gpus && max_groups == o.max_groups &&
             content == o.content && ends == o.ends;
    }
  };
  std::optional<ReserveMemo> reserve_memo_;
  std::uint64_t content_version_ = 0, ends_version_ = 0;
  std::vector<SiteRange> sites_;
  std::int64_t next_order_ = 1;
  std::int64_t next_head_order_ = INT64_MIN / 2;
  int pending_count_ = 0;
  std::uint64_t pass_ = 0;
  std::uint64_t examinations_ = 0, searches_ = 0;
  std::uint64_t passed_over_ = 0;    // waiting jobs a pass went by without examining them (pass_over)
  std::uint64_t reason_changes_ = 0;  // waiting jobs whose reason a pass changed without examining them (pass_over)
  std::uint64_t admissions_ = 0;  // jobs started so far: the admission order preemption reads
  bool dirty_ = false;
  bool examine_all_ = false;
  std::vector<int> node_tiers_;  // by node; empty: no pools
  int max_tier_ = 0;
  std::unique_ptr<Scratch> scratch_;
};

}  // namespace tt
