// traintwin kernelcheck end to end: the CPU gate's table and JSON, and a clear exit 4 for CUDA without a device.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "kernels/attention_cuda.hpp"
#include "tests/e2e/cli_support.hpp"

using tt::testing::run_cli;

TEST_CASE("e2e: traintwin kernelcheck --device cpu prints the gate's table and passes", "[e2e]") {
  auto r = run_cli("kernelcheck --device cpu");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("max error") && Catch::Contains("bound") && Catch::Contains("TFLOP/s") &&
                           Catch::Contains("seed"));
  CHECK_THAT(r.output, Catch::Contains("# Checks: 32, failed 0: OK"));
  CHECK_THAT(r.output, !Catch::Contains("FAILED"));

  auto j = run_cli("kernelcheck --device cpu --seqlens 64,300 --head-dims 32 --seed 7 --json");
  INFO(j.output);
  REQUIRE(j.exit_code == 0);
  const auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["status"] == "OK");
  CHECK(doc["seed"] == 7);
  REQUIRE(doc["rows"].size() == 16);  // 2 precisions x 2 masks x 2 seqlens x (forward, backward)
  for (const auto& row : doc["rows"]) {
    CHECK(row["ok"] == true);
    CHECK(row["head_dim"] == 32);
    CHECK(row["max_error"].get<double>() <= row["bound"].get<double>());
    CHECK(row["bound"].get<double>() > 0);
  }
  // The same seed draws the same inputs: the same errors.
  auto again = run_cli("kernelcheck --device cpu --seqlens 64,300 --head-dims 32 --seed 7 --json");
  REQUIRE(again.exit_code == 0);
  const auto doc2 = nlohmann::json::parse(again.output);
  for (std::size_t i = 0; i < doc["rows"].size(); ++i)
    CHECK(doc2["rows"][i]["max_error"].get<double>() == doc["rows"][i]["max_error"].get<double>());
}

TEST_CASE("e2e: traintwin kernelcheck --device cuda says when there is no GPU", "[e2e]") {
  auto r = run_cli("kernelcheck --device cuda --seqlens 128 --head-dims 64 --repeats 1");
  INFO(r.output);
  if (tt::kernels::cuda_device_present()) {
    CHECK(r.exit_code == 0);
    CHECK_THAT(r.output, Catch::Contains("OK"));
  } else {
    CHECK(r.exit_code == 4);
    CHECK_THAT(r.output, Catch::Contains("no CUDA device") && Catch::Contains("nothing was checked"));
  }
}

TEST_CASE("e2e: traintwin kernelcheck rejects bad options with exit 2", "[e2e]") {
  auto d = run_cli("kernelcheck --device tpu");
  CHECK(d.exit_code == 2);
  auto s = run_cli("kernelcheck --device cpu --seqlens 0");
  CHECK(s.exit_code == 2);
  CHECK_THAT(s.output, Catch::Contains("--seqlens"));
}
