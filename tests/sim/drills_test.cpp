// Failure drills under the SimGrid driver: each fault kind strikes the jobs it should and only them, link faults
// shorter than the communication timeout only slow a job, async checkpoints cost less training time than sync ones.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/sim/sim_fixtures.hpp"

using namespace tt;
using tt::testing::fabric;
using tt::testing::llama8b;
using tt::testing::sim_scenario;
using tt::testing::simulate;

namespace {

FaultSpec make_fault(FaultKind kind, double at_s, std::string target, double repair_s, double fraction = 1.0) {
  FaultSpec f;
  f.kind = kind;
  f.at = Seconds(at_s);
  f.target = std::move(target);
  f.repair = Seconds(repair_s);
  f.fraction = fraction;
  return f;
}

// Three 16-GPU jobs, each alone in its leaf group of two nodes: a on n0-n1, b on n2-n3, c on n4-n5.
Scenario three_jobs(std::vector<FaultSpec> faults) {
  FabricParams p = fabric(6, 8, 2);
  p.spines = 2;
  Scenario s = sim_scenario(make_rail_optimized(p),
                            {llama8b("a", Parallelism{8, 1, 2}, 600, 100), llama8b("b", Parallelism{8, 1, 2}, 600, 100),
                             llama8b("c", Parallelism{8, 1, 2}, 600, 100)},
                            std::move(faults));
  s.recovery.detection_timeout = Seconds(45);
  s.recovery.comm_timeout = Seconds(20);
  s.recovery.watchdog_timeout = Seconds(300);
  return s;
}

std::vector<int> failures_per_job(const nlohmann::json& r) {
  std::vector<int> out;
  for (const auto& j : r["jobs"]) out.push_back(static_cast<int>(j["failures"].size()));
  return out;
}

}  // namespace

TEST_CASE("sim drills: each fault kind reaches the right jobs and only them", "[sim]") {
  struct Case {
    FaultSpec fault;
    std::vector<int> failures;  // of a, b, c
    double detect_after;        // the rule's time
    std::string kind;
  };
  const std::vector<Case> cases = {
      {make_fault(FaultKind::NodeCrash, 300, "n1", 3600), {1, 0, 0}, 45, "node_crash"},
      {make_fault(FaultKind::GpuFailure, 300, "n2/gpu3", 3600), {0, 1, 0}, 45, "gpu_failure"},
      {make_fault(FaultKind::NicDown, 300, "n5/gpu0", 600), {0, 0, 1}, 20, "nic_down"},
      {make_fault(FaultKind::LinkDown, 300, "n3/gpu7~leaf-g1-r7", 600), {0, 1, 0}, 20, "link_down"},
      {make_fault(FaultKind::SwitchDown, 300, "leaf-g0-r4", 600), {1, 0, 0}, 20, "switch_down"},
      {make_fault(FaultKind::Hang, 300, "n4", 0), {0, 0, 1}, 45, "hang"},
      {make_fault(FaultKind::Deadlock, 300, "n0", 0), {1, 0, 0}, 300, "deadlock"},
  };
  for (const Case& c : cases) {
    DYNAMIC_SECTION(to_string(c.fault.kind)) {
      auto r = simulate(three_jobs({c.fault}));
      INFO(r["decisions"].dump(1));
      CHECK(failures_per_job(r) == c.failures);
      for (const auto& j : r["jobs"]) {
        CHECK(j["state"] == "completed");
        for (const auto& f : j["failures"]) {
          CHECK(f["kind"] == c.kind);
          CHECK(f["at"].get<double>() == Approx(300).margin(1e-6));
          CHECK(f["detect"].get<double>() - f["at"].get<double>() == Approx(c.detect_after).margin(1e-6));
        }
      }
    }
  }
}

