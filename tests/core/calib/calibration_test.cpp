#include <tuple>

#include <catch2/catch.hpp>

#include "../plan/comm_fixture.hpp"
#include "core/calib/fit.hpp"
#include "core/io/json_reader.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/io/section_readers.hpp"
#include "core/plan/comm_planner.hpp"

using namespace tt;

namespace {

std::vector<Measurement> table(const char* gpu) {
  return load_measurements(std::string(TT_SOURCE_DIR) + "/tests/data/nccl/azure-nd-" + gpu + "-v5.all_reduce.busbw.csv");
}
std::vector<Measurement> public_table(const std::string& file) {
  return load_measurements(std::string(TT_SOURCE_DIR) + "/tests/data/nccl/" + file);
}

double mape(const std::vector<CalibrationPoint>& pts, double min_size = 0) {
  double sum = 0;
  int n = 0;
  for (const auto& p : pts)
    if (p.m.size.value >= min_size) {
      sum += std::abs(p.uncalibrated - p.m.time.value) / p.m.time.value;
      ++n;
    }
  return sum / n;
}

}  // namespace

TEST_CASE("Uncalibrated defaults hold the public 8 x H100 and 8 x H200 NVLS tables [unit]") {
  const Topology h100 = testing::h100_nodes(1), h200 = testing::h100_nodes(1, "H200");
  for (const auto& [topo, name] : {std::pair{&h100, "h100"}, std::pair{&h200, "h200"}}) {
    INFO(name);
    const auto pts = calibration_points(*topo, table(name));
    REQUIRE(pts.size() == 24);
    CHECK(pts[0].algorithm == Algorithm::Nvls);
    CHECK(mape(pts) <= 0.10);
    CHECK(mape(pts, 16 * 1048576.0) <= 0.05);
    // NCCL's figures alone (no regime correction) miss by far more: the corrections carry the fit.
    double raw = 0;
    for (const auto& p : pts) raw += std::abs(p.latency + p.transfer - p.m.time.value) / p.m.time.value;
    CHECK(raw / 24 > 0.2);
  }
}

// The shipped NVLS corrections were fitted to the two Azure tables; these two were not in that fit: another operator's
// H100 node with NCCL 2.26.2 (Together AI, out of sample: measured 7.7% over all sizes, 2.9% from 16 MiB up) and
// Azure's H200 node measured again with NCCL 2.26.2 (6.3%, 2.2%).
TEST_CASE("Uncalibrated defaults hold public NVLS tables they were not fitted to [unit]") {
  const Topology h100 = testing::h100_nodes(1), h200 = testing::h100_nodes(1, "H200");
  for (const auto& [topo, file] : {std::pair{&h100, "together-h100-nvls.all_reduce.time.csv"},
                                   std::pair{&h200, "azure-nd-h200-v5-nccl2.26.all_reduce.busbw.csv"}}) {
    INFO(file);
    const auto pts = calibration_points(*topo, public_table(file));
    REQUIRE(pts.size() == 24);
    CHECK(mape(pts) <= 0.10);
    CHECK(mape(pts, 16 * 1048576.0) <= 0.05);
  }
}

// With the same NCCL (2.26.2) on both sides, one operator's H100 table and another's H200 table still differ by 20-31%
// from 1 KiB to 1 MiB before any model (a call's floor is ~35 us on the first, ~30 us on the second: the platform's
// launch and synchronisation, not the GPU), so an H100 fit carries to H200 from 16 MiB up (measured 2.2%) and not
// below (12.3% over all sizes). A same-platform pair would be the test of 5% over all sizes; none was found.
TEST_CASE("Calibrated on one operator's H100 table, another operator's H200 table of the same NCCL [unit]") {
  const Topology h100 = testing::h100_nodes(1), h200 = testing::h100_nodes(1, "H200");
  const auto h100_table = public_table("together-h100-nvls.all_reduce.time.csv");
  const auto h200_table = public_table("azure-nd-h200-v5-nccl2.26.all_reduce.busbw.csv");
  REQUIRE(h100_table.size() == h200_table.size());
  for (std::size_t i = 0; i < h100_table.size(); ++i)
    if (h100_table[i].size.value <= 1048576.0) CHECK(h200_table[i].time.value < 0.85 * h100_table[i].time.value);
  CommOverrides fitted;
  fitted.regimes = fit_regimes(calibration_points(h100, h100_table));
  const auto pts = calibration_points(h200, h200_table, fitted);
  CHECK(mape(pts, 16 * 1048576.0) <= 0.05);
  CHECK(mape(pts) <= 0.14);
}

