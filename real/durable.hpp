// A durable real run (docs/reliability.md, "A driver that survives its own crash"). The driver journals, in
// RUN_DIR/journal (real/journal.hpp, one fdatasync per record), what the Controller needs to resume: the run's start
// (scenario document, options, clock), every event before the Controller handles it (write-ahead), a digest of the
// actions it answered with, each fault change the driver played with the events that change caused, and each
// control-plane outage change (core/model/control_plane.hpp).
//
// A restarted driver (`traintwin real --resume`) replays the journaled events, at their times, into a fresh Controller
// of the same scenario and checks that it answers with the journaled actions (the Controller decides from its events
// alone); it executes none of them. Workers cannot be reattached: they die with the driver (PR_SET_PDEATHSIG,
// real/launcher.hpp) and their report pipes with it; any still alive are killed. So every attempt the Controller
// believes is training is relaunched as the same attempt from the checkpoint the Controller knows (newer files are
// deleted and rewritten: training is deterministic), with the faults that struck it played again (a hang stops it
// anew, a straggler keeps its speed). Progress the Controller already heard is not told twice; events a fault caused
// that the crash kept from the Controller are delivered first. Nothing is decided twice: the Controller's decisions
// are the replayed ones, and an attempt keeps its number. Scenario time goes on from the run's first start.
#pragma once

#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/control/controller.hpp"
#include "core/drive/drive_loop.hpp"
#include "core/drive/fault_player.hpp"
#include "real/journal.hpp"

namespace tt::real {

class WorkerPool;

// A digest of a Controller's answer to one event: what the journal keeps to check a replay against.
std::string actions_digest(const std::vector<Action>& actions);

class DurableRun {
 public:
  // A new run: creates RUN_DIR/journal (0600) and journals `start` ({"scenario_file", "scenario", "options"}) with the
  // run's clock.
  static std::unique_ptr<DurableRun> begin(const std::filesystem::path& run_dir, nlohmann::json start);
  // A restarted driver: opens RUN_DIR/journal, cutting a torn or corrupt tail. std::invalid_argument when there is no
  // journal or no start record.
  static std::unique_ptr<DurableRun> reopen(const std::filesystem::path& run_dir);
  // The journal in RUN_DIR ends with the start of control-plane outage N (a drill's planned crash): N.
  static std::optional<std::size_t> ends_in_outage(const std::filesystem::path& run_dir);

  const nlohmann::json& start() const { return start_; }
  bool resumed() const { return resumed_; }
  // What reopen() cut off the journal (0: nothing) and why.
  std::uint64_t cut_bytes() const { return contents_.cut_bytes; }
  const std::string& cut_reason() const { return contents_.cut_reason; }

  // Replays the journal into `controller`, fresh and of the start's scenario (see above); `record` gets every replayed
  // event. std::runtime_error when the Controller answers otherwise than journaled.
  void replay(const Scenario& scenario, Controller& controller, const std::function<void(Seconds, const Event&)>& record);

  // --- the driver's hooks (real/driver.cpp) ---
  // CLOCK_MONOTONIC seconds at the run's first start: scenario time counts from there.
  double t0() const { return t0_; }
  // Before the first turn: advances `faults` and the loop's outages past the changes already played, journals every
  // event the loop hands the Controller (then calls `on_event`) and every outage change; with `crash_on_control_plane`
  // an outage's start ends this process with SIGKILL once journaled (a supervisor restarts it with --resume).
  void attach(DriveLoop& loop, FaultPlayer& faults, std::function<void(Seconds, const Event&)> on_event,
              bool crash_on_control_plane);
  // Resumed runs only: kills workers of the crashed driver still alive, replays the fault states, relaunches the
  // attempts that were training and queues the events to deliver first. `now`: scenario time.
  void relaunch(WorkerPool& pool, std::deque<Event>& events, int* workers_started, Seconds now,
                const std::function<void(const std::string&)>& log);
  // A fault change the driver played on its backend, with the events it caused.
  void fault(const FaultChange& change, Seconds now, const std::deque<Event>& caused);
  // The Controller's answer to the event journaled last.
  void actions(const std::vector<Action>& actions);
  // True for what a relaunched attempt reports that the Controller already knows (progress it heard, the restore
  // point the relaunch chose): not told twice.
  bool drop(const Event& event) const;
  // For the report's driver_info: the restarts, when, and what each cost.
  std::map<std::string, std::string> report_info() const;

 private:
  struct Relaunch {
    Launch launch;
    std::int64_t known_done = 0;  // iterations the Controller heard of
    bool struck_by_hang = false;
  };
  struct PlayedChange {
    FaultChange change;
    std::size_t record = 0;  // its index among the journal's records
  };
  // What the Controller believes of a job's current attempt, followed through the replay from its actions and the
  // events it heard (it ignores events of other attempts, and so does this).
  struct Tracked {
    Launch launch;
    std::size_t record = 0;  // the journal record whose answer launched it
    std::int64_t checkpoint = 0;
    std::int64_t done = 0;
    bool stalled = false;
  };

  DurableRun(Journal journal, JournalContents contents);
  void append_json(char type, const nlohmann::json& j);
  void follow(const Event& event, const std::vector<Action>& answered, std::size_t record);

  Journal journal_;
  JournalContents contents_;
  nlohmann::json start_;
  double t0_ = 0;
  double time_scale_ = 1;
  bool resumed_ = false;
  const Scenario* scenario_ = nullptr;
  std::vector<PlayedChange> played_;        // fault changes journaled, in order
  std::size_t outage_changes_ = 0;          // control-plane outage changes journaled
  std::map<int, Tracked> live_;             // job -> its current attempt, as the Controller believes
  std::vector<Relaunch> relaunch_;
  std::map<int, std::int64_t> known_done_;  // job -> iterations done, of relaunched attempts
  std::map<int, int> relaunched_attempt_;   // job -> attempt relaunched
  std::deque<Event> undelivered_;           // caused by the last fault change, not journaled as handed over
  Seconds last_t_;                          // time of the last journaled event
  std::vector<nlohmann::json> restarts_;    // the 'R' records: this and earlier restarts
};

}  // namespace tt::real
