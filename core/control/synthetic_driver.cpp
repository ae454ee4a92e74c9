#include "core/control/synthetic_driver.hpp"

#include <limits>

namespace tt {

SyntheticDriver::SyntheticDriver(const Scenario& scenario, Controller& controller)
    : sc_(scenario),
      c_(controller),
      no_faults_(scenario, {}),
      loop_(controller, *this, *this, no_faults_, Seconds(std::numeric_limits<double>::infinity())) {}

void SyntheticDriver::execute(const Action& a, Seconds now) {
  const auto* l = std::get_if<Launch>(&a);
  if (!l) return;  // a Kill needs nothing: the controller ignores the killed attempt's completion
  const JobSpec& spec = sc_.jobs[l->job];
  const double left = static_cast<double>(l->iterations - l->start_iteration);
  const Seconds run = spec.estimated_runtime ? *spec.estimated_runtime * (left / static_cast<double>(l->iterations))
                                             : l->startup_with_move() + l->plan.predicted_iteration * left;
  completions_.push({now + run, seq_++, l->job, l->attempt});
}

std::optional<Event> SyntheticDriver::next_event() {
  if (due_.empty()) return std::nullopt;
  Event e = std::move(due_.front());
  due_.pop_front();
  return e;
}

void SyntheticDriver::observe(Seconds now) {
  while (!completions_.empty() && completions_.top().t <= now) {
    due_.push_back(JobCompleted{completions_.top().job, completions_.top().attempt});
    completions_.pop();
  }
}

std::optional<Seconds> SyntheticDriver::next_observation() const {
  if (completions_.empty()) return std::nullopt;
  return completions_.top().t;
}

void SyntheticDriver::wait_until(std::optional<Seconds> deadline) {
  if (deadline) now_ = std::max(now_, *deadline);
}

void SyntheticDriver::handled(const Event&, const std::vector<Action>& actions, Seconds now) {
  if (observer) observer(now, actions);
}

bool SyntheticDriver::step() {
  std::optional<Seconds> wake;
  if (!loop_.turn(wake)) return false;
  wait_until(wake);
  return true;
}

std::vector<Action> SyntheticDriver::inject(const Event& event, Seconds t) {
  now_ = std::max(now_, t);
  return loop_.deliver(event);
}

void SyntheticDriver::run(Seconds horizon) {
  std::optional<Seconds> wake;
  while (loop_.turn(wake) && wake && *wake <= horizon) wait_until(wake);
  c_.finish(std::max(now_, Seconds(0)));
}

}  // namespace tt
