#include "core/control/controller.hpp"

#include <catch2/catch.hpp>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using tt::testing::job;
using tt::testing::rail_cluster;
using tt::testing::scenario;

namespace {

std::vector<Launch> launches(const std::vector<Action>& actions) {
  std::vector<Launch> out;
  for (const auto& a : actions)
    if (auto* l = std::get_if<Launch>(&a)) out.push_back(*l);
  return out;
}

template <class T>
int count(const std::vector<Action>& actions) {
  int n = 0;
  for (const auto& a : actions) n += std::holds_alternative<T>(a);
  return n;
}

const Decision* last_decision(const RunRecord& r, const std::string& kind, const std::string& job) {
  const Decision* found = nullptr;
  for (const auto& d : r.decisions)
    if (d.kind == kind && d.job == job) found = &d;
  return found;
}

}  // namespace

TEST_CASE("controller: higher priority first, gang waits for whole nodes", "[unit][control]") {
  Scenario s = scenario(rail_cluster(2), {{"q", 32}}, {job("big", "q", 16, 0), job("small", "q", 8, 5)});
  Controller c(s);
  REQUIRE(c.next_deadline() == Seconds(0));
  auto actions = c.handle(Timer{}, Seconds(0));
  auto l = launches(actions);
  REQUIRE(l.size() == 1);
  CHECK(l[0].job == 1);  // priority 5 beats priority 0 submitted at the same time
  CHECK(l[0].gpus.size() == 8);
  const Decision* pending = last_decision(c.record(), "pending", "big");
  REQUIRE(pending);
  CHECK_THAT(pending->reason, Catch::Contains("waiting for 2 whole nodes"));

  actions = c.handle(JobCompleted{1, 1}, Seconds(500));
  l = launches(actions);
  REQUIRE(l.size() == 1);  // all 16 GPUs or nothing: only now does it start
  CHECK(l[0].job == 0);
  CHECK(l[0].gpus.size() == 16);
  CHECK(c.record().jobs[0].wait == Seconds(500));
}

TEST_CASE("controller: a queue over quota waits without blocking another queue", "[unit][control]") {
  Scenario s = scenario(rail_cluster(4), {{"a", 8}, {"b", 16}},
                        {job("a1", "a", 8), job("a2", "a", 8), job("b1", "b", 16)});
  Controller c(s);
  auto l = launches(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 2);
  CHECK(l[0].job == 0);
  CHECK(l[1].job == 2);
  const Decision* pending = last_decision(c.record(), "pending", "a2");
  REQUIRE(pending);
  CHECK_THAT(pending->reason, Catch::Contains("quota of queue a exhausted: 8 of 8 GPUs in use"));
}

TEST_CASE("controller: multi-node jobs are packed into one leaf group", "[unit][control]") {
  // Three groups of 2 nodes; group 0 is half used, so a 2-node job must go to a wholly free group.
  Scenario s = scenario(rail_cluster(6, 2), {{"q", 48}}, {job("one", "q", 8), job("two", "q", 16, 0, 1)});
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  auto l = launches(c.handle(Timer{}, Seconds(1)));
  REQUIRE(l.size() == 1);
  int g0 = s.topology.nodes()[l[0].gpus.front() / 8].group;
  int g1 = s.topology.nodes()[l[0].gpus.back() / 8].group;
  CHECK(g0 == g1);
  CHECK(g0 != 0);
}

