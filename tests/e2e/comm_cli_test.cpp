// traintwin comm and traintwin plan end to end: nccl-tests' table, JSON, the simulated column, NCCL settings.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/e2e/cli_support.hpp"

using tt::testing::run_cli;

TEST_CASE("e2e: traintwin comm prints nccl-tests' table, closed form beside the simulation", "[e2e]") {
  auto r = run_cli(
      "comm --topology topologies/rail-16x8-h100.json --gpus 16 --collective all_reduce -b 8 -e 1G -f 8"
      " --sim");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("size") && Catch::Contains("count") && Catch::Contains("redop") &&
                           Catch::Contains("busbw") && Catch::Contains("algorithm") && Catch::Contains("sim time"));
  CHECK_THAT(r.output, Catch::Contains("# Errors : 0 OK"));
  CHECK_THAT(r.output, Catch::Contains("# Avg bus bandwidth"));

  auto j = run_cli("comm --topology topologies/rail-16x8-h100.json --gpus 16 -b 1M -e 1G -f 32 --sim --json");
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["status"] == "OK");
  CHECK(doc["nodes"] == 2);
  REQUIRE(doc["rows"].size() == 3);
  for (const auto& row : doc["rows"]) {
    CHECK(row["busbw_gbps"].get<double>() == Approx(row["algbw_gbps"].get<double>() * 2 * 15 / 16));
    CHECK(row["sim_busbw_gbps"].get<double>() == Approx(row["busbw_gbps"].get<double>()).epsilon(0.02));
  }
}

TEST_CASE("e2e: traintwin comm rejects what cannot run, naming the option", "[e2e]") {
  auto r = run_cli("comm --topology topologies/rail-16x8-h100.json --gpus 12 --nodes 5");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::Contains("--gpus"));
  auto c = run_cli("comm --topology topologies/rail-16x8-h100.json --gpus 8 --collective allreduce");
  CHECK(c.exit_code == 2);
  CHECK_THAT(c.output, Catch::Contains("--collective"));
  auto n = run_cli("comm --topology topologies/rail-16x8-h100.json --gpus 16 --algo nvls");
  CHECK(n.exit_code == 2);  // NVLS runs inside one node
}

TEST_CASE("e2e: traintwin plan prints a job's groups, choices and NCCL settings", "[e2e]") {
  auto dir = tt::testing::scratch_dir("plan");
  auto r = run_cli("plan scenarios/quickstart.json --job pretrain-70b --topo-file " + (dir / "topo.xml").string());
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.output, Catch::Contains("NCCL_IB_HCA=") && Catch::Contains("NCCL_ALGO=") &&
                           Catch::Contains("NCCL_TOPO_FILE=") && Catch::Contains("communication timeout"));
  CHECK_THAT(tt::testing::read_file(dir / "topo.xml"), Catch::StartsWith("<system version=\"1\">"));
  auto j = run_cli("plan scenarios/quickstart.json --job pretrain-70b --json");
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.output);
  CHECK(doc["gpus"].size() == 64);
  CHECK(doc["groups"].size() > 0);
  for (const auto& g : doc["groups"]) CHECK(g["predicted_s"].get<double>() > 0);
  CHECK(doc["ib_comm_timeout_s"].get<double>() == Approx(34.36).epsilon(0.001));
  auto bad = run_cli("plan scenarios/quickstart.json --job nope");
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.output, Catch::Contains("--job"));
}
