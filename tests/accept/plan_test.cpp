// core/accept: the noise model, the plan's JSON contract, judging measurements size by size, a machine calibration.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/accept/comm_judge.hpp"
#include "core/accept/machine_curve.hpp"
#include "core/accept/plan.hpp"
#include "core/io/input_error.hpp"

using namespace tt;
using namespace tt::accept;

namespace {

AcceptPlan plan_of(std::vector<double> busbw_gbps, double sigma, double rate = 1e-3) {
  AcceptPlan p;
  p.topology = "t";
  p.ranks = 4;
  p.nodes = 1;
  p.model = "test";
  p.target_false_failure = rate;
  p.comm_noise = {sigma, "test"};
  p.time_noise = {0.1, "test"};
  double size = 1024;
  for (double bw : busbw_gbps) {
    p.comm.push_back({Bytes(size), BytesPerSecond(bw * 1e9), BytesPerSecond(0), 0});
    size *= 4;
  }
  set_comm_thresholds(p);
  return p;
}

// A measurement whose busbw is `gbps` for 4 ranks (factor 1.5).
Measurement at(double size, double gbps, int line, int ranks = 4) {
  Measurement m;
  m.ranks = ranks;
  m.nodes = 1;
  m.size = Bytes(size);
  m.time = Seconds(size * 1.5 / (gbps * 1e9));
  m.where = "log.txt:" + std::to_string(line);
  return m;
}

}  // namespace

TEST_CASE("accept noise: thresholds and false-failure rates are inverse of each other", "[unit]") {
  CHECK(normal_cdf(0) == Approx(0.5));
  CHECK(normal_quantile(0.001) == Approx(-3.0902).epsilon(1e-4));
  const double thr = lower_threshold(100, 0.1, 1e-3);
  CHECK(thr == Approx(100 * std::exp(-3.0902 * 0.1)).epsilon(1e-4));
  CHECK(false_failure_below(100, thr, 0.1) == Approx(1e-3).epsilon(1e-6));
  const double up = upper_threshold(60, 0.1, 1e-2);
  CHECK(up > 60);
  CHECK(false_failure_above(60, up, 0.1) == Approx(1e-2).epsilon(1e-6));
  CHECK(sigma_from_mape(0.063) == Approx(0.0790).epsilon(1e-3));
  const double rates[] = {0.01, 0.02};
  CHECK(any_fails(rates, 2) == Approx(1 - 0.99 * 0.98));
}

TEST_CASE("accept plan: JSON round trip, and a bad value named by its pointer", "[unit]") {
  AcceptPlan p = plan_of({1, 2, 3}, 0.05);
  p.times.push_back(time_expectation("node_failure", "detect", Seconds(30), p.time_noise, 1e-3, "test"));
  const AcceptPlan back = read_plan(plan_json(p), "plan.json");
  REQUIRE(back.comm.size() == 3);
  CHECK(back.comm[1].threshold.value == Approx(p.comm[1].threshold.value));
  CHECK(back.times.at(0).threshold.value == Approx(30 * std::exp(3.0902 * 0.1)).epsilon(1e-4));
  CHECK(back.false_failure_any() == Approx(p.false_failure_any()));

  auto doc = plan_json(p);
  doc["comm"][2]["size_bytes"] = 16;  // not ascending
  try {
    read_plan(doc, "plan.json");
    FAIL("a plan with sizes out of order was read");
  } catch (const InputError& e) {
    CHECK(e.file() == "plan.json");
    CHECK(e.pointer() == "/comm/2/size_bytes");
  }
  doc = plan_json(p);
  doc["kind"] = "traintwin report";
  CHECK_THROWS_AS(read_plan(doc, "plan.json"), InputError);
}

TEST_CASE("accept judge: each size against its threshold, one size 30% slow fails that size only", "[unit]") {
  const AcceptPlan p = plan_of({1, 2, 4}, 0.05);  // thresholds at 0.857x
  std::vector<Measurement> log = {at(1024, 1.0, 10), at(1024, 1.02, 10), at(4096, 2.1, 11), at(16384, 3.9, 12)};
  CommVerdict v = judge_comm(p, log, "log.txt");
  CHECK(v.passed());
  log[2] = at(4096, 2 * 0.7, 11);  // one size 30% slow
  log.push_back(at(4096, 2 * 0.7, 11));
  v = judge_comm(p, log, "log.txt");
  CHECK_FALSE(v.passed());
  CHECK(v.failed_sizes() == std::vector<std::string>{"4096"});
  CHECK(v.sizes[1].where == "log.txt:11");
  // A size the plan has but the log lacks fails; a size the log has but the plan lacks is listed and ignored.
  v = judge_comm(p, {at(1024, 1, 3), at(64, 1, 4)}, "log.txt");
  CHECK(v.failed_sizes() == std::vector<std::string>{"4096", "16384"});
  CHECK(v.unplanned == std::vector<std::string>{"log.txt:4"});
}

