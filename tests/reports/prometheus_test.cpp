// metrics.prom: exact figures of the sample record, the structure of the exposition format, escaping, and validation
// by `promtool check metrics` (parser and linter). The promtool test is skipped (tests/skip.hpp) when promtool is
// absent (Debian package prometheus; scripts/install-deps.sh installs it).
#include "reports/prometheus.hpp"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <map>
#include <regex>
#include <set>

#include "tests/e2e/cli_support.hpp"
#include "tests/reports/record_fixture.hpp"
#include "tests/skip.hpp"

namespace fs = std::filesystem;
using tt::testing::lines_of;

namespace {

std::string metric_name(const std::string& sample) { return sample.substr(0, sample.find_first_of("{ ")); }

// Runs `promtool check metrics` on `text`; returns its exit status and output, or nullopt without promtool.
std::optional<tt::testing::CliResult> promtool_check(const std::string& text, const std::string& name) {
  if (std::system("command -v promtool > /dev/null 2>&1") != 0) return std::nullopt;
  auto dir = tt::testing::scratch_dir("promtool-" + name);
  std::ofstream(dir / "metrics.prom", std::ios::binary) << text;
  const std::string cmd = "promtool check metrics < " + (dir / "metrics.prom").string() + " 2>&1";
  tt::testing::CliResult r;
  FILE* pipe = popen(cmd.c_str(), "r");
  REQUIRE(pipe);
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) r.output.append(buf, n);
  int status = pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

tt::RunRecord awkward_record() {
  tt::RunRecord r = tt::testing::sample_record();
  r.scenario = "back\\slash \"quoted\"\nnew line";
  r.jobs[1].name = "eval \"b\"\\x\n\xFF";
  r.jobs[1].queue = "caf\xC3\xA9";
  r.jobs[1].ettr = std::numeric_limits<double>::quiet_NaN();
  r.jobs[1].end.reset();
  r.jobs[1].state = tt::JobStatus::Unfinished;
  r.checks.push_back(r.checks[0]);  // the same name twice
  return r;
}

}  // namespace

TEST_CASE("prometheus: the run's final figures as gauges and counters", "[reports]") {
  tt::RunRecord record = tt::testing::sample_record();
  record.jobs[0].preemptions = 2;
  record.jobs[0].pending_by_reason = {{"capacity", tt::Seconds(120)}, {"preempted", tt::Seconds(60)}};
  std::string text = tt::prometheus_text(record);
  const std::string a = R"({job_name="train-a",queue="pretrain"})";
  const std::string b = R"({job_name="eval-b",queue="research"})";
  for (const std::string& line : {
           std::string(
               R"(traintwin_run_info{scenario="mini",scenario_file="scenarios/mini.json",driver="sim",seed="7"} 1)"),
           std::string("traintwin_run_simulated_seconds 6000"),
           std::string("traintwin_cluster_gpus 16"),
           std::string("traintwin_cluster_gpu_utilization_ratio 0.61"),
           std::string("traintwin_cluster_goodput_ratio 0.52"),
           std::string(R"(traintwin_cluster_jobs{state="completed"} 2)"),
           std::string(R"(traintwin_cluster_jobs{state="pending"} 0)"),
           std::string(R"(traintwin_events_total{kind="launch",level="info"} 3)"),
           std::string(R"(traintwin_events_total{kind="detect",level="error"} 1)"),
           std::string(R"(traintwin_job_state{job_name="train-a",queue="pretrain",state="completed"} 1)"),
           std::string(R"(traintwin_job_state{job_name="train-a",queue="pretrain",state="running"} 0)"),
           "traintwin_job_gpus" + a + " 8",
           "traintwin_job_submit_seconds" + b + " 600",
           "traintwin_job_start_seconds" + a + " 0",
           "traintwin_job_end_seconds" + b + " 2500",
           "traintwin_job_wait_seconds_total" + a + " 180",
           "traintwin_job_restarts_total" + a + " 1",
           "traintwin_job_restarts_total" + b + " 0",
           "traintwin_job_preemptions_total" + a + " 2",
           "traintwin_job_preemptions_total" + b + " 0",
           std::string(
               R"(traintwin_job_pending_seconds_total{job_name="train-a",queue="pretrain",reason="capacity"} 120)"),
           std::string(
               R"(traintwin_job_pending_seconds_total{job_name="train-a",queue="pretrain",reason="preempted"} 60)"),
           "traintwin_job_failures_total" + a + " 1",
           "traintwin_job_detection_seconds_total" + a + " 60",
           "traintwin_job_lost_gpu_seconds_total" + a + " 5760",  // 1.6 GPU-hours
           "traintwin_job_iterations" + a + " 500",
           "traintwin_job_iterations_target" + b + " 190",
           "traintwin_job_checkpoints_total" + a + " 3",
           "traintwin_job_checkpoint_seconds_total" + a + " 45",
           "traintwin_job_productive_seconds_total" + a + " 5000",
           "traintwin_job_ettr_ratio" + b + " 1",
           "traintwin_job_iteration_seconds" + a + " 10",
           "traintwin_job_predicted_iteration_seconds" + a + " 9.5",
           std::string(R"(traintwin_check_passed{check="eval-b ends within 40m",metric="job.end"} 0)"),
           std::string(R"(traintwin_check_passed{check="train-a restarts once",metric="job.restarts"} 1)"),
       }) {
    INFO(line);
    CHECK_THAT(text, Catch::Contains("\n" + line + "\n"));
  }
  CHECK_THAT(text, !Catch::Contains(R"(traintwin_job_pending_seconds_total{job_name="eval-b")"));  // never waited
  CHECK(text == tt::prometheus_text(record));
}

