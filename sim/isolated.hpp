// run_isolated: runs a callable in a forked child process and returns the string it returned. SimGrid allows one
// engine per process, so a test (or a sweep) that runs several simulations runs each one here. The parent must not
// have started a SimGrid engine itself. Throws std::runtime_error when the callable throws (with its message), when
// the child dies on a signal or exits without answering; the error says which.
#pragma once

#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <exception>
#include <iostream>
#include <stdexcept>
#include <string>

namespace tt::sim {

template <class F>
std::string run_isolated(F&& fn) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error(std::string("run_isolated: pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    throw std::runtime_error(std::string("run_isolated: fork: ") + std::strerror(errno));
  }
  if (pid == 0) {  // child: answer "OK\n<result>" or "ERROR\n<message>", then leave without running atexit handlers
    close(fds[0]);
    // A crash is the parent's to report, not that of handlers inherited from the test framework.
    for (int sig : {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM}) std::signal(sig, SIG_DFL);
    std::string answer;
    try {
      answer = "OK\n" + std::string(fn());
    } catch (const std::exception& e) {
      answer = std::string("ERROR\n") + e.what();
    } catch (...) {
      answer = "ERROR\nan exception that is not a std::exception";
    }
    const char* p = answer.data();
    std::size_t left = answer.size();
    while (left > 0) {
      ssize_t n = write(fds[1], p, left);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      p += n;
      left -= static_cast<std::size_t>(n);
    }
    close(fds[1]);
    std::fflush(nullptr);
    std::cout.flush();
    std::cerr.flush();
    _exit(0);
  }
  close(fds[1]);
  std::string got;
  char buf[4096];
  for (;;) {
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got.append(buf, static_cast<std::size_t>(n));
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFSIGNALED(status))
    throw std::runtime_error("run_isolated: the child process died on signal " + std::to_string(WTERMSIG(status)) +
                             " (" + strsignal(WTERMSIG(status)) + ")");
  if (got.rfind("OK\n", 0) == 0) return got.substr(3);
  if (got.rfind("ERROR\n", 0) == 0) throw std::runtime_error(got.substr(6));
  throw std::runtime_error("run_isolated: the child process exited (status " +
                           std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ") without an answer");
}

}  // namespace tt::sim
