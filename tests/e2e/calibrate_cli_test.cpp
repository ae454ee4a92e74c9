// traintwin calibrate and plan --tuner-csv from the command line.
#include <catch2/catch.hpp>

#include "tests/e2e/cli_support.hpp"

using namespace tt::testing;

namespace {
const std::string kData = std::string(TT_SOURCE_DIR) + "/tests/data/nccl/";
const std::string kTopo = std::string(TT_SOURCE_DIR) + "/topologies/";
}  // namespace

TEST_CASE("calibrate: fit, error table per size band, and a comm section another run reads back [e2e]") {
  const auto dir = scratch_dir("calibrate-cli");
  const std::string out = (dir / "h100.json").string();
  auto r = run_cli("calibrate " + kData + "azure-nd-h100-v5.all_reduce.busbw.csv --topology " + kTopo +
                   "single-node-8xh100.json --out " + out);
  REQUIRE(r.exit_code == 0);
  for (const char* band : {"<=64KiB", "64KiB-16MiB", ">=16MiB", "all sizes", "held-out"})
    CHECK(r.output.find(band) != std::string::npos);
  const std::string written = read_file(out);
  CHECK(written.find("\"regimes\"") != std::string::npos);
  CHECK(written.find("\"mape_held_out\"") != std::string::npos);
  // The written comm section predicts the H200 table: the figure the docs' fidelity table quotes.
  auto h200 = run_cli("calibrate " + kData + "azure-nd-h200-v5.all_reduce.busbw.csv --topology " + kTopo +
                      "single-node-8xh200.json --comm " + out);
  REQUIRE(h200.exit_code == 0);
  CHECK(h200.output.find("the comm section of " + out) != std::string::npos);
}

TEST_CASE("calibrate: a log that is not nccl-tests output exits 2 naming the file and line [e2e]") {
  auto r = run_cli("calibrate " + kData + "bad/nccl-failure-mid-table.txt --topology " + kTopo +
                   "single-node-8xh100.json");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("nccl-failure-mid-table.txt: at line 22") != std::string::npos);
  auto ranks = run_cli("calibrate " + kData + "format/two-collectives.8gpu.txt --topology " + kTopo +
                       "explicit-2x2-example.json");
  CHECK(ranks.exit_code == 2);
  CHECK(ranks.output.find("two-collectives.8gpu.txt:") != std::string::npos);
}

TEST_CASE("plan --tuner-csv writes NCCL's example tuner configuration [e2e]") {
  const auto dir = scratch_dir("tuner-csv-cli");
  const std::string out = (dir / "nccl_tuner.conf").string();
  auto r = run_cli("plan " + std::string(TT_SOURCE_DIR) + "/scenarios/quickstart.json --job finetune-8b --tuner-csv " +
                   out);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("NCCL_TUNER_CONFIG_FILE=" + out) != std::string::npos);
  const std::string conf = read_file(out);
  CHECK(conf.find("# Format: collective_type,min_bytes,max_bytes,algorithm,protocol,channels,nNodes,nRanks") !=
        std::string::npos);
  CHECK(conf.find("allreduce,0,") != std::string::npos);
}
