// One libFuzzer target: TT_FUZZ_READER (set per target by fuzz/CMakeLists.txt) names the reader (fuzz/readers.hpp).
// A reader may only answer bad input with an InputError, which the CLI turns into exit 2; any other exception, like a
// crash, a hang, a leak or a sanitizer report, is a finding: the target aborts so that libFuzzer keeps the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/io/input_error.hpp"
#include "fuzz/readers.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    tt::fuzz::read_input(TT_FUZZ_READER, std::string(reinterpret_cast<const char*>(data), size), TT_SOURCE_DIR);
  } catch (const tt::InputError& e) {
    if (e.expected().empty()) {
      std::fprintf(stderr, "fuzz finding: an InputError that says nothing about what was expected: %s\n", e.what());
      std::abort();
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fuzz finding: not an InputError: %s\n", e.what());
    std::abort();
  } catch (...) {
    std::fprintf(stderr, "fuzz finding: a non-standard exception\n");
    std::abort();
  }
  return 0;
}