TEST_CASE("sim drills: a straggler slows only its job, storage slowdown only the checkpoint writes", "[sim]") {
  auto base = simulate(three_jobs({}));
  auto slow = simulate(three_jobs({make_fault(FaultKind::Straggler, 0, "n2/gpu1", 1e6, 0.5)}));
  // The others change only through shared storage: their checkpoint writes no longer coincide with b's.
  for (int j : {0, 2})
    CHECK(slow["jobs"][j]["end"].get<double>() == Approx(base["jobs"][j]["end"].get<double>()).epsilon(0.01));
  INFO("b ends at " << slow["jobs"][1]["end"] << " s with the straggler, " << base["jobs"][1]["end"] << " s without");
  CHECK(slow["jobs"][1]["end"].get<double>() > 1.3 * base["jobs"][1]["end"].get<double>());
  CHECK(failures_per_job(slow) == std::vector<int>{0, 0, 0});

  auto storage = simulate(three_jobs({make_fault(FaultKind::StorageSlow, 0, "storage", 1e6, 0.1)}));
  for (int j = 0; j < 3; ++j) {
    INFO("job " << j);
    CHECK(storage["jobs"][j]["checkpoint_time"].get<double>() > 5 * base["jobs"][j]["checkpoint_time"].get<double>());
  }
}

TEST_CASE("sim drills: a link flap shorter than the communication timeout slows the job, a longer one fails it",
          "[sim]") {
  // One job alone, so that its delay is the flap's and not a change in storage contention.
  auto alone = [](std::vector<FaultSpec> faults) {
    Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("b", Parallelism{8, 1, 2}, 600, 100)},
                              std::move(faults));
    s.recovery.comm_timeout = Seconds(20);
    return simulate(s);
  };
  auto base = alone({});
  auto short_flap = alone({make_fault(FaultKind::LinkDown, 300, "n1/gpu7~leaf-g0-r7", 15)});
  const auto& b = short_flap["jobs"][0];
  INFO(short_flap["decisions"].dump(1));
  CHECK(failures_per_job(short_flap) == std::vector<int>{0});
  CHECK(b["flaps_survived"] == 1);
  const double delay = b["end"].get<double>() - base["jobs"][0]["end"].get<double>();
  INFO("delay " << delay << " s");
  CHECK(delay >= 15 - 1e-6);  // it waited out the flap, redoing at most the iteration in flight
  CHECK(delay <= 15 + 2 * b["measured"].get<double>() + 1);

  auto long_flap = simulate(three_jobs({make_fault(FaultKind::LinkDown, 300, "n3/gpu7~leaf-g1-r7", 25)}));
  CHECK(failures_per_job(long_flap) == std::vector<int>{0, 1, 0});
  CHECK(long_flap["jobs"][1]["restarts"] == 1);
}

TEST_CASE("sim drills: async checkpoints cost less training time than sync ones at the same interval", "[sim]") {
  auto run = [](bool async) {
    Scenario s = sim_scenario(make_rail_optimized(fabric(2, 8, 2)), {llama8b("j", Parallelism{8, 1, 2}, 400, 20)});
    s.jobs[0].checkpoint_async = async;
    return simulate(s);
  };
  auto sync = run(false), async = run(true);
  const auto& js = sync["jobs"][0];
  const auto& ja = async["jobs"][0];
  INFO("sync: end " << js["end"] << " s, blocked " << js["checkpoint_time"] << " s; async: end " << ja["end"]
                    << " s, blocked " << ja["checkpoint_time"] << " s");
  CHECK(js["checkpoints"] == ja["checkpoints"]);
  CHECK(ja["checkpoint_time"].get<double>() < 0.5 * js["checkpoint_time"].get<double>());
  CHECK(ja["end"].get<double>() < js["end"].get<double>());
  CHECK(ja["state"] == "completed");
  // The run kept routes for some pairs of its 16 GPUs and to storage, never more than every pair of its 17 hosts.
  CHECK(ja["checkpoints"].get<int>() >= 2);
  CHECK(async["routes"].get<long long>() > 0);
  CHECK(async["routes"].get<long long>() <= 17 * 17);
  CHECK(async["route_index_bytes"].get<long long>() > 0);
}
