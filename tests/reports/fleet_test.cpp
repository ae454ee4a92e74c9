#include "reports/fleet.hpp"

#include <catch2/catch.hpp>

#include "reports/html.hpp"
#include "tests/reports/record_fixture.hpp"

namespace {

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

std::string section(const std::string& html, const std::string& id) {
  auto begin = html.find("<section id=\"" + id + "\"");
  if (begin == std::string::npos) return "";
  return html.substr(begin, html.find("</section>", begin) - begin);
}

}  // namespace

TEST_CASE("fleet: nearest-rank quantiles", "[reports][fleet]") {
  const std::vector<double> v{1, 2, 3, 4};
  CHECK(tt::nearest_rank(v, 0) == 1);
  CHECK(tt::nearest_rank(v, 0.25) == 1);
  CHECK(tt::nearest_rank(v, 0.5) == 2);
  CHECK(tt::nearest_rank(v, 0.51) == 3);
  CHECK(tt::nearest_rank(v, 0.95) == 4);
  CHECK(tt::nearest_rank(v, 1) == 4);
  CHECK(tt::nearest_rank({}, 0.5) == 0);
}

TEST_CASE("fleet: per-queue figures worked out by hand", "[reports][fleet]") {
  auto queues = tt::summarize_queues(tt::testing::fleet_record(60));
  REQUIRE(queues.size() == 3);
  const auto& a = queues[0];
  CHECK(a.queue == "a");
  CHECK(a.jobs == 20);
  CHECK(a.started == 20);
  CHECK(a.completed == 20);
  // Every job holds 8 GPUs for 6 h in all (a failed hour and five more, or six straight).
  CHECK(a.gpu_hours == Approx(20 * 48.0));
  CHECK(a.cluster_share == Approx(960.0 / (768 * 240)));
  // Jobs 0, 15, 30 and 45 are in queue a and fail once each.
  CHECK(a.lost_gpu_hours == Approx(64));
  CHECK(a.restarts == 4);
  // Waits (i % 7) x 10 min over i = 0, 3, ..., 57: three of each of 0..6 except two of 4.
  REQUIRE(a.waits.size() == 20);
  CHECK(tt::nearest_rank(a.waits, 0.5) == 1800);
  CHECK(tt::nearest_rank(a.waits, 0.95) == 3600);
  CHECK(a.ettrs.front() == 0.9);
  CHECK(a.ettrs.back() == 1.0);
}

TEST_CASE("fleet: a run with many jobs is read by queue and by distribution", "[reports][fleet]") {
  const auto r = tt::testing::fleet_record(60);
  const std::string html = tt::report_html(r);
  CHECK(html == tt::report_html(r));
  for (const char* id : {"queues", "distributions", "lost", "top"}) {
    INFO(id);
    CHECK_FALSE(section(html, id).empty());
  }
  CHECK(count(html, "<svg class=\"chart cdf\"") == 2);  // wait and ETTR
  CHECK(count(html, "<svg class=\"chart lost\"") == 1);
  CHECK(count(html, "<svg") == count(html, "</svg>"));
  // The Gantt legend lists queues, not jobs; the per-job table is folded away and has no breakdown bars.
  auto gantt = html.substr(html.find("<h2>Jobs on nodes</h2>"));
  gantt = gantt.substr(0, gantt.find("<svg"));
  CHECK(count(gantt, "queue a<") + count(gantt, "queue b<") + count(gantt, "queue c<") == 3);
  CHECK(gantt.find("job-1<") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("<details><summary>All 60 jobs, one per line</summary>"));
  CHECK(count(html, "<svg class=\"mini\"") == 0);
  // Lost work: 12 failures of 16 GPU-hours, ranked; the longest waits name their reason.
  CHECK_THAT(section(html, "lost"), Catch::Contains("192.0 GPU-hours lost in all"));
  const auto top = section(html, "top");
  CHECK(count(top, "<td class=\"num\">16.0</td>") == 10);
  CHECK_THAT(top, Catch::Contains("quota (1h 00m"));
}

TEST_CASE("fleet: a small run keeps its per-job view", "[reports][fleet]") {
  const std::string html = tt::report_html(tt::testing::busy_record());
  CHECK(section(html, "queues").empty());
  CHECK(html.find("chart cdf") == std::string::npos);
  CHECK(count(html, "<svg class=\"mini\"") == 6);
}

