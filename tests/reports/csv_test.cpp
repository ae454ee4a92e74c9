#include "reports/csv.hpp"

#include <catch2/catch.hpp>

#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"

TEST_CASE("csv: series has a header and one row per sample", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  auto rows = tt::testing::lines_of(tt::series_csv(r));
  REQUIRE(rows.size() == r.series.size() + 1);
  CHECK(rows[0] == "t_s,gpus_allocated,gpus_up,jobs_running,jobs_pending");
  CHECK(rows[1] == "0,8,16,1,0");
  CHECK(rows[3] == "2400,16,8,2,0");
}

TEST_CASE("csv: jobs has one row per job, quoting and empty cells for absent figures", "[reports]") {
  tt::RunRecord r = tt::testing::sample_record();
  r.jobs[1].name = "eval, \"b\"";
  r.jobs[1].end.reset();
  r.jobs[1].state = tt::JobStatus::Unfinished;
  auto rows = tt::testing::lines_of(tt::jobs_csv(r));
  REQUIRE(rows.size() == r.jobs.size() + 1);
  CHECK(rows[0].rfind("name,queue,gpus,priority,state,submit_s,start_s,end_s,wait_s,restarts,", 0) == 0);
  CHECK(rows[1].rfind("train-a,pretrain,8,10,completed,0,0,6000,180,1,1,500,500,3,45,9.5,10,5000,", 0) == 0);
  CHECK(rows[2].rfind("\"eval, \"\"b\"\"\",research,8,1,unfinished,600,600,,0,0,0,", 0) == 0);
  CHECK(tt::jobs_csv(r) == tt::jobs_csv(r));
}
