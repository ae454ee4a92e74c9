#include "core/io/section_readers.hpp"

#include <climits>
#include <map>

#include "core/io/reader_support.hpp"

namespace tt::reader {

std::vector<QueueSpec> read_queues(JsonObject& root) {
  std::vector<QueueSpec> queues;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("queues")) {
    auto o =
        open(*v, root.file(), ptr,
             {"name", "gpu_quota", "cohort", "borrowing_limit", "lending_limit", "queueing_strategy", "preemption"});
    QueueSpec q;
    q.name = o.str("name");
    if (auto it = seen.find(q.name); it != seen.end())
      o.fail("name", "a queue name not used by an earlier queue; " + in_quotes(q.name) + " is already " + it->second);
    seen.emplace(q.name, ptr);
    q.gpu_quota = int_in(o, "gpu_quota", 0);  // 0: a queue that only borrows (Kueue allows a nominal quota of 0)
    q.cohort = o.opt_str("cohort").value_or("");
    for (const char* key : {"borrowing_limit", "lending_limit"})
      if (q.cohort.empty() && o.has(key))
        o.fail(key, std::string("no \"") + key + "\" for a queue in no cohort (add \"cohort\": a queue borrows and " +
                        "lends only within its cohort)");
    q.borrowing_limit = opt_int_in(o, "borrowing_limit", 0);
    q.lending_limit = opt_int_in(o, "lending_limit", 0, q.gpu_quota);
    if (present(o, "queueing_strategy"))
      q.strategy = choice(o, "queueing_strategy", {"BestEffortFIFO", "StrictFIFO"}, "a queueing strategy") == 0
                       ? QueueingStrategy::BestEffortFifo
                       : QueueingStrategy::StrictFifo;
    if (present(o, "preemption")) {
      auto pre = open_child(o, "preemption", {"within_queue", "reclaim_within_cohort", "borrow_within_cohort"});
      if (present(pre, "within_queue"))
        q.within_queue = static_cast<WithinQueuePreemption>(
            choice(pre, "within_queue", {"Never", "LowerPriority", "LowerOrNewerEqualPriority"},
                   "a within-queue preemption policy"));
      if (present(pre, "reclaim_within_cohort")) {
        if (q.cohort.empty()) pre.fail("reclaim_within_cohort", "no reclaim for a queue in no cohort (add \"cohort\")");
        q.reclaim = static_cast<ReclaimPreemption>(
            choice(pre, "reclaim_within_cohort", {"Never", "LowerPriority", "Any"}, "a reclaim policy"));
      }
      if (present(pre, "borrow_within_cohort")) {
        if (q.cohort.empty())
          pre.fail("borrow_within_cohort", "no borrow_within_cohort for a queue in no cohort (add \"cohort\")");
        auto bwc = open_child(pre, "borrow_within_cohort", {"policy", "max_priority_threshold"});
        q.borrow_within_cohort =
            choice(bwc, "policy", {"Never", "LowerPriority"}, "a borrow-within-cohort policy") == 1;
        if (bwc.has("max_priority_threshold") && !q.borrow_within_cohort)
          bwc.fail("max_priority_threshold", "no threshold unless \"policy\" is \"LowerPriority\"");
        q.max_priority_threshold = opt_int_in(bwc, "max_priority_threshold", INT_MIN);
        bwc.finish();
      }
      pre.finish();
    }
    o.finish();
    queues.push_back(std::move(q));
  }
  return queues;
}

std::vector<PriorityClass> read_priority_classes(JsonObject& root) {
  std::vector<PriorityClass> classes;
  if (!present(root, "priority_classes")) return classes;
  std::map<std::string, std::string> seen;
  for (const auto& [v, ptr] : root.array("priority_classes")) {
    auto o = open(*v, root.file(), ptr, {"name", "value"});
    PriorityClass c;
    c.name = o.str("name");
    if (auto it = seen.find(c.name); it != seen.end())
      o.fail("name",
             "a priority class name not used by an earlier class; " + in_quotes(c.name) + " is already " + it->second);
    seen.emplace(c.name, ptr);
    c.value = int_in(o, "value", INT_MIN);
    o.finish();
    classes.push_back(std::move(c));
  }
  return classes;
}

SchedulerOptions read_scheduler(JsonObject& root) {
  SchedulerOptions s;
  if (!present(root, "scheduler")) return s;
  auto o = open_child(
      root, "scheduler",
      {"ordering", "fair_share_half_life", "backfill", "placement", "preemption_exempt_time", "victim_order",
       "overflow"});
  if (present(o, "ordering"))
    s.ordering = choice(o, "ordering", {"priority", "fair_share"}, "a queue ordering") == 0 ? QueueOrdering::Priority
                                                                                            : QueueOrdering::FairShare;
  if (o.has("fair_share_half_life") && s.ordering != QueueOrdering::FairShare)
    o.fail("fair_share_half_life", "no half-life unless \"ordering\" is \"fair_share\"");
  s.fair_share_half_life = opt_positive_seconds(o, "fair_share_half_life").value_or(s.fair_share_half_life);
  if (present(o, "backfill")) s.backfill = choice(o, "backfill", {"none", "easy"}, "a backfill policy") == 1;
  if (present(o, "placement"))
    s.placement = choice(o, "placement", {"pack", "spread"}, "a placement policy") == 0 ? PlacementKind::Pack
                                                                                        : PlacementKind::Spread;
  if (auto t = o.opt_seconds("preemption_exempt_time")) s.preemption_exempt_time = *t;
  if (present(o, "victim_order"))
    s.victim_order =
        static_cast<VictimOrder>(choice(o, "victim_order", {"kueue", "least_work_lost"}, "a victim order"));
  s.overflow = o.opt_boolean("overflow").value_or(true);
  o.finish();
  return s;
}

}  // namespace tt::reader
