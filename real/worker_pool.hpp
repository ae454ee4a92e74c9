// WorkerPool: the real driver's processes. It spawns one worker per rank of a launched attempt (real/worker.hpp),
// kills attempts, waits in poll(2) over the workers' report pipes and pidfds and a timerfd, and turns what the
// workers say or do into Controller events, in the order it sees them: progress, checkpoints (once every rank wrote
// and the manifests are complete), completion, the attempt's ranks falling silent (an exit, or no message for the
// silence threshold: JobStalled with Symptom::Silent since the rank was last heard), and a restore from another
// checkpoint than asked (RestoredFrom). It decides nothing: detection, retention and restore points are the
// Controller's (Launch carries them). Times are real seconds since the pool's start.
#pragma once

#include <sys/types.h>

#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/control/events.hpp"
#include "core/io/secrets_reader.hpp"
#include "core/model/scenario.hpp"
#include "real/measurement_log.hpp"
#include "real/sys.hpp"

namespace tt::real {

struct Options;
struct WorkerConfig;

struct Rank {
  int rank = 0;
  int gpu = 0;
  int node = 0;
  pid_t pid = -1;
  Fd report;
  Fd pidfd;
  std::string pending;    // bytes of a message not yet complete
  double last_heard = 0;  // real seconds since start
  bool done = false;
  bool exited = false;
  bool hello = false;  // it has said Hello: its speed signal handler is installed
  double speed = 1.0;  // the device speed the worker was last told (a straggler's is below 1)
  std::filesystem::path log;
};

struct Attempt {
  int job = 0;
  int attempt = 0;
  int world = 0;
  std::int64_t iterations = 0;
  std::int64_t progress = 0;
  int keep = 0;  // checkpoints kept on storage (Launch::checkpoint_keep; 0: all)
  double launched_at = 0;  // real seconds since the pool's start
  int hellos = 0;          // ranks that said Hello (all of them: the "startup" measurement is written)
  std::filesystem::path job_dir;
  std::vector<Rank> ranks;
  std::map<std::int64_t, std::pair<int, double>> checkpoints;  // iteration -> (ranks written, slowest write)
  int done = 0;
  bool killed = false;    // by a Kill action or at the end of the run
  bool reported = false;  // the Controller has been told it stalled (or its node is down)
  bool finished() const;
};

class WorkerPool {
 public:
  WorkerPool(const Scenario& scenario, const Options& options, double t0);
  ~WorkerPool();  // kills whatever still runs, without throwing

  double real_now() const;
  // Seconds of scenario time for the log's stamps (set by the driver before each call).
  std::function<void(const std::string&)> log;
  // Called for each rank of a launch with its node before the worker starts: its release (real/driver_release.hpp).
  std::function<void(const Launch&, int node, WorkerConfig&)> configure_worker;

  void launch(const Launch& launch, int* workers_started);
  void kill(int job, int attempt);
  void kill_all();
  // Node crash: SIGKILLs its workers; their attempts are reported by the Controller's NodeDown, not as silence.
  void crash_node(int node);
  // Hang: SIGSTOPs the node's workers; they fall silent.
  void stop_node(int node);
  void set_gpu_speed(int gpu, double speed);
  // Checkpoint corruption: flips a byte of rank 0's state in the checkpoint after `iteration` (false: none complete).
  bool corrupt_checkpoint(int job, std::int64_t iteration);

  // Waits until `real_deadline` (infinity: only for worker news) and reads what arrived.
  void wait(double real_deadline);
  // Reports ranks silent for longer than the silence threshold and forgets attempts whose ranks all exited.
  void observe();
  // The real time the next silence can be noticed; infinity when no rank is watched.
  double next_silence_check() const;
  bool any_running() const;
  int live_workers() const;
  std::optional<Event> next_event();

 private:
  struct Watch;
  void drain(Attempt& a, Rank& r);
  void on_message(Attempt& a, Rank& r, const struct WireMsg& m);
  void on_exit(Attempt& a, Rank& r);
  void stall(Attempt& a, const std::string& cause, double since);
  void tell_speed(Attempt& a, Rank& r);
  void kill_rank(Attempt& a, Rank& r);
  void kill_attempt(Attempt& a, bool noexcept_);
  void say(const std::string& line) const;
  const std::string& node_name(int node) const;
  std::string who(const Attempt& a, const Rank& r) const;

  const Scenario& sc_;
  const Options& opt_;
  const int gpn_;
  double t0_;
  Fd timer_;
  std::vector<double> gpu_speed_;  // 1 but for a straggling GPU
  std::set<int> hung_nodes_;       // nodes whose workers the driver stopped (a hang)
  std::vector<JobSecrets> secrets_;     // by job, read when the pool starts (values live in memory only)
  std::vector<std::string> parent_env_;  // the driver's environment, which workers inherit less every secret
  std::vector<std::unique_ptr<Attempt>> attempts_;
  std::deque<Event> events_;
  std::optional<MeasurementLog> measurements_;  // RUN_DIR/measurements.jsonl, opened at the first launch
};

}  // namespace tt::real
