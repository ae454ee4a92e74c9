// AlertEvaluator: the Prometheus alert state machine over a registry. Each evaluation finds, per rule, the instances
// (label sets) whose condition holds: a new one becomes pending; one pending for at least the rule's `for` fires; a
// firing one whose condition no longer holds resolves (a pending one is dropped). next_deadline() is the earliest
// time a pending instance would fire, so a caller evaluating then fires it exactly at active-since + for.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "core/model/alert_spec.hpp"
#include "core/telemetry/registry.hpp"

namespace tt {

struct AlertTransition {
  int rule = 0;
  LabelSet labels;  // the series' labels (none for an aggregation)
  double value = 0;  // at the transition (the last value seen while active, for a resolution)
  bool fired = true;  // false: resolved
  Seconds active_since;
};

class AlertEvaluator {
 public:
  explicit AlertEvaluator(const std::vector<AlertSpec>& rules);  // keeps a reference: `rules` must outlive it
  std::vector<AlertTransition> evaluate(const MetricRegistry& registry, Seconds now);
  std::optional<Seconds> next_deadline() const;
  int firing(int rule) const;  // instances of the rule firing now

 private:
  struct Instance {
    Seconds active_since;
    double value = 0;
    bool firing = false;
  };
  const std::vector<AlertSpec>& rules_;
  std::vector<std::map<LabelSet, Instance>> active_;  // by rule
};

}  // namespace tt