TEST_CASE("controller: node failure is detected after the timeout and the job resumes from its checkpoint",
          "[unit][control]") {
  Scenario s = scenario(rail_cluster(2), {{"q", 16}}, {job("train", "q", 8)});
  s.telemetry.interval = Seconds(1e9);  // no telemetry sampling among the deadlines this test reads
  Controller c(s);
  auto l = launches(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 1);
  const int node = l[0].gpus[0] / 8;
  CHECK(l[0].start_iteration == 0);
  CHECK(l[0].startup == s.perf.launch_overhead);

  c.handle(JobProgress{0, 1, 100, Seconds(2)}, Seconds(300));
  c.handle(CheckpointDone{0, 1, 100, Seconds(5), Seconds(5)}, Seconds(305));
  c.handle(JobProgress{0, 1, 150, Seconds(2)}, Seconds(405));
  auto actions = c.handle(NodeDown{node, FaultKind::NodeCrash}, Seconds(410));
  CHECK(count<Kill>(actions) == 0);  // not yet detected
  CHECK(count<Cordon>(actions) == 1);
  REQUIRE(c.next_deadline() == Seconds(470));

  actions = c.handle(Timer{}, Seconds(470));
  REQUIRE(count<Kill>(actions) == 1);
  l = launches(actions);
  REQUIRE(l.size() == 1);  // the other node is free: restart there at once
  CHECK(l[0].gpus[0] / 8 != node);
  CHECK(l[0].start_iteration == 100);
  CHECK(l[0].startup == s.recovery.restart_overhead);
  CHECK(l[0].attempt == 2);

  const JobRecord& jr = c.record().jobs[0];
  REQUIRE(jr.failures.size() == 1);
  CHECK(jr.restarts == 1);
  CHECK(jr.failures[0].lost_iterations == 50);
  // (50 iterations x 2 s + 60 s detection + 120 s restart) x 8 GPUs
  CHECK(jr.failures[0].lost_gpu_hours == Approx((50 * 2 + 60 + 120) * 8 / 3600.0));
  CHECK(jr.failures[0].detect_time - jr.failures[0].fault_time == Seconds(60));

  // Events of the killed attempt are ignored.
  c.handle(JobCompleted{0, 1}, Seconds(480));
  CHECK(c.record().jobs[0].state == JobStatus::Running);
  // Every iteration run counts toward the mean, the lost ones too: 150 at 2 s, then 100 more (from the checkpoint at
  // 100) at 3 s; the killed attempt's late report is not counted.
  c.handle(JobProgress{0, 1, 180, Seconds(9)}, Seconds(490));
  c.handle(JobProgress{0, 2, 200, Seconds(3)}, Seconds(1000));
  CHECK(jr.iterations_timed == 250);
  CHECK(jr.iteration_time_sum.value == Approx(150 * 2 + 100 * 3));
  c.handle(JobCompleted{0, 2}, Seconds(5000));
  CHECK(c.record().jobs[0].state == JobStatus::Completed);
  CHECK(c.done());
}

TEST_CASE("controller: a down node takes no work until it is repaired", "[unit][control]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("train", "q", 8)});
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  c.handle(NodeDown{0, FaultKind::NodeCrash}, Seconds(10));
  auto actions = c.handle(Timer{}, Seconds(70));
  CHECK(count<Kill>(actions) == 1);
  CHECK(launches(actions).empty());
  const Decision* pending = last_decision(c.record(), "pending", "train");
  REQUIRE(pending);
  CHECK_THAT(pending->reason, Catch::Contains("0 free"));
  auto l = launches(c.handle(NodeUp{0}, Seconds(1000)));
  REQUIRE(l.size() == 1);
  CHECK(l[0].attempt == 2);
}

TEST_CASE("controller: a job failing more than max_restarts times is abandoned", "[unit][control]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("flaky", "q", 8)});
  s.recovery.max_restarts = 1;
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  c.handle(JobStalled{0, 1, 0, "NCCL error"}, Seconds(10));
  auto l = launches(c.handle(Timer{}, Seconds(70)));
  REQUIRE(l.size() == 1);
  c.handle(JobStalled{0, 2, 0, "NCCL error"}, Seconds(200));
  c.handle(Timer{}, Seconds(260));
  CHECK(c.record().jobs[0].state == JobStatus::Abandoned);
  CHECK(c.done());
}

TEST_CASE("controller: finish computes ETTR from kept iterations and evaluates checks", "[unit][control]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("train", "q", 8, 0, 0, 200)});
  s.checks.push_back({"ends", "job.end", "train", CheckOp::Le, 1000});
  s.checks.push_back({"no restarts", "job.restarts", "train", CheckOp::Eq, 0});
  s.checks.push_back({"util", "cluster.gpu_utilization", "", CheckOp::Ge, 0.99});
  Controller c(s);
  c.handle(Timer{}, Seconds(0));
  c.handle(JobProgress{0, 1, 200, Seconds(4)}, Seconds(860));
  c.handle(JobCompleted{0, 1}, Seconds(860));
  c.finish(Seconds(860));
  const RunRecord& r = c.record();
  CHECK(r.jobs[0].productive_seconds == Approx(800));
  CHECK(r.jobs[0].ettr == Approx(800.0 / 860));
  REQUIRE(r.checks.size() == 3);
  CHECK(r.checks[0].passed);
  CHECK(r.checks[1].passed);
  CHECK(r.checks[2].passed);
  CHECK(r.all_checks_passed());
}

namespace {

Scenario fault_scenario() {
  Scenario s = scenario(rail_cluster(4), {{"q", 32}}, {job("a", "q", 16, 0, 0, 1000)});
  s.recovery.detection_timeout = Seconds(45);
  s.recovery.comm_timeout = Seconds(20);
  s.recovery.watchdog_timeout = Seconds(300);
  s.recovery.restart_overhead = Seconds(100);
  s.telemetry.interval = Seconds(1e9);  // no telemetry sampling among the deadlines these tests read
  return s;
}

}  // namespace

