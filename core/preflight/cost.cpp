#include "core/preflight/cost.hpp"

#include <algorithm>
#include <set>

namespace tt::preflight {
namespace {

constexpr const char* kFallbackRule = "attention-requirements";
constexpr const char* kSocketCheck = "kernel_params/net.core.";  // rmem_max, wmem_max: socket_limits()

bool names_rule(const std::string& cause, const std::string& rule) {
  return !rule.empty() && cause.find(rule) != std::string::npos;
}

}  // namespace

std::vector<PreflightCost> difference_costs(const Topology& topo, const TwinPreflight& p, const RunRecord& r) {
  std::vector<PreflightCost> out;
  if (!p.enabled()) return out;
  const Verdict verdict = judge_nodes(topo, p);

  std::set<std::string> fallback, cordoned;
  for (int n : attention_fallback_nodes(topo, p)) fallback.insert(topo.nodes()[static_cast<std::size_t>(n)].name);
  if (p.gate)
    for (const auto& [n, reason] : blocked_nodes(topo, p)) cordoned.insert(topo.nodes()[static_cast<std::size_t>(n)].name);
  std::set<std::string> throttled;
  for (const auto& l : socket_limits(topo, p)) throttled.insert(topo.nodes()[static_cast<std::size_t>(l.node)].name);
  const double node_gpu_hours = topo.gpus_per_node() * r.end_time.value / 3600;
  const double days = r.end_time.value / 86400;

  for (const auto& d : verdict.differences) {
    PreflightCost c;
    c.check = d.check;
    c.severity = to_string(d.severity);
    c.rule = d.rule;
    c.nodes = d.hosts;
    c.found = d.found;
    c.expected = d.expected;
    c.failure = d.failure;
    for (const auto& j : r.jobs)
      for (const auto& f : j.failures)
        if (names_rule(f.cause, d.rule)) {
          ++c.failed_launches;
          c.lost_gpu_hours += f.lost_gpu_hours;
        }
    if (d.rule == kFallbackRule)
      for (const auto& j : r.jobs)
        for (const auto& seg : j.segments)
          if (std::any_of(seg.nodes.begin(), seg.nodes.end(), [&](const auto& n) { return fallback.count(n) > 0; }))
            c.slowed_gpu_hours += (seg.end.value_or(r.end_time) - seg.start).value * j.gpus *
                                  (1 - p.attention_fallback_speed) / 3600;
    if (d.check.rfind(kSocketCheck, 0) == 0)
      for (const auto& j : r.jobs) {
        const double slowdown = j.measured_iteration.value > 0
                                    ? std::max(0.0, 1 - j.predicted_iteration.value / j.measured_iteration.value)
                                    : 0.0;
        for (const auto& seg : j.segments)
          if (std::any_of(seg.nodes.begin(), seg.nodes.end(), [&](const auto& n) { return throttled.count(n) > 0; }))
            c.slowed_gpu_hours += (seg.end.value_or(r.end_time) - seg.start).value * j.gpus * slowdown / 3600;
      }
    if (d.severity == Severity::Blocking)
      for (const auto& h : d.hosts) c.withheld_gpu_hours += cordoned.count(h) ? node_gpu_hours : 0;
    const double total = c.lost_gpu_hours + c.slowed_gpu_hours + c.withheld_gpu_hours;
    c.gpu_hours_per_day = days > 0 ? total / days : 0;
    out.push_back(std::move(c));
  }
  std::vector<std::size_t> ranked(out.size());  // a stable sort keeps the verdict's order on full ties
  for (std::size_t i = 0; i < ranked.size(); ++i) ranked[i] = i;
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    if (out[a].gpu_hours_per_day != out[b].gpu_hours_per_day)
      return out[a].gpu_hours_per_day > out[b].gpu_hours_per_day;
    return out[a].severity == "blocking" && out[b].severity != "blocking";
  });
  std::vector<PreflightCost> sorted;
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    sorted.push_back(std::move(out[ranked[i]]));
    sorted.back().rank = static_cast<int>(i) + 1;
  }
  return sorted;
}

}  // namespace tt::preflight
