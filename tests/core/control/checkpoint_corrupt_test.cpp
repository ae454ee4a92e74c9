// The Controller's view of a corrupted checkpoint (fault kind checkpoint_corrupt): the newest retained checkpoint is
// lost, so the next restore resumes from the one before, within the job's retention.
#include <catch2/catch.hpp>

#include "core/control/controller.hpp"
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

std::string reason_of(const RunRecord& r, const std::string& kind) {
  std::string out;
  for (const auto& d : r.decisions)
    if (d.kind == kind) out = d.reason;
  return out;
}

}  // namespace

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
  CHECK_THAT(reason_of(c.record(), "checkpoint_corrupt"),
             Catch::Contains("iteration 300 fails its checksum") && Catch::Contains("from iteration 200"));
  CHECK(c.record().jobs[0].last_checkpoint == 200);

  c.handle(JobProgress{0, 1, 350, Seconds(2)}, Seconds(800));
  c.handle(NodeDown{node, "node_crash"}, Seconds(800));
  l = launches(c.handle(Timer{}, Seconds(860)));
  REQUIRE(l.size() == 1);
  CHECK(l[0].start_iteration == 200);
  const FailureRecord& f = c.record().jobs[0].failures.at(0);
  CHECK(f.lost_iterations == 150);

  // Retention kept 200 and 300; 300 is gone, so one more corruption leaves nothing older: from the start.
  c.handle(CheckpointCorrupted{0}, Seconds(900));
  CHECK_THAT(reason_of(c.record(), "checkpoint_corrupt"), Catch::Contains("from the start"));
  c.handle(CheckpointCorrupted{0}, Seconds(950));  // nothing left to damage: no change, and no crash
  CHECK_THAT(reason_of(c.record(), "checkpoint_corrupt"), Catch::Contains("no retained checkpoint"));
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
  c.handle(NodeDown{0, "node_crash"}, Seconds(570));
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
