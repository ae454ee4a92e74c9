// The one drive loop: what it hands the Controller, in which order, and when it stops; with a scripted executor and
// a virtual clock (no backend, no wall time).
#include "core/drive/drive_loop.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <deque>

#include "tests/core/scenario_fixture.hpp"

using namespace tt;
using namespace tt::testing;

namespace {

// Virtual time; the executor completes every launched attempt after `run_for` and records what it was asked.
class Scripted final : public tt::Clock, public Executor {
 public:
  Seconds run_for = Seconds(500);
  std::vector<std::string> log;

  Seconds now() override { return now_; }
  void wait_until(std::optional<Seconds> d) override {
    if (d) now_ = std::max(now_, *d);
  }
  void execute(const Action& a, Seconds t) override {
    if (const auto* l = std::get_if<Launch>(&a)) {
      log.push_back("launch " + std::to_string(l->job) + "/" + std::to_string(l->attempt) + " at " +
                    std::to_string(static_cast<int>(t.value)));
      ends_.push_back({t + run_for, l->job, l->attempt});
    } else if (const auto* k = std::get_if<Kill>(&a)) {
      log.push_back("kill " + std::to_string(k->job) + "/" + std::to_string(k->attempt) + " at " +
                    std::to_string(static_cast<int>(t.value)));
      std::erase_if(ends_, [&](const End& e) { return e.job == k->job && e.attempt == k->attempt; });
    }
  }
  void inject(const FaultChange& c, const FaultSpec&, const FaultTarget& t, Seconds at) override {
    log.push_back(std::string(c.starts ? "fault" : "repair") + " at " + std::to_string(static_cast<int>(at.value)));
    if (c.starts) {
      queue_.push_back(NodeDown{t.node, FaultKind::NodeCrash});
    } else {
      queue_.push_back(NodeUp{t.node});
    }
  }
  std::optional<Event> next_event() override {
    if (queue_.empty()) return std::nullopt;
    Event e = queue_.front();
    queue_.pop_front();
    return e;
  }
  void observe(Seconds t) override {
    for (auto it = ends_.begin(); it != ends_.end();)
      if (it->at <= t) {
        queue_.push_back(JobCompleted{it->job, it->attempt});
        it = ends_.erase(it);
      } else {
        ++it;
      }
  }
  std::optional<Seconds> next_observation() const override {
    std::optional<Seconds> next;
    for (const End& e : ends_)
      if (!next || e.at < *next) next = e.at;
    return next;
  }

 private:
  struct End {
    Seconds at;
    int job, attempt;
  };
  Seconds now_;
  std::vector<End> ends_;
  std::deque<Event> queue_;
};

// A scenario of `nodes` nodes with a 60 s heartbeat and no telemetry timers, for fault drills.
Scenario drill(int nodes, std::vector<JobSpec> jobs) {
  Scenario s = scenario(rail_cluster(nodes), {{"q", 8 * nodes}}, std::move(jobs));
  s.sim.horizon = Seconds(1e6);
  s.recovery.detection_timeout = Seconds(60);
  s.telemetry.interval = Seconds(1e9);
  return s;
}

FaultSpec crash_of(const Scenario& s, int node, double at, double repair) {
  FaultSpec crash;
  crash.kind = FaultKind::NodeCrash;
  crash.at = Seconds(at);
  crash.repair = Seconds(repair);
  crash.target = s.topology.nodes()[node].name;
  return crash;
}

}  // namespace

TEST_CASE("drive loop: a crash is played at its time, detected by the Controller's rule, and the job restarts",
          "[unit][drive]") {
  Scenario s = drill(2, {job("a", "q", 8)});
  Controller c(s);
  Scripted x;
  FaultPlayer faults(s, {crash_of(s, 0, 100, 1000)});
  DriveLoop loop(c, x, x, faults, s.sim.horizon);
  CHECK(loop.run() == DriveLoop::Stop::Done);
  // The job started on node 0 (packed first), the crash at 100 s was declared at 160 s (the heartbeat timeout), the
  // restart ran elsewhere for 500 s, and the repair at 1,100 s came after the job was done.
  REQUIRE(x.log.size() >= 4);
  CHECK(x.log[0] == "launch 0/1 at 0");
  CHECK(x.log[1] == "fault at 100");
  CHECK(x.log[2] == "kill 0/1 at 160");
  CHECK(x.log[3] == "launch 0/2 at 160");
  CHECK(c.record().jobs[0].failures.size() == 1);
  CHECK(c.record().jobs[0].end == Seconds(660));
}

