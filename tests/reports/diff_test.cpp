#include "reports/diff.hpp"

#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "core/io/input_error.hpp"
#include "reports/report.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"

using nlohmann::json;
using tt::Verdict;

namespace {

json base_report() { return tt::report_json(tt::testing::sample_record()); }

const tt::DiffRow& row(const tt::ReportDiff& d, const std::string& metric, const std::string& subject = "") {
  for (const auto& r : d.rows)
    if (r.metric == metric && r.subject == subject) return r;
  FAIL("no row " << metric << "[" << subject << "]");
  throw std::logic_error("unreachable");
}

tt::ReportDiff diff(const json& now, double tolerance = 0.05, std::vector<std::string> metrics = {}) {
  return tt::diff_reports(base_report(), now, tt::DiffOptions{tolerance, std::move(metrics)});
}

}  // namespace

TEST_CASE("diff: identical reports are the same and exit 0", "[reports]") {
  auto d = diff(base_report());
  CHECK(d.rows.size() == 3 + 2 * 6 + 3);  // cluster figures, job figures, checks
  CHECK(d.count(Verdict::Same) == static_cast<int>(d.rows.size()));
  CHECK(tt::diff_exit_code(d) == tt::kDiffOk);
  CHECK_THAT(tt::diff_table(d), Catch::EndsWith("OK\n"));
}

TEST_CASE("diff: a figure is judged in its bad direction against the tolerance", "[reports]") {
  json now = base_report();
  now["cluster"]["goodput"] = 0.52 * 0.90;         // lower goodput: worse by 10%
  now["cluster"]["gpu_utilization"] = 0.61 * 1.2;  // higher utilization: better
  now["cluster"]["end_s"] = 6000 * 1.03;           // later end: worse, but by 3% only
  now["jobs"][0]["wait_s"] = 90;                   // half the wait: better
  now["jobs"][0]["ettr"] = 0.5;                    // lower ETTR: worse
  auto d = diff(now);
  CHECK(row(d, "cluster.goodput").verdict == Verdict::Regressed);
  CHECK(row(d, "cluster.goodput").change == Approx(-0.10));
  CHECK(row(d, "cluster.gpu_utilization").verdict == Verdict::Improved);
  CHECK(row(d, "cluster.end_s").verdict == Verdict::Within);
  CHECK(row(d, "job.wait_s", "train-a").verdict == Verdict::Improved);
  CHECK(row(d, "job.ettr", "train-a").verdict == Verdict::Regressed);
  CHECK(row(d, "job.ettr", "eval-b").verdict == Verdict::Same);
  CHECK(tt::diff_exit_code(d) == tt::kDiffRegressed);

  std::string table = tt::diff_table(d);
  CHECK_THAT(table, Catch::StartsWith("metric"));
  CHECK_THAT(table, Catch::Contains("cluster.goodput"));
  CHECK_THAT(table, Catch::Contains("-10.0%  REGRESSED"));
  CHECK_THAT(table, Catch::Contains("job.ettr[train-a]"));
  CHECK_THAT(table, Catch::Contains("2 regressed, 2 improved, 1 within tolerance"));
  CHECK_THAT(table, Catch::EndsWith("REGRESSED\n"));

  CHECK(row(diff(now, 0.01), "cluster.end_s").verdict == Verdict::Regressed);  // 3% > 1%
  CHECK(tt::diff_exit_code(diff(now, 0.5)) == tt::kDiffOk);                    // all within 50%
}

TEST_CASE("diff: from zero, from absent and to absent", "[reports]") {
  json now = base_report();
  now["jobs"][1]["restarts"] = 1;     // base 0: absolute change
  now["jobs"][1]["end_s"] = nullptr;  // eval-b no longer ends
  auto d = diff(now);
  CHECK(row(d, "job.restarts", "eval-b").verdict == Verdict::Regressed);
  CHECK_FALSE(row(d, "job.restarts", "eval-b").change.has_value());
  CHECK(row(d, "job.end_s", "eval-b").verdict == Verdict::Regressed);
  CHECK(tt::diff_exit_code(d) == tt::kDiffRegressed);

  now = base_report();
  now["jobs"][1]["lost_gpu_hours"] = 0.01;  // base 0, within an absolute 0.05
  CHECK(row(diff(now), "job.lost_gpu_hours", "eval-b").verdict == Verdict::Within);

  json base = base_report();
  base["jobs"][1]["end_s"] = nullptr;
  auto back = tt::diff_reports(base, base_report(), {});
  CHECK(row(back, "job.end_s", "eval-b").verdict == Verdict::Improved);
}

TEST_CASE("diff: a check from pass to fail regresses, fail to pass improves", "[reports]") {
  json now = base_report();
  now["checks"][0]["passed"] = false;
  now["checks"][2]["passed"] = true;
  auto d = diff(now);
  CHECK(row(d, "check", "no unfinished jobs").verdict == Verdict::Regressed);
  CHECK(row(d, "check", "eval-b ends within 40m").verdict == Verdict::Improved);
  CHECK(row(d, "check", "train-a restarts once").verdict == Verdict::Same);
  CHECK(tt::diff_exit_code(d) == tt::kDiffRegressed);
  CHECK_THAT(tt::diff_table(d),
             Catch::Matches(R"([\s\S]*\ncheck\[no unfinished jobs\] +pass +fail +- +REGRESSED\n[\s\S]*)"));
}

