// SyntheticDriver: runs a Controller with no backend, for scheduling tests and benchmarks, over the one drive loop
// (core/drive/drive_loop.hpp) as its clock and executor. A launched job completes after its declared
// estimated_runtime (pro rata from the iteration it starts at), else after its startup plus its remaining iterations
// at the planned iteration time; it plays no faults and sends no progress or checkpoint events of its own (a test
// injects them). Sans-IO and deterministic like the Controller: time is the event times, ties in the order the
// completions were created.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <queue>
#include <vector>

#include "core/control/controller.hpp"
#include "core/drive/drive_loop.hpp"

namespace tt {

class SyntheticDriver final : private Clock, private Executor {
 public:
  SyntheticDriver(const Scenario& scenario, Controller& controller);

  // Handles everything due at the current instant, then moves time to the next one; false when nothing is left.
  bool step();
  // Hands the controller an event of the caller's (a checkpoint, a node failure) at `t`, not before now().
  std::vector<Action> inject(const Event& event, Seconds t);
  // Steps until nothing is left or the next instant lies beyond `horizon`; then finishes the controller.
  void run(Seconds horizon);
  Seconds now() override { return now_; }
  Seconds now() const { return now_; }
  std::uint64_t events() const { return static_cast<std::uint64_t>(loop_.events()); }
  // Called after each event with the actions it produced (tests check invariants here).
  std::function<void(Seconds, const std::vector<Action>&)> observer;

 private:
  struct Completion {
    Seconds t;
    std::uint64_t seq;
    int job, attempt;
    bool operator>(const Completion& o) const { return t != o.t ? t > o.t : seq > o.seq; }
  };
  void wait_until(std::optional<Seconds> deadline) override;
  void execute(const Action& action, Seconds now) override;
  void inject(const FaultChange&, const FaultSpec&, const FaultTarget&, Seconds) override {}
  std::optional<Event> next_event() override;
  void observe(Seconds now) override;
  std::optional<Seconds> next_observation() const override;
  void handled(const Event&, const std::vector<Action>& actions, Seconds now) override;

  const Scenario& sc_;
  Controller& c_;
  FaultPlayer no_faults_;
  DriveLoop loop_;
  std::priority_queue<Completion, std::vector<Completion>, std::greater<>> completions_;
  std::deque<Event> due_;
  std::uint64_t seq_ = 0;
  Seconds now_;
};

}  // namespace tt