TEST_CASE("controller: each detector declares the failure after its configured time", "[unit][control]") {
  struct Case {
    Symptom seen;
    Detector detector;
    double expected;
  };
  for (Case c : {Case{Symptom::Silent, Detector::Heartbeat, 45}, Case{Symptom::CommStalled, Detector::Communication, 20},
                 Case{Symptom::NoProgress, Detector::Watchdog, 300}}) {
    Scenario s = fault_scenario();
    Controller ctl(s);
    ctl.handle(Timer{}, Seconds(0));
    ctl.handle(JobStalled{0, 1, 0, "boom", c.seen, FaultKind::Hang}, Seconds(1000));
    REQUIRE(ctl.next_deadline());
    CHECK(ctl.next_deadline()->value == Approx(1000 + c.expected));
    auto actions = ctl.handle(Timer{}, *ctl.next_deadline());
    CHECK(count<Kill>(actions) == 1);
    REQUIRE(ctl.record().jobs[0].failures.size() == 1);
    const FailureRecord& f = ctl.record().jobs[0].failures[0];
    CHECK((f.detect_time - f.fault_time).value == Approx(c.expected));
    CHECK(f.detector == to_string(c.detector));
  }
}

TEST_CASE("controller: a link back before the communication timeout only slows the job", "[unit][control]") {
  Scenario s = fault_scenario();
  Controller ctl(s);
  ctl.handle(Timer{}, Seconds(0));
  ctl.handle(JobStalled{0, 1, 10, "flap", Symptom::CommStalled, FaultKind::LinkDown, {3}}, Seconds(100));
  auto actions = ctl.handle(JobResumed{0, 1}, Seconds(110));
  CHECK(count<Kill>(actions) == 0);
  const auto deadline = ctl.next_deadline();
  CHECK((!deadline || *deadline >= Seconds(1e9)));  // no detection pending, only the telemetry tick pushed away
  CHECK(ctl.record().jobs[0].flaps_survived == 1);
  CHECK(ctl.record().jobs[0].failures.empty());
  // A longer outage fails it; its link back within the restart overhead makes it a false failure.
  ctl.handle(JobStalled{0, 1, 20, "flap", Symptom::CommStalled, FaultKind::LinkDown, {3}}, Seconds(200));
  actions = ctl.handle(Timer{}, Seconds(220));
  CHECK(count<Kill>(actions) == 1);
  ctl.handle(LinkUp{3}, Seconds(250));
  REQUIRE(ctl.record().jobs[0].failures.size() == 1);
  CHECK(ctl.record().jobs[0].failures[0].false_failure);
  CHECK(ctl.record().jobs[0].false_failures == 1);
}

TEST_CASE("controller: lost work of a scripted failure equals the closed form", "[unit][control]") {
  Scenario s = fault_scenario();
  Controller ctl(s);
  ctl.handle(Timer{}, Seconds(0));
  ctl.handle(JobProgress{0, 1, 100, Seconds(4)}, Seconds(460));
  ctl.handle(CheckpointDone{0, 1, 100, Seconds(5), Seconds(5)}, Seconds(465));
  ctl.handle(JobProgress{0, 1, 137, Seconds(4)}, Seconds(613));
  ctl.handle(NodeDown{1, FaultKind::NodeCrash}, Seconds(613));
  ctl.handle(Timer{}, Seconds(658));
  const JobRecord& jr = ctl.record().jobs[0];
  REQUIRE(jr.failures.size() == 1);
  const FailureRecord& f = jr.failures[0];
  CHECK(f.lost_iterations == 37);
  // (37 iterations x 4 s + 45 s heartbeat + 100 s restart) x 16 GPUs
  CHECK(f.lost_gpu_hours == Approx((37 * 4.0 + 45 + 100) * 16 / 3600));
  CHECK(f.kind == "node_crash");
  REQUIRE(f.recovered_time);  // relaunched at once on the other nodes
  CHECK(f.recovered_time->value == Approx(658 + 100));
}

