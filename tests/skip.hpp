// A test case that cannot run here (no GPU, no chromium, no promtool, ...) says so instead of passing. TT_SKIP(why)
// prints "SKIPPED: why"; under ctest, which sets TT_SKIP_EXIT_CODE=77 and SKIP_RETURN_CODE 77 on every discovered test
// (tests/CMakeLists.txt), it then ends the process with 77 and ctest reports the test as "Skipped". Each ctest test
// runs one test case in its own process, so nothing else is cut short. Run by hand, the binary warns and goes on with
// the next test case. (Catch2 2.x has no SKIP of its own.)
#pragma once

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace tt::testing {

// Ends the process with $TT_SKIP_EXIT_CODE when it is set; otherwise returns after a Catch2 warning.
inline void skip_test(const std::string& why) {
  std::cout << "SKIPPED: " << why << std::endl;
  std::fflush(nullptr);
  if (const char* code = std::getenv("TT_SKIP_EXIT_CODE")) std::_Exit(std::atoi(code));
  WARN("SKIPPED: " << why);
}

}  // namespace tt::testing

// Leaves the current test case as skipped. Use it in the TEST_CASE's own body, not in a helper or a lambda.
#define TT_SKIP(why)                \
  do {                              \
    ::tt::testing::skip_test(why);  \
    return;                         \
  } while (0)
