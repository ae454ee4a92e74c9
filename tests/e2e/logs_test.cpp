// `traintwin logs` on the report directory of a real run (scenarios/quickstart.json), and its error exits.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::lines_of;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

TEST_CASE("e2e: traintwin logs filters the event log of a run", "[e2e]") {
  auto dir = scratch_dir("logs-quickstart");
  auto run = run_cli("run " + std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json --out " + dir.string());
  REQUIRE(run.exit_code == 0);
  CHECK_THAT(run.output, Catch::Contains("events.jsonl, metrics.prom"));
  CHECK(run.output.find('\r') == std::string::npos);  // stdout is a pipe: no progress line
  CHECK(run.output.find('\x1b') == std::string::npos);

  const auto events = lines_of(read_file(dir / "events.jsonl"));
  const auto report = nlohmann::json::parse(read_file(dir / "report.json"));
  REQUIRE(events.size() == report["decisions"].size());
  for (std::size_t i = 0; i < events.size(); ++i) {
    auto e = nlohmann::json::parse(events[i]);
    CHECK(e["t_s"] == report["decisions"][i]["t_s"]);
    CHECK(e["kind"] == report["decisions"][i]["kind"]);
    CHECK(e["message"] == report["decisions"][i]["reason"]);
  }

  auto all = run_cli("logs " + dir.string());
  CHECK(all.exit_code == 0);
  CHECK(lines_of(all.output).size() == events.size());
  CHECK_THAT(all.output, Catch::StartsWith("0:00:00.000  INFO   submit          pretrain-70b"));

  // The crash at 1h30m under pretrain-70b: a warning, two alerts (the job's heartbeat at once, NodeDown after its
  // 30 s `for`), an error (detection 60 s later) and the requeue.
  auto warn = run_cli("logs " + dir.string() + " --level warn");
  CHECK(warn.exit_code == 0);
  auto warn_lines = lines_of(warn.output);
  REQUIRE(warn_lines.size() == 5);
  CHECK_THAT(warn_lines[0], Catch::StartsWith("1:30:00.000  WARN   alert_firing  pretrain-70b  -  ") &&
                                Catch::Contains("JobHeartbeatLost (critical)"));
  CHECK_THAT(warn_lines[1], Catch::StartsWith("1:30:00.000  WARN   node_down     -             n3 "));
  CHECK_THAT(warn_lines[2], Catch::StartsWith("1:30:30.000  WARN   alert_firing  -             -  ") &&
                                Catch::Contains("NodeDown (critical)"));
  CHECK_THAT(warn_lines[3], Catch::StartsWith("1:31:00.000  ERROR  detect        pretrain-70b  n0,n1,n2 +5  "));
  CHECK_THAT(warn_lines[4], Catch::StartsWith("1:31:00.000  WARN   requeue       pretrain-70b  -  "));
  CHECK(lines_of(run_cli("logs " + dir.string() + " --level error").output).size() == 1);

  auto job = run_cli("logs " + dir.string() + " --job sft-70b --since 1h --until 1h30m");
  CHECK(job.exit_code == 0);
  auto job_lines = lines_of(job.output);
  REQUIRE(job_lines.size() == 3);
  CHECK_THAT(job_lines[0], Catch::Contains("submit") && Catch::Contains("sft-70b"));
  CHECK_THAT(job_lines[1], Catch::Contains("pending") && Catch::Contains("waiting for"));
  CHECK_THAT(job_lines[2], Catch::Contains("launch") && Catch::Contains("n12,n13,n14,n15"));

  auto json = run_cli("logs " + (dir / "events.jsonl").string() + " --kind launch --kind complete --json");
  CHECK(json.exit_code == 0);
  auto json_lines = lines_of(json.output);
  CHECK(json_lines.size() == 13);  // 6 jobs complete; 7 launches, one of them the restart
  for (const auto& line : json_lines) {
    auto kind = nlohmann::json::parse(line)["kind"];
    CHECK((kind == "launch" || kind == "complete"));
    CHECK(std::find(events.begin(), events.end(), line) != events.end());  // the log's own lines
  }

  auto none = run_cli("logs " + dir.string() + " --job nobody");
  CHECK(none.exit_code == 0);
  CHECK(none.output.empty());
}

TEST_CASE("e2e: traintwin logs exits 2 on a bad argument or a missing or corrupt log", "[e2e]") {
  auto dir = scratch_dir("logs-errors");
  auto missing = run_cli("logs " + dir.string());
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.output, Catch::Contains((dir / "events.jsonl").string()) && Catch::Contains("does not exist"));

  std::ofstream(dir / "events.jsonl")
      << R"({"t_s":0.0,"level":"info","kind":"submit","job":"a","nodes":[],"message":"m"})"
      << "\n"
      << R"({"t_s":1.0,"level":"info","kind":"launch","job":"a","nodes":[],"message":"m"})"
      << "\n"
      << R"({"t_s":"later","level":"info","kind":"launch","job":"a","nodes":[],"message":"m"})"
      << "\n";
  auto corrupt = run_cli("logs " + dir.string());
  CHECK(corrupt.exit_code == 2);
  CHECK_THAT(corrupt.output, Catch::Contains((dir / "events.jsonl").string() + ":3: at /t_s:"));

  std::ofstream(dir / "events.jsonl", std::ios::trunc)
      << R"({"t_s":0.0,"level":"info","kind":"submit","job":"a","nodes":[],"message":"m"})"
      << "\n";
  CHECK(run_cli("logs " + dir.string()).exit_code == 0);
  for (const auto& [args, message] : std::vector<std::pair<std::string, std::string>>{
           {"--since 2", "error: --since 2: expected a time since the start of the run with its unit"},
           {"--until soon", "error: --until soon: expected a time"},
           {"--since -1h", "error: --since -1h: expected"},
           {"--since 2h --until 1h", "error: --until 1h: expected a time at or after --since 2h"},
           {"--level loud", "error: --level loud: expected info, warn or error"},
           {"--bogus", "--bogus"},
       }) {
    auto r = run_cli("logs " + dir.string() + " " + args);
    INFO(args << "\n" << r.output);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.output, Catch::Contains(message));
  }
}
