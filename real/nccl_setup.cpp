// The host-only half of real/nccl_collective.hpp (no CUDA or NCCL call): the unique id's file and the environment.
#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "real/nccl_collective.hpp"

namespace tt::real {

void write_nccl_unique_id(const std::filesystem::path& file, const std::string& hex) {
  const std::filesystem::path tmp = file.string() + ".tmp";
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) throw std::runtime_error("cannot create " + tmp.string() + " for the NCCL unique id");
  const std::string text = hex + "\n";
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
  ::close(fd);
  if (!written) throw std::runtime_error("cannot write the NCCL unique id to " + tmp.string());
  std::filesystem::rename(tmp, file);
}

std::string read_nccl_unique_id(const std::filesystem::path& file, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    std::ifstream in(file);
    std::string hex;
    if (in >> hex) {
      if (hex.size() != 256 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
        throw std::runtime_error(file.string() + " does not hold an NCCL unique id (256 hex digits)");
      return hex;
    }
    if (std::chrono::steady_clock::now() > deadline)
      throw std::runtime_error("no NCCL unique id appeared in " + file.string() + " in time");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

void apply_nccl_env(const std::vector<std::pair<std::string, std::string>>& env) {
  for (const auto& [name, value] : env)
    if (::setenv(name.c_str(), value.c_str(), 1) != 0) throw std::runtime_error("setenv " + name + " failed");
}

}  // namespace tt::real
