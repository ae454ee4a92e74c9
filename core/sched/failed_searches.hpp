// The preemption searches a scheduling pass found no victims for, per queue, as (priority, GPUs, queued at): a job with
// at least as many GPUs finds none either if it has the same priority and was queued no earlier, or a lower priority
// and its queue has no borrow threshold (scheduler_pass.hpp says why). Kept as each priority's frontier: a failure
// another one covers (the same priority, no more GPUs and queued no earlier) says nothing more, so the question is one
// binary search per priority, not a scan of every failure (a fleet month's pass asks it of thousands of waiting jobs).
#pragma once

#include <algorithm>
#include <vector>

#include "core/model/units.hpp"

namespace tt {

class FailedSearches {
 public:
  // Whether a job of this priority, size and queue time finds no victims either.
  bool covers(int priority, int gpus, Seconds queued, bool threshold) const {
    for (const Level& l : levels_) {
      if (l.priority > priority && !threshold && l.frontier.front().gpus <= gpus) return true;
      if (l.priority == priority && covered(l, gpus, queued)) return true;
    }
    return false;
  }
  void add(int priority, int gpus, Seconds queued) {
    auto l = std::find_if(levels_.begin(), levels_.end(), [&](const Level& x) { return x.priority == priority; });
    if (l == levels_.end()) l = levels_.insert(levels_.end(), Level{priority, {}});
    if (covered(*l, gpus, queued)) return;
    auto& f = l->frontier;
    auto it = std::lower_bound(f.begin(), f.end(), gpus, [](const Entry& e, int g) { return e.gpus < g; });
    auto end = it;
    while (end != f.end() && end->queued >= queued) ++end;  // the failures it covers
    f.insert(f.erase(it, end), Entry{gpus, queued});
  }
  std::size_t size() const {  // failures kept (for tests)
    std::size_t n = 0;
    for (const Level& l : levels_) n += l.frontier.size();
    return n;
  }

 private:
  struct Entry {
    int gpus;
    Seconds queued;
  };
  struct Level {
    int priority;
    std::vector<Entry> frontier;  // no entry covers another: GPUs ascending, queued at descending
  };
  // The entry with the most GPUs up to `gpus` was queued the earliest of those.
  static bool covered(const Level& l, int gpus, Seconds queued) {
    auto it = std::upper_bound(l.frontier.begin(), l.frontier.end(), gpus,
                               [](int g, const Entry& e) { return g < e.gpus; });
    return it != l.frontier.begin() && std::prev(it)->queued <= queued;
  }
  std::vector<Level> levels_;
};

}  // namespace tt
