// Workload traces: the sacct, Acme and Helios readers on their fields, malformed rows by line (refused, or skipped on
// request), and the bundled replay scenario still being what `traintwin import` makes of its fixture.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "../e2e/cli_support.hpp"
#include "core/io/input_error.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/trace_reader.hpp"

using namespace tt;
using namespace tt::testing;
namespace fs = std::filesystem;

namespace {
const std::string kTraces = std::string(TT_SOURCE_DIR) + "/tests/data/traces/";
const std::string kHeader = "JobID|Partition|QOS|Submit|Start|End|Timelimit|State|AllocTRES|ReqTRES\n";

std::string error_of(const std::string& text, TraceFormat f) {
  try {
    (void)read_trace_text(text, "t.txt", f, false);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST_CASE("sacct rows become trace jobs and job steps are skipped [unit]") {
  const TraceRows r = read_trace_text(
      kHeader +
          "7|gpu|high|2025-03-03T08:00:00|2025-03-03T08:10:00|2025-03-03T10:10:00|1-02:00:00|CANCELLED by 1000|"
          "cpu=64,gres/gpu=16,node=2|cpu=64,gres/gpu=16,node=2\n"
          "7.batch||||2025-03-03T08:10:00|2025-03-03T10:10:00||CANCELLED|cpu=8|\n"
          "8|cpu|normal|2025-03-03T09:00:00|Unknown|Unknown|30:00|PENDING||billing=8,gres/gpu=8\n",
      "t.txt", TraceFormat::Sacct, false);
  REQUIRE(r.jobs.size() == 2);
  const TraceJob& j = r.jobs[0];
  CHECK(j.queue == "gpu");
  CHECK(j.qos == "high");
  CHECK(j.state == "CANCELLED");
  CHECK(j.gpus == 16);
  CHECK(j.submit == 1740988800.0);  // 2025-03-03T08:00:00Z
  CHECK(*j.start - j.submit == 600);
  CHECK(*j.end - *j.start == 7200);
  CHECK(*j.time_limit == 26 * 3600);
  CHECK(r.jobs[1].gpus == 8);  // requested: never allocated
  CHECK_FALSE(r.jobs[1].start);
  CHECK(*r.jobs[1].time_limit == 1800);
  CHECK(trace_field::slurm_duration("05:30") == 330);
  CHECK(trace_field::slurm_duration("2-12") == 2 * 86400 + 12 * 3600);
  CHECK_FALSE(trace_field::slurm_duration("UNLIMITED"));
}

TEST_CASE("Acme and Helios traces are read by their documented columns [unit]") {
  const TraceRows acme = read_trace_file(kTraces + "acme-seren-small.csv", TraceFormat::Acme, false);
  REQUIRE(acme.jobs.size() == 40);
  CHECK(acme.jobs[0].id == "5000000");
  CHECK(acme.jobs[0].queue == "Evaluation");
  CHECK(acme.jobs[0].gpus == 8);
  // "2025-03-03 08:13:03+08:00" is 00:13:03 UTC.
  CHECK(acme.jobs[0].submit == 1740960000.0 + 13 * 60 + 3);
  CHECK(*acme.jobs[0].end - *acme.jobs[0].start == 1991);  // the trace's duration column
  const TraceRows helios = read_trace_file(kTraces + "helios-venus-small.csv", TraceFormat::Helios, false);
  REQUIRE(helios.jobs.size() == 40);
  CHECK(helios.jobs[0].queue == "vcC3");
  CHECK(*helios.jobs[1].end - *helios.jobs[1].start == 2344);
}

TEST_CASE("malformed trace rows are named by line, refused or skipped [unit]") {
  CHECK(error_of("JobID|Partition\n", TraceFormat::Sacct).starts_with("t.txt: at line 1: the header of `sacct"));
  CHECK(error_of(kHeader + "1|p|q|2025-03-03 8:00|||1:00|COMPLETED||\n", TraceFormat::Sacct) ==
        "t.txt: at line 2: a time \"YYYY-MM-DD HH:MM:SS\" (or with 'T', and an offset \"+08:00\"), found "
        "\"2025-03-03 8:00\"");
  CHECK(error_of(kHeader + "1|p|q|2025-03-03T08:00:00|2025-03-03T08:00:00|2025-03-03T07:00:00|1:00|X|gres/gpu=1|\n",
                 TraceFormat::Sacct) == "t.txt: at line 2: End at or after Start");
  CHECK(error_of(kHeader + "1|p|q\n", TraceFormat::Sacct) ==
        "t.txt: at line 2: 10 '|'-separated fields, found 3");
  CHECK(error_of(kHeader + "1|p|q|2025-03-03T08:00:00|||1:xx|X|gres/gpu=1|\n", TraceFormat::Sacct)
            .starts_with("t.txt: at line 2: a Slurm time limit"));
  CHECK(error_of("job_id,vc,gpu_num,state,submit_time,start_time\n", TraceFormat::Helios) ==
        "t.txt: at line 1: the header of a Helios trace (cluster_log.csv) with a column \"end_time\", found "
        "\"job_id,vc,gpu_num,state,submit_time,start_time\"");
  const TraceRows skipped = read_trace_file(kTraces + "bad-acme-gpus.csv", TraceFormat::Acme, true);
  CHECK(skipped.jobs.size() == 39);
  REQUIRE(skipped.invalid.size() == 1);
  CHECK(skipped.invalid[0] == kTraces + "bad-acme-gpus.csv:5: a count, an integer >= 0, found \"x16\"");
}

TEST_CASE("traintwin import exits 2 naming the line of a malformed trace, and the replay is its fixture [e2e]") {
  const fs::path out = scratch_dir("import");
  const std::string tmpl = " --template " + kTraces + "template.json --out " + (out / "s.json").string();
  CliResult r = run_cli("import sacct " + kTraces + "bad-sacct-time.txt" + tmpl);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("bad-sacct-time.txt: at line 6: a time") != std::string::npos);
  r = run_cli("import helios " + kTraces + "bad-helios-columns.csv" + tmpl);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("bad-helios-columns.csv: at line 4: 12 comma-separated fields as in the header, found 11") !=
        std::string::npos);
  r = run_cli("import acme " + kTraces + "bad-acme-gpus.csv" + tmpl);
  CHECK(r.exit_code == 2);
  r = run_cli("import acme " + kTraces + "bad-acme-gpus.csv" + tmpl + " --skip-invalid");
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("skipped invalid row") != std::string::npos);
  CHECK(run_cli("import slurm " + kTraces + "sacct-small.txt" + tmpl).exit_code == 2);

