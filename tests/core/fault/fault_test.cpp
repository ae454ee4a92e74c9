// core/fault and core/model/random: each policy alone, with no backend.
#include <catch2/catch.hpp>
#include <cmath>

#include "core/fault/catalogue.hpp"
#include "core/fault/detection.hpp"
#include "core/fault/fault_kind.hpp"
#include "core/fault/recovery.hpp"
#include "core/fault/stochastic.hpp"
#include "core/plan/nccl_settings.hpp"
#include "core/model/random.hpp"
#include <algorithm>
#include "tests/core/scenario_fixture.hpp"

using namespace tt;

TEST_CASE("stochastic: repair-time distributions and independent streams", "[unit][fault]") {
  Random a = stream(42, 0), b = stream(42, 0), c = stream(42, 1), d = stream(43, 0);
  for (int i = 0; i < 100; ++i) {
    auto x = a.next();
    CHECK(x == b.next());
    CHECK(x != c.next());
    CHECK(x != d.next());
  }
  Random r = stream(7, 0);
  const int n = 100000;
  std::vector<double> logn;
  double sum_e = 0;
  for (int i = 0; i < n; ++i) {
    logn.push_back(draw_repair({RepairDistribution::Shape::Lognormal, Seconds(10), 1.0}, r).value);
    sum_e += draw_repair({RepairDistribution::Shape::Exponential, Seconds(2), 1.0}, r).value;
  }
  std::nth_element(logn.begin(), logn.begin() + n / 2, logn.end());
  CHECK(logn[n / 2] == Approx(10.0).epsilon(0.02));
  CHECK(sum_e / n == Approx(2.0).margin(4 * 2.0 / std::sqrt(n)));
  CHECK(draw_repair({RepairDistribution::Shape::Fixed, Seconds(5), 1.0}, r) == Seconds(5));
}

TEST_CASE("detection: NCCL timeout formula and the configured rules", "[unit][fault]") {
  CHECK(RecoveryPolicy{}.comm_timeout == ib_comm_timeout(20, 7));  // the default is NCCL's defaults' timeout
  RecoveryPolicy p;
  p.detection_timeout = Seconds(45);
  p.comm_timeout = Seconds(12);
  p.watchdog_timeout = Seconds(300);
  DetectionRules rules(p);
  CHECK(rules.time_to_detect(Detector::Heartbeat) == Seconds(45));
  CHECK(rules.time_to_detect(Detector::Communication) == Seconds(12));
  CHECK(rules.time_to_detect(Detector::Watchdog) == Seconds(300));
  CHECK(std::isinf(rules.time_to_detect(Detector::None).value));
  CHECK(rules.fails_job(Seconds(12)));
  CHECK_FALSE(rules.fails_job(Seconds(11.9)));
  CHECK(detector_for(Symptom::Silent) == Detector::Heartbeat);
  CHECK(detector_for(Symptom::CommStalled) == Detector::Communication);
  CHECK(detector_for(Symptom::NoProgress) == Detector::Watchdog);
}

TEST_CASE("catalogue: llama3-h100 is table 5 of the Llama 3 paper, spread over a topology", "[unit][fault]") {
  const Catalogue* c = find_catalogue("llama3-h100");
  REQUIRE(c);
  int total = 0;
  for (const auto& cause : c->causes) total += cause.count;
  CHECK(total == 419);
  CHECK_THAT(c->source, Catch::Contains("Dubey et al. 2024"));
  Topology topo = testing::rail_cluster(16);  // 128 GPUs
  auto rates = catalogue_rates(*c, topo, 2.0);
  double per_s = 0;
  for (const auto& r : rates) per_s += fault_candidates(r.kind, topo).size() / r.mtbf.value;
  const double expected = 419.0 / (16384 * 54 * 86400.0) * 128 * 2.0;
  CHECK(per_s == Approx(expected).epsilon(1e-9));
}

TEST_CASE("stochastic: a seed reproduces the faults exactly, and the count is within 4 sigma of the rate",
          "[unit][fault]") {
  Topology topo = testing::rail_cluster(16);
  FaultRate gpu;
  gpu.kind = FaultKind::GpuFailure;
  gpu.mtbf = Seconds(1000 * 86400.0);  // per GPU: 128 GPUs -> 0.128 a day
  gpu.repair = {RepairDistribution::Shape::Lognormal, Seconds(3600), 1.0};
  FaultRate flap;
  flap.kind = FaultKind::LinkDown;
  flap.mtbf = Seconds(50 * 86400.0);
  flap.repair = {RepairDistribution::Shape::Exponential, Seconds(10), 1.0};
  const Seconds until(3650 * 86400.0);
  auto a = draw_faults({gpu, flap}, topo, 99, until);
  auto b = draw_faults({gpu, flap}, topo, 99, until);
  auto c = draw_faults({gpu, flap}, topo, 100, until);
  REQUIRE(a.size() == b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    CHECK(a[i].at == b[i].at);
    CHECK(a[i].target == b[i].target);
    CHECK(a[i].repair == b[i].repair);
  }
  CHECK((a.size() != c.size() || a[0].at != c[0].at));
  CHECK(std::is_sorted(a.begin(), a.end(), [](const FaultSpec& x, const FaultSpec& y) { return x.at < y.at; }));
  // Adding a rate leaves the draws of the others alone (one stream per rate).
  auto only_gpu = draw_faults({gpu}, topo, 99, until);
  std::size_t gpus_in_a = 0;
  for (const auto& f : a) gpus_in_a += f.kind == FaultKind::GpuFailure;
  CHECK(gpus_in_a == only_gpu.size());

  const double links = static_cast<double>(fault_candidates(FaultKind::LinkDown, topo).size());
  const double mean_gpu = 128 * until.value / gpu.mtbf.value;
  const double mean_flap = links * until.value / flap.mtbf.value;
  const double n_flap = static_cast<double>(a.size() - gpus_in_a);
  INFO("gpu failures " << gpus_in_a << " (mean " << mean_gpu << "), flaps " << n_flap << " (mean " << mean_flap << ")");
  CHECK(std::abs(gpus_in_a - mean_gpu) <= 4 * std::sqrt(mean_gpu));
  CHECK(std::abs(n_flap - mean_flap) <= 4 * std::sqrt(mean_flap));
  for (const auto& f : a) CHECK(f.repair.value > 0);
}

TEST_CASE("recovery policies: lemon draining, lost work, Young/Daly, snapshot stall", "[unit][fault]") {
  LemonPolicy lemon(3, Seconds(86400));
  CHECK_FALSE(lemon.drain({Seconds(0), Seconds(100)}, Seconds(100)));
  CHECK(lemon.drain({Seconds(0), Seconds(100), Seconds(200)}, Seconds(200)));
  CHECK_FALSE(lemon.drain({Seconds(0), Seconds(100), Seconds(90000)}, Seconds(90000)));  // the first is too old
  CHECK_FALSE(LemonPolicy(0, Seconds(1)).drain({Seconds(0), Seconds(0), Seconds(0)}, Seconds(0)));
  LostWork w = lost_work(50, Seconds(4), Seconds(60), Seconds(120));
  CHECK(w.total() == Seconds(380));
  CHECK(w.gpu_hours(64) == Approx(380.0 * 64 / 3600));
  CHECK(young_daly_interval(Seconds(50), Seconds(36000)).value == Approx(std::sqrt(2.0 * 50 * 36000)));
  CHECK(snapshot_stall(Bytes(50e9), BytesPerSecond(25e9)) == Seconds(2));
}
