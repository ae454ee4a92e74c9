#include "cli/real_supervisor.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "cli/commands.hpp"
#include "real/durable.hpp"

namespace tt::cli {
namespace {

constexpr int kMaxRestarts = 20;
constexpr double kRestartSeconds = 0.1;

// Real seconds to wait before the restart: the planned outage when the journal ends with its start.
double restart_delay(const Supervision& s, std::string& why) {
  why = "an unplanned crash";
  try {
    const auto outage = real::DurableRun::ends_in_outage(s.out / "run");
    if (!outage || *outage >= s.outages.size()) return kRestartSeconds;
    const ControlPlaneOutage& o = s.outages[*outage];
    why = "the control_plane_crash of /faults/" + std::to_string(o.entry) + ": down " + format_seconds(o.down) +
          " of scenario time";
    return o.down.value / s.time_scale;
  } catch (const std::exception&) {  // no journal yet, or unreadable: the resumed driver will say what is wrong
    return kRestartSeconds;
  }
}

pid_t start_resumed(const Supervision& s) {
  std::vector<std::string> args = {s.self, "real", "--resume", s.out.string(), "--supervised"};
  if (s.quiet) args.push_back("--quiet");
  std::fflush(nullptr);
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  ::execv(argv[0], argv.data());
  std::fprintf(stderr, "supervisor: exec %s: %s\n", argv[0], std::strerror(errno));
  ::_exit(kExitInternal);
}

}  // namespace

int supervise(const Supervision& s, const std::function<int()>& first_run) {
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("supervisor: fork");
    return kExitInternal;
  }
  if (pid == 0) {
    int rc = kExitInternal;
    try {
      rc = first_run();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "error: %s\n", e.what());
    }
    std::fflush(nullptr);
    ::_exit(rc);
  }
  for (int restarts = 0;; ++restarts) {
    if (pid < 0) {
      std::perror("supervisor: fork");
      return kExitInternal;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0)
      if (errno != EINTR) {
        std::perror("supervisor: waitpid");
        return kExitInternal;
      }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (restarts == kMaxRestarts) {
      std::fprintf(stderr, "supervisor: the driver died %d times; giving up (resume by hand: traintwin real --resume %s)\n",
                   kMaxRestarts + 1, s.out.c_str());
      return kExitInternal;
    }
    std::string why;
    const double delay = restart_delay(s, why);
    if (!s.quiet)
      std::fprintf(stderr, "supervisor: driver pid %d %s (%s); restarting it with --resume in %.3g s\n", pid,
                   WIFSIGNALED(status) ? ("killed by signal " + std::to_string(WTERMSIG(status))).c_str()
                                       : "ended",
                   why.c_str(), delay);
    std::this_thread::sleep_for(std::chrono::duration<double>(delay));
    pid = start_resumed(s);
  }
}

}  // namespace tt::cli
