// The progress line of `traintwin run`: its text (cli/progress.cpp), silence when stdout is not a terminal, and a
// line drawn then erased under a pseudo-terminal (util-linux `script`; skipped when absent: tests/skip.hpp).
#include "cli/progress.hpp"

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>

#include "core/io/scenario_reader.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using tt::Seconds;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

tt::sim::Progress at(double now, double wall, long long events = 100) {
  return {Seconds(now), Seconds(30 * 86400.0), events, wall};
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t pos = text.find(what); pos != std::string::npos; pos = text.find(what, pos + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("progress: simulated time over the expected end, events per second, wall time", "[e2e]") {
  CHECK(tt::cli::progress_text(at(3600, 1.25), Seconds(4 * 3600), 2345, 100) ==
        "[#######.......................]   25%  sim 1h 00m / ~4h 00m  2.3k ev/s  1.2 s");
  CHECK(tt::cli::progress_text(at(0, 0), Seconds(3600), 0, 100) ==
        "[..............................]    0%  sim 0 s / ~1h 00m  0 ev/s  0.0 s");
  // Past the expected end the bar waits at 99%.
  CHECK_THAT(tt::cli::progress_text(at(5 * 3600, 9), Seconds(4 * 3600), 150000, 100),
             Catch::StartsWith("[#############################.]   99%  sim 5h 00m / ~4h 00m  150k ev/s"));
  // A narrow terminal: a shorter bar, then none, then the text cut short of the last column.
  CHECK_THAT(tt::cli::progress_text(at(3600, 1), Seconds(7200), 10, 60), Catch::StartsWith("[######.......]   50%"));
  CHECK_THAT(tt::cli::progress_text(at(3600, 1), Seconds(7200), 10, 50), Catch::StartsWith(" 50%  sim 1h 00m"));
  CHECK(tt::cli::progress_text(at(3600, 1), Seconds(7200), 10, 20).size() == 19);
  for (int width : {20, 60, 70, 80, 200})
    CHECK(tt::cli::progress_text(at(3600, 1), Seconds(7200), 10, width).size() < static_cast<std::size_t>(width));
}

TEST_CASE("progress: ProgressLine redraws one line in place and erases it, disabled, it writes nothing", "[e2e]") {
  char* data = nullptr;
  std::size_t size = 0;
  std::FILE* out = open_memstream(&data, &size);
  REQUIRE(out);
  {
    tt::cli::ProgressLine off(out, false, Seconds(7200));
    off.update(at(60, 0.1));
    off.erase();
  }
  std::fflush(out);
  CHECK(size == 0);
  {
    tt::cli::ProgressLine line(out, true, Seconds(7200));
    line.update(at(1800, 0.5, 1000));  // 1000 events in 0.5 s
    line.update(at(3600, 1.0, 1500));  // then 500 in 0.5 s
  }                                    // the destructor erases
  std::fclose(out);
  std::string text(data, size);
  std::free(data);
  CHECK(text.rfind("\r[", 0) == 0);
  CHECK(count(text, "\r[") == 2);
  CHECK(count(text, "\x1b[K") == 3);
  CHECK_THAT(text, Catch::Contains("25%  sim 30m 00s / ~2h 00m  2.0k ev/s  0.5 s\x1b[K\r["));
  CHECK_THAT(text, Catch::EndsWith("50%  sim 1h 00m / ~2h 00m  1.0k ev/s  1.0 s\x1b[K\r\x1b[K"));
}

TEST_CASE("progress: the expected end of quickstart comes from the iteration model", "[e2e]") {
  auto scenario = tt::read_scenario_file(std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json");
  double end = tt::cli::expected_end(scenario).value;
  CHECK(end > 3 * 3600);  // pretrain-70b alone: 300 iterations of ~42 s
  CHECK(end < 5 * 3600);  // the run ends at about 4h07m
  scenario.sim.horizon = Seconds(3600);
  CHECK(tt::cli::expected_end(scenario).value == 3600);
}

TEST_CASE("progress: silent when stdout is not a terminal", "[e2e]") {
  auto dir = scratch_dir("progress-pipe");
  auto r = run_cli("run " + std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json --out " + dir.string());
  CHECK(r.exit_code == 0);
  CHECK(r.output.find('\r') == std::string::npos);
  CHECK(r.output.find("ev/s") == std::string::npos);
  CHECK_THAT(r.output, Catch::StartsWith("job "));
}

TEST_CASE("progress: drawn in place on a terminal and erased before the summary", "[e2e]") {
  if (std::system("command -v script > /dev/null 2>&1") != 0)
    TT_SKIP("util-linux `script` is absent: no pseudo-terminal to run traintwin on");
  auto dir = scratch_dir("progress-tty");
  // --progress-interval 0: a redraw at every controller event, however fast or slow the machine runs the simulation.
  const std::string cmd = std::string(TT_CLI) + " run " + TT_SOURCE_DIR + "/scenarios/quickstart.json --out " +
                          dir.string() + " --progress-interval 0";
  // `script` gives the command a pseudo-terminal and copies what it writes (with "\r\n" line ends) to its stdout.
  const std::string quoted = "'" + cmd + "'";
  FILE* pipe = popen(("script -qec " + quoted + " /dev/null < /dev/null 2>&1").c_str(), "r");
  REQUIRE(pipe);
  std::string out;
  char buf[4096];
  for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
  int status = pclose(pipe);
  INFO(out);
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 0);

  const std::size_t summary = out.find("job ");
  REQUIRE(summary != std::string::npos);
  const std::string before = out.substr(0, summary);
  const std::size_t drawn = count(before, "ev/s");
  CHECK(drawn >= 10);                                              // quickstart hands the controller many events
  CHECK(drawn == count(before, "\r["));                            // every update redraws from the line's start
  CHECK_THAT(before, Catch::EndsWith("\r\x1b[K"));                 // erased at the end
  CHECK(count(out.substr(summary), "ev/s") == 0);                  // nothing after the summary starts
}