TEST_CASE("controller: a failed job swaps in a hot spare, a repeat offender is drained", "[unit][control]") {
  Scenario s = scenario(rail_cluster(3), {{"q", 24}}, {job("a", "q", 16, 0, 0, 1000)});
  s.recovery.hot_spares = 1;
  s.recovery.lemon_failures = 2;
  s.recovery.lemon_window = Seconds(86400);
  Controller ctl(s);
  auto l = launches(ctl.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 1);  // on n0 and n1; n2 is the spare
  ctl.handle(NodeDown{0, FaultKind::NodeCrash}, Seconds(100));
  auto actions = ctl.handle(Timer{}, Seconds(160));
  l = launches(actions);
  REQUIRE(l.size() == 1);  // it did not wait for n0's repair
  CHECK(count<Uncordon>(actions) == 1);
  ctl.handle(NodeUp{0}, Seconds(1000));     // back into the spare pool
  ctl.handle(NodeDown{0, FaultKind::NodeCrash}, Seconds(2000));
  REQUIRE(ctl.record().drained_nodes.size() == 1);
  CHECK(ctl.record().drained_nodes[0] == "n0");
}

// A corrupted checkpoint (fault kind checkpoint_corrupt): the newest retained checkpoint is lost, so the next restore
// resumes from the one before, within the job's retention.
TEST_CASE("checkpoint_corrupt: the restart resumes from the checkpoint before the damaged one", "[unit][control]") {
  Scenario s = scenario(rail_cluster(2), {{"q", 16}}, {job("train", "q", 8)});
  s.jobs[0].checkpoint_keep = 2;
  Controller c(s);
  auto l = launches(c.handle(Timer{}, Seconds(0)));
  REQUIRE(l.size() == 1);
  const int node = l[0].gpus[0] / 8;
  for (int i = 1; i <= 3; ++i) {
    c.handle(JobProgress{0, 1, 100 * i, Seconds(2)}, Seconds(200.0 * i));
    c.handle(CheckpointDone{0, 1, 100 * i, Seconds(5), Seconds(5)}, Seconds(200.0 * i + 5));
  }
  c.handle(CheckpointCorrupted{0}, Seconds(700));
  CHECK_THAT(last_decision(c.record(), "checkpoint_corrupt", "train")->reason,
             Catch::Contains("iteration 300 fails its checksum") && Catch::Contains("from iteration 200"));
  CHECK(c.record().jobs[0].last_checkpoint == 200);

  c.handle(JobProgress{0, 1, 350, Seconds(2)}, Seconds(800));
  c.handle(NodeDown{node, FaultKind::NodeCrash}, Seconds(800));
  l = launches(c.handle(Timer{}, Seconds(860)));
  REQUIRE(l.size() == 1);
  CHECK(l[0].start_iteration == 200);
  const FailureRecord& f = c.record().jobs[0].failures.at(0);
  CHECK(f.lost_iterations == 150);

  // Retention kept 200 and 300; 300 is gone, so one more corruption leaves nothing older: from the start.
  c.handle(CheckpointCorrupted{0}, Seconds(900));
  CHECK_THAT(last_decision(c.record(), "checkpoint_corrupt", "train")->reason, Catch::Contains("from the start"));
  c.handle(CheckpointCorrupted{0}, Seconds(950));  // nothing left to damage: no change, and no crash
  CHECK_THAT(last_decision(c.record(), "checkpoint_corrupt", "train")->reason, Catch::Contains("no retained checkpoint"));
}

TEST_CASE("checkpoint_corrupt: a job waiting to restart loses the damaged interval too", "[unit][control]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("train", "q", 8)});
  Controller c(s);
  launches(c.handle(Timer{}, Seconds(0)));
  c.handle(JobProgress{0, 1, 100, Seconds(2)}, Seconds(300));
  c.handle(CheckpointDone{0, 1, 100, Seconds(5), Seconds(5)}, Seconds(305));
  c.handle(JobProgress{0, 1, 200, Seconds(2)}, Seconds(505));
  c.handle(CheckpointDone{0, 1, 200, Seconds(5), Seconds(5)}, Seconds(510));
  c.handle(JobProgress{0, 1, 230, Seconds(2)}, Seconds(570));
  c.handle(NodeDown{0, FaultKind::NodeCrash}, Seconds(570));
  CHECK(launches(c.handle(Timer{}, Seconds(630))).empty());  // detected; the only node is down: it waits
  const double before = c.record().jobs[0].lost_gpu_hours;
  REQUIRE(c.record().jobs[0].failures.at(0).lost_iterations == 30);

  c.handle(CheckpointCorrupted{0}, Seconds(700));
  const FailureRecord& f = c.record().jobs[0].failures.at(0);
  CHECK(f.lost_iterations == 130);
  CHECK(c.record().jobs[0].lost_gpu_hours == Approx(before + 100 * 2.0 * 8 / 3600));
  auto l = launches(c.handle(NodeUp{0}, Seconds(1000)));
  REQUIRE(l.size() == 1);
  CHECK(l[0].start_iteration == 100);
}