TEST_CASE("fleet: the distribution charts do not grow with the number of jobs", "[reports][fleet]") {
  // 20,000 distinct waits: drawn point by point, each queue's line would take two points per job (6,667 jobs). Points
  // that land on the same half pixel are merged, so a line has at most two per half pixel of the 1,176 px plot.
  auto r = tt::testing::fleet_record(20000);
  for (std::size_t i = 0; i < r.jobs.size(); ++i) r.jobs[i].wait = tt::Seconds(7.3 * static_cast<double>(i));
  const std::string html = tt::fleet_distributions_section(r);
  std::size_t lines = 0, detailed = 0;
  for (auto p = html.find("<polyline points=\""); p != std::string::npos; p = html.find("<polyline points=\"", p + 1)) {
    const auto begin = p + 18, end = html.find('"', begin);
    const auto pairs = count(html.substr(begin, end - begin), ",");
    CHECK(pairs <= 4 * 1176 + 4);
    detailed += pairs > 1000;
    ++lines;
  }
  CHECK(lines == 6);     // wait and ETTR, three queues each
  CHECK(detailed == 3);  // the wait lines keep their detail (ETTR takes two values here)
}

TEST_CASE("fleet: the page's decision log leaves out the waiting jobs' reason changes", "[reports][fleet]") {
  auto r = tt::testing::fleet_record(60);
  const std::size_t before = r.decisions.size();
  for (int i = 0; i < 5; ++i)
    r.decisions.push_back(tt::testing::decision(100 + i, "pending", "job-1", {}, "reason number " + std::to_string(i)));
  const std::string html = tt::report_html(r);
  CHECK_THAT(html, Catch::Contains("<p class=\"note\">5 of the " + std::to_string(before + 5) +
                                   " decisions are a waiting job's new reason"));
  CHECK_THAT(html, Catch::Contains("Decision log (" + std::to_string(before) + " decisions)"));
  CHECK(count(html, "reason number") == 0);
  // A small run's page lists them.
  auto small = tt::testing::sample_record();
  small.decisions.push_back(tt::testing::decision(100, "pending", "eval-b", {}, "reason number 0"));
  const std::string page = tt::report_html(small);
  CHECK(count(page, "reason number 0") == 1);
  CHECK(count(page, "a waiting job's new reason") == 0);
}

TEST_CASE("fleet: an attempt on consecutive nodes is one Gantt bar naming its first and last node", "[reports][fleet]") {
  auto r = tt::testing::fleet_record(60);
  // job-1 on four nodes of its own (after n0 ... n95 in natural order, one lane each); job-2 on two nodes with a gap.
  r.jobs[1].segments[0].nodes = {"x0", "x1", "x2", "x3"};
  r.jobs[2].segments[0].nodes = {"y0", "y2"};
  r.jobs[3].segments[0].nodes = {"y1"};
  r.jobs[3].segments[0].start = r.jobs[2].segments[0].start + tt::Seconds(60);  // between y0 and y2, not the same bar
  const std::string html = tt::report_html(r);
  CHECK(count(html, "<g class=\"bar\"><title>job-1 attempt 1 on x0 \u2013 x3 (4 nodes): ") == 1);
  CHECK(count(html, "<g class=\"bar\"><title>job-1 attempt") == 1);
  CHECK(count(html, "<g class=\"bar\"><title>job-2 attempt 1 on y0: ") == 1);
  CHECK(count(html, "<g class=\"bar\"><title>job-2 attempt 1 on y2: ") == 1);
  // The bar spans its four rows: three lanes more than a bar of one row.
  const auto at = html.find("<g class=\"bar\"><title>job-1 attempt 1 on x0");
  const auto rect = html.substr(html.find("<rect", at), 120);
  const auto one = html.substr(html.find("<rect", html.find("<g class=\"bar\"><title>job-2 attempt 1 on y0")), 120);
  auto height = [](const std::string& s) {
    const auto p = s.find("height=\"") + 8;
    return std::stod(s.substr(p, s.find('"', p) - p));
  };
  const double lane = height(one) + 2;  // a bar leaves 1 px above and below below 12 px a lane (here ~8.7)
  CHECK(height(rect) == Approx(4 * lane - 2).margin(0.3));  // heights are printed to a tenth
  // A small run's page keeps a bar per node.
  auto small = tt::testing::busy_record();
  CHECK(tt::report_html(small).find(" nodes): ") == std::string::npos);
}
