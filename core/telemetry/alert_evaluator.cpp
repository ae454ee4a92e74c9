#include "core/telemetry/alert_evaluator.hpp"

#include "core/telemetry/alert_expr.hpp"

namespace tt {

AlertEvaluator::AlertEvaluator(const std::vector<AlertSpec>& rules) : rules_(rules), active_(rules.size()) {}

std::vector<AlertTransition> AlertEvaluator::evaluate(const MetricRegistry& registry, Seconds now) {
  std::vector<AlertTransition> out;
  for (std::size_t r = 0; r < rules_.size(); ++r) {
    const AlertSpec& rule = rules_[r];
    auto& active = active_[r];
    auto holding = alert_values(rule.condition, registry);
    std::map<LabelSet, double> now_active(holding.begin(), holding.end());
    for (auto it = active.begin(); it != active.end();) {
      if (now_active.count(it->first)) {
        ++it;
        continue;
      }
      if (it->second.firing)
        out.push_back({static_cast<int>(r), it->first, it->second.value, false, it->second.active_since});
      it = active.erase(it);
    }
    for (const auto& [labels, value] : now_active) {
      auto [it, fresh] = active.try_emplace(labels, Instance{now, value, false});
      Instance& inst = it->second;
      inst.value = value;
      if (!inst.firing && now >= inst.active_since + rule.for_duration) {  // the same sum as next_deadline()
        inst.firing = true;
        out.push_back({static_cast<int>(r), labels, value, true, inst.active_since});
      }
    }
  }
  return out;
}

std::optional<Seconds> AlertEvaluator::next_deadline() const {
  std::optional<Seconds> best;
  for (std::size_t r = 0; r < rules_.size(); ++r)
    for (const auto& [labels, inst] : active_[r]) {
      if (inst.firing) continue;
      Seconds t = inst.active_since + rules_[r].for_duration;
      if (!best || t < *best) best = t;
    }
  return best;
}

int AlertEvaluator::firing(int rule) const {
  int n = 0;
  for (const auto& [labels, inst] : active_[rule]) n += inst.firing;
  return n;
}

}  // namespace tt
