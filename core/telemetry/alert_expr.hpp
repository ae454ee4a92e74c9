// Alert conditions as text: a small PromQL subset, `[AGG(]metric[{label="v",label!="v"}][)] OP NUMBER` with AGG one
// of sum, max, min, avg, count and OP one of < <= > >= == !=. parse_alert_expr reads it (the scenario's "expr"),
// to_promql writes any condition back (alerts.rules.yml), and alert_values evaluates one against a registry.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/model/alert_spec.hpp"
#include "core/telemetry/registry.hpp"

namespace tt {

// nullopt with `error` set ("at character 12: expected ..."), for the reader to wrap in an InputError. The metric
// name is not checked against the catalogue here.
std::optional<AlertCondition> parse_alert_expr(std::string_view text, std::string& error);
std::string to_promql(const AlertCondition& condition);

// The instances for which the condition holds now: one per matching present series (their labels) without
// aggregation; one with no labels when an aggregation over at least one matching series passes the comparison.
std::vector<std::pair<LabelSet, double>> alert_values(const AlertCondition& condition, const MetricRegistry& registry);

// The pieces of alert_values, for an evaluator that looks at one series at a time: whether the condition's label
// matchers select these labels, and the aggregation over a family (nullopt when no present series matches; not for
// Aggregation::None).
bool alert_selects(const AlertCondition& condition, const LabelSet& labels);
std::optional<double> alert_aggregate(const AlertCondition& condition, const MetricRegistry::Family& family);

}  // namespace tt
