#include "real/sys.hpp"

#include <cstdio>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>

namespace tt::real {

SysError::SysError(const std::string& what_failed, int err)
    : std::runtime_error(what_failed + ": " + std::strerror(err)), err_(err) {}

void throw_errno(const std::string& what_failed) { throw SysError(what_failed, errno); }

void Fd::reset(int fd) {
  if (fd_ >= 0) ::close(fd_);  // close(2) errors on a descriptor we only read or already fsynced change nothing
  fd_ = fd;
}

void make_private_dirs(const std::filesystem::path& dir) {
  std::filesystem::path partial;
  for (const auto& part : dir) {
    partial /= part;
    if (partial.empty() || partial == partial.root_path()) continue;
    if (::mkdir(partial.c_str(), 0700) != 0 && errno != EEXIST) throw_errno("mkdir " + partial.string());
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) throw_errno("stat " + dir.string());
  if (!S_ISDIR(st.st_mode)) throw SysError("mkdir " + dir.string(), ENOTDIR);
  if ((st.st_mode & 0777) != 0700 && ::chmod(dir.c_str(), 0700) != 0) throw_errno("chmod 0700 " + dir.string());
}

void write_all(int fd, const void* data, std::size_t n, const std::string& what) {
  const char* p = static_cast<const char*>(data);
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw_errno("write " + what);
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
}

void write_file_durably(const std::filesystem::path& path, std::string_view data) {
  const std::filesystem::path tmp = path.string() + ".tmp." + std::to_string(::getpid());
  {
    Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
    if (!fd) throw_errno("open " + tmp.string());
    write_all(fd.get(), data.data(), data.size(), tmp.string());
    if (::fsync(fd.get()) != 0) throw_errno("fsync " + tmp.string());
    if (::close(fd.release()) != 0) throw_errno("close " + tmp.string());
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) throw_errno("rename " + tmp.string() + " -> " + path.string());
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  Fd dfd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!dfd) throw_errno("open directory " + dir.string());
  if (::fsync(dfd.get()) != 0) throw_errno("fsync directory " + dir.string());
}

std::string read_whole_file(const std::filesystem::path& path) {
  Fd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd) throw_errno("open " + path.string());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    ssize_t r = ::read(fd.get(), buf, sizeof buf);
    if (r < 0) {
      if (errno == EINTR) continue;
      throw_errno("read " + path.string());
    }
    if (r == 0) break;
    out.append(buf, static_cast<std::size_t>(r));
  }
  return out;
}

std::string format_number(double value, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

double monotonic_seconds() {
  timespec ts{};
  if (::clock_gettime(CLOCK_MONOTONIC, &ts) != 0) throw_errno("clock_gettime CLOCK_MONOTONIC");
  return static_cast<double>(ts.tv_sec) + ts.tv_nsec * 1e-9;
}

void sleep_until(double deadline) {
  if (!(deadline > monotonic_seconds())) return;
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(std::floor(deadline));
  ts.tv_nsec = static_cast<long>((deadline - std::floor(deadline)) * 1e9);
  if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
  int rc;
  while ((rc = ::clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr)) == EINTR) {
  }
  if (rc != 0) throw SysError("clock_nanosleep", rc);
}

}  // namespace tt::real