TEST_CASE("accept judge: a log of another cluster is bad input naming its line", "[unit]") {
  const AcceptPlan p = plan_of({1}, 0.05);
  try {
    judge_comm(p, {at(1024, 1, 7, 16)}, "log.txt");
    FAIL("a 16-rank log was judged against a 4-rank plan");
  } catch (const InputError& e) {
    CHECK(e.file() == "log.txt");
    CHECK(e.pointer() == "line 7");
    CHECK_THAT(e.what(), Catch::Contains("a log of 4 ranks") && Catch::Contains("found 16 ranks"));
  }
  CHECK_THROWS_AS(judge_comm(p, {at(64, 1, 2)}, "log.txt"), InputError);  // no planned size at all
}

TEST_CASE("accept machine calibration: geometric mean per size, pooled spread, floor", "[unit]") {
  std::vector<Measurement> pts = {at(1024, 1, 1), at(1024, 4, 2), at(4096, 2, 3), at(4096, 2, 4)};
  const MachineCalibration c = calibrate_machine_curve(pts, 4, 2);
  REQUIRE(c.expected.size() == 2);
  CHECK(c.expected[0].second.value == Approx(2e9));  // sqrt(1 x 4)
  CHECK(c.expected[1].second.value == Approx(2e9));
  // Within-size deviations: +-ln 2 at 1 KiB (2 degrees of freedom used by the two means): sqrt(2 ln^2 2 / 2).
  CHECK(c.sigma == Approx(std::log(2.0)));
  const AcceptPlan p = machine_plan(c, 4, "here", 1e-3);
  CHECK(p.comm_noise.sigma == Approx(std::log(2.0)));
  CHECK(p.comm[0].threshold.value == Approx(2e9 * std::exp(-3.0902 * std::log(2.0))).epsilon(1e-3));
  const AcceptPlan quiet = machine_plan(c, 4, "here", 1e-3, 0.01, "given");
  CHECK(quiet.comm_noise.sigma == 0.01);
}

#include "core/accept/twin_plan.hpp"
#include "core/io/scenario_reader.hpp"
#include "core/plan/comm_sweep.hpp"

TEST_CASE("accept judge: nccl-tests -J JSON against the twin's plan of its cluster, a row named by its pointer",
          "[unit]") {
  const std::string data = std::string(TT_SOURCE_DIR) + "/tests/data/nccl/format/all_reduce.8gpu.json";
  const auto log = load_measurements(data);
  const Topology h100 = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/single-node-8xh100.json");
  const AcceptPlan p = twin_comm_plan(h100, 8, 1, sweep_sizes(Bytes(1024), Bytes(1 << 30), 4), {},
                                      default_twin_comm_noise(), 1e-3);
  REQUIRE(p.comm.size() == 11);
  const CommVerdict v = judge_comm(p, log, data);
  REQUIRE(v.sizes.size() == 11);
  for (const auto& s : v.sizes) {
    REQUIRE(s.measured);
    CHECK_THAT(s.where, Catch::Contains("all_reduce.8gpu.json#/results/"));
    CHECK(s.passed == (*s.measured >= s.threshold));
  }
  const Topology rail = read_topology_file(std::string(TT_SOURCE_DIR) + "/topologies/rail-16x8-h100.json");
  const AcceptPlan other = twin_comm_plan(rail, 16, 2, sweep_sizes(Bytes(1024), Bytes(1 << 30), 4), {},
                                          default_twin_comm_noise(), 1e-3);
  try {
    judge_comm(other, log, data);
    FAIL("an 8-GPU log was judged against a 16-GPU plan");
  } catch (const InputError& e) {
    CHECK_THAT(e.file(), Catch::EndsWith("all_reduce.8gpu.json"));
    CHECK_THAT(e.pointer(), Catch::StartsWith("/results/"));
  }
}
