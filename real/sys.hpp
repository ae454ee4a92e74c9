// Checked system calls shared by the real driver and its workers. Every failure throws SysError whose message names
// the call, what it acted on (a path, a pid) and errno's text, e.g. "rename /run/j/x.tmp -> /run/j/x: No space left".
// Fd owns a file descriptor and closes it once.
#pragma once

#include <cstddef>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace tt::real {

class SysError : public std::runtime_error {
 public:
  SysError(const std::string& what_failed, int err);
  int error() const { return err_; }

 private:
  int err_;
};

// Throws SysError for `what_failed` with the current errno.
[[noreturn]] void throw_errno(const std::string& what_failed);

class Fd {
 public:
  Fd() = default;
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& o) noexcept : fd_(o.release()) {}
  Fd& operator=(Fd&& o) noexcept {
    if (this != &o) reset(o.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const { return fd_; }
  explicit operator bool() const { return fd_ >= 0; }
  int release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
  }
  void reset(int fd = -1);

 private:
  int fd_ = -1;
};

// Creates `dir` and any missing parents with mode 0700, then makes `dir` itself 0700 (also when it existed).
void make_private_dirs(const std::filesystem::path& dir);

// Writes `data` so that a crash leaves either the old file or the whole new one: a temporary file in the same
// directory, fsync, rename over `path`, fsync of the directory. The file gets mode 0600.
void write_file_durably(const std::filesystem::path& path, std::string_view data);

// The whole content of a file. Throws SysError when it cannot be opened or read.
std::string read_whole_file(const std::filesystem::path& path);

// write(2) of all `n` bytes, retrying on EINTR and short writes; `what` names the target in errors.
void write_all(int fd, const void* data, std::size_t n, const std::string& what);

// Seconds on CLOCK_MONOTONIC.
double monotonic_seconds();
// A number for logs and reports, printf style ("%.3g" by default).
std::string format_number(double value, const char* format = "%.3g");

// Sleeps until CLOCK_MONOTONIC reaches `deadline` (absolute, seconds); returns at once when it has passed.
void sleep_until(double deadline);

}  // namespace tt::real
