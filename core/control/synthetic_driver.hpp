// SyntheticDriver: runs a Controller with no backend, for scheduling tests and benchmarks. A launched job completes
// after its declared estimated_runtime (pro rata from the iteration it starts at), else after its startup plus its
// remaining iterations at the planned iteration time; there are no faults, progress or checkpoint events. Sans-IO and
// deterministic like the Controller: time is the event times, ties in the order events were created.
#pragma once

#include <cstdint>
#include <functional>
#include <queue>
#include <vector>

#include "core/control/controller.hpp"

namespace tt {

class SyntheticDriver {
 public:
  SyntheticDriver(const Scenario& scenario, Controller& controller) : sc_(scenario), c_(controller) {}

  // Handles the next event; false when there is none (every job ended, or nothing more can happen).
  bool step();
  // Hands the controller an event of the caller's (a checkpoint, a node failure) at `t`, not before now().
  std::vector<Action> inject(const Event& event, Seconds t);
  // Steps until no event is left or the next one lies beyond `horizon`; then finishes the controller.
  void run(Seconds horizon);
  Seconds now() const { return now_; }
  std::uint64_t events() const { return events_; }
  // Called after each event with the actions it produced (tests check invariants here).
  std::function<void(Seconds, const std::vector<Action>&)> observer;

 private:
  struct Completion {
    Seconds t;
    std::uint64_t seq;
    int job, attempt;
    bool operator>(const Completion& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  void apply(const std::vector<Action>& actions);

  const Scenario& sc_;
  Controller& c_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::uint64_t seq_ = 0;
  std::uint64_t events_ = 0;
  Seconds now_;
};

}  // namespace tt
