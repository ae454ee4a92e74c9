#include "real/launcher.hpp"

#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "real/protocol.hpp"

namespace tt::real {
namespace {

int pidfd_open(pid_t pid) { return static_cast<int>(::syscall(SYS_pidfd_open, pid, 0)); }

// In the child between fork and exec: async-signal-safe calls only; a failure is written to the log and ends it.
[[noreturn]] void child_fail(const char* what) {
  int err = errno;
  char digits[16];
  int n = 0;
  do digits[n++] = static_cast<char>('0' + err % 10);
  while ((err /= 10) > 0 && n < 15);
  const char prefix[] = "traintwin: starting worker: ";
  (void)!::write(2, prefix, sizeof prefix - 1);
  (void)!::write(2, what, std::strlen(what));
  (void)!::write(2, ": errno ", 8);
  while (n > 0) (void)!::write(2, &digits[--n], 1);
  (void)!::write(2, "\n", 1);
  ::_exit(127);
}

}  // namespace

Process spawn_process(const std::vector<std::string>& argv, const std::filesystem::path& log_path, const SpawnAs& as) {
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<char*> cenv;
  if (as.env) {
    for (const auto& e : *as.env) cenv.push_back(const_cast<char*>(e.c_str()));
    cenv.push_back(nullptr);
  }
  if (as.uid && ::geteuid() != 0)
    throw SysError("run worker " + argv.front() + " as uid " + std::to_string(*as.uid) + " (the driver is not root)",
                   EPERM);

  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw_errno("pipe2 for worker " + argv.front());
  Fd read_end(pipe_fds[0]), write_end(pipe_fds[1]);
  Fd log(::open(log_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600));
  if (!log) throw_errno("open worker log " + log_path.string());
  Fd null(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!null) throw_errno("open /dev/null");
  const pid_t parent = ::getpid();

  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("fork for worker " + argv.front());
  if (pid == 0) {
    // Move the three descriptors above the targets first, so no dup2 clobbers another (fd 0-3 may be any of them).
    int w = ::fcntl(write_end.get(), F_DUPFD_CLOEXEC, 10);
    int l = ::fcntl(log.get(), F_DUPFD_CLOEXEC, 10);
    int n = ::fcntl(null.get(), F_DUPFD_CLOEXEC, 10);
    if (w < 0 || l < 0 || n < 0) child_fail("fcntl F_DUPFD_CLOEXEC");
    if (::dup2(n, 0) < 0 || ::dup2(l, 1) < 0 || ::dup2(l, 2) < 0 || ::dup2(w, 3) < 0) child_fail("dup2");
    if (as.uid) {
      const uid_t id = *as.uid;
      if (::setgroups(0, nullptr) != 0) child_fail("setgroups");
      if (::setresgid(id, id, id) != 0) child_fail("setresgid");
      if (::setresuid(id, id, id) != 0) child_fail("setresuid");
    }
    if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) child_fail("prctl PR_SET_PDEATHSIG");
    if (::getppid() != parent) ::_exit(126);  // the driver died before prctl took effect
    sigset_t none;
    sigemptyset(&none);
    if (::sigprocmask(SIG_SETMASK, &none, nullptr) != 0) child_fail("sigprocmask");
    ::signal(SIGPIPE, SIG_DFL);
    if (as.env)
      ::execve(cargv[0], cargv.data(), cenv.data());
    else
      ::execv(cargv[0], cargv.data());
    child_fail(cargv[0]);
  }

  Process p;
  p.pid = pid;
  write_end.reset();
  p.pidfd = Fd(pidfd_open(pid));
  if (!p.pidfd) {
    int err = errno;
    kill_and_reap(pid, "worker " + argv.front());
    throw SysError("pidfd_open for worker pid " + std::to_string(pid), err);
  }
  if (::fcntl(read_end.get(), F_SETFL, O_NONBLOCK) != 0) throw_errno("fcntl O_NONBLOCK on a report pipe");
  p.report = std::move(read_end);
  return p;
}

int reap(pid_t pid, const std::string& what) {
  int status = 0;
  for (;;) {
    pid_t r = ::waitpid(pid, &status, 0);
    if (r == pid) return status;
    if (r < 0 && errno == EINTR) continue;
    throw_errno("waitpid " + what + " (pid " + std::to_string(pid) + ")");
  }
}

void send_signal(pid_t pid, int sig, const std::string& what) {
  if (::kill(pid, sig) != 0 && errno != ESRCH)
    throw_errno("kill -" + std::to_string(sig) + " " + what + " (pid " + std::to_string(pid) + ")");
}

int speed_signal() { return SIGRTMIN + 1; }

void send_speed(pid_t pid, double speed, const std::string& what) {
  union sigval v;
  v.sival_int = speed_to_signal_value(speed);
  if (::sigqueue(pid, speed_signal(), v) != 0 && errno != ESRCH)
    throw_errno("sigqueue speed " + std::to_string(speed) + " to " + what + " (pid " + std::to_string(pid) + ")");
}

int kill_and_reap(pid_t pid, const std::string& what) {
  send_signal(pid, SIGKILL, what);
  return reap(pid, what);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status))
    return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" + ::strsignal(WTERMSIG(status)) + ")";
  return "ended with wait status " + std::to_string(status);
}

}  // namespace tt::real