TEST_CASE("drive loop: stops at the horizon, and when nothing can happen any more", "[unit][drive]") {
  Scenario s = scenario(rail_cluster(1), {{"q", 8}}, {job("a", "q", 8)});
  s.telemetry.interval = Seconds(1e9);
  s.sim.horizon = Seconds(200);
  {
    Controller c(s);
    Scripted x;
    FaultPlayer none(s, {});
    DriveLoop loop(c, x, x, none, s.sim.horizon);
    CHECK(loop.run() == DriveLoop::Stop::Horizon);
    CHECK(x.now() == Seconds(200));
  }
  {
    // The only node crashes for good: the job is declared failed and waits for a node that never comes back.
    s.sim.horizon = Seconds(1e6);
    Controller c(s);
    Scripted x;
    FaultPlayer faults(s, {crash_of(s, 0, 100, 1e7)});  // the repair comes after the horizon: never played
    DriveLoop loop(c, x, x, faults, s.sim.horizon);
    const DriveLoop::Stop stop = loop.run();
    CHECK(stop != DriveLoop::Stop::Done);
    CHECK(x.log == std::vector<std::string>{"launch 0/1 at 0", "fault at 100", "kill 0/1 at 160"});
    CHECK(c.record().jobs[0].state == JobStatus::Pending);
  }
}

TEST_CASE("drive loop: while the control plane is down faults strike and jobs run, but nothing is decided",
          "[unit][drive]") {
  Scenario s = drill(3, {job("a", "q", 8), job("b", "q", 8, 0, /*submit_s=*/120)});
  Controller c(s);
  Scripted x;
  // Down from 50 s to 250 s; node 0 crashes under job a at 100 s.
  FaultPlayer faults(s, {crash_of(s, 0, 100, 1000)});
  DriveLoop loop(c, x, x, faults, s.sim.horizon);
  loop.set_control_plane_outages({{Seconds(50), Seconds(200), 0}}, s.topology.gpus_per_node());
  std::vector<std::pair<double, Event>> handed;
  loop.record = [&](Seconds t, const Event& e) { handed.emplace_back(t.value, e); };
  CHECK(loop.run() == DriveLoop::Stop::Done);
  // The crash struck at 100 s, but the Controller heard of it, declared the job failed and restarted it at 250 s; job
  // b, submitted at 120 s, was seen then too.
  REQUIRE(x.log.size() >= 5);
  CHECK(x.log[0] == "launch 0/1 at 0");
  CHECK(x.log[1] == "fault at 100");
  std::vector<std::string> at_return(x.log.begin() + 2, x.log.begin() + 5);
  std::sort(at_return.begin(), at_return.end());
  CHECK(at_return == std::vector<std::string>{"kill 0/1 at 250", "launch 0/2 at 250", "launch 1/1 at 250"});
  const FailureRecord& f = c.record().jobs[0].failures.at(0);
  CHECK(f.fault_time == Seconds(100));  // the time the node died: its ranks are reported silent since then
  CHECK(f.detect_time == Seconds(250));
  CHECK(f.lost_detection == Seconds(150));
  CHECK(f.kind == "node_crash");
  CHECK(c.record().jobs[1].submit == Seconds(120));
  CHECK(c.record().jobs[1].first_start == Seconds(250));
  // Nothing was handed over between 50 s and 250 s; at 250 s the node's death, then its job silent since 100 s.
  for (const auto& [t, e] : handed) CHECK((t < 50 || t >= 250));
  auto down = std::find_if(handed.begin(), handed.end(),
                           [](const auto& h) { return std::holds_alternative<NodeDown>(h.second); });
  REQUIRE(down != handed.end());
  CHECK(down->first == 250);
  REQUIRE(std::next(down) != handed.end());
  const auto* silent = std::get_if<JobStalled>(&std::next(down)->second);
  REQUIRE(silent);
  CHECK(silent->job == 0);
  CHECK(silent->since == Seconds(100));
  CHECK_THAT(loop.control_plane_summary(), Catch::Equals("down from 50.0 s to 4m 10s, events held: 1"));
}

TEST_CASE("drive loop: a job that ends while the control plane is down frees its GPUs only when it is back",
          "[unit][drive]") {
  Scenario s = drill(1, {job("a", "q", 8), job("b", "q", 8)});
  Controller c(s);
  Scripted x;
  x.run_for = Seconds(100);
  FaultPlayer none(s, {});
  DriveLoop loop(c, x, x, none, s.sim.horizon);
  loop.set_control_plane_outages({{Seconds(80), Seconds(60), 0}}, 8);  // down 80 s - 140 s: job a ends at 100 s
  std::vector<std::pair<std::size_t, bool>> changes;
  loop.on_control_plane = [&](std::size_t outage, bool starts) { changes.emplace_back(outage, starts); };
  CHECK(loop.run() == DriveLoop::Stop::Done);
  CHECK(x.log == std::vector<std::string>{"launch 0/1 at 0", "launch 1/1 at 140"});
  CHECK(c.record().jobs[0].end == Seconds(140));  // what the control plane knows: it learnt of the end at 140 s
  CHECK(c.record().jobs[1].end == Seconds(240));
  CHECK(changes == std::vector<std::pair<std::size_t, bool>>{{0, true}, {0, false}});
}
