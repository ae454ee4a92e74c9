// The telemetry files of every bundled scenario: metrics.prom passes `promtool check metrics` (skipped with a warning
// without promtool) and `traintwin logs --json` gives back events.jsonl line for line.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

TEST_CASE("e2e: every bundled scenario writes a valid metrics.prom and a readable events.jsonl", "[e2e]") {
  const bool promtool = std::system("command -v promtool > /dev/null 2>&1") == 0;
  if (!promtool)
    WARN("promtool is absent: metrics.prom not validated; run scripts/install-deps.sh (package prometheus)");
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TT_SOURCE_DIR) / "scenarios")) {
    if (entry.path().extension() != ".json") continue;
    ++seen;
    const std::string name = entry.path().stem().string();
    DYNAMIC_SECTION(name) {
      auto out = scratch_dir("telemetry-" + name);
      auto run = run_cli("run " + entry.path().string() + " --quiet --out " + out.string());
      REQUIRE(run.exit_code == 0);
      const std::string metrics = read_file(out / "metrics.prom");
      CHECK_THAT(metrics, Catch::Contains("\ntraintwin_cluster_gpus "));
      CHECK_THAT(metrics, Catch::Contains("traintwin_job_ettr_ratio{job_name="));
      if (promtool) {
        const std::string cmd = "promtool check metrics < " + (out / "metrics.prom").string() + " 2>&1";
        FILE* pipe = popen(cmd.c_str(), "r");
        REQUIRE(pipe);
        std::string said;
        char buf[4096];
        for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) said.append(buf, n);
        int status = pclose(pipe);
        INFO("promtool said:\n" << said);
        CHECK(WIFEXITED(status));
        CHECK(WEXITSTATUS(status) == 0);
        CHECK(said.empty());
      }
      auto logs = run_cli("logs " + out.string() + " --json");
      CHECK(logs.exit_code == 0);
      CHECK(logs.output == read_file(out / "events.jsonl"));
      CHECK(logs.output.size() > 100);
    }
  }
  CHECK(seen >= 1);
}
