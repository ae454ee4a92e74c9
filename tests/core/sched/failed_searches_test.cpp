#include "core/sched/failed_searches.hpp"

#include <catch2/catch.hpp>
#include <random>
#include <vector>

using namespace tt;

namespace {
// The rule as the pass applied it before the frontier: every failure kept, each asked in turn.
struct Failure {
  int priority, gpus;
  Seconds queued;
};
bool scan(const std::vector<Failure>& all, int priority, int gpus, Seconds queued, bool threshold) {
  for (const Failure& f : all)
    if (f.gpus <= gpus && ((f.priority == priority && f.queued <= queued) || (f.priority > priority && !threshold)))
      return true;
  return false;
}
}  // namespace

TEST_CASE("failed searches: the frontier answers as a scan of every failure, and keeps no covered one",
          "[unit][sched]") {
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> prio(0, 3), gpus(1, 12), queued(0, 20), coin(0, 1);
  for (int round = 0; round < 200; ++round) {
    FailedSearches frontier;
    std::vector<Failure> all;
    for (int step = 0; step < 60; ++step) {
      const int p = prio(rng) * 10, g = gpus(rng) * 8;
      const Seconds q(queued(rng));
      const bool threshold = coin(rng) != 0;
      REQUIRE(frontier.covers(p, g, q, threshold) == scan(all, p, g, q, threshold));
      // The pass records a failure only where none covers it (with its queue's threshold); record some anyway.
      if (!scan(all, p, g, q, threshold) || coin(rng)) {
        frontier.add(p, g, q);
        all.push_back({p, g, q});
      }
    }
    // It keeps exactly the failures no other of its priority covers (one copy of each).
    std::size_t uncovered = 0;
    for (std::size_t i = 0; i < all.size(); ++i) {
      bool kept = true;
      for (std::size_t j = 0; j < all.size() && kept; ++j) {
        const Failure &a = all[i], &b = all[j];
        const bool same = a.priority == b.priority && a.gpus == b.gpus && a.queued == b.queued;
        if (b.priority == a.priority && b.gpus <= a.gpus && b.queued <= a.queued && (!same || j < i)) kept = false;
      }
      uncovered += kept;
    }
    CHECK(frontier.size() == uncovered);
  }
  FailedSearches f;
  f.add(10, 64, Seconds(5));
  f.add(10, 16, Seconds(9));
  f.add(10, 32, Seconds(1));  // covers (64, 5): kept are (16, 9) and (32, 1)
  CHECK(f.size() == 2);
  CHECK(f.covers(10, 40, Seconds(2), true));
  CHECK_FALSE(f.covers(10, 24, Seconds(2), true));  // only (16, 9) has no more GPUs, and it was queued later
  CHECK(f.covers(0, 16, Seconds(0), false));         // a lower priority: any failure with no more GPUs
  CHECK_FALSE(f.covers(0, 16, Seconds(0), true));    // ... unless its queue has a borrow threshold
  CHECK_FALSE(f.covers(20, 64, Seconds(100), false));  // a higher priority: none of these says anything
}