// The issue asks for 5% over all sizes; the two tables disagree below 16 MiB (NCCL 2.18.5 against 2.20.5: a 128 KiB
// call takes 42.5 us in the H100 table, 31.1 us in the H200 one), so a fit on one misses the other there by ~20%.
// What holds: from 16 MiB up within 5%, over all sizes within 12% (measured: 2.1% and 11.5%).
TEST_CASE("Calibrated on the H100 table, the model predicts the H200 table [unit]") {
  const Topology h100 = testing::h100_nodes(1), h200 = testing::h100_nodes(1, "H200");
  CommOverrides fitted;
  fitted.regimes = fit_regimes(calibration_points(h100, table("h100")));
  REQUIRE(fitted.regimes->size() == 3);  // NVLS / Simple / one node, three size bands
  const auto pts = calibration_points(h200, table("h200"), fitted);
  CHECK(mape(pts, 16 * 1048576.0) <= 0.05);
  CHECK(mape(pts) <= 0.12);
  // In sample the fit holds its own table far closer than the defaults' 10%.
  CHECK(mape(calibration_points(h100, table("h100"), fitted)) <= 0.035);
}

// Two H100 servers, 8 x 400 Gb/s InfiniBand each (NVIDIA/nccl-tests#309; the CLI figures in README.md, "Fidelity",
// come from the same files and topologies/rail-2x8-h100.json). NCCL's figures pick the tree (LL) up to 64 KiB,
// hierarchical at 128-512 KiB and NVLSTree from 1 MiB up. The shipped two-node corrections (comm_constants.cpp) were
// fitted to the first table, so it is in sample (measured 4.3% from 16 MiB up, 3.7% over 1 KiB-16 GiB), and the second
// operator's is not (4.3% and 8.0% over 1 MiB-8 GiB). NCCL's figures alone put NVLSTree at 579 GB/s bus bandwidth
// against 469 measured (28% from 16 MiB up). With Ring forced the planner's ring holds from 16 MiB up (4.6%); from 1 to
// 8 MiB that run, with NCCL_MIN_CTAS=24 (more channels than NCCL's default), took 157-178 us against 85-122.
TEST_CASE("Two-node public tables: NVLSTree and Ring within 5% from 16 MiB, in and out of sample [unit]") {
  const Topology rail = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-2x8-h100.json");
  const auto ring = calibration_points(rail, public_table("nccl-tests-309-h100-2node-b-ring.all_reduce.time.csv"));
  REQUIRE(ring.size() == 14);
  for (const auto& p : ring) CHECK(p.algorithm == Algorithm::Ring);
  CHECK(mape(ring, 16 * 1048576.0) <= 0.05);
  CHECK(mape(ring) > 0.10);  // the 1-8 MiB rows: the run's extra channels, not in the model

  const auto table = public_table("nccl-tests-309-h100-2node.all_reduce.time.csv");
  const auto def = calibration_points(rail, table);
  REQUIRE(def.size() == 25);
  CHECK(def.back().algorithm == Algorithm::NvlsTree);
  CHECK(mape(def, 16 * 1048576.0) <= 0.05);  // in sample
  CHECK(mape(def) <= 0.05);
  CommOverrides raw;
  raw.regimes = std::vector<RegimeOverride>{};
  CHECK(mape(calibration_points(rail, table, raw), 16 * 1048576.0) > 0.20);

  const auto other = public_table("nccl-tests-309-h100-2node-b.all_reduce.time.csv");
  const auto out = calibration_points(rail, other);
  REQUIRE(out.size() == 14);
  CHECK(mape(out, 16 * 1048576.0) <= 0.05);  // out of sample
  CHECK(mape(out) <= 0.10);
}

