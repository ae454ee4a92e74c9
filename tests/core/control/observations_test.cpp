// What drivers report and the Controller decides from it: the detector from the symptom, the detection clock from
// the moment the job stopped, which checkpoints count, retention in the Launch, and a restore that differs.
#include <catch2/catch.hpp>

#include "core/control/controller.hpp"
#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::job;
using tt::testing::rail_cluster;
using tt::testing::scenario;

namespace {

std::optional<Launch> first_launch(const std::vector<Action>& actions) {
  for (const auto& a : actions)
    if (const auto* l = std::get_if<Launch>(&a)) return *l;
  return std::nullopt;
}

Scenario one_job() {
  Scenario s = scenario(rail_cluster(2), {{"q", 16}}, {job("a", "q", 8, 0, 0, 1000)});
  s.recovery.detection_timeout = Seconds(45);
  s.recovery.restart_overhead = Seconds(100);
  s.jobs[0].checkpoint_keep = 2;
  s.telemetry.interval = Seconds(1e9);
  return s;
}

}  // namespace

TEST_CASE("observations: a silence reported late is declared from the moment the rank was last heard",
          "[unit][control]") {
  Scenario s = one_job();
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  // Last heard at 100 s, reported at 120 s: the heartbeat rule declares it at 145 s, not 165 s.
  c.handle(JobStalled{0, 1, 10, "rank 0 silent", Symptom::Silent, FaultKind::Hang, {}, Seconds(100)}, Seconds(120));
  REQUIRE(c.next_deadline() == Seconds(145));
  // Reported after the timeout had passed: declared at once, at the report.
  Controller late(s);
  late.handle(Timer{}, Seconds(0));
  late.handle(JobStalled{0, 1, 10, "rank 0 silent", Symptom::Silent, {}, {}, Seconds(100)}, Seconds(300));
  REQUIRE(late.next_deadline() == Seconds(300));
  late.handle(Timer{}, Seconds(300));
  const FailureRecord& f = late.record().jobs[0].failures.at(0);
  CHECK(f.fault_time == Seconds(100));
  CHECK(f.detect_time == Seconds(300));
  CHECK(f.kind == "unknown");
  CHECK(f.detector == std::string("heartbeat"));
}

TEST_CASE("observations: checkpoints count once and before the job's end, the Launch carries retention",
          "[unit][control]") {
  Scenario s = one_job();
  Controller c(s);
  auto l = first_launch(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l);
  CHECK(l->checkpoint_keep == 2);
  c.handle(CheckpointDone{0, 1, 100, Seconds(1), Seconds(1)}, Seconds(300));
  c.handle(CheckpointDone{0, 1, 100, Seconds(1), Seconds(1)}, Seconds(301));   // reported twice: counted once
  c.handle(CheckpointDone{0, 1, 1000, Seconds(1), Seconds(1)}, Seconds(900));  // after the last iteration: not
  CHECK(c.record().jobs[0].checkpoints == 1);
  CHECK(c.record().jobs[0].last_checkpoint == 100);
}

TEST_CASE("observations: a restore from an older checkpoint than asked moves the job back and costs the failure",
          "[unit][control]") {
  Scenario s = one_job();
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  c.handle(JobProgress{0, 1, 200, Seconds(2)}, Seconds(300));
  c.handle(CheckpointDone{0, 1, 100, Seconds(1), Seconds(1)}, Seconds(300));
  c.handle(CheckpointDone{0, 1, 200, Seconds(1), Seconds(1)}, Seconds(500));
  c.handle(JobProgress{0, 1, 250, Seconds(2)}, Seconds(600));
  c.handle(JobStalled{0, 1, 250, "rank 3 exited", Symptom::Silent}, Seconds(600));
  auto l = first_launch(c.handle(Timer{}, Seconds(645)));
  REQUIRE(l);
  CHECK(l->start_iteration == 200);
  const double lost_before = c.record().jobs[0].lost_gpu_hours;
  CHECK(c.record().jobs[0].failures.at(0).lost_iterations == 50);
  // Storage refused the checkpoint after 200: the attempt resumed from 100.
  c.handle(RestoredFrom{0, 2, 100}, Seconds(650));
  const JobRecord& jr = c.record().jobs[0];
  CHECK(jr.failures.at(0).lost_iterations == 150);
  CHECK(jr.lost_gpu_hours == Approx(lost_before + 100 * 2.0 * 8 / 3600));
  CHECK(jr.last_checkpoint == 100);
  CHECK(jr.checkpoints_retained == 1);
  CHECK(jr.segments.back().start_iteration == 100);
  bool logged = false;
  for (const auto& d : c.record().decisions) logged = logged || (d.kind == "restore" && d.job == "a");
  CHECK(logged);
  // A restore that matches what was asked changes nothing.
  c.handle(RestoredFrom{0, 2, 100}, Seconds(651));
  CHECK(c.record().jobs[0].failures.at(0).lost_iterations == 150);
}
