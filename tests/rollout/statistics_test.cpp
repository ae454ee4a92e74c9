// The judge's statistics against values computed independently (the normal tail by erfc, the Clopper-Pearson bounds
// by bisection on the exact binomial tails, in Python), and the analysis verdicts built on them.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/model/random.hpp"
#include "core/rollout/analysis.hpp"
#include "core/rollout/statistics.hpp"

using namespace tt::rollout;

TEST_CASE("Mann-Whitney U, its tie correction and one-sided p", "[unit][rollout]") {
  // a entirely above b: U = n m, z = (U - nm/2 - 0.5) / sqrt(nm(n+m+1)/12).
  const auto r = mann_whitney({5, 6, 7, 8}, {1, 2, 3, 4});
  CHECK(r.u == 16);
  CHECK(r.z == Approx((16 - 8 - 0.5) / std::sqrt(4.0 * 4 * 9 / 12)));
  CHECK(r.p_greater == Approx(0.0151914).margin(1e-6));
  const auto rev = mann_whitney({1, 2, 3, 4}, {5, 6, 7, 8});
  CHECK(rev.u == 0);
  CHECK(rev.p_greater > 0.98);
  // Ties: mid-ranks; x=[1,2,2,3], y=[2,3,3,4]: U_x = 3.0, p(greater) = 0.91398.
  const auto t = mann_whitney({1, 2, 2, 3}, {2, 3, 3, 4});
  CHECK(t.u == 3.0);
  CHECK(t.p_greater == Approx(0.91398).margin(1e-4));
  CHECK(mann_whitney({1, 1, 1}, {1, 1}).p_greater == 1.0);
  CHECK(mann_whitney({}, {1}).p_greater == 1.0);
}

TEST_CASE("Mann-Whitney rejects about (1 - confidence) of identical samples", "[unit][rollout]") {
  tt::Random rng(42);
  int rejected = 0;
  const int trials = 4000;
  for (int i = 0; i < trials; ++i) {
    std::vector<double> a, b;
    for (int k = 0; k < 12; ++k) a.push_back(rng.normal(1, 0.01)), b.push_back(rng.normal(1, 0.01));
    rejected += mann_whitney(a, b).p_greater < 0.02;
  }
  const Interval iv = clopper_pearson(rejected, trials, 0.999);
  INFO(rejected << " of " << trials);
  CHECK(iv.lo < 0.02);
  CHECK(iv.hi > 0.012);  // the continuity correction makes the test a little conservative, never liberal
}

TEST_CASE("Clopper-Pearson intervals", "[unit][rollout]") {
  // R: binom.test(4, 200)$conf.int = 0.005475 0.050410
  const Interval a = clopper_pearson(4, 200, 0.95);
  CHECK(a.lo == Approx(0.0054756).margin(2e-6));
  CHECK(a.hi == Approx(0.0504136).margin(2e-6));
  const Interval zero = clopper_pearson(0, 200, 0.95);
  CHECK(zero.lo == 0);
  CHECK(zero.hi == Approx(0.0182753).margin(2e-6));  // 1 - 0.025^(1/200)
  const Interval all = clopper_pearson(10, 10, 0.95);
  CHECK(all.hi == 1);
  CHECK(all.lo == Approx(0.691503).margin(2e-6));  // 0.025^(1/10)
}

TEST_CASE("analysis verdicts: thresholds on samples and counts, the rank test, direction", "[unit][rollout]") {
  AnalysisMetric thr{Metric::IterationTime, Test::Threshold, 0.03, 0, 0.98};
  CHECK(judge(thr, {1.02, 1.02, 1.02}, {1.0, 1.0, 1.0}).passed);
  const auto slow = judge(thr, {1.05, 1.05}, {1.0, 1.0});
  CHECK_FALSE(slow.passed);
  CHECK(slow.worse_by == Approx(0.05));
  CHECK_THAT(slow.evidence, Catch::Contains("FAIL"));
  AnalysisMetric bw{Metric::CollectiveBandwidth, Test::Threshold, 0.03, 0, 0.98};
  CHECK_FALSE(judge(bw, {90, 90}, {100, 100}).passed);  // lower bandwidth is worse
  CHECK(judge(bw, {110, 110}, {100, 100}).passed);
  AnalysisMetric fail{Metric::Failures, Test::Threshold, 0, 0, 0.98};
  CHECK(judge(fail, {0}, {0}).passed);
  CHECK_FALSE(judge(fail, {2}, {0}).passed);
  AnalysisMetric mw{Metric::IterationTime, Test::MannWhitney, 0, 0, 0.98};
  std::vector<double> c, b;
  for (int k = 0; k < 12; ++k) c.push_back(1.05 + 0.001 * k), b.push_back(1.0 + 0.001 * k);
  const auto v = judge(mw, c, b);
  CHECK_FALSE(v.passed);
  CHECK(v.p_value < 0.001);
  CHECK(judge(mw, b, c).passed);
  CHECK_FALSE(judge(mw, {}, b).passed);  // no canary samples: nothing shows it is fine
}
