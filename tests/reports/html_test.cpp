#include "reports/html.hpp"

#include <catch2/catch.hpp>

#include "tests/reports/record_fixture.hpp"

namespace {

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (auto pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + what.size())) ++n;
  return n;
}

}  // namespace

TEST_CASE("html: one self-contained page with a chart per view", "[reports]") {
  std::string html = tt::report_html(tt::testing::sample_record());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(count(html, "<svg class=\"chart\"") == 2);  // GPU allocation, queue depth
  CHECK(count(html, "<svg class=\"chart gantt\"") == 1);
  CHECK(count(html, "<svg class=\"mini\"") == 2);  // a breakdown bar per job
  CHECK(count(html, "<svg") == count(html, "</svg>"));
  CHECK(html.find("http") == std::string::npos);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("src=") == std::string::npos);
  CHECK(html.find("href=") == std::string::npos);
  CHECK(html.find("@import") == std::string::npos);
}

TEST_CASE("html: header, Gantt marks, tables, checks and decision log", "[reports]") {
  std::string html = tt::report_html(tt::testing::sample_record());
  CHECK_THAT(html, Catch::Contains("traintwin report: mini"));
  CHECK_THAT(html, Catch::Contains("network/model <code>CM02</code>"));
  CHECK_THAT(html, Catch::Contains("61.0%"));  // utilization
  CHECK_THAT(html, Catch::Contains("52.0%"));  // goodput
  auto begin = html.find("<svg class=\"chart gantt\"");
  REQUIRE(begin != std::string::npos);
  std::string gantt = html.substr(begin, html.find("</svg>", begin) - begin);
  CHECK(count(gantt, "class=\"node\"") == 2);          // a label per node row
  CHECK(count(gantt, "class=\"fault-marker\"") == 1);  // on n1, the node that crashed
  CHECK(count(gantt, "class=\"detect-marker\"") == 1);
  CHECK(count(gantt, "class=\"ckpt\"") == 3);
  CHECK(count(gantt, "class=\"down\"") == 1);  // n1 out of service
  CHECK_THAT(gantt, Catch::Contains(">train-a \xE2\x86\xBB"
                                    "1<"));    // the restart is its own labelled bar
  CHECK_THAT(gantt, Catch::Contains(">1h<"));  // a time label on the axis
  CHECK(count(html, "<span class=\"badge pass\">PASS</span>") == 2);
  CHECK(count(html, "<span class=\"badge fail\">FAIL</span>") == 1);
  CHECK_THAT(html, Catch::Contains("expected job.end(eval-b) &lt;= 40m 00s; measured 41m 40s"));
  CHECK_THAT(html, Catch::Contains("<details><summary>Decision log (11 decisions)</summary>"));
  CHECK_THAT(html, Catch::Contains("<td class=\"num\">0.833</td>"));  // ETTR of train-a
  CHECK(html == tt::report_html(tt::testing::sample_record()));
}

TEST_CASE("html: record strings are escaped", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  r.scenario = "<script>alert(1)</script>";
  r.jobs[0].name = "a&b<i>";
  r.decisions[0].reason = "\"quoted\" <reason>";
  std::string html = tt::report_html(r);
  CHECK(html.find("<script") == std::string::npos);
  CHECK(html.find("<i>") == std::string::npos);
  CHECK_THAT(html, Catch::Contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
  CHECK_THAT(html, Catch::Contains("a&amp;b&lt;i&gt;"));
  CHECK_THAT(html, Catch::Contains("&quot;quoted&quot; &lt;reason&gt;"));
}

TEST_CASE("html: the fault marker goes on the node that went down, else on every node of the attempt", "[reports]") {
  auto markers = [](const tt::RunRecord& r) {
    std::string html = tt::report_html(r);
    return count(html, "<polygon class=\"fault-marker\"");
  };
  tt::RunRecord r = tt::testing::busy_record();  // pretrain-70b on n0..n7; n3 crashes
  CHECK(markers(r) == 1);
  r.decisions.clear();  // no node went down: a hang, say
  CHECK(markers(r) == 8);
}