// Found by fuzz/ (tests/data/fuzz/diff/): with a check name twice, the second was compared with the first, so a
// report could regress against itself. A scenario's check names are unique, so a report's must be.
TEST_CASE("diff: a check name twice is refused, naming the second", "[reports]") {
  json now = base_report();
  now["checks"].push_back(now["checks"][0]);
  now["checks"].back()["passed"] = !now["checks"][0]["passed"].get<bool>();
  try {
    diff(now);
    FAIL("accepted");
  } catch (const tt::InputError& e) {
    CHECK(e.pointer() == "/checks/3/name");
    CHECK_THAT(e.expected(), Catch::Contains("unique check names"));
  }
}

TEST_CASE("diff: jobs matched by name, one-sided jobs are listed, not regressions", "[reports]") {
  json now = base_report();
  std::swap(now["jobs"][0], now["jobs"][1]);  // order does not matter
  now["jobs"][0]["name"] = "eval-c";          // eval-b gone, eval-c new
  auto d = diff(now);
  CHECK(row(d, "job.end_s", "train-a").verdict == Verdict::Same);
  CHECK(row(d, "job", "eval-b").verdict == Verdict::Removed);
  CHECK(row(d, "job", "eval-c").verdict == Verdict::Added);
  CHECK(tt::diff_exit_code(d) == tt::kDiffOk);
}

TEST_CASE("diff: --metric restricts the comparison", "[reports]") {
  json now = base_report();
  now["cluster"]["goodput"] = 0.1;
  now["jobs"][0]["end_s"] = 9000;
  auto d = diff(now, 0.05, {"job.end_s"});
  REQUIRE(d.rows.size() == 2);
  CHECK(row(d, "job.end_s", "train-a").verdict == Verdict::Regressed);
  auto g = diff(now, 0.05, {"cluster.goodput", "check"});
  CHECK(g.rows.size() == 1 + 3);
  CHECK(tt::diff_exit_code(diff(now, 0.05, {"job.wait_s"})) == tt::kDiffOk);
  CHECK_THROWS_AS(diff(now, 0.05, {"goodput"}), tt::InputError);
}

TEST_CASE("diff: tolerance parses percent and fraction", "[reports]") {
  CHECK(tt::parse_tolerance("5%") == Approx(0.05));
  CHECK(tt::parse_tolerance("0.05") == Approx(0.05));
  CHECK(tt::parse_tolerance("0") == Approx(0));
  CHECK(tt::parse_tolerance("12.5%") == Approx(0.125));
  CHECK_FALSE(tt::parse_tolerance("5"));  // ambiguous: write 5% or 0.05
  CHECK_FALSE(tt::parse_tolerance("-1%"));
  CHECK_FALSE(tt::parse_tolerance("five"));
  CHECK_FALSE(tt::parse_tolerance("5%%"));
  CHECK_FALSE(tt::parse_tolerance(""));
  CHECK_FALSE(tt::parse_tolerance("%"));
}

TEST_CASE("diff: files give exit 0, 1 or 2 with a message naming the file", "[reports]") {
  auto dir = tt::testing::scratch_dir("diff-files");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream((dir / name).string()) << text;
    return (dir / name).string();
  };
  std::string base = write("base.json", base_report().dump(2));
  json worse = base_report();
  worse["cluster"]["goodput"] = 0.2;
  std::string bad = write("worse.json", worse.dump(2));
  json old_schema = base_report();
  old_schema["schema_version"] = 99;
  json no_name = base_report();
  no_name["jobs"][1].erase("name");

  auto run = [&](const std::string& a, const std::string& b, std::vector<std::string> metrics = {}) {
    std::ostringstream out, err;
    int code = tt::diff_report_files(a, b, tt::DiffOptions{0.05, std::move(metrics)}, out, err);
    return std::tuple{code, out.str(), err.str()};
  };
  CHECK(std::get<0>(run(base, base)) == 0);
  auto [code, out, err] = run(base, bad);
  CHECK(code == 1);
  CHECK_THAT(out, Catch::Contains("REGRESSED"));
  CHECK(err.empty());

  auto expect_bad = [&](const std::string& path, const std::string& message) {
    auto [c, o, e] = run(base, path);
    CHECK(c == 2);
    CHECK(o.empty());
    CHECK_THAT(e, Catch::Contains("error: " + path) && Catch::Contains(message));
  };
  expect_bad((dir / "missing.json").string(), "a readable file");
  expect_bad(write("broken.json", "{\"schema_version\": 1,"), "valid JSON");
  expect_bad(write("old.json", old_schema.dump()), "at /schema_version: report schema version 1, found 99");
  expect_bad(write("noname.json", no_name.dump()), "at /jobs/1/name: a string");
  expect_bad(write("array.json", "[1, 2]"), "a traintwin report object, found array");
  auto [c, o, e] = run(base, base, {"cluster.nothing"});
  CHECK(c == 2);
  CHECK_THAT(e, Catch::Contains("cluster.goodput"));
}