// The shipped corrections across nodes are what `traintwin calibrate` fits, to the three digits they are rounded to:
// two nodes to the first #309 table, three and more to the second operator's four-node table. The planner picks as
// NCCL does (by NCCL's own figures), so the fit does not depend on the corrections in place: none is needed as a base.
TEST_CASE("The shipped corrections across nodes are the fits of the public two- and four-node tables [unit]") {
  const Topology two = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-2x8-h100.json");
  const Topology sixteen = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json");
  const CommConstants shipped = comm_constants(two.gpu());
  int held = 0;
  for (const auto& [topo, file, node_class] :
       {std::tuple{&two, "nccl-tests-309-h100-2node.all_reduce.time.csv", 1},
        std::tuple{&sixteen, "nccl-tests-309-h100-4node-b.all_reduce.time.csv", 2}}) {
    const auto pts = calibration_points(*topo, public_table(file));
    CommOverrides none;
    none.regimes = std::vector<RegimeOverride>{};
    const auto fits = fit_regimes(pts);
    CHECK(fit_regimes(calibration_points(*topo, public_table(file), none)).size() == fits.size());
    REQUIRE(fits.size() == 4);
    for (const RegimeOverride& f : fits) {
      INFO(file << ": " << to_string(f.algorithm) << " " << to_string(f.protocol) << " band "
                << static_cast<int>(f.band));
      CHECK(f.node_class == node_class);
      const RegimeFactors& s = shipped.regime[static_cast<int>(f.algorithm)][static_cast<int>(f.protocol)][node_class]
                                             [static_cast<int>(f.band)];
      CHECK(s.latency == Approx(f.factors.latency).epsilon(0.005));
      CHECK(s.bandwidth == Approx(f.factors.bandwidth).epsilon(0.005));
      ++held;
    }
  }
  // And nothing else across nodes: every other two-node and multi-node correction is NCCL's figure as it is.
  int corrected = 0;
  for (const auto& by_proto : shipped.regime)
    for (const auto& by_class : by_proto)
      for (int n = 1; n < kNodeClasses; ++n)
        for (const RegimeFactors& f : by_class[static_cast<std::size_t>(n)])
          corrected += f.latency != 1 || f.bandwidth != 1;
  CHECK(corrected == held);
}

// Four and eight of the second operator's hosts, NCCL's default choice (nccl-tests#309; in-place times): NCCL's own
// figures (ring, tree, NVLSTree) are 25-27% fast from 16 MiB up there, where the hosts reach ~320 GB/s bus bandwidth
// against the 400 of their NICs (an NVIDIA engineer in the thread points at adaptive routing and NCCL_MIN_CTAS). The
// shipped corrections for three nodes and more are the four-node fit; the eight-node table, not in it, is predicted
// within 3.1% from 16 MiB up and 3.7% over 1 MiB-8 GiB.
TEST_CASE("More than two nodes: NCCL's figures fast on one operator's hosts, a four-node fit carries to eight [unit]") {
  const Topology rail = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json");
  const auto four = public_table("nccl-tests-309-h100-4node-b.all_reduce.time.csv");
  const auto eight = public_table("nccl-tests-309-h100-8node-b.all_reduce.time.csv");
  CommOverrides raw;
  raw.regimes = std::vector<RegimeOverride>{};
  const auto p4 = calibration_points(rail, four, raw), p8 = calibration_points(rail, eight, raw);
  REQUIRE(p4.size() == 14);
  REQUIRE(p8.size() == 14);
  for (const auto* pts : {&p4, &p8}) {
    CHECK(mape(*pts, 16 * 1048576.0) > 0.20);
    for (const auto& p : *pts) CHECK(p.uncalibrated < p.m.time.value);  // every size predicted fast
  }
  const auto shipped = calibration_points(rail, eight);  // out of sample
  CHECK(mape(shipped, 16 * 1048576.0) <= 0.05);
  CHECK(mape(shipped) <= 0.05);
  for (std::size_t i = 0; i < shipped.size(); ++i) {  // the same options: a correction changes times, not choices
    CHECK(shipped[i].algorithm == p8[i].algorithm);
    CHECK(shipped[i].protocol == p8[i].protocol);
  }
}

