// Helpers of the real driver's tests: scratch directories under the build tree and small file edits.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace tt::testing {

inline std::filesystem::path real_scratch(const std::string& name) {
  auto dir = std::filesystem::path(TT_BINARY_DIR) / "test-out" / "real" / name;
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void overwrite(const std::filesystem::path& p, const std::string& data) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << data;
}

}  // namespace tt::testing
