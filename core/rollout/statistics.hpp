// The statistics a canary judgment rests on: the Mann-Whitney U rank test (normal approximation with the tie and
// continuity corrections, as Kayenta's judge and SciPy's mannwhitneyu(method="asymptotic") compute it) and the
// Clopper-Pearson interval of a binomial rate (used by `traintwin rehearse`). Pure functions; the normal and beta
// distributions are Boost.Math's.
#pragma once

#include <vector>

namespace tt::rollout {

struct RankTest {
  double u = 0;        // U of the first sample: pairs (a, b) with a > b, ties counted half
  double z = 0;        // standardised, continuity-corrected toward the null
  double p_greater = 1;  // one-sided p-value of "the first sample is stochastically greater"
  int n = 0, m = 0;
};

// Needs both samples non-empty (else p_greater = 1). All values tied: p_greater = 1.
RankTest mann_whitney(const std::vector<double>& a, const std::vector<double>& b);

struct Interval {
  double lo = 0, hi = 1;
};
// Exact (Clopper-Pearson) two-sided interval at `confidence` for k successes out of n trials (n > 0).
Interval clopper_pearson(int k, int n, double confidence);

double median(std::vector<double> v);  // 0 for an empty sample

}  // namespace tt::rollout
