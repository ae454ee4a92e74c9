// What a waiting job waits for and since when: its reason as a pass gives it (wait(), set_reason()), as asked between
// passes (reason(): the counts or the quota read then for a job passed over), and its time waiting by kind
// (wait_times()). The pass is in scheduler.cpp.
#include "core/sched/scheduler.hpp"
#include "core/sched/scheduler_pass.hpp"

namespace tt {

PendingReason Scheduler::reason(int job) const {
  const Job& x = jobs_[job];
  if (x.state != State::Pending) return x.reason;
  if (x.reason.kind == WaitKind::Quota) return quota_.why_not(usage_, x.spec.queue, x.spec.gpus);
  const std::uint32_t at = figures_at_[static_cast<std::size_t>(job)];
  if (at != kExamined && (x.reason.kind == WaitKind::Capacity || x.reason.kind == WaitKind::Fragmentation))
    return count_shortfall(x.spec.gpus, x.reason.gpus_per_node, figures_[at]);
  if (at != kExamined && x.reason.kind == WaitKind::Reservation && reservation_) return reservation_reason();
  return x.reason;
}

void Scheduler::wait(int job, PendingReason why, Pass& p) {
  Job& x = jobs_[job];
  if (x.preempted_by >= 0) {
    if (jobs_[x.preempted_by].state == State::Running) {
      why = PendingReason{};
      why.kind = WaitKind::Preempted;
      why.job = x.preempted_by;
    } else {
      x.preempted_by = -1;
    }
  }
  if (set_reason(x, why, p.now)) p.result.waits.push_back({job, why});
  set_quiet(job);
  // A StrictFIFO queue's first waiting job holds back the rest of the queue, whatever it waits for.
  const int q = x.spec.queue;
  if (strict_[q] && p.strict_blocked[q] < 0) p.strict_blocked[q] = job;
}

static_assert(kWaitKinds <= 16, "a bit per WaitKind in a std::uint16_t");

namespace {
void add_wait(Scheduler::WaitTimes& t, WaitKind kind, Seconds from, Seconds to) {
  if (kind == WaitKind::None) return;
  const auto k = static_cast<std::size_t>(kind);
  t.by_kind[k] += to - from;
  t.kinds = static_cast<std::uint16_t>(t.kinds | (1u << k));
}
}  // namespace

bool Scheduler::set_reason(Job& x, const PendingReason& why, Seconds now) {
  const WaitKind was = x.reason.kind;
  x.reason = why;
  if (why.kind == was) return false;
  add_wait(x.waited, was, x.reason_since, now);
  x.reason_since = now;
  if (why.kind == WaitKind::None) return false;
  // Capacity, fragmentation and the backfill reservation say alike that the GPUs it needs are not free for it, and a
  // job's reason moves between them as GPUs are taken and freed (at most passes of a busy fleet): between them, a
  // kind is reported the first time in the wait. Every other change is reported.
  auto not_free = [](WaitKind k) {
    return k == WaitKind::Capacity || k == WaitKind::Fragmentation || k == WaitKind::Reservation;
  };
  const auto bit = static_cast<std::uint16_t>(1u << static_cast<unsigned>(why.kind));
  const bool again = (x.reported_kinds & bit) != 0;
  x.reported_kinds = static_cast<std::uint16_t>(x.reported_kinds | bit);
  return !(again && not_free(was) && not_free(why.kind));
}

Scheduler::WaitTimes Scheduler::wait_times(int job, Seconds now) const {
  const Job& x = jobs_[job];
  WaitTimes t = x.waited;
  if (x.state == State::Pending) add_wait(t, x.reason.kind, x.reason_since, now);
  return t;
}

}  // namespace tt
