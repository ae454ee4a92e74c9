// traintwin commtest end to end: Gloo ranks on this machine in nccl-tests' layout, the wrong-element check (also
// provoked), JSON, and a clear exit 4 for CUDA without a device.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "kernels/attention_cuda.hpp"
#include "tests/e2e/cli_support.hpp"

using tt::testing::run_cli;

TEST_CASE("e2e: traintwin commtest --devices cpu:2 prints nccl-tests' table with no wrong element", "[e2e]") {
  auto r = run_cli("commtest --devices cpu:2 --collective all_reduce -b 16 -e 1M -f 4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("out-of-place") && Catch::Contains("in-place") && Catch::Contains("#wrong") &&
                           Catch::Contains("algbw") && Catch::Contains("busbw") && Catch::Contains("redop"));
  CHECK_THAT(r.output, Catch::Contains("# Wrong elements : 0 OK"));
  CHECK_THAT(r.output, Catch::Contains("# Avg bus bandwidth"));
  CHECK_THAT(r.output, Catch::Contains(" 1048576 ") && Catch::Contains(" 262144 ") && Catch::Contains(" float "));
}

TEST_CASE("e2e: traintwin commtest --devices cpu:4 --json: sizes, busbw factor, zero wrong", "[e2e]") {
  auto r = run_cli("commtest --devices cpu:4 -b 64 -e 256K -f 8 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(r.output);
  CHECK(doc["status"] == "OK");
  CHECK(doc["ranks"] == 4);
  REQUIRE(doc["rows"].size() == 5);  // 64, 512, 4K, 32K, 256K
  long long size = 64;
  for (const auto& row : doc["rows"]) {
    CHECK(row["size"] == size);
    CHECK(row["count"] == size / 4);
    for (const char* pass : {"out_of_place", "in_place"}) {
      CHECK(row[pass]["wrong"] == 0);
      CHECK(row[pass]["time_us"].get<double>() > 0);
      CHECK(row[pass]["busbw_gbps"].get<double>() == Approx(row[pass]["algbw_gbps"].get<double>() * 2 * 3 / 4));
    }
    size *= 8;
  }
}

TEST_CASE("e2e: traintwin commtest counts wrong elements when a rank's input is corrupted", "[e2e]") {
  // The hidden test hook perturbs element 0 of rank 2's input: element 0 of every rank's result is then wrong, so each
  // pass of each size counts exactly 3 wrong elements (one per rank), and the run fails.
  auto r = run_cli("commtest --devices cpu:3 -b 8 -e 4K -f 8 --corrupt-rank 2 --json");
  INFO(r.output);
  REQUIRE(r.exit_code == 1);
  const auto doc = nlohmann::json::parse(r.output);
  CHECK(doc["status"] == "FAILED");
  REQUIRE(doc["rows"].size() == 4);
  for (const auto& row : doc["rows"]) {
    CHECK(row["out_of_place"]["wrong"] == 3);
    CHECK(row["in_place"]["wrong"] == 3);
  }
  CHECK(doc["wrong"] == 24);
  auto t = run_cli("commtest --devices cpu:2 -b 8 -e 8 --corrupt-rank 0");
  CHECK(t.exit_code == 1);
  CHECK_THAT(t.output, Catch::Contains("# Wrong elements : 4 FAILED"));
}

TEST_CASE("e2e: traintwin commtest --devices cuda needs a GPU and says so", "[e2e]") {
  auto r = run_cli("commtest --devices cuda -b 8 -e 64K -f 8");
  INFO(r.output);
  if (tt::kernels::cuda_device_present()) {
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("# Wrong elements : 0 OK"));
  } else {
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.output, Catch::Contains("no CUDA device") && Catch::Contains("nothing was tested"));
  }
}

TEST_CASE("e2e: traintwin commtest rejects bad options with exit 2", "[e2e]") {
  CHECK(run_cli("commtest --devices cpu:2 --collective all_gather").exit_code == 2);
  CHECK(run_cli("commtest --devices tpu:2").exit_code == 2);
  CHECK(run_cli("commtest --devices cpu:0").exit_code == 2);
  CHECK(run_cli("commtest --devices cpu:2 -b 1M -e 8").exit_code == 2);
  CHECK(run_cli("commtest --devices cpu:2 -f 1").exit_code == 2);
}