TEST_CASE("prometheus: each family is HELP, TYPE, then its samples, together", "[reports]") {
  const std::regex sample(R"(^[a-z_]+(\{([a-z_]+="([^"\\]|\\["\\n])*",?)+\})? (-?[0-9.e+]+|NaN|\+Inf|-Inf)$)");
  std::set<std::string> families;
  std::string current, type;
  for (const auto& line : lines_of(tt::prometheus_text(awkward_record()))) {
    INFO(line);
    if (line.rfind("# HELP ", 0) == 0) {
      current = line.substr(7, line.find(' ', 7) - 7);
      CHECK(families.insert(current).second);  // one HELP per family
      CHECK(current.rfind("traintwin_", 0) == 0);
      type.clear();
    } else if (line.rfind("# TYPE ", 0) == 0) {
      CHECK(line.substr(7, current.size()) == current);
      type = line.substr(8 + current.size());
      CHECK((type == "gauge" || type == "counter"));
      CHECK((type == "counter") == (current.size() > 6 && current.substr(current.size() - 6) == "_total"));
    } else {
      CHECK(std::regex_match(line, sample));
      CHECK(metric_name(line) == current);  // samples follow their own family's HELP and TYPE
      CHECK_FALSE(type.empty());
    }
  }
  CHECK(families.size() > 20);
}

TEST_CASE("prometheus: label values and help text are escaped, odd values are spelled out", "[reports]") {
  CHECK(tt::prometheus_label_value("a\\b\"c\nd") == R"(a\\b\"c\nd)");
  CHECK(tt::prometheus_help("a\\b\"c\nd") == R"(a\\b"c\nd)");
  CHECK(tt::prometheus_label_value("\xFF") == "\xEF\xBF\xBD");
  CHECK(tt::prometheus_number(std::numeric_limits<double>::quiet_NaN()) == "NaN");
  CHECK(tt::prometheus_number(std::numeric_limits<double>::infinity()) == "+Inf");
  CHECK(tt::prometheus_number(-std::numeric_limits<double>::infinity()) == "-Inf");
  CHECK(tt::prometheus_number(0.1) == "0.1");
  CHECK(tt::prometheus_number(3) == "3");

  std::string text = tt::prometheus_text(awkward_record());
  CHECK_THAT(text, Catch::Contains(R"(scenario="back\\slash \"quoted\"\nnew line")"));
  const std::string b = "{job_name=\"eval \\\"b\\\"\\\\x\\n\xEF\xBF\xBD\",queue=\"caf\xC3\xA9\"}";
  CHECK_THAT(text, Catch::Contains("traintwin_job_ettr_ratio" + b + " NaN\n"));
  CHECK_THAT(text, !Catch::Contains("traintwin_job_end_seconds" + b));  // never ended: no sample
  CHECK_THAT(text, Catch::Contains(R"(traintwin_check_passed{check="no unfinished jobs #2",metric=)"));
}

TEST_CASE("prometheus: an empty record still gives a valid exposition", "[reports]") {
  std::string text = tt::prometheus_text(tt::RunRecord{});
  CHECK_THAT(text, Catch::Contains("\ntraintwin_cluster_gpus 0\n"));
  CHECK_THAT(text, !Catch::Contains("traintwin_job_"));  // families without samples are left out
  CHECK_THAT(text, !Catch::Contains("traintwin_check_passed"));
}

TEST_CASE("prometheus: promtool check metrics accepts metrics.prom without a lint warning", "[reports][promtool]") {
  std::map<std::string, std::string> texts = {{"sample", tt::prometheus_text(tt::testing::sample_record())},
                                              {"busy", tt::prometheus_text(tt::testing::busy_record())},
                                              {"awkward", tt::prometheus_text(awkward_record())},
                                              {"empty", tt::prometheus_text(tt::RunRecord{})}};
  if (std::system("command -v promtool > /dev/null 2>&1") != 0)
    TT_SKIP("promtool is absent; run scripts/install-deps.sh (Debian package prometheus) to validate metrics.prom");
  for (const auto& [name, text] : texts) {
    auto r = promtool_check(text, name);
    REQUIRE(r);
    INFO(name << ": promtool said:\n" << r->output);
    CHECK(r->exit_code == 0);
    CHECK(r->output.empty());  // lint problems are printed (exit 3 in promtool 2.42)
  }
  // The check has teeth: promtool rejects a broken exposition.
  auto broken = promtool_check("# TYPE x gauge\nx{a=\"unterminated} 1\n", "broken");
  REQUIRE(broken);
  CHECK(broken->exit_code != 0);
}
