#include "core/control/synthetic_driver.hpp"

namespace tt {

void SyntheticDriver::apply(const std::vector<Action>& actions) {
  for (const auto& a : actions) {
    const auto* l = std::get_if<Launch>(&a);
    if (!l) continue;  // a Kill needs nothing: the controller ignores the killed attempt's completion
    const JobSpec& spec = sc_.jobs[l->job];
    const double left = static_cast<double>(l->iterations - l->start_iteration);
    Seconds run = spec.estimated_runtime ? *spec.estimated_runtime * (left / static_cast<double>(l->iterations))
                                         : l->startup + l->plan.predicted_iteration * left;
    completions_.push({now_ + run, seq_++, l->job, l->attempt});
  }
}

bool SyntheticDriver::step() {
  auto deadline = c_.next_deadline();
  std::vector<Action> actions;
  if (!completions_.empty() && (!deadline || completions_.top().t <= *deadline)) {
    Completion e = completions_.top();
    completions_.pop();
    now_ = std::max(now_, e.t);
    actions = c_.handle(JobCompleted{e.job, e.attempt}, now_);
  } else if (deadline) {
    now_ = std::max(now_, *deadline);
    actions = c_.handle(Timer{}, now_);
  } else {
    return false;
  }
  ++events_;
  apply(actions);
  if (observer) observer(now_, actions);
  return true;
}

std::vector<Action> SyntheticDriver::inject(const Event& event, Seconds t) {
  now_ = std::max(now_, t);
  auto actions = c_.handle(event, now_);
  ++events_;
  apply(actions);
  if (observer) observer(now_, actions);
  return actions;
}

void SyntheticDriver::run(Seconds horizon) {
  while (true) {
    auto deadline = c_.next_deadline();
    Seconds next = completions_.empty() ? (deadline ? *deadline : horizon) : completions_.top().t;
    if (deadline && *deadline < next) next = *deadline;
    if ((completions_.empty() && !deadline) || next > horizon || !step()) break;
  }
  c_.finish(std::max(now_, Seconds(0)));
}

}  // namespace tt
