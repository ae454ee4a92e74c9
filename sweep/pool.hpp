// A local pool of processes: runs commands with at most `jobs` at a time, each in a process group of its own with its
// output to a log file, and kills a command's whole process group (SIGKILL) once it runs past its timeout. A child
// also dies with the pool (PR_SET_PDEATHSIG). SIGINT or SIGTERM to the pool kills the running groups, lets nothing
// new start and makes run_pool() return `interrupted`.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace tt::sweep {

struct Task {
  std::vector<std::string> argv;  // argv[0]: the executable's path
  std::filesystem::path log;      // stdout and stderr
  double timeout_s = 600;
};

struct TaskEnd {
  enum class Kind { Exited, Signaled, TimedOut };
  Kind kind = Kind::Exited;
  int code = 0;  // exit code, or the signal
  double wall_s = 0;
};

struct PoolOutcome {
  bool interrupted = false;
};

// `on_end(i, end)` runs in this process as task i ends; `on_tick(running)` after each poll (for a progress line).
PoolOutcome run_pool(const std::vector<Task>& tasks, int jobs, const std::function<void(std::size_t, const TaskEnd&)>& on_end,
                     const std::function<void(int)>& on_tick = {});

}  // namespace tt::sweep
