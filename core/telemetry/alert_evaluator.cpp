#include "core/telemetry/alert_evaluator.hpp"

#include <algorithm>

#include "core/telemetry/alert_expr.hpp"

namespace tt {

AlertEvaluator::AlertEvaluator(const std::vector<AlertSpec>& rules) : rules_(rules), state_(rules.size()) {}

std::vector<AlertTransition> AlertEvaluator::evaluate(const MetricRegistry& registry, Seconds now) {
  std::vector<AlertTransition> out;
  for (std::size_t r = 0; r < rules_.size(); ++r) evaluate(static_cast<int>(r), registry, now, out);
  return out;
}

// One rule: the instances whose condition changed become active or inactive, then the pending ones whose `for` has
// passed fire. Transitions come out as a full evaluation would give them: resolutions, then firings, each in the
// order of their labels.
void AlertEvaluator::evaluate(int r, const MetricRegistry& registry, Seconds now, std::vector<AlertTransition>& out) {
  const AlertSpec& spec = rules_[r];
  const AlertCondition& c = spec.condition;
  Rule& rule = state_[r];
  if (rule.family == -2) rule.family = registry.family_index(c.metric);
  if (rule.family < 0) return;
  const MetricRegistry::Family& fam = registry.families()[rule.family];
  std::vector<AlertTransition> resolved, fired;
  auto label_of = [&](int key) { return key < 0 ? LabelSet{} : fam.series[key].labels; };
  auto update = [&](int key, std::optional<double> holding) {
    auto it = rule.active.find(key);
    if (!holding) {
      if (it == rule.active.end()) return;
      if (it->second.firing) {
        resolved.push_back({r, label_of(key), it->second.value, false, it->second.active_since});
        --rule.firing;
      } else {
        rule.pending.erase({it->second.active_since + spec.for_duration, key});
      }
      rule.active.erase(it);
      return;
    }
    if (it != rule.active.end()) {
      it->second.value = *holding;
      return;
    }
    rule.active.emplace(key, Instance{now, *holding, false});
    rule.pending.insert({now + spec.for_duration, key});  // fires below when `for` is 0
  };
  auto series_holding = [&](int i) -> std::optional<double> {
    const auto& s = fam.series[i];
    if (!s.present || !alert_selects(c, s.labels) || !compare(s.value, c.op, c.threshold)) return std::nullopt;
    return s.value;
  };
  if (c.aggregation == Aggregation::None) {
    if (!rule.evaluated) {
      for (std::size_t i = 0; i < fam.series.size(); ++i) update(static_cast<int>(i), series_holding(static_cast<int>(i)));
    } else {
      for (int i : fam.changes) update(i, series_holding(i));
    }
  } else if (!rule.evaluated || !fam.changes.empty()) {
    std::optional<double> v = alert_aggregate(c, fam);
    update(-1, v && compare(*v, c.op, c.threshold) ? v : std::nullopt);
  }
  rule.evaluated = true;
  while (!rule.pending.empty() && rule.pending.begin()->first <= now) {  // the same sum as next_deadline()
    const int key = rule.pending.begin()->second;
    rule.pending.erase(rule.pending.begin());
    Instance& inst = rule.active.at(key);
    inst.firing = true;
    ++rule.firing;
    fired.push_back({r, label_of(key), inst.value, true, inst.active_since});
  }
  auto by_labels = [](const AlertTransition& a, const AlertTransition& b) { return a.labels < b.labels; };
  std::sort(resolved.begin(), resolved.end(), by_labels);
  std::sort(fired.begin(), fired.end(), by_labels);
  for (auto* list : {&resolved, &fired})
    for (auto& t : *list) out.push_back(std::move(t));
}

std::optional<Seconds> AlertEvaluator::next_deadline() const {
  std::optional<Seconds> best;
  for (const Rule& rule : state_)
    if (!rule.pending.empty() && (!best || rule.pending.begin()->first < *best)) best = rule.pending.begin()->first;
  return best;
}

int AlertEvaluator::firing(int rule) const { return state_[rule].firing; }

}  // namespace tt
