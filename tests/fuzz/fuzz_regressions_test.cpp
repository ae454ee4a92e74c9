// What the fuzz targets found (docs/reliability.md): each input under tests/data/fuzz/READER/ once crashed, hung or
// escaped its reader with something other than an InputError; now the reader must refuse it with an InputError (the
// CLI's exit 2) that names what was expected. The inputs go to the same code as the fuzz targets (fuzz/readers.hpp).
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

TEST_CASE("fuzz findings: every input the fuzzers found is refused with an InputError", "[unit][fuzz]") {
  const fs::path root = fs::path(TT_SOURCE_DIR) / "tests/data/fuzz";
  int inputs = 0;
  for (const auto& reader : tt::fuzz::reader_names()) {
    if (!fs::is_directory(root / reader)) continue;
    for (const auto& entry : fs::directory_iterator(root / reader)) {
      if (entry.path().extension() == ".md") continue;
      ++inputs;
      DYNAMIC_SECTION(reader << " " << entry.path().filename().string()) {
        const std::string bytes = slurp(entry.path());
        try {
          tt::fuzz::read_input(reader, bytes, TT_SOURCE_DIR);
          FAIL("accepted; a fuzz finding must be refused");
        } catch (const tt::InputError& e) {
          INFO(e.what());
          CHECK_FALSE(e.expected().empty());
        }
      }
    }
  }
  CHECK(inputs >= 1);
}

TEST_CASE("fuzz findings: the CLI turns them into exit 2 naming the file", "[e2e][fuzz]") {
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/tests/data/fuzz/scenario/number-overflow.json";
  const std::string report = std::string(TT_SOURCE_DIR) + "/tests/data/fuzz/diff/number-overflow.json";
  for (const std::string& args : {"validate " + scenario, "diff " + report + " " + report}) {
    const std::string cmd = std::string(TT_CLI) + " " + args + " 2>&1";
    FILE* pipe = ::popen(cmd.c_str(), "r");
    REQUIRE(pipe);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    const int status = ::pclose(pipe);
    INFO(args << "\n" << out);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 2);
    CHECK_THAT(out, Catch::Contains("number-overflow.json") && Catch::Contains("out of range"));
  }
}
