#include "sweep/pool.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace tt::sweep {
namespace {

volatile sig_atomic_t g_interrupted = 0;
void on_signal(int) { g_interrupted = 1; }

struct Running {
  std::size_t task;
  pid_t pid;
  std::chrono::steady_clock::time_point start;
};

pid_t spawn(const Task& t) {
  std::vector<char*> argv;
  for (const auto& a : t.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::filesystem::create_directories(t.log.parent_path());
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(127);  // the pool died before the line above
    signal(SIGINT, SIG_DFL);
    signal(SIGTERM, SIG_DFL);
    const int fd = open(t.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd >= 0) {
      dup2(fd, STDOUT_FILENO);
      dup2(fd, STDERR_FILENO);
    }
    execv(argv[0], argv.data());
    _exit(127);
  }
  setpgid(pid, pid);  // also here: whichever of the two runs first, the group exists before any kill
  return pid;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

PoolOutcome run_pool(const std::vector<Task>& tasks, int jobs, const std::function<void(std::size_t, const TaskEnd&)>& on_end,
                     const std::function<void(int)>& on_tick) {
  g_interrupted = 0;
  struct sigaction sa{}, old_int{}, old_term{};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);

  std::vector<Running> running;
  std::size_t next = 0;
  PoolOutcome outcome;
  while (next < tasks.size() || !running.empty()) {
    if (g_interrupted) {
      for (const auto& r : running) kill(-r.pid, SIGKILL);  // not yet reaped: the group ids are still theirs
      for (const auto& r : running) waitpid(r.pid, nullptr, 0);
      outcome.interrupted = true;
      break;
    }
    while (next < tasks.size() && static_cast<int>(running.size()) < jobs) {
      running.push_back({next, spawn(tasks[next]), std::chrono::steady_clock::now()});
      ++next;
    }
    bool ended = false;
    for (std::size_t i = 0; i < running.size();) {
      const Running r = running[i];
      TaskEnd end;
      siginfo_t info{};
      // WNOWAIT: the leader stays a zombie, so its group id cannot be reused before the group is killed below.
      if (waitid(P_PID, static_cast<id_t>(r.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == r.pid) {
        end.kind = info.si_code == CLD_EXITED ? TaskEnd::Kind::Exited : TaskEnd::Kind::Signaled;
        end.code = info.si_status;
      } else if (seconds_since(r.start) > tasks[r.task].timeout_s) {
        end.kind = TaskEnd::Kind::TimedOut;
      } else {
        ++i;
        continue;
      }
      kill(-r.pid, SIGKILL);  // the whole tree of the run: past its timeout, or what it left behind
      waitpid(r.pid, nullptr, 0);
      end.wall_s = seconds_since(r.start);
      running.erase(running.begin() + static_cast<long>(i));
      on_end(r.task, end);
      ended = true;
    }
    if (on_tick) on_tick(static_cast<int>(running.size()));
    if (!ended) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  return outcome;
}

}  // namespace tt::sweep