  // The bundled replay: its jobs are what the import makes of the fixture today.
  const fs::path replay = fs::path(TT_SOURCE_DIR) / "scenarios" / "replay-sacct.json";
  r = run_cli("import sacct " + kTraces + "sacct-small.txt --template " + kTraces + "template.json --out " +
              (out / "replay.json").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("32 jobs from 42 rows (4 without GPUs, 1 never ran") != std::string::npos);
  const auto imported = load_json_file((out / "replay.json").string());
  const auto bundled = load_json_file(replay.string());
  CHECK(imported["jobs"] == bundled["jobs"]);
}

TEST_CASE("trace fields: times with and without an offset, counts as plain digits only", "[unit]") {
  using namespace tt::trace_field;
  CHECK(timestamp("1970-01-02 00:00:00") == 86400.0);
  CHECK(timestamp("1970-01-02T00:00:00Z") == 86400.0);
  CHECK(timestamp("1970-01-02T08:00:00+08:00") == 86400.0);
  CHECK(timestamp("1970-01-01T19:30:00-04:30") == 86400.0);
  for (const char* bad : {"1970-01-02", "1970-01-02 00:00:0x", "1970-13-02 00:00:00", "1970-01-02 24:00:00",
                          "1970-01-02 00:00:00+0800", "1970-01-02 00:00:00+08:0x", "1970-01-02 00:00:00 ",
                          "1970-01-02 00:00:00ZZ", "197a-01-02 00:00:00"}) {
    INFO(bad);
    CHECK_THROWS_WITH(timestamp(bad), Catch::Contains("a time \"YYYY-MM-DD HH:MM:SS\"") &&
                                          Catch::Contains(std::string("found \"") + bad + "\""));
  }
  CHECK(count("0") == 0);
  CHECK(count("1000000") == 1000000);
  for (const char* bad : {"", "-1", "+8", " 8", "8 ", "8.0", "1000001", "99999999999999999999", "x16"}) {
    INFO(bad);
    CHECK_THROWS_WITH(count(bad), Catch::Contains("a count, an integer >= 0"));
  }
}
