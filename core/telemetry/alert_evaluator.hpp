// AlertEvaluator: the Prometheus alert state machine over a registry. Each evaluation finds, per rule, the instances
// (label sets) whose condition holds: a new one becomes pending; one pending for at least the rule's `for` fires; a
// firing one whose condition no longer holds resolves (a pending one is dropped). next_deadline() is the earliest
// time a pending instance would fire, so a caller evaluating then fires it exactly at active-since + for.
// Incremental: after its first evaluation a rule looks only at the series of its metric listed as changed in the
// registry (MetricRegistry::Family::changes; the caller clears them after each evaluation), plus its pending instances
// whose time has come, so an evaluation costs work per change, not per series. An aggregation is recomputed over its
// family when the family changed.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <utility>
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
  struct Rule {
    int family = -2;  // in the registry; -2: not looked up yet, -1: not in the catalogue
    bool evaluated = false;
    std::map<int, Instance> active;              // by series index in the family; -1: an aggregation's instance
    std::set<std::pair<Seconds, int>> pending;   // (fires at, key) of the active instances not firing yet
    int firing = 0;
  };
  const std::vector<AlertSpec>& rules_;
  std::vector<Rule> state_;  // by rule

  void evaluate(int r, const MetricRegistry& registry, Seconds now, std::vector<AlertTransition>& out);
};

}  // namespace tt
