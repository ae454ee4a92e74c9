// What the fuzz targets found (docs/reliability.md): each input under tests/data/fuzz/READER/ once crashed, hung,
// escaped its reader with something other than an InputError, or broke a property the reader promises; now the
// reader must refuse it with an InputError (the CLI's exit 2) that names what was expected, or, for an input named
// ok-*, read it without error. The inputs go to the same code as the fuzz targets (fuzz/readers.hpp); anything else
// thrown fails the test.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/io/input_error.hpp"
#include "fuzz/readers.hpp"

namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST_CASE("fuzz findings: every input the fuzzers found is refused with an InputError, or read right", "[unit][fuzz]") {
  const fs::path root = fs::path(TT_SOURCE_DIR) / "tests/data/fuzz";
  int inputs = 0;
  for (const auto& reader : tt::fuzz::reader_names()) {
    if (!fs::is_directory(root / reader)) continue;
    for (const auto& entry : fs::directory_iterator(root / reader)) {
      ++inputs;
      const std::string name = entry.path().filename().string();
      // "ok-*": valid input a reader mishandled (e.g. a round trip that changed it): now read without error.
      const bool valid = name.rfind("ok-", 0) == 0;
      DYNAMIC_SECTION(reader << " " << name) {
        const std::string bytes = slurp(entry.path());
        try {
          tt::fuzz::read_input(reader, bytes, TT_SOURCE_DIR);
          CHECK(valid);
        } catch (const tt::InputError& e) {
          INFO(e.what());
          CHECK_FALSE(valid);
          CHECK_FALSE(e.expected().empty());
        }
      }
    }
  }
  CHECK(inputs >= 8);
}

TEST_CASE("fuzz findings: the CLI turns them into exit 2 naming the file and the place", "[e2e][fuzz]") {
  const std::string data = std::string(TT_SOURCE_DIR) + "/tests/data/fuzz/";
  struct Case {
    std::string args;
    std::string says;
  };
  const std::vector<Case> cases = {
      {"validate " + data + "scenario/number-overflow.json", "number-overflow.json: at /: valid JSON"},
      {"diff " + data + "diff/number-overflow.json " + data + "diff/number-overflow.json", "number -1E999 is out of range"},
      // A node index the scenario does not have crashed `replay` (a segmentation fault) before it was checked.
      {"replay " + std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json " + data +
           "observed_log/node-out-of-range.jsonl --out " + TT_BINARY_DIR + "/test-out/fuzz-replay",
       "node-out-of-range.jsonl: at /1/node: a node index of the scenario (0 to 15), found -3"},
      // 3 groups x 570 rails x 570 default spines: a million links, 18 s under ASan, before the fabric was bounded.
      {"topo " + data + "topology/default-spines-quadratic.json",
       "default-spines-quadratic.json: at /gpus_per_tray: at most 262144 leaf-to-spine links (leaves x spines), found "
       "1710 leaves x 570 spines"},
  };
  for (const auto& c : cases) {
    const std::string cmd = std::string(TT_CLI) + " " + c.args + " 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string text;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
    const int status = ::pclose(pipe);
    INFO(c.args << "\n" << text);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK_THAT(text, Catch::Contains(c.says));
  }
}
