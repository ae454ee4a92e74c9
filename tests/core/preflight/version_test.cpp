#include "core/preflight/version.hpp"

#include <catch2/catch.hpp>

using tt::preflight::Version;

static Version v(const char* s) { return *Version::parse(s); }

TEST_CASE("versions compare as numbers, component by component", "[unit][preflight]") {
  CHECK(v("2.21.5") > v("2.9.1"));
  CHECK(v("2.9.1") < v("2.21.5"));
  CHECK(v("535.129.03") > v("535.104.12"));
  CHECK(v("535.129.03") == v("535.129.3"));
  CHECK(v("535.129.03").text() == "535.129.03");
  CHECK(v("12.4") == v("12.4.0"));
  CHECK(v("12.4.1") > v("12.4"));
  CHECK(v("13.0") > v("12.9"));
  CHECK(v("580.65.06") > v("525.60.13"));
  CHECK(v("12.4").major() == 12);
  CHECK(v("12.4").component(1) == 4);
  CHECK(v("12.4").component(2) == 0);
}

TEST_CASE("anything but dot-separated numbers is not a version", "[unit][preflight]") {
  for (const char* bad : {"", ".", "2.", ".2", "2..1", "v2.1", "2.1-rc1", "2.1 ", "1.2.3.4.5.6.7", "9999999999"})
    CHECK_FALSE(Version::parse(bad).has_value());
  CHECK(Version::parse("1.2.3.4.5.6").has_value());
}
