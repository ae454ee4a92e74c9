#include <catch2/catch.hpp>

#include "core/model/units.hpp"

using namespace tt;

TEST_CASE("durations parse with their unit", "[unit]") {
  CHECK(parse_seconds("2us")->value == Approx(2e-6));
  CHECK(parse_seconds("1.5ms")->value == Approx(1.5e-3));
  CHECK(parse_seconds("30s")->value == Approx(30));
  CHECK(parse_seconds("30m")->value == Approx(1800));
  CHECK(parse_seconds("48h")->value == Approx(172800));
  CHECK(parse_seconds("7d")->value == Approx(604800));
  CHECK(parse_seconds("0s")->value == 0);
}

TEST_CASE("byte sizes distinguish decimal and binary prefixes", "[unit]") {
  CHECK(parse_bytes("80GiB")->value == Approx(80.0 * 1024 * 1024 * 1024));
  CHECK(parse_bytes("80GB")->value == Approx(80e9));
  CHECK(parse_bytes("512MiB")->value == Approx(512.0 * 1024 * 1024));
  CHECK(parse_bytes("4096B")->value == Approx(4096));
}

TEST_CASE("bandwidths take bits per second or bytes per second", "[unit]") {
  CHECK(parse_bandwidth("400Gbps")->value == Approx(50e9));
  CHECK(parse_bandwidth("50GB/s")->value == Approx(50e9));
  CHECK(parse_bandwidth("900GiB/s")->value == Approx(900.0 * 1024 * 1024 * 1024));
  CHECK(parse_bandwidth("100Mbps")->value == Approx(12.5e6));
}

TEST_CASE("flop rates parse", "[unit]") {
  CHECK(parse_flops_rate("989TFLOPS")->value == Approx(989e12));
  CHECK(parse_flops_rate("2.25PFLOPS")->value == Approx(2.25e15));
}

TEST_CASE("quantities without a known unit, negative or empty are rejected", "[unit]") {
  for (const char* bad : {"5", "-3s", "10parsecs", "", "s", "3 s s", "nan s", "inf s", "1e400s"}) {
    INFO(bad);
    CHECK_FALSE(parse_seconds(bad));
  }
  CHECK_FALSE(parse_bytes("80"));
  CHECK_FALSE(parse_bytes("80gib"));
  CHECK_FALSE(parse_bandwidth("400"));
  CHECK_FALSE(parse_bandwidth("400Gb"));   // bits without "ps"
  CHECK_FALSE(parse_bandwidth("-1Gbps"));
  CHECK_FALSE(parse_flops_rate("989T"));
}
