// traintwin real --devices cuda:N: NCCL workers on GPUs, or a clear exit 4 where there are not N CUDA devices.
#include <catch2/catch.hpp>

#include "kernels/attention_cuda.hpp"
#include "tests/e2e/cli_support.hpp"
#include "tests/skip.hpp"

using tt::testing::run_cli;

TEST_CASE("e2e: traintwin real --devices cuda:N says when the GPUs are missing", "[e2e][real]") {
  const std::string scenario = std::string(TT_SOURCE_DIR) + "/scenarios/real-quickstart.json";
  if (tt::kernels::cuda_device_count() >= 4)
    TT_SKIP("4 CUDA devices present: the no-device path is not exercised here");
  auto dir = tt::testing::scratch_dir("real-cuda");
  auto r = run_cli("real " + scenario + " --devices cuda:4 --time-scale 300 --out " + dir.string());
  INFO(r.output);
  CHECK(r.exit_code == 4);
  CHECK_THAT(r.output, Catch::Contains("--devices cuda:4 needs 4 CUDA devices") && Catch::Contains("no CUDA device"));
  CHECK_FALSE(std::filesystem::exists(dir / "report.json"));
}
