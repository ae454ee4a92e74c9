// DriveLoop: the one loop that feeds a Controller, for every driver. A driver supplies a Clock (simulated, real or
// virtual time) and an Executor (it carries out actions and fault changes on its backend, and queues what it
// observes as events); the loop decides nothing: it hands the Controller every queued event, plays the fault changes
// that fall due (core/drive/fault_player.hpp), lets the executor look at what runs, and calls Timer when the
// Controller's deadline is reached. Order at one instant: queued events, due fault changes (each followed by the
// events it caused), observations, then the Controller's timer, again until nothing is due; then it waits.
//
// Control-plane outages (core/model/control_plane.hpp) are the loop's own: while the control plane is down the loop
// hands the Controller nothing. What the executor observes is held, the Controller's timers wait, fault changes still
// strike the backend and running jobs go on. When it is back the loop hands over everything held, in order, at that
// time; a node that died meanwhile is reported first as its jobs' ranks silent since it died (what a heartbeat
// monitor that comes back sees), so detection counts from the death, not from the return.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <functional>
#include <optional>
#include <vector>

#include "core/control/controller.hpp"
#include "core/drive/fault_player.hpp"
#include "core/model/control_plane.hpp"

namespace tt {

class Clock {
 public:
  virtual ~Clock() = default;
  // Scenario time; never decreases.
  virtual Seconds now() = 0;
  // Returns at `deadline` (nullopt: whenever the executor may have news) or earlier when an event may be queued.
  virtual void wait_until(std::optional<Seconds> deadline) = 0;
};

class Executor {
 public:
  virtual ~Executor() = default;
  virtual void execute(const Action& action, Seconds now) = 0;
  // Plays one fault change on the backend; what it does to jobs comes back as events.
  virtual void inject(const FaultChange& change, const FaultSpec& fault, const FaultTarget& target, Seconds now) = 0;
  // The next event the executor observed, in the order observed.
  virtual std::optional<Event> next_event() = 0;
  // Looks at what runs at `now` (silent ranks, exits, completions due) and queues what it sees.
  virtual void observe(Seconds) {}
  // When observe() must run next even if nothing else happens; nullopt: only when woken.
  virtual std::optional<Seconds> next_observation() const { return std::nullopt; }
  // Work is still running that may report (the loop then waits even with nothing scheduled).
  virtual bool busy() const { return false; }
  // The backend failed (a bug in an actor): the loop stops at once.
  virtual bool failed() const { return false; }
  // Link throughput for the telemetry sample due now; nullopt when the backend measures none.
  virtual std::optional<NetworkSample> network_sample() { return std::nullopt; }
  // After each event the Controller handled, with its actions (already executed).
  virtual void handled(const Event&, const std::vector<Action>&, Seconds) {}
};

class DriveLoop {
 public:
  enum class Stop { Done, Horizon, Idle, Failed };

  DriveLoop(Controller& controller, Executor& executor, Clock& clock, FaultPlayer& faults, Seconds horizon)
      : c_(controller), x_(executor), clock_(clock), faults_(faults), horizon_(horizon) {}

  // Turns until the Controller is done, the horizon is reached, nothing can happen any more or the backend failed.
  // Does not call Controller::finish(): the driver does, at the time it chooses.
  Stop run();
  // Handles everything due now; returns false (and sets stop()) when the loop should end, else the instant to wait
  // for (nullopt: until woken).
  bool turn(std::optional<Seconds>& wake);
  // Hands the Controller one event of the driver's own and executes its actions.
  std::vector<Action> deliver(const Event& event);
  Stop stop() const { return stop_; }
  // Called with every event before the Controller handles it, and its time (observed.jsonl: core/io/observed_events).
  std::function<void(Seconds, const Event&)> record;
  long long events() const { return events_; }

  // The scenario's control-plane outages (core/io/control_plane_reader.hpp) and its GPUs per node.
  void set_control_plane_outages(std::vector<ControlPlaneOutage> outages, int gpus_per_node);
  // Called as each outage begins and ends, before the loop plays it (the real driver journals it and, at a start, may
  // end its own process: a real crash that a supervisor restarts with --resume, docs/reliability.md).
  std::function<void(std::size_t outage, bool starts)> on_control_plane;
  // A restarted driver: the first `count` outage changes (starts and ends, by time) were played before it, and the
  // attempts the Controller had launched (what runs where, which the loop otherwise learns from the Launch actions).
  void skip_control_plane_changes(std::size_t count);
  void launched(int job, int attempt, std::vector<int> gpus) { attempts_[job] = {attempt, std::move(gpus)}; }
  bool control_plane_down() const { return down_ > 0; }
  // Outages played so far and events held, for the report.
  std::string control_plane_summary() const;

 private:
  struct Held {
    Event event;
    Seconds at;  // when it was observed (a fault's change: when the change was due)
  };
  struct OutageChange {
    Seconds at;
    std::size_t outage;
    bool starts;
  };
  void drain(std::optional<Seconds> at = std::nullopt);
  std::optional<Seconds> next_control_plane_at() const;
  void control_plane(const OutageChange& change);
  void come_back(Seconds now);

  Controller& c_;
  Executor& x_;
  Clock& clock_;
  FaultPlayer& faults_;
  Seconds horizon_;
  Stop stop_ = Stop::Done;
  long long events_ = 0;
  Seconds timer_at_ = Seconds(-1);
  long long timers_at_once_ = 0;
  std::vector<ControlPlaneOutage> outages_;
  std::vector<OutageChange> outage_changes_;  // by time; a start before its own end
  std::size_t next_outage_ = 0;
  int gpus_per_node_ = 1;
  int down_ = 0;  // outages under way
  std::deque<Held> held_;
  std::map<int, std::pair<int, std::vector<int>>> attempts_;  // job -> (attempt, GPUs) of what the loop launched
  long long held_total_ = 0;
  std::vector<std::string> played_;  // "10m-20m: 12 events held" for the report
};

}  // namespace tt
