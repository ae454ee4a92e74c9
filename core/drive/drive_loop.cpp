#include "core/drive/drive_loop.hpp"

#include <stdexcept>

namespace tt {

std::vector<Action> DriveLoop::deliver(const Event& event) {
  const Seconds now = clock_.now();
  if (record) record(now, event);
  std::vector<Action> actions = c_.handle(event, now);
  ++events_;
  for (const Action& a : actions) x_.execute(a, now);
  x_.handled(event, actions, now);
  return actions;
}

void DriveLoop::drain() {
  while (auto e = x_.next_event()) deliver(*e);
}

bool DriveLoop::turn(std::optional<Seconds>& wake) {
  for (;;) {
    if (x_.failed()) {
      stop_ = Stop::Failed;
      return false;
    }
    drain();
    Seconds t = clock_.now();
    while (auto change = faults_.take_due(t)) {
      x_.inject(*change, faults_.faults()[change->fault], faults_.target(change->fault), t);
      drain();
    }
    x_.observe(t);
    drain();
    const std::optional<Seconds> deadline = c_.next_deadline();
    if (!deadline || *deadline > t) break;
    // A Controller that keeps asking for the same instant has a bug; a driver must not spin on it forever.
    timers_at_once_ = t == timer_at_ ? timers_at_once_ + 1 : 0;
    timer_at_ = t;
    if (timers_at_once_ > 100000)
      throw std::logic_error("the controller keeps asking for a timer at t=" + std::to_string(t.value) + " s");
    if (c_.network_sample_due(t))
      if (auto sample = x_.network_sample()) deliver(*sample);
    deliver(Timer{});
  }
  if (c_.done()) {
    stop_ = Stop::Done;
    return false;
  }
  if (clock_.now() >= horizon_) {
    stop_ = Stop::Horizon;
    return false;
  }
  std::optional<Seconds> next = horizon_;
  auto earliest = [&](std::optional<Seconds> s) {
    if (s && *s < *next) next = s;
  };
  const std::optional<Seconds> deadline = c_.next_deadline();
  earliest(deadline);
  earliest(faults_.next_at());
  earliest(x_.next_observation());
  if (!deadline && !faults_.next_at() && !x_.next_observation() && !x_.busy()) {
    stop_ = Stop::Idle;
    return false;
  }
  wake = next;
  return true;
}

DriveLoop::Stop DriveLoop::run() {
  std::optional<Seconds> wake;
  while (turn(wake)) clock_.wait_until(wake);
  return stop_;
}

}  // namespace tt
