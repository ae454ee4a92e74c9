// Starting and ending worker processes. spawn_process forks and execs argv with fd 3 the write end of a fresh pipe
// (the report pipe, real/protocol.hpp), stdout and stderr appended to a log file (0600), stdin /dev/null, and
// PR_SET_PDEATHSIG so a worker dies with its driver. The caller gets the pid, the pipe's read end (non-blocking) and
// a pidfd that polls readable when the process exits; it must reap every process it spawned. SpawnAs gives the child
// its own environment (a worker's: its job's secrets and no other's) and, for a driver running as root, a uid and gid
// of its own (no supplementary groups), taken before PR_SET_PDEATHSIG since a change of credentials clears it.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "real/sys.hpp"

namespace tt::real {

struct Process {
  pid_t pid = -1;
  Fd report;  // read end of the report pipe, O_NONBLOCK
  Fd pidfd;   // readable once the process has exited
};

struct SpawnAs {
  std::optional<std::vector<std::string>> env;  // NAME=value entries; nullopt: the driver's environment
  std::optional<unsigned> uid;                  // uid and gid of the child; needs root
};

Process spawn_process(const std::vector<std::string>& argv, const std::filesystem::path& log_path,
                      const SpawnAs& as = {});

// Waits for an exited (or dying) process and returns its wait status; `what` names it in errors.
int reap(pid_t pid, const std::string& what);
// SIGKILL, then reap (a killed process is gone in moments, even a stopped one). Returns the wait status.
int kill_and_reap(pid_t pid, const std::string& what);
// kill(2) with a check; ESRCH (already gone, not yet reaped) is not an error.
void send_signal(pid_t pid, int sig, const std::string& what);

// sigqueue(3) of speed_signal() carrying `speed` (real/protocol.hpp); ESRCH is not an error.
void send_speed(pid_t pid, double speed, const std::string& what);

// "exited with code 1", "killed by signal 9 (Killed)".
std::string describe_wait_status(int status);

}  // namespace tt::real
