// The one drive loop: what it hands the Controller, in which order, and when it stops; with a scripted executor and
// a virtual clock (no backend, no wall time).
#include "core/drive/drive_loop.hpp"

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
  Scenario s = scenario(rail_cluster(2), {{"q", 16}}, {job("a", "q", 8)});
  s.sim.horizon = Seconds(1e6);
  s.recovery.detection_timeout = Seconds(60);
  s.telemetry.interval = Seconds(1e9);
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
