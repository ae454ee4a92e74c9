// Canary analysis: one metric's canary and baseline observations judged by the metric's test (core/rollout/spec.hpp)
// into a verdict with its evidence. A pure function of the observations.
#pragma once

#include <string>
#include <vector>

#include "core/rollout/spec.hpp"

namespace tt::rollout {

struct MetricVerdict {
  Metric metric = Metric::IterationTime;
  Test test = Test::Threshold;
  int canary_samples = 0, baseline_samples = 0;
  double canary = 0, baseline = 0;  // medians of samples, or totals of counts
  double worse_by = 0;              // threshold: relative (samples) or absolute (counts) excess of the canary
  double p_value = 1;               // MannWhitney: one-sided p of "the canary is worse"
  bool passed = true;
  std::string evidence;             // "iteration_time: canary median 1.52 s (12), baseline 1.45 s (12), ..."
};

// Samples: one per analysis interval per side; counts: a single total per side.
MetricVerdict judge(const AnalysisMetric& m, const std::vector<double>& canary, const std::vector<double>& baseline);

}  // namespace tt::rollout
