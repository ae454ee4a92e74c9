#include "core/rollout/analysis.hpp"

#include <cstdio>

#include "core/rollout/statistics.hpp"

namespace tt::rollout {
namespace {

std::string num(double v) {
  char b[48];
  std::snprintf(b, sizeof b, "%.6g", v);
  return b;
}

}  // namespace

MetricVerdict judge(const AnalysisMetric& m, const std::vector<double>& canary, const std::vector<double>& baseline) {
  MetricVerdict v;
  v.metric = m.metric;
  v.test = m.test;
  v.canary_samples = static_cast<int>(canary.size());
  v.baseline_samples = static_cast<int>(baseline.size());
  const bool worse_high = higher_is_worse(m.metric);
  std::string head = std::string(to_string(m.metric)) + ": canary ";
  if (is_count(m.metric)) {
    for (double x : canary) v.canary += x;
    for (double x : baseline) v.baseline += x;
    v.worse_by = worse_high ? v.canary - v.baseline : v.baseline - v.canary;
    v.passed = v.worse_by <= m.max_extra;
    v.evidence = head + num(v.canary) + ", baseline " + num(v.baseline) + "; threshold: at most " +
                 num(m.max_extra) + " more on the canary: " + (v.passed ? "pass" : "FAIL");
    return v;
  }
  v.canary = median(canary);
  v.baseline = median(baseline);
  const std::string unit = unit_of(m.metric);
  head += "median " + num(v.canary) + " " + unit + " (" + std::to_string(canary.size()) + " samples), baseline " +
          num(v.baseline) + " " + unit + " (" + std::to_string(baseline.size()) + ")";
  if (canary.empty() || baseline.empty()) {
    v.passed = false;
    v.evidence = head + "; no samples to compare: FAIL";
    return v;
  }
  if (v.baseline != 0) v.worse_by = (worse_high ? v.canary - v.baseline : v.baseline - v.canary) / v.baseline;
  if (m.test == Test::Threshold) {
    v.passed = v.worse_by <= m.max_ratio;
    v.evidence = head + "; worse by " + num(100 * v.worse_by) + "%, threshold " + num(100 * m.max_ratio) + "%: " +
                 (v.passed ? "pass" : "FAIL");
    return v;
  }
  const RankTest r = worse_high ? mann_whitney(canary, baseline) : mann_whitney(baseline, canary);
  v.p_value = r.p_greater;
  v.passed = r.p_greater >= 1 - m.confidence;
  v.evidence = head + "; Mann-Whitney U=" + num(r.u) + ", z=" + num(r.z) + ", one-sided p=" + num(r.p_greater) +
               " against " + num(1 - m.confidence) + " (confidence " + num(m.confidence) + "): " +
               (v.passed ? "pass" : "FAIL");
  return v;
}

}  // namespace tt::rollout
