#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "core/calib/measurement.hpp"
#include "core/io/input_error.hpp"

using namespace tt;

namespace {

std::string data(const std::string& rel) { return std::string(TT_SOURCE_DIR) + "/tests/data/nccl/" + rel; }

// The fixtures' curve (tests/data/nccl/format/README.md): t = lat + S / bw, as printed with two decimals.
double fixture_us(double size, double lat_us = 20, double bw = 250e9) { return lat_us + size / bw * 1e6; }

}  // namespace

TEST_CASE("nccl-tests text: two collectives in one log, out-of-place and in-place [unit]") {
  const auto m = load_measurements(data("format/two-collectives.8gpu.txt"));
  REQUIRE(m.size() == 2 * 11 * 2);
  int reduce = 0, gather = 0;
  for (const auto& x : m) {
    CHECK(x.ranks == 8);
    CHECK(x.nodes == 1);
    (x.collective == Collective::AllReduce ? reduce : gather)++;
  }
  CHECK(reduce == 22);
  CHECK(gather == 22);
  CHECK_FALSE(m[0].in_place);
  CHECK(m[1].in_place);
  CHECK(m[0].size.value == 1024);
  CHECK(m[0].time.value * 1e6 == Approx(fixture_us(1024)).epsilon(1e-3));
  CHECK(m[21].time.value * 1e6 == Approx(fixture_us(1 << 30) * 0.99).epsilon(1e-3));
  CHECK(m[22].collective == Collective::AllGather);
  CHECK(m[22].time.value * 1e6 == Approx(fixture_us(1024, 15, 300e9)).epsilon(1e-3));
  CHECK(m[3].where.find("two-collectives.8gpu.txt:18") != std::string::npos);
}

TEST_CASE("nccl-tests text: older release without root column, collective from the file name [unit]") {
  const auto m = load_measurements(data("format/old-release.all_reduce.log"));
  REQUIRE(m.size() == 22);
  CHECK(m[0].collective == Collective::AllReduce);
  CHECK(m[10].time.value * 1e6 == Approx(fixture_us(1 << 20)).epsilon(1e-3));
}

TEST_CASE("nccl-tests text: MPI launcher prefixes and NCCL debug lines [unit]") {
  for (const char* f : {"format/openmpi-tagged.16gpu.txt", "format/slurm-label.16gpu.txt"}) {
    INFO(f);
    const auto m = load_measurements(data(f));
    REQUIRE(m.size() == 22);
    CHECK(m[0].ranks == 16);
    CHECK(m[0].nodes == 2);
    CHECK(m[8].time.value * 1e6 == Approx(fixture_us(1 << 18)).epsilon(1e-3));
  }
}

TEST_CASE("nccl-tests JSON: results, devices, NCCL_ALGO from the environment [unit]") {
  const auto m = load_measurements(data("format/all_reduce.8gpu.json"));
  REQUIRE(m.size() == 22);
  CHECK(m[0].ranks == 8);
  CHECK(m[0].nodes == 1);
  REQUIRE(m[0].algorithm);
  CHECK(*m[0].algorithm == Algorithm::Nvls);
  CHECK_FALSE(m[0].protocol);
  CHECK(m[5].in_place);
  CHECK(m[4].time.value * 1e6 == Approx(fixture_us(1 << 14)).epsilon(1e-9));
  CHECK(m[4].where.find("#/results/2/out_of_place") != std::string::npos);
}

TEST_CASE("Tuner measurement CSV: algorithm, protocol, nodes, ranks and the time [unit]") {
  const auto m = load_measurements(data("format/tuner-measurements.csv"));
  REQUIRE(m.size() == 22);
  CHECK(*m[1].algorithm == Algorithm::Nvls);
  CHECK(*m[1].protocol == Protocol::Simple);
  CHECK(m[1].ranks == 8);
  CHECK(m[1].nodes == 1);
  CHECK(m[1].time.value * 1e6 == Approx(fixture_us(1024, 25, 300e9)).epsilon(1e-4));
}

TEST_CASE("Published busbw tables: times from the bus bandwidth, source required [unit]") {
  const auto m = load_measurements(data("azure-nd-h100-v5.all_reduce.busbw.csv"));
  REQUIRE(m.size() == 24);
  CHECK(m[0].size.value == 1024);
  CHECK(m.back().size.value == 8589934592.0);
  CHECK(*m[0].algorithm == Algorithm::Nvls);
  // 8 GiB at 478.87 GB/s busbw: t = S x 1.75 / busbw.
  CHECK(m.back().time.value == Approx(8589934592.0 * 1.75 / 478.87e9));
  CHECK(busbw_factor(Collective::AllGather, 8) == Approx(7.0 / 8));
}

TEST_CASE("Published time tables: the time of one call in microseconds, as nccl-tests prints it [unit]") {
  const auto m = load_measurements(data("together-h100-nvls.all_reduce.time.csv"));
  REQUIRE(m.size() == 24);
  CHECK(m[0].size.value == 1024);
  CHECK(m[0].time.value == Approx(35.59e-6));
  CHECK(m.back().time.value == Approx(31327.3e-6));
  CHECK(*m[0].algorithm == Algorithm::Nvls);
  CHECK(m[0].in_place);
  const auto ring = load_measurements(data("together-h100-ring.all_reduce.time.csv"));
  REQUIRE(ring.size() == 24);
  CHECK(*ring[0].algorithm == Algorithm::Ring);
  CHECK_FALSE(ring[0].protocol.has_value());  // NCCL's choice per size: the planner's
}

TEST_CASE("Malformed logs and CSVs: each error names the file, the line or pointer and what was expected [unit]") {
  std::ifstream manifest(data("bad/expected.tsv"));
  REQUIRE(manifest);
  std::string line;
  int cases = 0;
  while (std::getline(manifest, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string file, where, phrase;
    std::getline(fields, file, '\t');
    std::getline(fields, where, '\t');
    std::getline(fields, phrase, '\t');
    INFO(file);
    ++cases;
    try {
      load_measurements(data("bad/" + file));
      FAIL("accepted " + file);
    } catch (const InputError& e) {
      INFO(e.what());
      CHECK(e.file().find(file) != std::string::npos);
      CHECK(e.pointer() == where);
      CHECK(std::string(e.what()).find(phrase) != std::string::npos);
    }
  }
  CHECK(cases >= 15);
}