// A fit's model: its corrections, the base's others kept (with_base), and the sizes at which it plans another option
// than the one fitted (choices_moved_by_fit). Picking as NCCL does (the default), a fit moves no choice; picking the
// fastest corrected option (`"selection": "fastest"`, as a run pinned by `plan --tuner-csv` would), the fit of the
// first #309 table hands 128 KiB, 512 KiB, 1, 2, 4, 16 and 64 MiB to other options.
TEST_CASE("A fit keeps the base's other corrections and names the sizes whose choice it moves [unit]") {
  const Topology h100 = testing::h100_nodes(1);
  const auto azure = table("h100");
  const auto pts = calibration_points(h100, azure);
  const auto fits = fit_regimes(pts);
  REQUIRE(fits.size() == 3);  // NVLS / Simple / one node, three bands
  const auto model = with_base(fits, comm_constants(h100.gpu()));
  REQUIRE(model.size() == 11);  // and the eight shipped corrections across nodes
  for (std::size_t i = 3; i < model.size(); ++i) CHECK(model[i].node_class >= 1);
  CHECK(choices_moved_by_fit(h100, azure, {}, pts, fits).empty());

  const Topology rail = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-2x8-h100.json");
  const auto two = public_table("nccl-tests-309-h100-2node.all_reduce.time.csv");
  const auto p2 = calibration_points(rail, two);
  CHECK(choices_moved_by_fit(rail, two, {}, p2, fit_regimes(p2)).empty());
  CommOverrides fastest;
  fastest.selection = Selection::Fastest;
  const auto f2 = calibration_points(rail, two, fastest);
  const auto moved = choices_moved_by_fit(rail, two, fastest, f2, fit_regimes(f2));
  std::vector<double> sizes;
  for (std::size_t i : moved) sizes.push_back(f2[i].m.size.value);
  CHECK(sizes == std::vector<double>{131072, 524288, 1048576, 2097152, 4194304, 16777216, 67108864});
}

TEST_CASE("The fit recovers known regime factors from the model's own times [unit]") {
  const Topology topo = testing::h100_nodes(1);
  std::vector<Measurement> ms;
  for (double size = 1 << 20; size <= (1 << 30); size *= 2) {
    Measurement m;
    m.ranks = 8;
    m.nodes = 1;
    m.size = Bytes(size);
    m.algorithm = Algorithm::Ring;
    m.protocol = Protocol::Simple;
    m.time = Seconds(1);  // replaced below
    ms.push_back(m);
  }
  auto pts = calibration_points(topo, ms);
  for (auto& p : pts) p.m.time = Seconds(predict(p, {1.7, 0.6}));
  const auto fits = fit_regimes(pts);
  REQUIRE(fits.size() == 2);  // the medium and the large band
  for (const auto& f : fits) {
    CHECK(f.algorithm == Algorithm::Ring);
    CHECK(f.factors.latency == Approx(1.7).epsilon(1e-6));
    CHECK(f.factors.bandwidth == Approx(0.6).epsilon(1e-6));
  }
  const ErrorTable t = error_table(pts);
  CHECK(t.all.fitted < 1e-9);
  CHECK(t.all.held_out < 1e-9);
  CHECK(t.all.points == static_cast<int>(pts.size()));
}

TEST_CASE("Regime corrections reach the planner's prediction and its transfers [unit]") {
  const Topology topo = testing::h100_nodes(1);
  CommOverrides none, slow;
  none.regimes = std::vector<RegimeOverride>{};
  slow.regimes = std::vector<RegimeOverride>{{Algorithm::Nvls, Protocol::Simple, 0, SizeBand::Large, {2.0, 0.5}}};
  const CommPlanner a(topo, comm_constants(topo.gpu(), none)), b(topo, comm_constants(topo.gpu(), slow));
  const auto force = std::pair{Algorithm::Nvls, Protocol::Simple};
  const CommGroup ga = a.plan(Collective::AllReduce, testing::first_gpus(8), Bytes(1 << 30), 1, 0, force);
  const CommGroup gb = b.plan(Collective::AllReduce, testing::first_gpus(8), Bytes(1 << 30), 1, 0, force);
  CHECK(gb.latency.value == Approx(2 * ga.latency.value));
  CHECK((gb.predicted - gb.latency).value == Approx(2 * (ga.predicted - ga.latency).value));
  CHECK(b.predict(gb).value == Approx(gb.predicted.value));  // the transfers carry the correction
}
