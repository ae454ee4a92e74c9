// The rollout timeline of the HTML report (reports/rollout_html.hpp): present only when the run had a rollout; one
// lane per step plus the rollback, each step's verdict and evidence in the table.
#include <catch2/catch.hpp>

#include "reports/html.hpp"
#include "reports/rollout_html.hpp"

using namespace tt;

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

RunRecord rolled_back() {
  RunRecord r;
  r.scenario = "rollout";
  r.end_time = Seconds(8400);
  RolloutRecord ro;
  ro.release = "2027.02";
  ro.from = "2026.11";
  ro.outcome = "rolled back";
  ro.decided = Seconds(6900);
  ro.rolled_back_at = Seconds(8400);
  RolloutStepRecord s;
  s.step = 0;
  s.nodes = 2;
  s.started = Seconds(1800);
  s.observed_from = Seconds(3300);
  s.decided = Seconds(6900);
  s.outcome = "rollback";
  rollout::MetricVerdict v;
  v.passed = false;
  v.evidence = "iteration_time: canary median 6.08 s (12 samples), baseline 5.84 s (12): FAIL <&>";
  s.verdicts.push_back(v);
  ro.steps.push_back(s);
  r.rollout = ro;
  return r;
}

}  // namespace

TEST_CASE("rollout html: no rollout, no section", "[unit][reports]") {
  RunRecord r;
  r.end_time = Seconds(60);
  CHECK(rollout_html_section(r).empty());
  CHECK(report_html(r).find("id=\"rollout\"") == std::string::npos);
}

TEST_CASE("rollout html: steps, verdicts and the rollback on the timeline", "[unit][reports]") {
  RunRecord r = rolled_back();
  const std::string html = rollout_html_section(r);
  CHECK_THAT(html, Catch::Contains("<strong>rolled back</strong> at 1h 55m; every node back on 2026.11 at 2h 20m"));
  CHECK(count(html, "<svg") == 1);
  // Step 1: drain and reimage (grey), then its observation window ending in a rollback (red); the rollback lane.
  CHECK(count(html, "<rect") == 3);
  CHECK_THAT(html, Catch::Contains("step 1 (2 nodes): drain and reimage 30m 00s to 55m 00s"));
  CHECK_THAT(html, Catch::Contains("step 1 (2 nodes): observed 55m 00s to 1h 55m, rollback"));
  CHECK_THAT(html, Catch::Contains("rollback: drain and reimage to 2026.11, 1h 55m to 2h 20m"));
  CHECK_THAT(html, Catch::Contains("<span class=\"badge fail\">rollback</span>"));
  CHECK_THAT(html, Catch::Contains("FAIL &lt;&amp;&gt;"));  // evidence escaped
  CHECK(report_html(r).find(html) != std::string::npos);
  // A promoted step is green, an undecided one blue with no verdict yet.
  r.rollout->steps[0].outcome = "promote";
  r.rollout->rolled_back_at.reset();
  RolloutStepRecord next;
  next.step = 1;
  next.nodes = 4;
  next.started = Seconds(6900);
  next.observed_from = Seconds(7500);
  r.rollout->steps.push_back(next);
  const std::string two = rollout_html_section(r);
  CHECK(count(two, "<rect") == 4);
  CHECK_THAT(two, Catch::Contains("fill=\"#1b7f3b\""));
  CHECK_THAT(two, Catch::Contains("fill=\"#4a7bd0\""));
  CHECK_THAT(two, Catch::Contains("<td>undecided</td>"));
}
