#include <catch2/catch.hpp>
#include <filesystem>

#include "reports/report.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"

namespace fs = std::filesystem;

TEST_CASE("write_report writes every view, byte-identical on a rerun", "[reports]") {
  auto a = tt::testing::scratch_dir("report-files-a");
  auto b = tt::testing::scratch_dir("report-files-b");
  tt::ReportFiles files = tt::write_report(tt::testing::sample_record(), a.string());
  tt::write_report(tt::testing::sample_record(), b.string());
  CHECK(files.dir == a.string());
  const std::vector<std::string> names = {"report.json",      "junit.xml",    "report.html",  "trace.json",
                                          "series.csv",       "jobs.csv",     "events.jsonl", "metrics.prom",
                                          "alerts.rules.yml", "decisions.txt"};
  REQUIRE(files.paths.size() == names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    INFO(names[i]);
    CHECK(files.paths[i] == (a / names[i]).string());
    CHECK(fs::file_size(a / names[i]) > 100);
    CHECK(tt::testing::read_file(a / names[i]) == tt::testing::read_file(b / names[i]));
  }
  CHECK(nlohmann::json::parse(tt::testing::read_file(a / "trace.json"))["traceEvents"].size() > 10);
}

TEST_CASE("write_report names the file it cannot write", "[reports]") {
  auto dir = tt::testing::scratch_dir("report-files-blocked");
  fs::create_directories(dir / "junit.xml");  // a directory where a file must go
  CHECK_THROWS_WITH(tt::write_report(tt::testing::sample_record(), dir.string()),
                    Catch::Contains("cannot write") && Catch::Contains("junit.xml"));
}
