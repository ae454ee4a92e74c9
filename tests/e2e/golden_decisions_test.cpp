// Golden decision logs: every bundled scenario, simulated with its own seed, writes decisions.txt byte for byte as
// tests/golden/<scenario>.decisions.txt. A decision that drifts (order, placement, reason, or a time by a millisecond)
// fails here with the first lines that differ; `make golden` rewrites the files and `git diff tests/golden` shows
// what moved.
#include <algorithm>
#include <catch2/catch.hpp>
#include <iostream>
#include <set>
#include <sstream>
#include <vector>

#include "tests/e2e/cli_support.hpp"

namespace fs = std::filesystem;
using tt::testing::bundled_scenarios;
using tt::testing::lines_of;
using tt::testing::read_file;
using tt::testing::run_cli;
using tt::testing::scratch_dir;

namespace {

const fs::path kGoldenDir = fs::path(TT_SOURCE_DIR) / "tests" / "golden";
constexpr const char* kRegenerate =
    "make golden   (or: scripts/update-golden.sh build/traintwin), then git diff tests/golden";

// One unified-diff hunk around the lines that differ (the common head and tail are left out but for a little
// context), at most kShown lines from each side.
std::string first_difference(const std::string& golden, const std::string& actual) {
  constexpr std::size_t kContext = 3, kShown = 10;
  const auto g = lines_of(golden), a = lines_of(actual);
  std::size_t head = 0, tail = 0;
  while (head < g.size() && head < a.size() && g[head] == a[head]) ++head;
  while (tail < g.size() - head && tail < a.size() - head && g[g.size() - 1 - tail] == a[a.size() - 1 - tail]) ++tail;
  std::ostringstream os;
  os << "--- golden (" << g.size() << " lines)\n+++ this run (" << a.size() << " lines)\n@@ line " << head + 1
     << " @@\n";
  for (std::size_t k = head > kContext ? head - kContext : 0; k < head; ++k) os << " " << g[k] << "\n";
  auto side = [&](const std::vector<std::string>& lines, char mark) {
    const std::size_t end = lines.size() - tail;
    for (std::size_t k = head; k < end && k < head + kShown; ++k) os << mark << lines[k] << "\n";
    if (end > head + kShown) os << mark << "... " << end - head - kShown << " more\n";
  };
  side(g, '-');
  side(a, '+');
  for (std::size_t k = g.size() - tail; k < g.size() && k < g.size() - tail + kContext; ++k) os << " " << g[k] << "\n";
  return os.str();
}


}  // namespace

TEST_CASE("e2e: every bundled scenario takes the decisions of its golden file", "[e2e]") {
  const auto scenarios = bundled_scenarios();
  REQUIRE(scenarios.size() >= 1);
  for (const auto& scenario : scenarios) {
    const std::string name = scenario.stem().string();
    DYNAMIC_SECTION(name) {
      const fs::path golden = kGoldenDir / (name + ".decisions.txt");
      INFO("golden file " << golden.string() << "; regenerate: " << kRegenerate);
      REQUIRE(fs::exists(golden));
      auto out = scratch_dir("golden-" + name);
      auto r = run_cli("run " + scenario.string() + " --quiet --out " + out.string());
      INFO(r.output);
      REQUIRE((r.exit_code == 0 || r.exit_code == 1));  // a failed check still writes its decisions
      const std::string expected = read_file(golden), actual = read_file(out / "decisions.txt");
      if (actual != expected) {
        std::cerr << "\n"
                  << name << ": decisions.txt differs from its golden file\n"
                  << first_difference(expected, actual);  // here, not in the message: Catch wraps at 80 columns
        FAIL_CHECK("decisions differ (diff on stderr); in full: diff -u " << golden.string() << " "
                                                                          << (out / "decisions.txt").string());
      }
    }
  }
}

TEST_CASE("e2e: every golden decision log belongs to a bundled scenario", "[e2e]") {
  std::set<std::string> names;
  for (const auto& s : bundled_scenarios()) names.insert(s.stem().string() + ".decisions.txt");
  for (const auto& entry : fs::directory_iterator(kGoldenDir)) {
    INFO(entry.path().string() << " has no scenario in scenarios/: delete it, or " << kRegenerate);
    CHECK(names.count(entry.path().filename().string()) == 1);
  }
}
